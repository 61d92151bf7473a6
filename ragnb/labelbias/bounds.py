"""Per-query bounds over labellings, beside the seed's three label policies.

For each config and query this computes

``lower``, ``condensed``, ``upper`` — the seed's label *policies* (unjudged =
    not relevant; unjudged removed; unjudged = relevant at the top grade),
    scored by :func:`ragnb.metrics.score.score`. They are conventions, not bounds:
    ``upper`` is not an upper bound of nDCG, and ``condensed`` can lie outside
    the bounds (Sakai 2008: condensed lists overestimate new systems).
``bound_min``, ``bound_max`` — exact *bounds*: the minimum and maximum of the
    metric over every labelling (grades ``0..G``) of the unjudged passages in
    the pool (the union of the compared configs' top k), under the pooling
    assumption of :mod:`ragnb.labelbias.pool`.

How each bound is computed (``u`` = the config's unjudged passages in its top
k, ``m`` = pooled unjudged passages outside its top k, ``rel`` = relevance
threshold):

RR@k, P@k, success@k, answer recall, RBP@k
    monotone in each label and blind to passages outside the top k: the
    minimum labels every unjudged passage 0, the maximum labels it ``G``.
    For RBP@k the maximum adds ``(1 - p) sum_{unjudged i <= k} p^{i-1}``; the
    Moffat & Zobel residual (metric ``rbp_residual``) also adds ``p^d`` for
    the unretrieved tail, which the pooling assumption rules out here.
recall@k = (h + a) / (R + a + o)
    with ``a <= u`` of the config's own unjudged passages and ``o <= m`` of
    the others labelled relevant; a linear-fractional function of ``(a, o)``
    is monotone along every axis, so its extremes over the box (minus the
    origin, which scores 0 by convention) are at ``a, o`` in ``{0, 1, max}``.
nDCG@k (exponential and linear gain)
    not monotone: labelling a passage relevant raises the ideal DCG too. The
    minimum and maximum over all graded labellings are found exactly by
    :func:`ragnb.labelbias.ratio.max_ratio` (Dinkelbach's method over a layer
    DP). For the maximum the ``m`` outside passages are labelled 0, for the
    minimum ``G`` (they only enter the ideal, which can only lower nDCG).

Metrics that do not read labels (``judged@k``, ``rbp_residual``) have
``bound_min = bound_max = lower``. AP, R-precision, bpref and infAP have no
exact bound here (AP and R-precision are not monotone in a label, since a new
relevant passage also raises R; bpref and infAP define their own treatment of
unjudged passages): asking for one is an error naming the metric.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.run import Run
from ragnb.io.testset import Note, TestSet
from ragnb.labelbias import _arrays as A
from ragnb.labelbias.pool import Pool, build_pool, ranked_by_every_run
from ragnb.labelbias.ratio import max_ratio
from ragnb.metrics import JudgmentIndex, Metric, parse_metric
from ragnb.metrics.gains import discount
from ragnb.metrics.judged import POLICIES, Policy
from ragnb.metrics.score import Scores, score
from ragnb.result import Analysis, display_name, interval, points

#: Which output columns are the seed's policies and which are exact bounds.
COLUMN_KINDS = {
    "lower": "policy: unjudged passages count as not relevant (the usual score)",
    "condensed": "policy: unjudged passages removed before the cut (Sakai 2007); not a bound",
    "upper": "policy: unjudged passages count as relevant at the top grade and join the "
             "ideal; not a bound for nDCG",
    "bound_min": "bound: exact minimum over every labelling of the pooled unjudged passages",
    "bound_max": "bound: exact maximum over every labelling of the pooled unjudged passages",
}
PER_QUERY_COLUMNS = ["config", "query_id", "metric", "depth", "unjudged", "lower", "condensed",
                     "upper", "bound_min", "bound_max"]

BoundFunc = Callable[[Pool, str, Metric], tuple[np.ndarray, np.ndarray]]
BOUND_FUNCS: dict[str, BoundFunc] = {}


def register_bound(*names: str):
    """Decorator: ``func(pool, config, metric) -> (min, max)`` per query, for metric families
    of the metrics registry (:data:`ragnb.metrics.REGISTRY`; a name it lacks is an error).
    """
    require_registered(names)

    def wrap(func: BoundFunc) -> BoundFunc:
        for n in names:
            BOUND_FUNCS[n] = func
        return func

    return wrap


def require_registered(names) -> None:
    from ragnb.metrics import REGISTRY

    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise ValueError(f"bounds registered for {unknown}, which the metrics registry lacks")


def dcg_families() -> tuple[str, ...]:
    """The metric families that declare nDCG's bounds (``MetricSpec.bounds == "ndcg"``):
    nDCG and its variants; a DCG metric that declares none gets none.
    """
    from ragnb.metrics import REGISTRY

    return tuple(n for n, spec in REGISTRY.items() if spec.bounds == "ndcg")


def _rel(metric: Metric) -> int:
    return int(metric.params.get("rel", 1))


@register_bound("rr")
def _rr(pool: Pool, config: str, metric: Metric):
    t, nq, rel = pool.tops[config], pool.n_queries, _rel(metric)
    judged_hit = ~t.unjudged & (t.grade >= rel)
    lo = A.reciprocal(A.first_position(t.q, t.pos, judged_hit, nq))
    can = judged_hit | (t.unjudged & (pool.top_grade >= rel))
    return lo, A.reciprocal(A.first_position(t.q, t.pos, can, nq))


@register_bound("p")
def _precision(pool: Pool, config: str, metric: Metric):
    t, nq, rel = pool.tops[config], pool.n_queries, _rel(metric)
    den = A.depth(t.q, pool.k, nq)
    hits = A.per_query(t.q, ~t.unjudged & (t.grade >= rel), nq)
    unj = A.per_query(t.q, t.unjudged, nq) if pool.top_grade >= rel else 0.0
    return A.safe_div(hits, den), A.safe_div(hits + unj, den)


@register_bound("success")
def _success(pool: Pool, config: str, metric: Metric):
    t, nq, rel = pool.tops[config], pool.n_queries, _rel(metric)
    lo = (A.per_query(t.q, ~t.unjudged & (t.grade >= rel), nq) > 0).astype(np.float64)
    if pool.top_grade < rel:
        return lo, lo
    unj = A.per_query(t.q, t.unjudged, nq) > 0
    return lo, np.maximum(lo, unj.astype(np.float64))


@register_bound("answer_recall")
def _answer_recall(pool: Pool, config: str, metric: Metric):
    t, nq = pool.tops[config], pool.n_queries
    top = int(metric.params.get("grade", 0)) or pool.index.top_grade
    if top < 1:
        return np.zeros(nq), np.zeros(nq)
    lo = (A.per_query(t.q, ~t.unjudged & (t.grade >= top), nq) > 0).astype(np.float64)
    unj = A.per_query(t.q, t.unjudged, nq) > 0
    hi = np.maximum(lo, (unj & (pool.top_grade >= top)).astype(np.float64))
    return lo, hi


@register_bound("rbp")
def _rbp(pool: Pool, config: str, metric: Metric):
    t, nq, rel = pool.tops[config], pool.n_queries, _rel(metric)
    p = float(metric.params["p"])
    w = (1.0 - p) * np.power(p, t.pos)
    lo = A.per_query(t.q, w * (~t.unjudged & (t.grade >= rel)), nq)
    extra = A.per_query(t.q, w * t.unjudged, nq) if pool.top_grade >= rel else 0.0
    return lo, lo + extra


def recall_extremes(h, r, own, other) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of ``(h + a) / (r + a + o)`` over ``a <= own``, ``o <= other`` (0 at 0/0)."""
    vals = []
    for a in (0, 1, own):
        for o in (0, 1, other):
            a_ = np.minimum(a, own)
            o_ = np.minimum(o, other)
            vals.append(A.safe_div(h + a_, r + a_ + o_))
    stacked = np.stack(vals)
    return stacked.min(axis=0), stacked.max(axis=0)


