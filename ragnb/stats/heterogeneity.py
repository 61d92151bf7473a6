"""Do the strata differ? A permutation test of equal stratum effects (no interaction).

A stratum that resolves a gain while another does not is no evidence that the
two differ ("significant here, not there" is not a test of a difference;
Gelman & Stern 2006). Saying *where* a gain lives needs a test of the
difference between strata itself: here the one-way between-strata statistic
of the per-query differences ``d_i`` (challenger - baseline)::

    T = sum_h n_h (delta_h - delta)^2          (delta_h: stratum mean, delta: pooled)

and its permutation distribution: under the null that the differences are
exchangeable across strata (the comparison does not interact with the
stratum), every reassignment of the stratum labels to the queries, sizes
fixed, is equally likely, so::

    p = (1 + #{T*_b >= T}) / (B + 1)          (Phipson & Smyth 2010)

with ``B`` random relabellings from a seeded ``numpy.random.Generator``.
The test is exact under that null for any distribution and any stratum
sizes (a stratum of one query included). It belongs to the same Holm family
as the per-stratum tests (:func:`ragnb.stats.holm`), since the headline
reads both.

References
----------
Gelman, A. & Stern, H. (2006). The difference between "significant" and "not
significant" is not itself statistically significant. The American
Statistician 60(4), 328-331.
Good, P. (2005). Permutation, Parametric and Bootstrap Tests of Hypotheses, ch. 8.
Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragnb.errors import InputError

#: Most ``queries x relabellings`` drawn in one block (memory bound of a block).
_BLOCK_ELEMENTS = 2_000_000
#: Most ``queries x relabellings`` in all: past it fewer relabellings are drawn (stated).
WORK_BUDGET = 40_000_000
#: Fewest relabellings ever drawn (the p-value's resolution is 1 / (B + 1)).
MIN_PERMUTATIONS = 2_000


@dataclass(frozen=True)
class Heterogeneity:
    """Result of :func:`strata_heterogeneity`.

    Attributes
    ----------
    statistic : float
        ``T = sum_h n_h (delta_h - delta)^2`` (metric units squared).
    p_value : float
        Permutation p-value (NaN with fewer than two strata).
    strata, n : int
        Strata compared and queries in them.
    permutations, seed : int
        Relabellings drawn and the seed of their stream.
    """

    statistic: float
    p_value: float
    strata: int
    n: int
    permutations: int
    seed: int

    @property
    def method(self) -> str:
        return (f"permutation test of equal stratum effects (between-strata sum of squares of "
                f"the per-query differences; {self.permutations:,} relabellings of {self.n} "
                f"queries over {self.strata} strata, seed {self.seed})")


def _between(sums: np.ndarray, sizes: np.ndarray, total: float, n: int) -> np.ndarray:
    """``sum_h n_h (mean_h - mean)^2 = sum_h S_h^2 / n_h - S^2 / N`` along the last axis."""
    return (sums**2 / sizes).sum(axis=-1) - total**2 / n


def strata_heterogeneity(d, labels, *, permutations: int = 10_000,
                         seed: int = 0) -> Heterogeneity:
    """Permutation test that every stratum has the same mean difference.

    Parameters
    ----------
    d : array (n,)
        Per-query differences.
    labels : array (n,)
        Stratum of each query.
    permutations : int
        Relabellings ``B`` (fewer, at least :data:`MIN_PERMUTATIONS`, when
        ``n x B`` passes :data:`WORK_BUDGET`; the result says how many).
    seed : int
        Seeds this call's ``numpy.random.Generator``.

    Examples
    --------
    Two strata whose differences are the same values in the same proportions
    cannot be told apart: every relabelling is at least as extreme.

    >>> r = strata_heterogeneity([0.1, 0.2, 0.1, 0.2], ["a", "a", "b", "b"], seed=1)
    >>> r.statistic, r.p_value
    (0.0, 1.0)
    """
    d = np.asarray(d, dtype=float)
    labels = np.asarray(labels)
    if d.shape != labels.shape or d.ndim != 1:
        raise InputError("differences and stratum labels must be 1-D and of one length",
                         key="strata")
    if not np.isfinite(d).all():
        raise InputError("a per-query difference is NaN or infinite", key="d")
    _, codes = np.unique(labels.astype(str), return_inverse=True)
    h, n = int(codes.max()) + 1 if d.size else 0, d.size
    if h < 2:
        return Heterogeneity(0.0, float("nan"), h, n, 0, seed)
    sizes = np.bincount(codes, minlength=h).astype(float)
    total = float(d.sum())
    observed = float(_between(np.bincount(codes, weights=d, minlength=h), sizes, total, n))
    # float noise: two equal arrangements must compare equal
    tol = 1e-12 * max(1.0, float(np.dot(d, d)))
    observed = 0.0 if abs(observed) <= tol else observed
    b = int(min(permutations, max(MIN_PERMUTATIONS, WORK_BUDGET // n)))
    rng = np.random.default_rng(seed)
    block = max(1, min(b, _BLOCK_ELEMENTS // n))
    extreme, done = 0, 0
    while done < b:
        m = min(block, b - done)
        perm = rng.permuted(np.broadcast_to(codes, (m, n)), axis=1)
        flat = (perm + h * np.arange(m)[:, None]).ravel()
        sums = np.bincount(flat, weights=np.broadcast_to(d, (m, n)).ravel(),
                           minlength=m * h).reshape(m, h)
        extreme += int(np.count_nonzero(_between(sums, sizes, total, n) >= observed - tol))
        done += m
    return Heterogeneity(observed, (1 + extreme) / (b + 1), h, n, b, seed)
