"""Joint bounds on a per-query difference: one label per passage, shared by both configs.

The separate bounds give, per query, ``challenger_min - baseline_max <= d <=
challenger_max - baseline_min``. That pairs the challenger's worst labelling
with the baseline's best one, even where the two configs retrieved the *same*
unjudged passage, which cannot be relevant for one and not for the other. The
joint bound takes the minimum and maximum of the difference itself over every
labelling of the pooled passages::

    min_x [m_c(x) - m_b(x)] >= min_x m_c(x) - max_x m_b(x)

so it is never looser (both range over the same pool), and usually tighter:
a passage both configs ranked at the same place cancels out.

Per family (``x_p`` = the label of pooled passage ``p``):

RR@k, answer recall
    ``m(S)`` is a maximum over the passages labelled relevant, so an extreme
    of the difference needs at most one of them: the challenger's best (or the
    baseline's best) passage alone; the extremes are over "none" and every
    single passage.
P@k, RBP@k
    the difference is linear in the labels with coefficient
    ``w_c(p) - w_b(p)``: take every passage with a negative coefficient (min)
    or a positive one (max).
recall@k
    ``(h_c - h_b + a - b) / (R + a + b + z)`` with ``a`` (``b``) passages only
    the challenger (baseline) retrieved and ``z`` others labelled relevant: a
    linear-fractional function, extreme at ``a, b, z`` in ``{0, 1, max}``.
nDCG@k
    both configs share the ideal DCG, so the difference is one ratio
    ``(c0 + sum_p (w_c(p) - w_b(p)) gain(x_p)) / I(x)`` — linear over convex
    again, solved exactly by :func:`ragnb.labelbias.ratio.max_ratio`.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.labelbias import _arrays as A
from ragnb.labelbias.bounds import Bounds, dcg_families, require_registered
from ragnb.labelbias.pool import Pool
from ragnb.labelbias.ratio import max_ratio
from ragnb.metrics import Metric, parse_metric
from ragnb.metrics.gains import discount

JointFunc = Callable[[Pool, str, str, Metric], tuple[np.ndarray, np.ndarray]]
JOINT_FUNCS: dict[str, JointFunc] = {}
JOINT_COLUMNS = ["baseline", "challenger", "query_id", "metric", "delta_lower",
                 "separate_min", "separate_max", "joint_min", "joint_max"]


def register_joint(*names: str):
    """Decorator: ``func(pool, baseline, challenger, metric) -> (min, max)`` of the difference."""
    require_registered(names)

    def wrap(func: JointFunc) -> JointFunc:
        for n in names:
            JOINT_FUNCS[n] = func
        return func

    return wrap


def _ranks(pool: Pool, config: str) -> np.ndarray:
    return pool.item_rank[pool.config_index(config)]


def _first_hit_joint(pool: Pool, base: str, chal: str, value_of_rank, lower_c, lower_b,
                     possible: bool):
    d0 = lower_c - lower_b
    lo, hi = d0.copy(), d0.copy()
    if not possible or not len(pool.item_q):
        return lo, hi
    rc, rb = _ranks(pool, chal), _ranks(pool, base)
    q = pool.item_q
    vc = np.maximum(lower_c[q], np.where(rc >= 0, value_of_rank(np.maximum(rc, 0)), 0.0))
    vb = np.maximum(lower_b[q], np.where(rb >= 0, value_of_rank(np.maximum(rb, 0)), 0.0))
    d = vc - vb
    np.minimum.at(lo, q, d)
    np.maximum.at(hi, q, d)
    return lo, hi


def _rr_lower(pool, config, rel):
    t = pool.tops[config]
    hit = ~t.unjudged & (t.grade >= rel)
    return A.reciprocal(A.first_position(t.q, t.pos, hit, pool.n_queries))


@register_joint("rr")
def _rr(pool: Pool, base: str, chal: str, metric: Metric):
    rel = int(metric.params.get("rel", 1))
    return _first_hit_joint(pool, base, chal, lambda r: 1.0 / (r + 1.0),
                            _rr_lower(pool, chal, rel), _rr_lower(pool, base, rel),
                            pool.top_grade >= rel)


@register_joint("answer_recall")
def _answer_recall(pool: Pool, base: str, chal: str, metric: Metric):
    top = int(metric.params.get("grade", 0)) or pool.index.top_grade
    nq = pool.n_queries
    if top < 1:
        return np.zeros(nq), np.zeros(nq)

    def lower(config):
        t = pool.tops[config]
        return (A.per_query(t.q, ~t.unjudged & (t.grade >= top), nq) > 0).astype(np.float64)

    return _first_hit_joint(pool, base, chal, lambda r: np.ones_like(r, dtype=np.float64),
                            lower(chal), lower(base), pool.top_grade >= top)


@register_joint("success")
def _success(pool: Pool, base: str, chal: str, metric: Metric):
    rel = int(metric.params.get("rel", 1))
    nq = pool.n_queries

    def lower(config):
        t = pool.tops[config]
        return (A.per_query(t.q, ~t.unjudged & (t.grade >= rel), nq) > 0).astype(np.float64)

    return _first_hit_joint(pool, base, chal, lambda r: np.ones_like(r, dtype=np.float64),
                            lower(chal), lower(base), pool.top_grade >= rel)


def _linear_joint(pool, base, chal, lower_c, lower_b, coef_c, coef_b, possible):
    d0 = lower_c - lower_b
    if not possible or not len(pool.item_q):
        return d0, d0.copy()
    rc, rb = _ranks(pool, chal), _ranks(pool, base)
    coef = (np.where(rc >= 0, coef_c(np.maximum(rc, 0)), 0.0)
            - np.where(rb >= 0, coef_b(np.maximum(rb, 0)), 0.0))
    nq = pool.n_queries
    return (d0 + A.per_query(pool.item_q, np.minimum(coef, 0.0), nq),
            d0 + A.per_query(pool.item_q, np.maximum(coef, 0.0), nq))


@register_joint("p")
def _precision(pool: Pool, base: str, chal: str, metric: Metric):
    rel = int(metric.params.get("rel", 1))
    nq = pool.n_queries

    def parts(config):
        t = pool.tops[config]
        den = A.depth(t.q, pool.k, nq)
        hits = A.per_query(t.q, ~t.unjudged & (t.grade >= rel), nq)
        return A.safe_div(hits, den), den

    lc, dc = parts(chal)
    lb, db = parts(base)
    q = pool.item_q
    return _linear_joint(pool, base, chal, lc, lb, lambda r: A.safe_div(1.0, dc[q]),
                         lambda r: A.safe_div(1.0, db[q]), pool.top_grade >= rel)


@register_joint("rbp")
def _rbp(pool: Pool, base: str, chal: str, metric: Metric):
    rel = int(metric.params.get("rel", 1))
    p = float(metric.params["p"])
    nq = pool.n_queries

    def lower(config):
        t = pool.tops[config]
        return A.per_query(t.q, (1 - p) * np.power(p, t.pos) * (~t.unjudged & (t.grade >= rel)),
                           nq)

    def w(r):
        return (1 - p) * np.power(p, r)

    return _linear_joint(pool, base, chal, lower(chal), lower(base), w, w,
                         pool.top_grade >= rel)


@register_joint("recall")
def _recall(pool: Pool, base: str, chal: str, metric: Metric):
    rel = int(metric.params.get("rel", 1))
    nq = pool.n_queries

    def hits(config):
        t = pool.tops[config]
        return A.per_query(t.q, ~t.unjudged & (t.grade >= rel), nq)

    total = pool.index.relevant_counts(rel).astype(np.float64)
    hc, hb = hits(chal), hits(base)
    if pool.top_grade < rel:
        d = A.safe_div(hc, total) - A.safe_div(hb, total)
        return d, d.copy()
    rc, rb = _ranks(pool, chal), _ranks(pool, base)
    q = pool.item_q
    only_c = A.per_query(q, (rc >= 0) & (rb < 0), nq)
    only_b = A.per_query(q, (rb >= 0) & (rc < 0), nq)
    rest = pool.items_per_query() - only_c - only_b
    vals = []
    for a in (0, 1, only_c):
        for b in (0, 1, only_b):
            for z in (0, 1, rest):
                a_, b_, z_ = np.minimum(a, only_c), np.minimum(b, only_b), np.minimum(z, rest)
                den = total + a_ + b_ + z_
                vals.append(A.safe_div(hc + a_, den) - A.safe_div(hb + b_, den))
    stacked = np.stack(vals)
    return stacked.min(axis=0), stacked.max(axis=0)


@register_joint(*dcg_families())
def _ndcg(pool: Pool, base: str, chal: str, metric: Metric):
    nq = pool.n_queries
    gain = A.gain_for(metric, pool.top_grade)

    def judged_part(config):
        t = pool.tops[config]
        j = ~t.unjudged
        return A.per_query(t.q[j], gain(t.grade[j]) * discount(t.pos[j]), nq)

    const = judged_part(chal) - judged_part(base)
    rc, rb = _ranks(pool, chal), _ranks(pool, base)
    coef = np.where(rc >= 0, discount(np.maximum(rc, 0)), 0.0) - np.where(
        rb >= 0, discount(np.maximum(rb, 0)), 0.0)
    weights, n_items = A.padded(pool.item_q, coef, nq)
    judged = pool.judged_by_grade()
    hi = max_ratio(weights, n_items, const, judged, gain, pool.k)
    lo = -max_ratio(-weights, n_items, -const, judged, gain, pool.k)
    return lo, hi


def joint_bounds(bounds: Bounds, baseline: str, challenger: str) -> pd.DataFrame:
    """Per-query bounds on ``challenger - baseline``, separate and joint.

    Returns
    -------
    DataFrame
        :data:`JOINT_COLUMNS`: ``delta_lower`` is the difference under the
        ``lower`` policy; ``separate_min = challenger bound_min - baseline
        bound_max`` (and the reverse for ``separate_max``); ``joint_min`` /
        ``joint_max`` label each pooled passage once for both configs, so
        ``separate_min <= joint_min <= delta_lower <= joint_max <= separate_max``.
    """
    metric = parse_metric(bounds.metric)
    pool = bounds.pool
    for c in (baseline, challenger):
        pool.config_index(c)
    t = bounds.per_query
    b = t[t["config"] == baseline].set_index("query_id")
    c = t[t["config"] == challenger].set_index("query_id")
    qids = b.index
    func = JOINT_FUNCS.get(metric.spec.name)
    if func is None:
        if metric.spec.uses_policy:
            raise InputError(f"no joint bound for metric {metric.text!r}; joint bounds exist "
                             f"for {listed(sorted(JOINT_FUNCS), most=20)}", key=metric.text)
        lo = hi = (c["lower"] - b["lower"]).to_numpy()
    else:
        lo_all, hi_all = func(pool, baseline, challenger, metric)
        rows = pool.index.query_ids.get_indexer(qids)
        lo, hi = lo_all[rows], hi_all[rows]
    return pd.DataFrame({
        "baseline": baseline,
        "challenger": challenger,
        "query_id": qids,
        "metric": metric.text,
        "delta_lower": (c["lower"] - b["lower"]).to_numpy(),
        "separate_min": (c["bound_min"] - b["bound_max"]).to_numpy(),
        "separate_max": (c["bound_max"] - b["bound_min"]).to_numpy(),
        "joint_min": lo,
        "joint_max": hi,
    })[JOINT_COLUMNS]
