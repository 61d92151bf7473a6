"""Runs: one configuration's ranked passages per query.

A run's table has columns ``query_id, passage_id, rank, score, line``. After
:func:`validate_run` its rows are grouped by query (first-appearance order) and,
within a query, in ranking order, so every later step reads positions from row
order. The order is explicit:

``"rank"``
    the file's rank column (JSONL lists: list position). Ranks of a query must be
    distinct consecutive integers starting at 0 or 1; ties or gaps are errors.
``"score"``
    score descending, ties broken by passage id descending — trec_eval's order
    (byte-wise comparison, as ``strcmp``). Ranks are ignored.

The default is ``"score"`` where the input has scores (TREC run files: trec_eval's
order; rank gaps are fine), else ``"rank"`` (JSONL lists). When a run has both
columns and its ranks disagree with its scores, the run carries a note
(``rank_disagrees``) counting the queries affected, whichever order is used.
:func:`validate_run` is the one place runs are checked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io._columns import id_column, line_numbers
from ragnb.io.keys import as_arrow, block_codes, duplicated_pairs, take_sorted
from ragnb.io.testset import Note
from ragnb.vocab import ORDERS

Order = Literal["rank", "score"]


@dataclass(frozen=True)
class Run:
    """One configuration's rankings (rows in ranking order, grouped by query)."""

    name: str
    table: pd.DataFrame
    order: Order
    source: str = ""
    notes: tuple[Note, ...] = field(default=())
    #: Queries the file lists with an empty ranking (a JSON run's ``"q": []``): the
    #: retriever answered with nothing, which is not the same as leaving a query out.
    empty: tuple[str, ...] = field(default=())

    @property
    def query_ids(self) -> pd.Index:
        """Distinct query ids in order of first appearance (``str`` dtype, as test sets')."""
        return block_codes(self.table["query_id"])[1].rename("query_id")

    def __len__(self) -> int:
        return len(self.table)


def _block_starts(codes: np.ndarray) -> np.ndarray:
    """Boolean mask: row starts a new run of equal ``codes``."""
    start = np.ones(len(codes), dtype=bool)
    start[1:] = codes[1:] != codes[:-1]
    return start


def positions(codes: np.ndarray) -> np.ndarray:
    """0-based position of each row in its block of equal consecutive codes (int32 if it fits)."""
    n = len(codes)
    dtype = np.int32 if n < 2**31 else np.int64
    heads = np.flatnonzero(_block_starts(codes)).astype(dtype)
    out = np.repeat(heads, np.diff(np.r_[heads, n]))  # each row's block head
    step = 1 << 22
    for s in range(0, n, step):  # row - head, in place: no full-length temporaries
        np.subtract(np.arange(s, min(s + step, n), dtype=dtype), out[s: s + step],
                    out=out[s: s + step])
    return out


def _error_at(df: pd.DataFrame, mask: np.ndarray, source, message) -> InputError:
    i = int(np.argmax(np.asarray(mask)))
    row = df.iloc[i]
    return InputError(message(row), source=source, line=int(row["line"]))


