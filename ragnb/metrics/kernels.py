"""Metric kernels: vectorised over all queries of a run at once.

Each kernel reads a :class:`~ragnb.metrics.judged.View` (the ranking under a
label policy, cut at k, plus the ideal ranking) and returns one value per query.
Conventions follow trec_eval where the definitions coincide: a query with
nothing relevant scores 0 (the scorer reports such queries separately), P@k
divides by k even when fewer passages were retrieved, binary relevance is
``grade >= rel``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ragnb.errors import InputError
from ragnb.metrics.gains import discount, gain_map
from ragnb.metrics.registry import Param, register

if TYPE_CHECKING:  # annotations only: the kernels register without pandas
    from ragnb.metrics.judged import View

_REL = Param("rel", int, 1, "minimum grade that counts as relevant")


def _check_p(params: dict, text: str) -> None:
    if not 0.0 < params["p"] < 1.0:
        raise InputError(f"persistence p must lie in (0, 1), got {params['p']}", key=text)


def _ndcg(view: View, gain) -> np.ndarray:
    dcg = view.per_query(gain(view.grade) * discount(view.pos))
    idcg = view.ideal_dcg(gain)
    return np.divide(dcg, idcg, out=np.zeros(view.n), where=idcg > 0)


def _check_gain(params: dict, text: str) -> None:
    gain_map(params["gain"])


@register(
    "ndcg",
    params=(Param("gain", str, "exp", "gain map: exp (2^g - 1), linear (g), a registered "
                  "name or a .json/.csv file grade -> gain"),),
    check=_check_gain,
    gain=lambda params: gain_map(params.get("gain", "exp")),
    bounds="ndcg",
    summary="normalised DCG with the gain the files imply (linear g on TREC qrels, as "
            "trec_eval; 2^g - 1 on ragnb JSONL) or a named gain map",
    formula="DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1); nDCG@k = DCG@k / ideal DCG@k, "
            "the ideal from all judgments of the query (0 when nothing is relevant)",
)
def ndcg(view: View, gain: str = "exp") -> np.ndarray:
    return _ndcg(view, gain_map(gain))


@register(
    "ndcg_linear",
    aliases=("ndcg_cut",),   # trec_eval's ndcg_cut_k: linear
    gain=lambda params: gain_map("linear"),
    bounds="ndcg",
    summary="normalised DCG with linear gain g, as trec_eval's ndcg_cut",
    formula="DCG@k = sum_{i<=k} g_i / log2(i + 1); nDCG@k = DCG@k / ideal DCG@k",
)
def ndcg_linear(view: View) -> np.ndarray:
    return _ndcg(view, gain_map("linear"))


@register(
    "rr",
    aliases=("mrr", "recip_rank"),
    params=(_REL,),
    summary="reciprocal rank of the first relevant passage in the top k (MRR when averaged)",
    formula="RR@k = 1 / rank of the first passage with grade >= rel within the top k, else 0",
)
def rr(view: View, rel: int = 1) -> np.ndarray:
    out = np.zeros(view.n)
    hit = view.grade >= rel
    q, pos = view.q[hit], view.pos[hit]
    if len(q):
        first = np.r_[True, q[1:] != q[:-1]]
        out[q[first]] = 1.0 / (pos[first] + 1.0)
    return out


@register(
    "recall",
    aliases=("R",),   # ir_measures' R@k
    params=(_REL,),
    summary="share of the query's relevant passages found in the top k",
    formula="R@k = |relevant in top k| / |relevant judged| (upper policy: unjudged passages "
            "in the top k join both counts); 0 when nothing is relevant",
)
def recall(view: View, rel: int = 1) -> np.ndarray:
    hits = view.per_query(view.grade >= rel)
    denom = view.index.relevant_counts(rel).astype(np.float64)
    if view.extra_grade >= rel:
        denom = denom + view.extra
    return np.divide(hits, denom, out=np.zeros(view.n), where=denom > 0)


def _depth(view: View) -> np.ndarray:
    if view.k is not None:
        return np.full(view.n, float(view.k))
    return view.depth()


@register(
    "p",
    aliases=("precision",),
    params=(_REL,),
    summary="precision: share of the top k that is relevant",
    formula="P@k = |relevant in top k| / k (k, not the number retrieved, as trec_eval)",
)
def precision(view: View, rel: int = 1) -> np.ndarray:
    hits = view.per_query(view.grade >= rel)
    depth = _depth(view)
    return np.divide(hits, depth, out=np.zeros(view.n), where=depth > 0)


@register(
    "answer_recall",
    params=(Param("grade", int, 0, "grade that answers the query; 0 = the scale's top grade"),),
    summary="1 when a top-grade passage (one that answers the query) is in the top k",
    formula="AR@k = 1 if some passage in the top k has grade >= top grade, else 0",
)
def answer_recall(view: View, grade: int = 0) -> np.ndarray:
    top = grade or view.index.top_grade
    if top < 1:
        return np.zeros(view.n)
    hits = view.per_query(view.grade >= top)
    return (hits > 0).astype(np.float64)


@register(
    "judged",
    uses_policy=False,
    summary="share of the top k that has a judgment (ir_measures Judged@k; 1 - unjudged share)",
    formula="Judged@k = |judged in top k| / k",
)
def judged(view: View) -> np.ndarray:
    n_judged = view.per_query(~view.unjudged)
    depth = _depth(view)
    return np.divide(n_judged, depth, out=np.zeros(view.n), where=depth > 0)


_P = Param("p", float, 0.8, "persistence: chance the user reads on to the next passage")


@register(
    "rbp",
    params=(_P, _REL),
    check=_check_p,
    summary="rank-biased precision (Moffat & Zobel 2008), binary relevance",
    formula="RBP = (1 - p) * sum_i r_i p^{i-1}, r_i = [grade_i >= rel], over the ranking "
            "(cut at k if given)",
)
def rbp(view: View, p: float = 0.8, rel: int = 1) -> np.ndarray:
    return (1.0 - p) * view.per_query((view.grade >= rel) * np.power(p, view.pos))


@register(
    "rbp_residual",
    uses_policy=False,
    params=(_P,),
    check=_check_p,
    summary="RBP's residual: the most RBP could still rise if every unjudged passage and "
            "everything below the ranking were relevant",
    formula="residual = p^d + (1 - p) * sum_{unjudged i <= d} p^{i-1}, d = ranking depth "
            "(Moffat & Zobel 2008); RBP lies in [RBP(lower), RBP(lower) + residual]",
)
def rbp_residual(view: View, p: float = 0.8) -> np.ndarray:
    depth = view.depth()
    if view.k is not None:
        depth = np.minimum(depth, view.k)
    unjudged = (1.0 - p) * view.per_query(view.unjudged * np.power(p, view.pos))
    return np.power(p, depth) + unjudged


def _relevant_total(view: View, rel: int) -> np.ndarray:
    """R per query: judged passages with grade >= rel, plus (upper policy) the unjudged
    passages labelled relevant at ``extra_grade``.
    """
    total = view.index.relevant_counts(rel).astype(np.float64)
    if view.extra_grade >= rel:
        total = total + view.extra
    return total


def _running_count(view: View, flags: np.ndarray) -> np.ndarray:
    """Per row: how many rows of the same query up to and including it have ``flags``."""
    c = np.cumsum(flags, dtype=np.int64)
    heads = view._heads
    if not len(heads):
        return c
    before = np.r_[0, c[heads[1:] - 1]]
    return c - np.repeat(before, np.diff(np.r_[heads, len(c)]))


@register(
    "ap",
    aliases=("map", "map_cut"),
    params=(_REL,),
    summary="average precision (MAP when averaged); trec_eval's map, and map_cut_k at @k",
    formula="AP@k = (1/R) * sum over relevant passages at rank i <= k of P@i, R = number of "
            "judged passages with grade >= rel (upper policy: plus the unjudged ones in the "
            "ranking); 0 when R = 0",
)
def ap(view: View, rel: int = 1) -> np.ndarray:
    hit = view.grade >= rel
    prec = _running_count(view, hit)[hit] / (view.pos[hit] + 1.0)
    total = _relevant_total(view, rel)
    return np.divide(view.per_query(prec, rows=hit), total, out=np.zeros(view.n),
                     where=total > 0)


@register(
    "rprec",
    cutoff=False,
    params=(_REL,),
    aliases=("r-precision", "r_precision"),   # ranx's r-precision
    summary="R-precision: precision at rank R, R = the query's number of relevant passages "
            "(trec_eval's Rprec)",
    formula="Rprec = |relevant in top R| / R (fewer than R retrieved: still divided by R); "
            "0 when R = 0",
)
def rprec(view: View, rel: int = 1) -> np.ndarray:
    total = _relevant_total(view, rel)
    within = (view.grade >= rel) & (view.pos < total[view.q])
    return np.divide(view.per_query(within), total, out=np.zeros(view.n), where=total > 0)


@register(
    "success",
    params=(_REL,),
    aliases=("hit_rate",),   # ranx's hit_rate@k
    summary="1 when some passage in the top k is relevant (trec_eval's success_k; hit rate)",
    formula="S@k = 1 if some passage in the top k has grade >= rel, else 0",
)
def success(view: View, rel: int = 1) -> np.ndarray:
    return (view.per_query(view.grade >= rel) > 0).astype(np.float64)
