"""Where strata come from: the test set's own metadata and a strata file.

:func:`strata_table` joins a test set's query metadata (``intent``,
``source``, ... — the free-text columns left out) with an optional strata
table or file (``read_strata``: e.g. the demo's ``query_type`` and ``turn``,
CODEC's ``topics.json`` ``Domain``), so any column of either is a stratum
column. :class:`Comparison` is what one breakdown reads — test set, the runs,
the strata table and the files the scores come from — as made by
:meth:`ragnb.workspace.Workspace.comparison` from a workspace (no dataset is
known here by name). :func:`turn_depth` derives conversational turn buckets
from ids like ``106_3``.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike

import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io import read_strata
from ragnb.io.run import Run
from ragnb.io.strata import outside_note
from ragnb.io.testset import TestSet

#: Test-set columns that hold free text or bookkeeping, never strata.
NOT_STRATA = ("query", "answer", "line", "judgments")
#: CAsT-style turn buckets: (low, high) inclusive, ``None`` for open-ended.
TURN_BINS: tuple[tuple[int, int | None], ...] = ((1, 2), (3, 6), (7, None))


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
        raise InputError(f"column(s) "
                         f"{listed(both, most=20)} are in both the test set and the strata file",
                         source=source, key=both[0])
    out = table.merge(extra, on="query_id", how="left", validate="one_to_one")
    out.attrs["source"] = source
    out.attrs["notes"] = notes
    return out


def stratum_columns(table: pd.DataFrame, max_levels: int = 30) -> list[str]:
    """Columns usable as strata: 2 to ``max_levels`` distinct values (query_id excluded)."""
    return [c for c in table.columns if c != "query_id"
            and 2 <= table[c].nunique(dropna=True) <= max_levels]


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
            raise InputError(f"turn {turn} is in no bin of "
                             f"{listed(labels, most=20)}", source="query ids",
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


#: A default stratum column needs this many queries in its median stratum.
MIN_MEDIAN_STRATUM = 5
#: Values longer than this (median, characters) make a column free text, never strata.
MAX_LABEL_CHARS = 40


@dataclass(frozen=True)
class StratumChoice:
    """The default stratum column :func:`suggest_stratum` picks, and why.

    ``column`` is "" when no column qualifies; ``reason`` says why the column was
    chosen (or none), ``alternatives`` describes the other categorical columns and
    ``free_text`` lists the columns left out as free text.
    """

    column: str
    reason: str
    alternatives: tuple[str, ...] = ()
    free_text: tuple[str, ...] = ()
    #: The chosen column's labels that differ only in case or spaces (issue 33 #6):
    #: the most frequent spelling -> every spelling of it.
    near_duplicates: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def label_key(label: str) -> str:
    """A stratum label with case and runs of spaces set aside: ``" Long  answer"`` ->
    ``"long answer"``.
    """
    return " ".join(label.split()).casefold()


def near_duplicate_labels(values: pd.Series) -> dict[str, tuple[str, ...]]:
    """Labels equal once case and spaces are set aside (``Long answer`` / ``long  answer``):
    the most frequent spelling (ties: the first in sort order) -> all its spellings, sorted.

    >>> near_duplicate_labels(pd.Series(["factoid", "Factoid", "factoid", "list"]))
    {'factoid': ('Factoid', 'factoid')}
    """
    counts = values.dropna().astype(str).value_counts()
    groups: dict[str, list[str]] = {}
    for label in sorted(counts.index):
        groups.setdefault(label_key(label), []).append(label)
    return {max(g, key=lambda x: (counts[x], -g.index(x))): tuple(sorted(g))
            for g in groups.values() if len(g) > 1}


def suggest_stratum(table: pd.DataFrame, max_levels: int = 30) -> StratumChoice:
    """A default stratum column: categorical, never free text, with enough queries a stratum.

    Candidates have 2 to ``max_levels`` distinct values on the test set's queries;
    a column whose values are mostly distinct (more than half the queries) or long
    (median over :data:`MAX_LABEL_CHARS` characters) is free text and left out.
    Of the rest, the one with the largest median stratum size wins, if that median
    is at least :data:`MIN_MEDIAN_STRATUM` (CAsT 2021: the turn number, median 18
    queries a turn, over the conversation, 19 strata of median 8).
    """
    n = len(table)
    stats, free = [], []
    for c in table.columns:
        if c in ("query_id", "line"):
            continue
        values = table[c].dropna()
        # sized as the strata would be once labels that differ only in case or spaces are
        # merged (the merge init offers): `Factoid` beside `factoid` is not a stratum
        sizes = values.astype("str").map(label_key).value_counts()
        if len(sizes) < 2:
            continue
        text = values.astype("str")
        if len(sizes) > n / 2 or (pd.api.types.is_object_dtype(values.dtype)
                                  and text.str.len().median() > MAX_LABEL_CHARS):
            free.append(c)
            continue
        if len(sizes) > max_levels:
            continue
        stats.append((float(sizes.median()), -len(sizes), c, int(sizes.min())))
    if not stats:
        return StratumChoice("", "no column has 2 to "
                                 f"{max_levels} values that are not free text", (), tuple(free))
    stats.sort(reverse=True)
    median, neg_levels, column, smallest = stats[0]
    described = [f"{c} ({-k} values, median {m:g} queries)" for m, k, c, _ in stats[1:]]
    if median < MIN_MEDIAN_STRATUM:
        return StratumChoice("", f"no column has a median stratum of {MIN_MEDIAN_STRATUM} "
                                 f"queries or more (best: {column}, median {median:g})",
                             tuple([f"{column} ({-neg_levels} values, median {median:g} queries)"]
                                   + described), tuple(free))
    return StratumChoice(column, f"{-neg_levels} values, median {median:g} queries a stratum "
                                 f"(smallest {smallest}): the largest median of the categorical "
                                 "columns", tuple(described), tuple(free),
                         near_duplicate_labels(table[column]))
