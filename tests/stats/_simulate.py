"""Shared simulated per-query metrics whose true means are known exactly."""

from __future__ import annotations

import numpy as np
from scipy import special, stats

#: Reciprocal rank of the first relevant passage at ranks 1..10, or none (0).
RR_VALUES = np.r_[1 / np.arange(1, 11), 0.0]


def gaussian_copula(rng, shape, rho=0.7):
    """Correlated uniforms (u, v): one latent query difficulty shared by both configs."""
    z1 = rng.standard_normal(shape)
    z2 = rho * z1 + np.sqrt(1 - rho**2) * rng.standard_normal(shape)
    return special.ndtr(z1), special.ndtr(z2)


def zero_inflated_beta(u, zero, a, b):
    """Quantile function of mass ``zero`` at 0 plus ``(1 - zero) Beta(a, b)``.

    Its mean is ``(1 - zero) a / (a + b)``.
    """
    inner = np.clip((u - zero) / (1 - zero), 0.0, 1.0)
    return np.where(u < zero, 0.0, stats.beta.ppf(inner, a, b))


def ndcg_like(rng, shape):
    """nDCG-like scores: 30% / 20% zeros, skewed Beta otherwise; true delta = 0.8*0.5 - 0.7*0.4."""
    u, v = gaussian_copula(rng, shape)
    base = zero_inflated_beta(u, 0.3, 2, 3)
    chal = zero_inflated_beta(v, 0.2, 2.5, 2.5)
    return base, chal, 0.8 * 2.5 / 5 - 0.7 * 2 / 5


#: Probability that the first relevant passage is at rank 1..10, or absent.
Q_BASE = np.r_[0.30, 0.12, 0.08, 0.06, 0.05, 0.04, 0.03, 0.03, 0.02, 0.02, 0.25]
Q_CHAL = np.r_[0.40, 0.12, 0.07, 0.05, 0.04, 0.03, 0.03, 0.02, 0.02, 0.02, 0.20]


def rr_like(rng, shape):
    """RR@10 from discrete first-relevant ranks; true delta = sum((Q_CHAL - Q_BASE) / rank)."""
    u, v = gaussian_copula(rng, shape)
    base = RR_VALUES[np.minimum(np.searchsorted(np.cumsum(Q_BASE), u, side="right"), 10)]
    chal = RR_VALUES[np.minimum(np.searchsorted(np.cumsum(Q_CHAL), v, side="right"), 10)]
    return base, chal, float((Q_CHAL - Q_BASE) @ RR_VALUES)


def sparse_like(rng, shape, share=0.1):
    """RR@10 where only ``share`` of the queries change at all (the rest score alike).

    A query changes with probability ``share`` independently of its scores, so
    the true delta is ``share`` times :func:`rr_like`'s.
    """
    base, chal, truth = rr_like(rng, shape)
    moved = rng.random(shape) < share
    return base, np.where(moved, chal, base), share * truth


#: Differences of a P@5-like metric: steps of 0.2, mostly tied.
TIE_VALUES = np.array([-0.2, 0.0, 0.2, 0.4])
TIE_PROBS = np.array([0.15, 0.60, 0.17, 0.08])


def tie_heavy(rng, shape):
    """P@5-like: 60% of queries tie, the rest move by one or two relevant passages.

    Returns baseline scores ``k/5`` and the challenger's ``baseline + d``; the
    true delta is ``TIE_VALUES @ TIE_PROBS`` = 0.036.
    """
    pick = np.searchsorted(np.cumsum(TIE_PROBS), rng.random(shape), side="right")
    d = TIE_VALUES[np.minimum(pick, TIE_VALUES.size - 1)]
    base = rng.integers(0, 4, shape) / 5
    return base, base + d, float(TIE_VALUES @ TIE_PROBS)


def exchangeable(simulate):
    """A null version of ``simulate``: each query's two scores swap with probability 1/2.

    The configs are then exchangeable on every query (true delta 0), which is
    the null hypothesis of the sign-flip test.
    """
    def null(rng, shape):
        base, chal, _ = simulate(rng, shape)
        swap = rng.random(shape) < 0.5
        return np.where(swap, chal, base), np.where(swap, base, chal), 0.0

    null.__name__ = f"{simulate.__name__}_null"
    return null


SCENARIOS = {"nDCG-like": ndcg_like, "RR-like": rr_like, "sparse": sparse_like,
             "tie-heavy": tie_heavy}