def validate_run(raw: pd.DataFrame, source: str | Path, order: Order | None = None,
                 name: str | None = None) -> Run:
    """Check a run and put its rows in ranking order.

    Errors (naming file and line): empty run, empty ids, a passage twice in one
    ranking, non-integer or missing ranks (order ``"rank"``), ranks with ties or
    gaps, non-finite scores (order ``"score"``).

    The returned table is new (the input is not modified): ``query_id`` and
    ``passage_id`` as arrow strings (``string[pyarrow]``, see
    :data:`ragnb.io.keys.ID_DTYPE`), ``rank`` and ``score`` as float64 (NaN where
    the input has none), ``line`` as int32 (int64 past 2**31).
    """
    source = str(source)
    n = len(raw)
    if not n:
        raise InputError("the run has no rows", source=source)
    has_rank = "rank" in raw and not raw["rank"].isna().all()
    has_score = "score" in raw and not raw["score"].isna().all()
    chosen = order is not None   # a run's order the user named, not the default
    if order is None:
        order = "score" if has_score else "rank"
    if order not in ORDERS:
        raise InputError(f"unknown ranking order {order!r}; choose one of "
                         f"{listed(ORDERS, most=20)}", source=source)
    if order == "rank" and not has_rank:
        raise InputError("order 'rank' needs a rank column", source=source)
    if order == "score" and not has_score:
        raise InputError("order 'score' needs a score column", source=source)
    line = line_numbers(raw, n)
    query = id_column(raw["query_id"], "query_id", line, source)
    passage = id_column(raw["passage_id"], "passage_id", line, source)
    columns = {"query_id": query, "passage_id": passage}
    for col in ("rank", "score"):
        if col in raw:
            values = raw[col]
            if values.dtype != np.float64:
                values = pd.to_numeric(values, errors="coerce").astype(np.float64)
            columns[col] = values.to_numpy(dtype=np.float64)
        else:
            columns[col] = np.full(n, np.nan)
    columns["line"] = line
    df = pd.DataFrame(columns, copy=False)

    qcodes, _ = block_codes(query)
    primary = columns["rank" if order == "rank" else "score"]
    starts = _block_starts(qcodes)
    # the usual case: grouped rankings whose ranks step by exactly 1 are in order, and
    # finite; they are integers when each ranking starts at one (checked on the heads)
    ranks_ok = order == "rank" and np.count_nonzero(starts) == int(qcodes.max()) + 1 and bool(
        ((np.diff(primary) == 1) | starts[1:]).all())
    if ranks_ok:
        heads = np.flatnonzero(starts)
        bad = primary[heads] != np.floor(primary[heads])
        if bad.any():
            raise _error_at(_with_raw(df, raw, "rank"), _rows_mask(n, heads[bad]), source,
                            lambda r: f"rank {_show(r['rank'])} is not an integer")
    elif order == "rank":
        bad = ~np.isfinite(primary) | (primary != np.floor(primary))
        if bad.any():
            raise _error_at(_with_raw(df, raw, "rank"), bad, source,
                            lambda r: f"rank {_show(r['rank'])} is not an integer")
    else:
        bad = ~np.isfinite(primary)
        if bad.any():
            raise _error_at(_with_raw(df, raw, "score"), bad, source,
                            lambda r: f"score {_show(r['score'])} is not a finite number")

    perm = None if ranks_ok else _ranking_permutation(df, qcodes, primary, order)
    if perm is not None:
        df = df.take(perm).reset_index(drop=True)
        qcodes = qcodes[perm]

    # a passage twice in one ranking
    dup = duplicated_pairs(qcodes, df["passage_id"])
    if dup.any():
        row = df.iloc[int(np.argmax(dup))]
        first = df[(df["query_id"] == row["query_id"]) & (df["passage_id"] == row["passage_id"])]
        raise InputError(
            f"passage {row['passage_id']!r} appears more than once in the ranking of query "
            f"{row['query_id']!r} (lines {listed(first['line'])})",
            source=source, line=int(row["line"]),
        )
    if ranks_ok:
        _check_rank_starts(df, heads, source)
    elif order == "rank":
        _check_rank_sequence(df, qcodes, source)
    name = name or Path(source).name.split(".")[0]
    notes: tuple[Note, ...] = ()
    if has_rank and has_score:
        disagree = _rank_score_disagreements(df, qcodes, order)
        if disagree:
            other = "rank" if order == "score" else "score"
            notes = (Note("rank_disagrees", disagree,
                          f"run {name}: queries whose rank column disagrees with the scores "
                          f"(trec_eval's order: score descending, docno descending); ranked "
                          f"by {order}{', as chosen' if chosen else ' (the default)'}; for the "
                          f"other: --order {other}, or "
                          f"[workspace] order = \"{other}\" in ragnb.toml (Python: "
                          f"order=\"{other}\")", total=int(np.unique(qcodes).size),
                          subject=name),)
    return Run(name=name, table=df, order=order, source=source, notes=notes)


