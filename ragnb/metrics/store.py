"""Per-query scores kept as a partitioned Parquet table, and read back as :class:`Scores`.

A sweep of hundreds of runs scored on a cluster (:mod:`ragnb.metrics.parallel`)
is a table too big to print and too costly to score twice; it is kept as one
Parquet file per config in a folder, Hive-style (``config=<name>/part-0.parquet``,
the name URI-encoded), so pyarrow, dask, DuckDB or Spark read it as one table
partitioned by config, and :func:`read_scores` gives back the :class:`Scores`
that :func:`ragnb.metrics.score.score` returned, bit for bit: the same
``config, query_id, metric, value`` rows in the same order, the label policy,
the notes (what was dropped, counted), the queries with no relevant passage and
each run's ranking order. Those live in ``_scores.json`` beside the partitions
(a leading underscore: Parquet readers skip it), with each partition's row count
and sha256, checked on reading, so a partition edited, lost or added is an error
that names it, never a silently different table.

The folder is written whole or not at all: into a temporary sibling, then renamed
over the target, which may only be an earlier score table (a folder holding
anything else is refused, never replaced).
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.filefacts import sha256_file
from ragnb.io.testset import Note
from ragnb.metrics.judged import Policy
from ragnb.metrics.score import Scores, plan, scoring

#: The file beside the partitions that describes them.
SIDECAR = "_scores.json"
#: What the sidecar's ``format`` says; bumped when the layout changes.
FORMAT = "ragnb-scores/1"
COLUMNS = ["query_id", "metric", "value"]


class _Table:
    """A score table being written: partitions go into a temporary sibling of ``target``,
    which :meth:`close` renames over it (an earlier score table only) once whole; leaving
    the ``with`` block by an error discards them.
    """

    def __init__(self, target: str | os.PathLike[str]):
        self.target = Path(target)
        if self.target.exists() and not (self.target / SIDECAR).is_file() and (
                not self.target.is_dir() or any(self.target.iterdir())):
            raise InputError("exists and is not a score table written by ragnb: give a new "
                             "folder (a score table is only ever replaced by another)",
                             source=self.target)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.work = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.", suffix=".tmp",
                                          dir=self.target.parent))
        self.parts: list[dict] = []

    def add(self, config: str, frame: pd.DataFrame) -> None:
        """One config's rows (``query_id, metric, value``), as its partition."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        part = Path(f"config={quote(str(config), safe='')}") / "part-0.parquet"
        (self.work / part).parent.mkdir()
        frame = frame[COLUMNS].reset_index(drop=True)
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), self.work / part)
        self.parts.append({"config": str(config), "path": part.as_posix(), "rows": len(frame),
                           "sha256": sha256_file(self.work / part)})

    def close(self, policy: str, notes, no_relevant, orders) -> Path:
        meta = {"format": FORMAT, "policy": policy, "parts": self.parts,
                "notes": [asdict(n) for n in notes],
                "no_relevant": [str(q) for q in no_relevant], "orders": dict(orders)}
        (self.work / SIDECAR).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        old = None
        if self.target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.", suffix=".old",
                                        dir=self.target.parent))
            os.replace(self.target, old / self.target.name)
        os.replace(self.work, self.target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.target

    def __enter__(self) -> _Table:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is not None:
            shutil.rmtree(self.work, ignore_errors=True)


def write_scores(scores: Scores, folder: str | os.PathLike[str]) -> Path:
    """Write ``scores`` as a partitioned Parquet table in ``folder`` (replaced whole)."""
    with _Table(folder) as table:
        for config, rows in scores.table.groupby("config", sort=False):
            table.add(str(config), rows)
        return table.close(scores.policy, scores.notes, scores.no_relevant, scores.orders)


@dataclass(frozen=True)
class Written:
    """What :func:`score_into` wrote: the folder, and everything of the :class:`Scores`
    but its rows (the means per config and metric instead, as :meth:`Scores.means`).
    """

    path: Path
    policy: str
    notes: tuple[Note, ...]
    orders: dict[str, str]
    means: pd.DataFrame


def score_into(folder: str | os.PathLike[str], test_set: Any, runs: Any, metrics: Any, *,
               policy: Policy = "lower", upper_grade: int | None = None,
               no_relevant: str = "keep", missing: str = "error", extra: str = "error",
               jobs: int = 1, cluster: Any = None,
               check: Callable[[pd.DataFrame], None] | None = None) -> Written:
    """:func:`ragnb.metrics.score.score` written straight into a score table: each run's
    partition is written as it arrives and let go, so the caller holds one run's scores
    at a time whatever the sweep's size (500 runs x 10^6 queries x 4 metrics is 2 x 10^9
    rows, a table no client holds). :func:`read_scores` of the folder equals
    ``score(...)`` with the same arguments, bit for bit. ``check(means)`` runs before
    the table is put in place, and may refuse it by raising (nothing is then written).
    """
    setting, run_list, notes, no_relevant_ids = plan(
        test_set, runs, metrics, policy=policy, upper_grade=upper_grade,
        no_relevant=no_relevant, missing=missing, extra=extra)
    orders, means = {}, []
    with _Table(folder) as table:
        for name, order, frames, run_notes in scoring(setting, run_list, jobs, cluster):
            orders[name] = order
            notes.extend(run_notes)
            rows = pd.concat(frames, ignore_index=True)
            del frames
            table.add(name, rows)
            means.append(rows.groupby("metric", sort=False)["value"]
                         .agg(mean="mean", n="count").reset_index().assign(config=name))
        summary = pd.concat(means, ignore_index=True)[["config", "metric", "mean", "n"]]
        summary["policy"] = policy
        if check is not None:
            check(summary)
        path = table.close(policy, notes, no_relevant_ids, orders)
    return Written(path, policy, tuple(notes), orders, summary)


def read_scores(folder: str | os.PathLike[str], configs: Sequence[str] | None = None
                ) -> Scores:
    """The :class:`Scores` a :func:`write_scores` folder holds, every partition verified;
    ``configs``: only these configs' partitions are read (in the order given), as a
    comparison of two configs of a sweep reads two files.

    Raises
    ------
    InputError
        Naming the folder or the partition: no sidecar, another format, a partition
        missing, added, or whose bytes or row count differ from what was written.
    """
    import pyarrow.parquet as pq

    root = Path(folder)
    side = root / SIDECAR
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"no {SIDECAR}: not a score table written by ragnb "
                         "(ragnb score --per-query --out FOLDER/)", source=root) from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot be read as a score table's description ({e})",
                         source=side) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"format {meta.get('format') if isinstance(meta, dict) else None!r}, "
                         f"expected {FORMAT!r}", source=side, key="format")
    listed_parts = {p["path"] for p in meta["parts"]}
    found = {p.relative_to(root).as_posix() for p in root.glob("config=*/*.parquet")}
    if found - listed_parts:
        raise InputError(f"partitions not written with the table: "
                         f"{', '.join(sorted(found - listed_parts))}", source=root)
    parts = {p["config"]: p for p in meta["parts"]}
    chosen = list(parts) if configs is None else list(configs)
    unknown = [c for c in chosen if c not in parts]
    if unknown:
        raise InputError(f"no config {unknown[0]!r} in the table; configs: "
                         f"{listed(list(parts), most=20)}", source=root, key="configs")
    frames = []
    for part in (parts[c] for c in chosen):
        path = root / part["path"]
        if not path.is_file():
            raise InputError("missing: the table is not whole", source=path)
        if sha256_file(path) != part["sha256"]:
            raise InputError("its bytes are not those written (edited or damaged)",
                             source=path)
        frame = pq.read_table(path).to_pandas()
        if len(frame) != part["rows"] or list(frame.columns) != COLUMNS:
            raise InputError(f"{len(frame)} rows of columns {listed(frame.columns)}, written "
                             f"{part['rows']} of {listed(COLUMNS)}", source=path)
        frames.append(frame.assign(config=part["config"]))
    table = (pd.concat(frames, ignore_index=True) if frames
             else pd.DataFrame(columns=["config", *COLUMNS]))
    kept = set(chosen)
    return Scores(table[["config", *COLUMNS]], meta["policy"],
                  tuple(Note(**note) for note in meta["notes"]
                        if configs is None or not note.get("subject")
                        or note["subject"] in kept),
                  pd.Index(meta["no_relevant"], dtype=object),
                  {c: meta["orders"][c] for c in chosen if c in meta["orders"]})