@register_bound("recall")
def _recall(pool: Pool, config: str, metric: Metric):
    t, nq, rel = pool.tops[config], pool.n_queries, _rel(metric)
    hits = A.per_query(t.q, ~t.unjudged & (t.grade >= rel), nq)
    total = pool.index.relevant_counts(rel).astype(np.float64)
    if pool.top_grade < rel:
        value = A.safe_div(hits, total)
        return value, value
    own = A.per_query(t.q, t.unjudged, nq)
    other = pool.items_per_query() - own
    return recall_extremes(hits, total, own, other)


@register_bound(*dcg_families())
def _ndcg(pool: Pool, config: str, metric: Metric):
    t, nq = pool.tops[config], pool.n_queries
    gain = A.gain_for(metric, pool.top_grade)
    judged_rows = ~t.unjudged
    const = A.per_query(t.q[judged_rows], gain(t.grade[judged_rows]) * discount(
        t.pos[judged_rows]), nq)
    weights, n_own = A.padded(t.q[t.unjudged], discount(t.pos[t.unjudged]), nq)
    judged = pool.judged_by_grade()
    hi = max_ratio(weights, n_own, const, judged, gain, pool.k)
    with_outside = judged.copy()
    with_outside[:, pool.top_grade] += pool.items_per_query() - n_own
    lo = -max_ratio(-weights, n_own, -const, with_outside, gain, pool.k)
    return np.maximum(lo, 0.0), hi


