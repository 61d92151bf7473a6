"""Measures built for incomplete judgments: bpref and infAP.

Both read which passages were judged, so the label policy does not apply to
them in the usual way: each defines its own treatment of unjudged passages.
They are defined under ``lower`` (the ranking as retrieved) and ``condensed``
(unjudged passages removed first, trec_eval's ``-J``); scoring them under
``upper`` is an error naming the metric.

bpref (Buckley & Voorhees 2004), as trec_eval computes it
    bpref = (1/R) * sum over judged relevant retrieved r of
    (1 - min(n_r, R) / min(N, R)), with n_r the judged non-relevant passages
    ranked above r (the term is 1 when n_r = 0), R the judged relevant and N
    the judged non-relevant passages of the query. Unjudged passages are
    skipped, so ``lower`` and ``condensed`` give the same value.
infAP (Yilmaz & Aslam 2006), as trec_eval computes it
    infAP = (1/R) * sum over judged relevant retrieved at 0-based rank j of
    1 when j = 0, else 1/(j+1) + (j/(j+1)) * ((r + n)/j) * ((r + eps)/(r + n + 2 eps)),
    with r, n the judged relevant and non-relevant passages above rank j and
    eps = 1e-5. Passages "in the pool but not judged" (grade -1 in a qrels file,
    :data:`ragnb.io.trec.POOLED_GRADE`) count as sampled in ``(r + n + u)/j`` (u of
    them above rank j), as trec_eval counts them; every other unjudged passage is
    outside the pool and counts only in ``j``. The value equals trec_eval's ``infAP``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ragnb.metrics.kernels import _REL, _running_count
from ragnb.metrics.registry import register

if TYPE_CHECKING:  # annotations only: the kernels register without pandas
    from ragnb.metrics.judged import View

INFAP_EPSILON = 1e-5
_POLICIES = ("lower", "condensed")


def _judged_split(view: View, rel: int) -> tuple[np.ndarray, np.ndarray]:
    judged = ~view.unjudged
    return judged & (view.grade >= rel), judged & (view.grade < rel)


@register(
    "bpref",
    cutoff=False,
    params=(_REL,),
    policies=_POLICIES,
    summary="binary preference (Buckley & Voorhees 2004), trec_eval's bpref: reads judged "
            "passages only",
    formula="bpref = (1/R) sum_{judged relevant r} (1 - min(n_r, R) / min(N, R)), n_r = judged "
            "non-relevant above r, N = judged non-relevant of the query",
)
def bpref(view: View, rel: int = 1) -> np.ndarray:
    relevant, nonrel = _judged_split(view, rel)
    big_r = view.index.relevant_counts(rel).astype(np.float64)
    big_n = view.index.counts[:, view.index.levels < rel].sum(axis=1).astype(np.float64)
    above = _running_count(view, nonrel)[relevant].astype(np.float64)
    q = view.q[relevant]
    denom = np.minimum(big_n, big_r)[q]
    frac = np.divide(np.minimum(above, big_r[q]), denom, out=np.zeros(len(q)), where=denom > 0)
    term = np.where(above > 0, 1.0 - frac, 1.0)
    return np.divide(view.per_query(term, rows=relevant), big_r, out=np.zeros(view.n),
                     where=big_r > 0)


@register(
    "infap",
    cutoff=False,
    params=(_REL,),
    policies=_POLICIES,
    summary="inferred AP (Yilmaz & Aslam 2006), trec_eval's infAP; unjudged passages are "
            "outside the judging pool unless the qrels list them with grade -1",
    formula="infAP = (1/R) sum_{judged relevant at rank j} [1/(j+1) + (j/(j+1)) ((r+n+u)/j) "
            "((r+eps)/(r+n+2 eps))], r, n = judged relevant, non-relevant above, u = pooled "
            "but unjudged (grade -1) above",
)
def infap(view: View, rel: int = 1) -> np.ndarray:
    relevant, nonrel = _judged_split(view, rel)
    r = _running_count(view, relevant)[relevant] - 1.0
    n = _running_count(view, nonrel)[relevant].astype(np.float64)
    sampled = r + n
    if view.pooled is not None:
        sampled = sampled + _running_count(view, view.pooled)[relevant]
    j = view.pos[relevant].astype(np.float64)
    safe_j = np.maximum(j, 1.0)
    later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (sampled / safe_j) * (
        (r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, later)
    big_r = view.index.relevant_counts(rel).astype(np.float64)
    return np.divide(view.per_query(term, rows=relevant), big_r, out=np.zeros(view.n),
                     where=big_r > 0)
