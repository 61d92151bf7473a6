"""Where strata come from: the test set's own metadata, a strata file, or real benchmarks.

:func:`strata_table` joins a test set's query metadata (``intent``,
``source``, ... — the free-text columns left out) with an optional strata
file (``read_strata``: e.g. the demo's ``query_type`` and ``turn``), so any
column of either is a stratum column. :func:`load_comparison` reads everything
one breakdown needs — test set, the two runs, the strata table and the list
of files the scores come from — for the demo layout and two public
benchmarks, read in place (never copied):

``demo``
    ``<data_dir>/<split>.jsonl``, ``<data_dir>/runs/<split>/<config>.*`` and
    the strata file (default ``<data_dir>/<split>_strata.csv`` when present).
``codec``
    CODEC document ranking (``data_dir`` = the ``codec`` folder): qrels
    ``qrels/document_ndcg.qrels``, runs ``system_runs/runs/<config>.run.gz``
    (read in trec_eval order), strata from ``topics/topics.json`` field
    ``Domain`` (:func:`codec_domains`: finance, history, politics, 14 each).
``cast``
    TREC CAsT 2021 documents (``data_dir`` = the ``trec-cast-2021`` folder):
    qrels ``2021/trec-cast-qrels-docs.2021.qrel``, runs
    ``2021/baselines/document_runs/<config>.run.gz``, strata from the query id
    ``<topic>_<turn>`` (:func:`turn_depth`: 1-2, 3-6, >=7). Runs cover 81
    unjudged turns as well; score with ``extra="drop"``.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError
from ragnb.io import read_run, read_strata, read_test_set
from ragnb.io.strata import outside_note
from ragnb.run import Run
from ragnb.splits import read_round_runs
from ragnb.testset import TestSet

#: Test-set columns that hold free text or bookkeeping, never strata.
NOT_STRATA = ("query", "answer", "line", "judgments")
#: CAsT-style turn buckets: (low, high) inclusive, ``None`` for open-ended.
TURN_BINS: tuple[tuple[int, int | None], ...] = ((1, 2), (3, 6), (7, None))
DATASETS = ("demo", "codec", "cast")


def strata_table(test_set: TestSet, strata: pd.DataFrame | str | PathLike[str] | None = None
                 ) -> pd.DataFrame:
    """Every candidate stratum column for a test set's queries, one row per query.

    Parameters
    ----------
    test_set : TestSet
        Its query metadata columns (free text left out, :data:`NOT_STRATA`).
    strata : DataFrame or path, optional
        A strata table (``query_id`` + columns) or a file for
        :func:`ragnb.io.read_strata`. Annotated queries the test set lacks are
        left out and counted (``attrs["notes"]``); a column in both is an error.
    """
    meta = test_set.queries.drop(columns=[c for c in NOT_STRATA if c in test_set.queries])
    meta = meta.assign(query_id=meta["query_id"].astype("str"))
    if strata is None:
        meta.attrs["source"] = f"{test_set.source or test_set.name} (query metadata)"
        return meta.reset_index(drop=True)
    return join_strata(meta, strata)


def join_strata(table: pd.DataFrame, strata: pd.DataFrame | str | PathLike[str]
                ) -> pd.DataFrame:
    """Add a strata table's (or file's) columns to ``table``, checking ids and names."""
    if not isinstance(strata, pd.DataFrame):
        strata = read_strata(strata)
    source = strata.attrs.get("source", "strata")
    extra = strata.drop(columns=[c for c in ("line",) if c in strata])
    extra = extra.assign(query_id=extra["query_id"].astype("str"))
    unknown = pd.Index(extra["query_id"]).difference(table["query_id"])
    notes = table.attrs.get("notes", ()) + outside_note(len(unknown), source)
    extra = extra[~extra["query_id"].isin(unknown)]
    both = [c for c in extra.columns if c != "query_id" and c in table.columns]
    if both:
        raise InputError(f"column(s) {both} are in both the test set and the strata file",
                         source=source, key=both[0])
    out = table.merge(extra, on="query_id", how="left", validate="one_to_one")
    out.attrs["source"] = source
    out.attrs["notes"] = notes
    return out


def stratum_columns(table: pd.DataFrame, max_levels: int = 30) -> list[str]:
    """Columns usable as strata: 2 to ``max_levels`` distinct values (query_id excluded)."""
    return [c for c in table.columns if c != "query_id"
            and 2 <= table[c].nunique(dropna=True) <= max_levels]


def codec_domains(topics_json: str | PathLike[str]) -> pd.DataFrame:
    """CODEC topics' ``Domain`` field: ``query_id, domain`` (finance, history, politics)."""
    path = Path(topics_json)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read CODEC topics ({exc})", source=path) from None
    if not isinstance(data, dict):
        raise InputError("expected an object of topic id -> fields", source=path)
    rows = []
    for qid, fields in data.items():
        if not isinstance(fields, dict) or not isinstance(fields.get("Domain"), str):
            raise InputError("topic has no string field 'Domain'", source=path, key=qid)
        rows.append({"query_id": str(qid), "domain": fields["Domain"]})
    out = pd.DataFrame(rows)
    out.attrs["source"] = str(path)
    return out


