"""A run joined to the judgments, and its views under a label policy.

:class:`JudgmentIndex` holds one test set's judgments in arrays (built once);
:func:`judge_run` attaches each retrieved passage's grade (NaN = unjudged);
:meth:`JudgedRun.view` applies a label policy and a cut-off, which is all a
metric kernel needs.

Label policies for unjudged passages
------------------------------------
``lower``
    count them as not relevant (grade 0): the usual score, and the pessimistic
    one for a system whose passages were not in the judging pool.
``condensed``
    remove them from the ranking, then cut at k (Sakai 2007, "condensed lists";
    trec_eval's ``-J``/``judged_docs_only_flag``).
``upper``
    count them as relevant at ``upper_grade`` (default: the top grade) and add
    them to the ideal ranking, so nDCG's ideal DCG and recall's denominator grow
    too. This is the seed's optimistic policy, not a bound: see
    :mod:`ragnb.labelbias` for exact bounds.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import pyarrow as pa

from ragnb.errors import InputError, listed
from ragnb.io.keys import (
    as_arrow,
    codes_for,
    matching_pairs,
    parallel_map,
    release_memory,
    take_sorted,
)
from ragnb.io.run import Run, positions
from ragnb.io.testset import Note, TestSet
from ragnb.vocab import POLICIES

Policy = Literal["lower", "condensed", "upper"]


@dataclass(frozen=True)
class JudgmentIndex:
    """One test set's judgments as arrays, built once and shared by every run.

    ``jq[i]`` is the query index (into ``query_ids``; int32) of judgment i,
    ``jgrade`` its grade (int64); ``passage_id`` shares the judgments table's
    arrow strings; ``levels`` are the distinct grades in descending order and
    ``counts[q, j]`` the number of judgments of query q with grade ``levels[j]``
    — all an ideal ranking needs.
    """

    query_ids: pd.Index
    jq: np.ndarray
    jgrade: np.ndarray
    passage_id: pa.ChunkedArray
    levels: np.ndarray
    counts: np.ndarray
    top_grade: int
    source: str
    pooled_q: np.ndarray | None = None
    pooled_passage: pa.ChunkedArray | None = None

    @classmethod
    def from_test_set(cls, test_set: TestSet) -> JudgmentIndex:
        qids = pd.Index(test_set.queries["query_id"].astype("str"), name="query_id")
        j = test_set.judgments
        jq = codes_for(j["query_id"], qids)
        if len(jq) and jq.min() < 0:  # judgments for a query the query table lacks
            row = j.iloc[int(np.argmax(jq < 0))]
            raise InputError(f"judgment for query {row['query_id']!r}, which has no query entry",
                             source=test_set.source, line=int(row["line"]))
        grade = j["grade"].to_numpy(dtype=np.int64)
        levels, counts = _grade_counts(jq, grade, len(qids))
        release_memory()  # the counting's temporaries, before a run is joined
        pooled = test_set.pooled
        pooled_q = pooled_passage = None
        if pooled is not None and len(pooled):
            pooled_q = codes_for(pooled["query_id"], qids)
            pooled_passage = as_arrow(pooled["passage_id"])
        return cls(qids, jq, grade, as_arrow(j["passage_id"]), levels.astype(np.float64),
                   counts, int(grade.max()) if len(grade) else 0, test_set.source,
                   pooled_q, pooled_passage)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def relevant_counts(self, rel: int = 1) -> np.ndarray:
        """Judged passages with grade >= ``rel``, per query."""
        return self.counts[:, self.levels >= rel].sum(axis=1)


def _grade_counts(jq: np.ndarray, grade: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct grades (descending) and the judgments per query and grade, ``(n, levels)``."""
    if len(grade) and grade.max() < 1 << 8:  # the usual small scale: one bincount
        width = int(grade.max()) + 1
        full = np.bincount(jq.astype(np.int64) * width + grade,
                           minlength=n * width).reshape(n, width)
        levels = np.flatnonzero(full.sum(axis=0))[::-1]
        return levels, full[:, levels]
    levels, level_of = np.unique(-grade, return_inverse=True)
    counts = np.bincount(jq.astype(np.int64) * len(levels) + level_of,
                         minlength=n * len(levels)).reshape(n, len(levels))
    return -levels, counts


