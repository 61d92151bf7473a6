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

The default is ``"rank"`` where the input has ranks, else ``"score"``.
:func:`validate_run` is the one place runs are checked.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ragnb._keys import duplicated_pairs
from ragnb.errors import InputError
from ragnb.testset import Note

Order = Literal["rank", "score"]
ORDERS = ("rank", "score")


@dataclass(frozen=True)
class Run:
    """One configuration's rankings (rows in ranking order, grouped by query)."""

    name: str
    table: pd.DataFrame
    order: Order
    source: str = ""
    notes: tuple[Note, ...] = field(default=())

    @property
    def query_ids(self) -> pd.Index:
        return pd.Index(self.table["query_id"].unique(), name="query_id")

    def __len__(self) -> int:
        return len(self.table)


def _block_starts(codes: np.ndarray) -> np.ndarray:
    """Boolean mask: row starts a new run of equal ``codes``."""
    start = np.ones(len(codes), dtype=bool)
    start[1:] = codes[1:] != codes[:-1]
    return start


def positions(codes: np.ndarray) -> np.ndarray:
    """0-based position of each row inside its block of equal consecutive codes."""
    n = len(codes)
    idx = np.arange(n)
    start = _block_starts(codes)
    first = np.maximum.accumulate(np.where(start, idx, 0))
    return idx - first


def _error_at(df: pd.DataFrame, mask: np.ndarray, source, message) -> InputError:
    row = df.loc[np.asarray(mask)].iloc[0]
    return InputError(message(row), source=source, line=int(row["line"]))


def validate_run(raw: pd.DataFrame, source: str | Path, order: Order | None = None,
                 name: str | None = None) -> Run:
    """Check a run and put its rows in ranking order.

    Errors (naming file and line): empty run, empty ids, a passage twice in one
    ranking, non-integer or missing ranks (order ``"rank"``), ranks with ties or
    gaps, non-finite scores (order ``"score"``).
    """
    source = str(source)
    if not len(raw):
        raise InputError("the run has no rows", source=source)
    df = raw if "line" in raw else raw.assign(line=np.arange(1, len(raw) + 1))
    has_rank = "rank" in df and not df["rank"].isna().all()
    has_score = "score" in df and not df["score"].isna().all()
    if order is None:
        order = "rank" if has_rank else "score"
    if order not in ORDERS:
        raise InputError(f"unknown ranking order {order!r}; choose one of {ORDERS}", source=source)
    if order == "rank" and not has_rank:
        raise InputError("order 'rank' needs a rank column", source=source)
    if order == "score" and not has_score:
        raise InputError("order 'score' needs a score column", source=source)
    for col in ("query_id", "passage_id"):
        if df[col].dtype != "str":
            df = df.assign(**{col: df[col].astype("str")})
        empty = (df[col].str.len() == 0).to_numpy()
        if empty.any():
            raise _error_at(df, empty, source, lambda r: f"empty {col}")

    qcodes, quniq = pd.factorize(df["query_id"], sort=False)
    if order == "rank":
        rank = pd.to_numeric(df["rank"], errors="coerce").to_numpy(dtype="float64")
        bad = ~np.isfinite(rank) | (rank != np.floor(rank))
        if bad.any():
            raise _error_at(df, bad, source, lambda r: f"rank {r['rank']!r} is not an integer")
        keys = (rank, qcodes)
    else:
        score = pd.to_numeric(df["score"], errors="coerce").to_numpy(dtype="float64")
        bad = ~np.isfinite(score)
        if bad.any():
            raise _error_at(df, bad, source, lambda r: f"score {r['score']!r} is not a finite number")
        keys = (score, qcodes)

    perm = _ranking_permutation(df, qcodes, keys, order)
    if perm is not None:
        df = df.iloc[perm].reset_index(drop=True)
        qcodes = qcodes[perm]

    # a passage twice in one ranking
    dup = duplicated_pairs(qcodes, df["passage_id"])
    if dup.any():
        row = df.loc[dup].iloc[0]
        first = df[(df["query_id"] == row["query_id"]) & (df["passage_id"] == row["passage_id"])]
        raise InputError(
            f"passage {row['passage_id']!r} appears more than once in the ranking of query "
            f"{row['query_id']!r} (lines {list(first['line'])})",
            source=source, line=int(row["line"]),
        )
    if order == "rank":
        _check_rank_sequence(df, qcodes, source)
    cols = ["query_id", "passage_id", "rank", "score", "line"]
    for col in ("rank", "score"):
        if col not in df:
            df[col] = np.nan
    return Run(name=name or Path(source).name.split(".")[0], table=df[cols], order=order,
               source=source)


def _ranking_permutation(df, qcodes, keys, order) -> np.ndarray | None:
    """Row permutation into ranking order, or None when rows already are in it."""
    primary, _ = keys
    n = len(df)
    same_q = np.zeros(n, dtype=bool)
    same_q[1:] = qcodes[1:] == qcodes[:-1]
    grouped = (np.diff(qcodes) >= 0).all() and (
        np.count_nonzero(_block_starts(qcodes)) == (qcodes.max() + 1))
    if order == "rank":
        ok = grouped and not (same_q[1:] & (primary[1:] < primary[:-1])).any()
        if ok:
            return None
        return np.lexsort((primary, qcodes))
    # score descending, then passage id descending (trec_eval)
    if grouped:
        worse = same_q[1:] & (primary[1:] > primary[:-1])
        tie = np.flatnonzero(same_q[1:] & (primary[1:] == primary[:-1]))
        if not worse.any():
            if not len(tie):
                return None
            pid = df["passage_id"].to_numpy()
            if all(pid[i + 1].encode() < pid[i].encode() for i in tie):
                return None
    pid_rank = _bytewise_rank(df["passage_id"])
    return np.lexsort((-pid_rank, -primary, qcodes))


def _bytewise_rank(values: pd.Series) -> np.ndarray:
    """Integer ranks of strings in byte-wise (strcmp) order."""
    uniq, inverse = np.unique(values.to_numpy(dtype=object).astype("U"), return_inverse=True)
    # numpy compares unicode by code point, which equals UTF-8 byte order
    return inverse


def _check_rank_sequence(df: pd.DataFrame, qcodes: np.ndarray, source) -> None:
    rank = pd.to_numeric(df["rank"]).to_numpy(dtype="int64")
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
    bad_start = start & (rank != 0) & (rank != 1)
    if bad_start.any():
        i = int(np.flatnonzero(bad_start)[0])
        r = df.iloc[i]
        raise InputError(
            f"the ranking of query {r['query_id']!r} starts at rank {rank[i]}, not at 1 (or 0)",
            source=source, line=int(r["line"]),
        )