#: Tolerance of the self-check that the lower and upper policies lie within the bounds.
POLICY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Bounds(Analysis):
    """Per-query policies and exact bounds of one metric for several configs.

    Attributes
    ----------
    per_query : DataFrame
        :data:`PER_QUERY_COLUMNS`: ``depth`` = passages in the top k,
        ``unjudged`` = how many of them are unjudged; see :data:`COLUMN_KINDS`.
    metric : str
    pool : Pool
        The pooled unjudged passages the bounds range over.
    notes : tuple of Note
    """

    per_query: pd.DataFrame
    metric: str
    pool: Pool
    notes: tuple[Note, ...] = ()

    @property
    def configs(self) -> list[str]:
        return self.pool.configs

    @property
    def k(self) -> int | None:
        return self.pool.k

    def assumption(self) -> str:
        """The pooling assumption the bounds are conditional on (print it with them)."""
        return self.pool.describe()

    def values(self, config: str, column: str) -> pd.Series:
        """One column of one config, indexed by query id."""
        if column not in COLUMN_KINDS:
            raise InputError(f"unknown column {column!r}; choose one of "
                             f"{listed(list(COLUMN_KINDS), most=20)}",
                             key="column")
        t = self.per_query[self.per_query["config"] == config]
        if t.empty:
            raise InputError(f"unknown config {config!r}; configs: "
                             f"{listed(self.configs, most=20)}", key="config")
        return pd.Series(t[column].to_numpy(), index=pd.Index(t["query_id"], name="query_id"),
                         name=f"{config}:{column}")

    def summary(self, strata: pd.Series | None = None) -> pd.DataFrame:
        """Summary per config (and per stratum), data: see :func:`bounds_table`."""
        return bounds_table(self, strata)

    def display_table(self, strata: pd.Series | None = None, *,
                      display_names: dict[str, str] | None = None) -> pd.DataFrame:
        """The summary as text: the unjudged share in percent, policies and bounds in points."""
        t = self.summary(strata)
        return pd.DataFrame({
            "config": [display_name(c, display_names) for c in t["config"]],
            "stratum": t["stratum"],
            "queries": t["n"],
            "unjudged share": [f"{v:.1%}" if pd.notna(v) else "—" for v in t["unjudged_share"]],
            "lower": [points(v) for v in t["lower"]],
            "condensed": [points(v) for v in t["condensed"]],
            "upper": [points(v) for v in t["upper"]],
            "exact bounds": [interval(lo, hi)
                             for lo, hi in zip(t["bound_min"], t["bound_max"])],
            "bound width": [points(v) for v in t["bound_width"]],
        })

    def policy_violations(self) -> pd.Series:
        """Per config, queries whose lower or upper policy falls outside the exact bounds.

        Both policies are labellings of the pooled passages (every unjudged one
        not relevant; every one at the top grade), so each lies within
        ``[bound_min, bound_max]`` (within :data:`POLICY_TOLERANCE`): a
        non-zero count is a fault of the bounds.
        """
        t = self.per_query
        lo, hi = t["bound_min"] - POLICY_TOLERANCE, t["bound_max"] + POLICY_TOLERANCE
        outside = ~(t["lower"].between(lo, hi) & t["upper"].between(lo, hi))
        return outside.groupby(t["config"], sort=False).sum().reindex(self.configs,
                                                                      fill_value=0).astype(int)

    @property
    def description(self) -> str:
        """How the numbers were made: policies, the exact bounds, the pool, n."""
        n = self.per_query["query_id"].nunique()
        return (f"{self.metric} on {n} queries for {len(self.configs)} configs: three label "
                "policies per query (lower: unjudged not relevant; condensed: unjudged removed "
                f"before the cut; upper: unjudged at grade {self.pool.top_grade}) and the exact "
                "per-query minimum and maximum over every labelling of the pooled unjudged "
                "passages; a config's bounds are the means of its per-query bounds (exact, no "
                f"resampling). {self.assumption()}")