@dataclass(frozen=True)
class JudgedRun:
    """Retrieved passages with their grades, grouped by query in index order.

    ``q`` is non-decreasing; within a query rows are in ranking order; ``pos``
    is the 0-based rank; ``unjudged`` marks the passages without a judgment and
    ``graded`` holds the grades, 0 where unjudged (what the ``lower`` policy reads,
    so its views share these arrays instead of copying them); :attr:`grade` is
    the grade with NaN where unjudged. ``q`` and ``pos`` are int32 (int64 past
    2**31 rows), ``graded`` float64. The arrays are read-only.
    """

    config: str
    index: JudgmentIndex
    q: np.ndarray
    pos: np.ndarray
    graded: np.ndarray
    unjudged: np.ndarray
    notes: tuple[Note, ...] = ()
    pooled: np.ndarray | None = None

    def __post_init__(self) -> None:
        for a in (self.q, self.pos, self.graded, self.unjudged, self.pooled):
            if a is not None:
                a.flags.writeable = False  # shared with the views

    @property
    def grade(self) -> np.ndarray:
        """The grade of each row, NaN where the passage is unjudged (a new array)."""
        return np.where(self.unjudged, np.nan, self.graded)

    @property
    def n_queries(self) -> int:
        return self.index.n_queries

    def view(self, policy: Policy = "lower", k: int | None = None,
             upper_grade: int | None = None) -> View:
        """The ranking under a label policy, cut at ``k`` (None: whole ranking)."""
        if policy not in POLICIES:
            raise InputError(f"unknown label policy {policy!r}; choose one of "
                             f"{listed(POLICIES, most=20)}",
                             key="policy")
        q, pos, grade, unjudged = self.q, self.pos, self.graded, self.unjudged
        pooled = self.pooled
        if policy == "condensed" and unjudged.any():
            keep = ~unjudged
            q, grade = q[keep], grade[keep]
            pos = positions(q)
            unjudged = np.zeros(len(q), dtype=bool)
            pooled = None  # pooled passages are unjudged: removed with them
        if k is not None:
            cut = pos < k
            if not cut.all():
                q, pos, grade, unjudged = q[cut], pos[cut], grade[cut], unjudged[cut]
                pooled = None if pooled is None else pooled[cut]
        g_upper = self.index.top_grade if upper_grade is None else int(upper_grade)
        if policy == "upper":
            if g_upper < 1:
                raise InputError(f"upper_grade must be >= 1, got {g_upper}", key="upper_grade")
            grade = np.where(unjudged, float(g_upper), grade)
            extra = np.bincount(q[unjudged], minlength=self.n_queries)
        else:  # unjudged passages already have grade 0
            extra = np.zeros(self.n_queries, dtype=np.int64)
        return View(self.n_queries, q, pos, grade, unjudged, k, self.index, extra, g_upper,
                    pooled)