def _rank_score_disagreements(df: pd.DataFrame, qcodes: np.ndarray, order: Order) -> int:
    """Queries whose rank column does not increase along trec_eval's score order."""
    if order == "score":
        rank = df["rank"].to_numpy()
        codes = qcodes
    else:
        perm = _ranking_permutation(df, qcodes, df["score"].to_numpy(), "score")
        rank = df["rank"].to_numpy() if perm is None else df["rank"].to_numpy()[perm]
        codes = qcodes if perm is None else qcodes[perm]
    same = codes[1:] == codes[:-1]
    bad = same & ~(rank[1:] > rank[:-1])
    return len(np.unique(codes[1:][bad]))


def _show(value) -> str:
    """A value for an error message: numbers as written (1.5, inf), text quoted."""
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return repr(value)


def _rows_mask(n: int, rows: np.ndarray) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return mask


def _with_raw(df: pd.DataFrame, raw: pd.DataFrame, col: str) -> pd.DataFrame:
    """``df`` with column ``col`` as the user wrote it (for error messages)."""
    return df.assign(**{col: raw[col].to_numpy()})


def _ranking_permutation(df, qcodes, primary, order) -> np.ndarray | None:
    """Row permutation into ranking order, or None when rows already are in it."""
    starts = _block_starts(qcodes)
    same_q = ~starts[1:]
    grouped = np.count_nonzero(starts) == int(qcodes.max()) + 1
    if order == "rank":
        ok = grouped and not (same_q & (primary[1:] < primary[:-1])).any()
        if ok:
            return None
        return np.lexsort((primary, qcodes))
    # score descending, then passage id descending (trec_eval)
    if grouped:
        worse = same_q & (primary[1:] > primary[:-1])
        tie = np.flatnonzero(same_q & (primary[1:] == primary[:-1]))
        if not worse.any():
            if not len(tie):
                return None
            pid = as_arrow(df["passage_id"])
            after = take_sorted(pid, tie + 1).to_pylist()
            before = take_sorted(pid, tie).to_pylist()
            if all(a.encode() < b.encode() for a, b in zip(after, before)):
                return None
    pid_rank = _bytewise_rank(df["passage_id"])
    return np.lexsort((-pid_rank, -primary, qcodes))


def _bytewise_rank(values: pd.Series) -> np.ndarray:
    """Integer ranks of strings in byte-wise (strcmp) order."""
    uniq, inverse = np.unique(values.to_numpy(dtype=object).astype("U"), return_inverse=True)
    # numpy compares unicode by code point, which equals UTF-8 byte order
    return inverse


def _check_rank_sequence(df: pd.DataFrame, qcodes: np.ndarray, source) -> None:
    rank = df["rank"].to_numpy(dtype=np.int64)
    start = _block_starts(qcodes)
    step = np.diff(rank)
    inner = ~start[1:]
    tie = inner & (step == 0)
    if tie.any():
        i = int(np.flatnonzero(tie)[0]) + 1
        r = df.iloc[i]
        raise InputError(
            f"rank {rank[i]} is given twice in the ranking of query {r['query_id']!r} "
            f"(lines {int(df['line'].iloc[i - 1])} and {int(r['line'])}); "
            "fix the ranks or rank by score (--order score, order='score')",
            source=source, line=int(r["line"]),
        )
    gap = inner & (step != 1)
    if gap.any():
        i = int(np.flatnonzero(gap)[0]) + 1
        r = df.iloc[i]
        raise InputError(
            f"ranks of query {r['query_id']!r} jump from {rank[i - 1]} to {rank[i]} (a gap); "
            "fix the ranks or rank by score (--order score, order='score': trec_eval's order)",
            source=source, line=int(r["line"]),
        )
    _check_rank_starts(df, np.flatnonzero(start), source)


def _check_rank_starts(df: pd.DataFrame, heads: np.ndarray, source) -> None:
    """Each ranking starts at rank 1 (or 0)."""
    first = df["rank"].to_numpy()[heads]
    bad = (first != 0) & (first != 1)
    if bad.any():
        i = int(heads[np.argmax(bad)])
        r = df.iloc[i]
        raise InputError(
            f"the ranking of query {r['query_id']!r} starts at rank {int(r['rank'])}, "
            "not at 1 (or 0)", source=source, line=int(r["line"]),
        )