def _bin_label(low: int, high: int | None) -> str:
    if high is None:
        return f">={low}"
    return str(low) if low == high else f"{low}-{high}"


def turn_depth(query_ids: Iterable, bins: Sequence[tuple[int, int | None]] = TURN_BINS,
               pattern: str = r"^(?P<topic>.+)_(?P<turn>\d+)$") -> pd.DataFrame:
    """Conversation turn from ids like ``106_3``: ``query_id, topic, turn, turn_depth``.

    ``turn_depth`` is an ordered categorical of the ``bins`` (default 1-2, 3-6,
    >=7), so tables list the buckets in turn order. An id the pattern does not
    match, or a turn in no bin, is an error naming it.
    """
    regex = re.compile(pattern)
    edges = list(bins)
    labels = [_bin_label(lo, hi) for lo, hi in edges]
    rows = []
    for qid in query_ids:
        m = regex.match(str(qid))
        if not m:
            raise InputError(f"query id does not match {pattern!r}", source="query ids",
                             key=str(qid))
        turn = int(m.group("turn"))
        bucket = next((lab for (lo, hi), lab in zip(edges, labels)
                       if turn >= lo and (hi is None or turn <= hi)), None)
        if bucket is None:
            raise InputError(f"turn {turn} is in no bin of {labels}", source="query ids",
                             key=str(qid))
        rows.append({"query_id": str(qid), "topic": m.group("topic"), "turn": turn,
                     "turn_depth": bucket})
    out = pd.DataFrame(rows, columns=["query_id", "topic", "turn", "turn_depth"])
    out["turn_depth"] = pd.Categorical(out["turn_depth"], categories=labels, ordered=True)
    out.attrs["source"] = "query ids <topic>_<turn>"
    return out


@dataclass(frozen=True)
class Comparison:
    """What one breakdown reads: test set, runs, strata table and the score inputs."""

    test_set: TestSet
    runs: list[Run]
    table: pd.DataFrame
    score_inputs: tuple[str, ...]
    extra: str = "error"  # how score() treats run queries the test set lacks

    @property
    def columns(self) -> list[str]:
        return stratum_columns(self.table)


def load_comparison(dataset: str, data_dir: str | PathLike[str], configs: Sequence[str], *,
                    split: str = "production", strata_file: str | PathLike[str] | None = None
                    ) -> Comparison:
    """Read a test set, its runs for ``configs`` and the strata table (see module docstring).

    Parameters
    ----------
    dataset : {"demo", "codec", "cast"}
    data_dir : path
        The dataset's folder.
    configs : sequence of str
        Run names (demo: ``round-00``; CODEC: ``document_bm25-tuned``; CAsT:
        ``org_convdr``).
    split : str
        Demo only: the test set ``<split>.jsonl``.
    strata_file : path, optional
        Extra strata columns (any dataset); demo default ``<split>_strata.csv``.
    """
    if dataset not in DATASETS:
        raise InputError(f"dataset must be one of {', '.join(DATASETS)}; got {dataset!r}",
                         key="dataset")
    root = Path(data_dir)
    if not root.is_dir():
        raise InputError("no such folder", source=root, key="data_dir")
    extra = "error"
    if dataset == "demo":
        test_set = read_test_set(root / f"{split}.jsonl", name=split)
        runs = read_round_runs(root / "runs" / split, configs)
        default = root / f"{split}_strata.csv"
        if strata_file is None and default.is_file():
            strata_file = default
        table = strata_table(test_set, strata_file)
    else:
        if dataset == "codec":
            qrels, run_dir = root / "qrels" / "document_ndcg.qrels", root / "system_runs" / "runs"
        else:
            qrels = root / "2021" / "trec-cast-qrels-docs.2021.qrel"
            run_dir = root / "2021" / "baselines" / "document_runs"
            extra = "drop"
        test_set = read_test_set(qrels)
        runs = []
        for config in configs:
            path = run_dir / f"{config}.run.gz"
            if not path.is_file():
                names = sorted(p.name.removesuffix(".run.gz") for p in run_dir.glob("*.run.gz"))
                raise InputError(f"no run {config!r}; runs here: {', '.join(names)}",
                                 source=run_dir, key=config)
            runs.append(read_run(path, name=config, order="score"))
        derived = (codec_domains(root / "topics" / "topics.json") if dataset == "codec"
                   else turn_depth(test_set.query_ids))
        table = strata_table(test_set, derived)
        if strata_file:
            table = join_strata(table, strata_file)
    inputs = (test_set.source, *(r.source for r in runs))
    return Comparison(test_set, runs, table, tuple(str(p) for p in inputs), extra)