def label_bounds(
    test_set: TestSet | JudgmentIndex,
    runs: Run | Iterable[Run],
    metric: str | Metric,
    *,
    top_grade: int | None = None,
    no_relevant: str = "keep",
    missing: str = "error",
    extra: str = "error",
    pool: Pool | None = None,
) -> Bounds:
    """Label policies and exact per-query bounds of ``metric`` for every run.

    Parameters
    ----------
    test_set : TestSet or JudgmentIndex
    runs : Run or list of Run
        The compared configs; their top k form the pool.
    metric : str
        E.g. ``"rr@10"``, ``"ndcg@10"``, ``"recall@20"``, ``"rbp@10(p=0.8)"``.
    top_grade : int, optional
        Labels range over ``0..top_grade`` (default: the test set's top
        grade); also the grade of the ``upper`` policy.
    no_relevant, missing, extra
        As in :func:`ragnb.metrics.score.score`, except that ``missing="drop"`` leaves
        out of every table the queries *some* config lacks (the verdicts are
        paired; :func:`ragnb.labelbias.pool.ranked_by_every_run`), counted in the notes.
    pool : Pool, optional
        A pool built beforehand with :func:`build_pool` (same runs and k).

    Returns
    -------
    Bounds
    """
    metric = parse_metric(metric)
    runs = [runs] if isinstance(runs, Run) else list(runs)
    if missing == "drop" and top_grade is None and isinstance(test_set, TestSet):
        top_grade = test_set.top_grade  # the full set's scale, before any drop
    test_set, runs, missing, dropped = ranked_by_every_run(test_set, runs, missing)
    index = test_set if isinstance(test_set, JudgmentIndex) else \
        JudgmentIndex.from_test_set(test_set)
    if pool is None:
        pool = build_pool(index, runs, metric.k, top_grade=top_grade, extra=extra,
                          missing=missing)
    elif pool.k != metric.k or pool.configs != [r.name for r in runs]:
        raise InputError(f"the pool was built for k={pool.k} and configs {pool.configs}, not "
                         f"for {metric.text} and "
                         f"{listed([r.name for r in runs], most=20)}", key="pool")
    func = BOUND_FUNCS.get(metric.spec.name)
    if func is None and metric.spec.uses_policy:
        raise no_bound(metric)

    policy_values: dict[Policy, Scores] = {}
    notes: list[Note] = [*dropped, *(n for n in pool.notes if n not in dropped)]
    for policy in POLICIES:
        s = score(index, runs, metric, policy=policy, upper_grade=pool.top_grade,
                  no_relevant="keep", missing=missing, extra=extra)
        policy_values[policy] = s
        if policy == "lower":
            notes.extend(n for n in s.notes if n not in notes)
    qids = index.query_ids
    keep = np.ones(len(qids), dtype=bool)
    if no_relevant == "drop":
        keep = index.relevant_counts(1) > 0
        if (~keep).any():
            notes.append(Note("no_relevant", int((~keep).sum()),
                              "queries with no passage judged relevant were dropped"))
    elif no_relevant != "keep":
        raise InputError(f"no_relevant must be 'keep' or 'drop', got {no_relevant!r}",
                         key="no_relevant")
    frames = []
    for run in runs:
        t = pool.tops[run.name]
        nq = pool.n_queries
        cols: dict[str, np.ndarray] = {
            p: policy_values[p].values(run.name, metric).reindex(qids).to_numpy()
            for p in POLICIES}
        if func is None:
            lo, hi = cols["lower"], cols["lower"]
        else:
            lo, hi = func(pool, run.name, metric)
        frames.append(pd.DataFrame({
            "config": run.name,
            "query_id": qids,
            "metric": metric.text,
            "depth": np.bincount(t.q, minlength=nq),
            "unjudged": np.bincount(t.q[t.unjudged], minlength=nq),
            **cols,
            "bound_min": lo,
            "bound_max": hi,
        })[keep])
    per_query = pd.concat(frames, ignore_index=True)[PER_QUERY_COLUMNS]
    return Bounds(per_query, metric.text, pool, tuple(notes))


