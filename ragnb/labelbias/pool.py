"""The depth-k pool: every compared config's top k, and the unjudged passages in their union.

Bounds over labellings need to know *which* unjudged passage sits where in
every config: a passage two configs both retrieved is one passage with one
(unknown) label, and a passage only one config retrieved still joins the ideal
ranking (nDCG) and the relevant count (recall) of the others once labelled.

Pooling assumption
------------------
A passage that nobody judged for a query and that is in no compared config's
top k is taken as not relevant (otherwise the ideal DCG is unbounded and so is
the lower bound of nDCG). Depth-k pooling is how TREC builds its judgments
(union over systems of their top k, minus what is judged; Voorhees & Harman
2005); the bounds here are exact *given* this assumption, and
:data:`ASSUMPTION` is printed beside every bounds table.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.keys import codes_for
from ragnb.io.run import Run, positions
from ragnb.io.testset import Note, TestSet
from ragnb.metrics import JudgmentIndex, judge_run
from ragnb.metrics.judged import require_overlap
from ragnb.vocab import MISSING

ASSUMPTION = (
    "Pooling assumption: a passage that is unjudged for a query and in no compared config's "
    "top {k} is taken as not relevant; the bounds range over every labelling (grades 0..{g}) "
    "of the unjudged passages in the union of the compared configs' top {k}."
)


@dataclass(frozen=True)
class TopK:
    """One config's top k as arrays, grouped by query (test-set order), in ranking order.

    ``grade`` is NaN where the passage is unjudged; ``item`` is its index in
    the pool's item table (-1 for judged rows).
    """

    config: str
    q: np.ndarray
    pos: np.ndarray
    passage_id: np.ndarray
    grade: np.ndarray
    item: np.ndarray
    notes: tuple[Note, ...] = ()

    @property
    def unjudged(self) -> np.ndarray:
        return np.isnan(self.grade)


@dataclass(frozen=True)
class Pool:
    """The top k of each config plus the pooled unjudged passages ("items").

    Attributes
    ----------
    index : JudgmentIndex
    k : int or None
        The cut-off (None: whole rankings).
    top_grade : int
        Labels range over ``0..top_grade``.
    tops : dict of TopK
        Per config, in the order given.
    item_q : ndarray of int
        Query index of each pooled unjudged passage (items sorted by query).
    item_passage : ndarray of str
    item_rank : ndarray of int, shape (n_configs, n_items)
        0-based position of the item in each config's top k, -1 where absent.
    """

    index: JudgmentIndex
    k: int | None
    top_grade: int
    tops: dict[str, TopK]
    item_q: np.ndarray
    item_passage: np.ndarray
    item_rank: np.ndarray
    notes: tuple[Note, ...] = field(default=())

    @property
    def configs(self) -> list[str]:
        return list(self.tops)

    @property
    def n_queries(self) -> int:
        return self.index.n_queries

    def items_per_query(self) -> np.ndarray:
        """Pooled unjudged passages per query."""
        return np.bincount(self.item_q, minlength=self.n_queries)

    def config_index(self, config: str) -> int:
        try:
            return self.configs.index(config)
        except ValueError:
            raise InputError(f"unknown config {config!r}; configs: {listed(self.configs, most=20)}",
                             key="config") from None

    def judged_by_grade(self) -> np.ndarray:
        """``J[q, g]``: judgments of query q with grade g, ``g = 0..top_grade``."""
        out = np.zeros((self.n_queries, self.top_grade + 1), dtype=np.int64)
        for j, level in enumerate(self.index.levels):
            out[:, int(level)] += self.index.counts[:, j]
        return out

    def describe(self) -> str:
        return ASSUMPTION.format(k=self.k if self.k is not None else "(whole ranking)",
                                 g=self.top_grade)


def ranked_by_every_run(test_set: TestSet | JudgmentIndex, runs: list[Run], missing: str
                        ) -> tuple[TestSet | JudgmentIndex, list[Run], str, tuple[Note, ...]]:
    """Apply ``missing="drop"`` the way a paired label-bias analysis needs it.

    Bounds, verdicts, judge-next orders and shard projections compare configs
    query by query, so ``drop`` leaves out of every table the test-set queries
    that *some* config has no ranking for (each run's count and the total are
    returned as notes), keeping the grade scale of the full test set. Any other
    rule passes through unchanged.

    Returns
    -------
    test_set, runs, missing, notes
        The restricted test set and runs, the rule left to apply (``"error"``
        after a drop: every remaining query is ranked by every run) and the notes.
    """
    if missing not in MISSING:
        raise InputError(f"missing must be one of {MISSING}, got {missing!r}", key="missing")
    if missing != "drop":
        return test_set, list(runs), missing, ()
    if not isinstance(test_set, TestSet):
        raise InputError("missing='drop' needs the test set itself, not a JudgmentIndex",
                         key="missing")
    qids = test_set.query_ids.astype("str")
    ranked = [qids.isin(set(r.query_ids.astype("str"))) for r in runs]
    for run, r in zip(runs, ranked, strict=True):  # before the drop hides a wrong run
        require_overlap(run, int(r.sum()), len(qids),
                        int((~run.query_ids.astype("str").isin(set(qids))).sum()),
                        test_set.source)
    keep = np.logical_and.reduce(ranked) if ranked else np.ones(len(qids), dtype=bool)
    if keep.all():
        return test_set, list(runs), "error", ()
    if not keep.any():
        raise InputError("no test-set query is ranked by every run: dropping the queries a "
                         "run lacks (--missing drop, [workspace] missing = \"drop\") leaves "
                         "nothing to compare", key="missing")
    notes = [Note("dropped_missing", int((~r).sum()),
                  f"test-set queries with no ranking in run {run.name!r}")
             for run, r in zip(runs, ranked, strict=True) if not r.all()]
    notes.append(Note("dropped_missing", int((~keep).sum()),
                      "test-set queries some config has no ranking for, left out of every "
                      "table (label-bias analyses compare configs query by query)"))
    gone = set(qids[~keep])
    q, j = test_set.queries, test_set.judgments
    restricted = replace(test_set, queries=q[~q["query_id"].astype("str").isin(gone)],
                         judgments=j[~j["query_id"].astype("str").isin(gone)])
    kept_runs = [Run(r.name, r.table[~r.table["query_id"].astype("str").isin(gone)], r.order,
                     r.source, r.notes) for r in runs]
    return restricted, kept_runs, "error", tuple(notes)


def top_k(run: Run, index: JudgmentIndex, k: int | None, *, extra: str = "error",
          missing: str = "error") -> TopK:
    """A run's top k with passage ids and grades (NaN = unjudged).

    Grades come from :func:`ragnb.metrics.judge_run` (which also validates the
    run against the test set, with the same ``extra``/``missing`` rules as
    :func:`ragnb.metrics.score.score`); passage ids are read alongside in the same
    row order.
    """
    judged = judge_run(run, index, extra=extra, missing=missing)
    t = run.table
    rq = codes_for(t["query_id"], index.query_ids)
    keep = np.flatnonzero(rq >= 0)
    order = keep[np.argsort(rq[keep], kind="stable")]  # rows of a query are contiguous
    q = rq[order].astype(np.int64)
    pos = positions(q)
    if not (np.array_equal(q, judged.q) and np.array_equal(pos, judged.pos)):
        raise RuntimeError("run rows and judged rows are not aligned (report this as a bug)")
    pid = t["passage_id"].to_numpy(dtype=object)[order]
    grade = judged.grade
    if k is not None:
        cut = pos < k
        q, pos, pid, grade = q[cut], pos[cut], pid[cut], grade[cut]
    return TopK(run.name, q, pos, pid, grade, np.full(len(q), -1, dtype=np.int64),
                judged.notes)


def build_pool(
    test_set: TestSet | JudgmentIndex,
    runs: list[Run],
    k: int | None,
    *,
    top_grade: int | None = None,
    extra: str = "error",
    missing: str = "error",
) -> Pool:
    """Pool the unjudged passages of the configs' top k (see :data:`ASSUMPTION`).

    Parameters
    ----------
    test_set : TestSet or JudgmentIndex
    runs : list of Run
        The compared configs (names must differ).
    k : int or None
        Cut-off; None pools whole rankings.
    top_grade : int, optional
        Highest label an unjudged passage may get (default: the test set's
        top grade). Must be at least the highest judged grade.
    extra, missing : str
        As in :func:`ragnb.metrics.score.score`; ``missing="drop"`` leaves out the queries
        some config lacks (:func:`ranked_by_every_run`).
    """
    if missing == "drop" and top_grade is None and isinstance(test_set, TestSet):
        top_grade = test_set.top_grade  # the full set's scale, before any drop
    test_set, runs, missing, dropped = ranked_by_every_run(test_set, list(runs), missing)
    index = test_set if isinstance(test_set, JudgmentIndex) else \
        JudgmentIndex.from_test_set(test_set)
    names = [r.name for r in runs]
    if not runs:
        raise InputError("no run given", key="run")
    if len(set(names)) != len(names):
        raise InputError(f"two runs share a config name: "
                         f"{listed(names, most=20)}; name them NAME=FILE",
                         key="run")
    g = index.top_grade if top_grade is None else int(top_grade)
    if g < index.top_grade:
        raise InputError(f"top_grade {g} is below the highest judged grade {index.top_grade}",
                         key="top_grade")
    if g < 1:
        raise InputError("the grade scale has no relevant grade (top grade 0); pass top_grade",
                         key="top_grade")
    tops = [top_k(r, index, k, extra=extra, missing=missing) for r in runs]
    # items: unjudged (query, passage) pairs of any top k, sorted by query then passage id
    uq = np.concatenate([t.q[t.unjudged] for t in tops])
    up = np.concatenate([t.passage_id[t.unjudged] for t in tops])
    frame = pd.DataFrame({"q": uq, "p": pd.array(up, dtype="str")})
    items = frame.drop_duplicates().sort_values(["q", "p"], kind="stable").reset_index(drop=True)
    item_key = pd.MultiIndex.from_frame(items)
    rank = np.full((len(tops), len(items)), -1, dtype=np.int64)
    out = {}
    for c, t in enumerate(tops):
        un = t.unjudged
        item = np.full(len(t.q), -1, dtype=np.int64)
        if un.any():
            key = pd.MultiIndex.from_arrays([t.q[un], pd.array(t.passage_id[un], dtype="str")],
                                            names=["q", "p"])
            found = item_key.get_indexer(key)
            item[un] = found
            rank[c, found] = t.pos[un]
        out[t.config] = TopK(t.config, t.q, t.pos, t.passage_id, t.grade, item, t.notes)
    notes = (*dropped, *(n for t in tops for n in t.notes))
    return Pool(index, k, g, out, items["q"].to_numpy(np.int64),
                items["p"].to_numpy(dtype=object), rank, notes)