@dataclass(frozen=True)
class View:
    """What a metric kernel reads: the (policy-applied, cut) ranking and the ideal.

    ``extra`` counts, per query, the unjudged passages that the ``upper`` policy
    labelled relevant at ``extra_grade``; they join the ideal ranking. ``pooled``
    marks the unjudged passages that are in the judging pool (grade -1 in trec_eval's
    qrels; None: none), which only infAP reads.
    """

    n: int
    q: np.ndarray
    pos: np.ndarray
    grade: np.ndarray
    unjudged: np.ndarray
    k: int | None
    index: JudgmentIndex
    extra: np.ndarray
    extra_grade: int
    pooled: np.ndarray | None = None

    def per_query(self, values: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Sum ``values`` (one per row, optionally a subset ``rows``) per query, as float64.

        Rows of a query are contiguous, so the sums are one ``np.add.reduceat``
        over the query blocks; booleans are counted from the positions of their
        true values (no float copy of the whole column).
        """
        if rows is not None:
            return np.bincount(self.q[rows], weights=np.asarray(values, dtype=np.float64),
                               minlength=self.n)
        out = np.zeros(self.n)
        heads = self._heads
        if not len(heads):
            return out
        values = np.asarray(values)
        if values.dtype == bool:
            bounds = np.searchsorted(np.flatnonzero(values), np.r_[heads, len(values)])
            out[self.q[heads]] = np.diff(bounds)
        else:
            out[self.q[heads]] = np.add.reduceat(values, heads, dtype=np.float64)
        return out

    @functools.cached_property
    def _heads(self) -> np.ndarray:
        """First row of each query's block."""
        if not len(self.q):
            return np.empty(0, dtype=np.intp)
        return np.flatnonzero(np.r_[True, self.q[1:] != self.q[:-1]])

    def depth(self) -> np.ndarray:
        """Ranking length per query (after the policy and the cut), as float64."""
        out = np.zeros(self.n)
        heads = self._heads
        if len(heads):
            out[self.q[heads]] = np.diff(np.r_[heads, len(self.q)])
        return out

    def ideal_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The ideal ranking as grade levels (descending) and per-query counts.

        The judged grades plus, under ``upper``, the ``extra`` passages at
        ``extra_grade``. Returns ``(levels, counts)`` with ``counts[q, j]`` the
        number of items of grade ``levels[j]`` in query q's ideal ranking.
        """
        levels, counts = self.index.levels, self.index.counts
        if not self.extra.any():
            return levels, counts
        g = float(self.extra_grade)
        if g in levels:
            counts = counts.copy()
            counts[:, np.flatnonzero(levels == g)[0]] += self.extra
            return levels, counts
        at = int(np.searchsorted(-levels, -g))
        levels = np.insert(levels, at, g)
        counts = np.insert(counts, at, self.extra, axis=1)
        return levels, counts

    def ideal_dcg(self, gain) -> np.ndarray:
        """Ideal DCG@k per query: grade blocks in descending order, discounted.

        With D(m) = sum_{i<m} 1/log2(i+2), a block of c items of gain G starting
        at position s adds G * (D(min(s+c, k)) - D(min(s, k))).
        """
        levels, counts = self.ideal_counts()
        ends = np.cumsum(counts, axis=1)
        starts = ends - counts
        depth = int(ends[:, -1].max()) if counts.size else 0
        if self.k is not None:
            depth = min(depth, self.k)
            ends, starts = np.minimum(ends, self.k), np.minimum(starts, self.k)
        from ragnb.metrics.gains import discount_prefix

        prefix = discount_prefix(depth)
        return ((prefix[ends] - prefix[starts]) * gain(levels)[None, :]).sum(axis=1)


def require_overlap(run: Run, shared: int, n_test: int, outside: int, test_source: str) -> None:
    """Refuse a run that looks like it belongs to another test set, whatever the flags.

    A run that ranks no query of the test set, or fewer than half of them, is
    almost always the wrong file (another split's run), and ``extra="drop"``
    with ``missing="empty"`` would otherwise score it as 0 on every query.
    This is the one place runs are checked against a test set: every scorer,
    bound and report aligns runs through :func:`judge_run`.

    Parameters
    ----------
    run : Run
    shared : int
        Test-set queries the run ranks.
    n_test : int
        Queries in the test set.
    outside : int
        Queries the run ranks that the test set lacks.
    test_source : str
        The test set's file (named in the error).

    Raises
    ------
    InputError
        When ``2 * shared < n_test`` (and the test set is not empty).
    """
    if n_test == 0 or 2 * shared >= n_test:
        return
    raise InputError(
        f"this run ({run.name!r}) looks like it belongs to another test set: it shares "
        f"{shared} of the test set's {n_test} queries{f' ({test_source})' if test_source else ''}"
        f" and ranks {outside} queries the test set lacks; a run must rank at least half of "
        "the test set's queries, whatever --extra and --missing say",
        source=run.source or None)


def judge_run(run: Run, index: JudgmentIndex, *, extra: str = "error",
              missing: str = "error") -> JudgedRun:
    """Attach grades to a run's passages and align its queries with the test set.

    Parameters
    ----------
    extra : {"error", "drop"}
        Queries in the run that the test set lacks: an error naming them, or
        dropped and counted in a note.
    missing : {"error", "empty"}
        Test-set queries the run has no ranking for: an error, or scored as an
        empty ranking (every metric 0; trec_eval ``-c``) and counted in a note.
        (Leaving them out of the evaluation is the scorer's ``missing="drop"``.)
    """
    t = run.table
    rq = codes_for(t["query_id"], index.query_ids)
    notes: list[Note] = []
    unknown = rq < 0
    ranked = np.zeros(index.n_queries, dtype=bool)
    heads = _heads(rq)
    firsts = rq[heads]              # one code per block of a query's rows: cheap at 10^8 rows
    ranked[firsts[firsts >= 0]] = True
    require_overlap(run, int(ranked.sum()), index.n_queries,
                    int(pd.unique(t.loc[unknown, "query_id"]).size) if unknown.any() else 0,
                    index.source)
    del ranked, firsts
    if unknown.any():
        names = pd.unique(t.loc[unknown, "query_id"])
        if extra != "drop":
            row = t.loc[unknown].iloc[0]
            raise InputError(
                f"{len(names)} quer{'y' if len(names) == 1 else 'ies'} in run {run.name!r} "
                f"not in the test set {index.source!r}, e.g. {listed(names)}; to drop "
                "and count them set [workspace] extra = \"drop\" in the manifest (command "
                "line: --extra drop; Python: extra=\"drop\")",
                source=run.source, line=int(row["line"]))
        notes.append(Note("dropped_run_queries", len(names),
                          f"queries of run {run.name!r} not in the test set were dropped "
                          f"({int(unknown.sum())} ranked passages), e.g. {listed(names[:3])}"))
    rows = np.flatnonzero(~unknown) if unknown.any() else None
    del unknown
    if rows is not None:            # without the dropped rows, the blocks move
        rq = rq[rows]
        heads = _heads(rq)
    present = np.zeros(index.n_queries, dtype=bool)
    present[rq[heads]] = True
    if not present.all():
        absent = index.query_ids[~present]
        if missing == "error":
            raise InputError(
                f"{len(absent)} test-set quer{'y has' if len(absent) == 1 else 'ies have'} no "
                f"ranking in run {run.name!r}, e.g. {listed(absent)}; set [workspace] "
                "missing = \"drop\" in the manifest to leave them out of the comparison, or "
                "\"empty\" to score them as empty rankings (command line: --missing drop|empty; "
                "Python: missing=\"drop\")",
                source=run.source)
        notes.append(Note("empty_rankings", len(absent),
                          f"test-set queries with no ranking in run {run.name!r}, scored as "
                          f"empty rankings, e.g. {listed(absent[:3])}"))
    li, ri = _judged_pairs(run, rows, rq, index)
    pooled = _pooled_rows(run, rows, rq, index)
    if len(heads) > 1 and (np.diff(rq[heads]) < 0).any():  # group by test-set query order
        rq, shift = _block_moves(rq, heads)
        if pooled is not None:
            moved = np.zeros(len(pooled), dtype=bool)
            moved[np.arange(len(pooled)) + np.repeat(shift, np.diff(np.r_[heads, len(rq)]))] = (
                pooled)
            pooled = moved
        # li is increasing: count its rows per block, move each by its block's shift
        li += np.repeat(shift.astype(li.dtype), np.diff(np.searchsorted(li, np.r_[heads, len(rq)])))
        del shift
    graded, unjudged = _scatter_grades(len(rq), li, ri, index.jgrade)  # after the join's peak
    del li, ri
    judged = JudgedRun(run.name, index, rq, positions(rq), graded, unjudged, tuple(notes),
                       pooled)
    release_memory()
    return judged


def _scatter_grades(n: int, rows: np.ndarray, judgments: np.ndarray, jgrade: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``graded`` (0 where unjudged) and the ``unjudged`` mask of ``n`` run rows, from the
    join's pairs (run ``rows``, distinct, and the ``judgments`` they match). Written in
    blocks on the readers' thread pool: distinct rows make the blocks' writes disjoint,
    and each block's temporaries stay small.
    """
    graded = np.zeros(n)
    unjudged = np.ones(n, dtype=bool)
    step = 1 << 20

    def scatter(s: int) -> None:
        at = rows[s: s + step]
        graded[at] = jgrade[judgments[s: s + step]]
        unjudged[at] = False

    parallel_map(scatter, range(0, len(rows), step))
    return graded, unjudged


def _heads(codes: np.ndarray) -> np.ndarray:
    """First row of each block of equal consecutive codes."""
    if not len(codes):
        return np.empty(0, dtype=np.intp)
    return np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])


def _block_moves(codes: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Blocks of equal codes ordered by code (stable, rows kept inside): the reordered
    codes and, per block (in the old order), how many rows it moves (new row = old + shift).
    """
    dtype = np.int32 if len(codes) < 2**31 else np.int64
    lengths = np.diff(np.r_[heads, len(codes)]).astype(dtype)
    block_codes = codes[heads]
    order = np.argsort(block_codes, kind="stable")
    new_starts = np.empty(len(heads), dtype=dtype)
    new_starts[order] = np.r_[0, np.cumsum(lengths[order])[:-1]]
    return np.repeat(block_codes[order], lengths[order]), new_starts - heads.astype(dtype)


def _pooled_rows(run: Run, rows: np.ndarray | None, rq: np.ndarray, index: JudgmentIndex
                 ) -> np.ndarray | None:
    """Mask of the kept run rows whose passage is pooled but unjudged (None: no pool list)."""
    if index.pooled_q is None or index.pooled_passage is None or not len(rq):
        return None
    pids = as_arrow(run.table["passage_id"])
    if rows is not None:
        pids = take_sorted(pids, rows)
    at, _ = matching_pairs(rq, pids, index.pooled_q, index.pooled_passage)
    mask = np.zeros(len(rq), dtype=bool)
    mask[at] = True
    return mask


def _judged_pairs(run: Run, rows: np.ndarray | None, rq: np.ndarray, index: JudgmentIndex
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Kept run rows (increasing) and the judgments they match: an exact join on
    (query, passage). ``rows`` are the kept rows of the run (None: all), ``rq``
    their test-set query codes.
    """
    if len(rq) == 0 or len(index.jq) == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    pids = as_arrow(run.table["passage_id"])
    if rows is not None:
        pids = take_sorted(pids, rows)
    li, ri = matching_pairs(rq, pids, index.jq, index.passage_id)
    release_memory()
    return li, ri