SUMMARY_COLUMNS = ["config", "stratum", "metric", "n", "unjudged_share", "lower", "condensed",
                   "upper", "width", "bound_min", "bound_max", "bound_width"]


def bounds_table(bounds: Bounds, strata: pd.Series | None = None, *,
                 first: Iterable[str] = ()) -> pd.DataFrame:
    """Per config (and stratum): unjudged share of the top k, policy means, bound means.

    ``unjudged_share`` = unjudged passages / passages in the top k, summed over
    queries (micro average, as trec_eval's ``unj`` and the seed count it);
    ``width = upper - lower`` is the seed's width; ``bound_width =
    bound_max - bound_min``. The mean of per-query bounds bounds the mean.
    ``stratum`` is ``"all"`` for the whole set; with ``strata`` (query id ->
    label, e.g. from :func:`ragnb.io.strata.assign_strata`) a row per stratum
    follows each config's overall row. Configs in ``first`` (e.g. the baseline
    and the challenger) come first, the others after them in the pool's order,
    so a body table cut at 15 rows always shows them.
    """
    t = bounds.per_query
    groups = [t.assign(stratum="all")]
    if strata is not None:
        labels = pd.Series(strata).astype("str")
        labels.index = labels.index.astype("str")
        missing = ~t["query_id"].isin(labels.index)
        if missing.any():
            raise InputError(f"{int(missing.sum())} queries have no stratum, e.g. "
                             f"{listed(t.loc[missing, 'query_id'].unique())}", key="strata")
        groups.append(t.assign(stratum=labels.reindex(t["query_id"]).to_numpy()))
    both = pd.concat(groups, ignore_index=True)
    g = both.groupby(["config", "stratum"], sort=False)
    out = g.agg(n=("query_id", "size"), unjudged=("unjudged", "sum"), depth=("depth", "sum"),
                lower=("lower", "mean"), condensed=("condensed", "mean"), upper=("upper", "mean"),
                bound_min=("bound_min", "mean"), bound_max=("bound_max", "mean")).reset_index()
    lead = [c for c in dict.fromkeys(first) if c in bounds.configs]
    order = {c: i for i, c in enumerate([*lead, *(c for c in bounds.configs
                                                  if c not in lead)])}
    out = out.assign(_c=out["config"].map(order), _all=out["stratum"] != "all").sort_values(
        ["_c", "_all"], kind="stable").drop(columns=["_c", "_all"]).reset_index(drop=True)
    out["metric"] = bounds.metric
    out["unjudged_share"] = A.safe_div(out["unjudged"], out["depth"])
    out["width"] = out["upper"] - out["lower"]
    out["bound_width"] = out["bound_max"] - out["bound_min"]
    return out[SUMMARY_COLUMNS]


def no_bound(metric) -> InputError:
    return InputError(f"no exact bound for metric {metric.text!r}; bounds exist for "
                      f"{listed(sorted(BOUND_FUNCS), most=20)} (and metrics that do not read "
                      "labels)",
                      key=metric.text)
