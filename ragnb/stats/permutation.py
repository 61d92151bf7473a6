"""Paired sign-flip (Fisher randomization) test, for many pairs of configs at once.

Under the null hypothesis that two configs are exchangeable on every query,
each per-query difference ``d_i`` is as likely to have the opposite sign, so
the statistic ``T = sum(d_i)`` (equivalently the mean difference) is compared
with ``T* = sum(s_i d_i)``, ``s_i = +-1`` with probability 1/2 each (Fisher
1935; the randomization test of Smucker, Allan & Carterette 2007, which ranx
implements by swapping the two configs' scores query by query)::

    p = P(|T*| >= |T|)                  exactly, or by Monte Carlo
    p = (1 + #{|T*_b| >= |T|}) / (P + 1)  with P random sign vectors

Exact shortcut
    Queries with ``d_i = 0`` contribute nothing and are left out. Grouping the
    rest by distinct ``|d_i|`` value ``v_k`` with multiplicity ``m_k``, the
    flipped sum is ``sum_k v_k (2 X_k - m_k)`` with independent
    ``X_k ~ Binomial(m_k, 1/2)``, so the permutation distribution has at most
    ``prod(m_k + 1)`` atoms. When that is at most ``exact_limit`` the p-value
    is computed exactly from them (no randomness at all; all-zero differences
    give ``p = 1``).

Monte Carlo
    Every pair sees the same ``P`` random sign vectors (one seeded stream,
    replayed for each block of pairs whose tables fit the memory budget), so
    a pair's p-value does not depend on which other pairs share the call.
    Signs come as random bytes, eight queries per byte; with a bit set meaning
    a flip, ``T* = T - 2 sum_{flipped} d_i``, and the flipped sum of each
    group of eight queries is read from a 256-entry table of its subset sums,
    so one permutation costs ``n / 8`` table look-ups and no multiplications
    (and no BLAS threads). Blocks of permutations stay within a fixed element
    budget; the ``+1`` keeps ``p`` above zero (Phipson & Smyth 2010).

References
----------
Fisher, R. A. (1935). The Design of Experiments. Oliver & Boyd.
Smucker, M. D., Allan, J. & Carterette, B. (2007). A comparison of statistical
significance tests for information retrieval evaluation. CIKM.
Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
Statistical Applications in Genetics and Molecular Biology 9(1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ragnb.errors import InputError, listed
from ragnb.stats import _inputs
from ragnb.stats._resample import ELEMENT_BUDGET
from ragnb.vocab import DEFAULT_SEED

#: Largest number of atoms of the permutation distribution enumerated exactly.
EXACT_LIMIT = 2**16


@dataclass(frozen=True)
class SignFlipTest:
    """Result of :func:`sign_flip_test`; one entry per pair (scalars for a single pair).

    Attributes
    ----------
    delta : float or ndarray
        Mean per-query difference of each pair.
    p_value : float or ndarray
        Two-sided p-value.
    method : str or ndarray of str
        ``"exact"`` (enumerated) or ``"monte carlo"`` for each pair.
    n : int
        Queries per pair.
    permutations, seed : int
        Monte Carlo settings (unused by exact pairs).
    pairs : list or None
        Pair names (DataFrame columns), when given.
    """

    delta: float | np.ndarray
    p_value: float | np.ndarray
    method: str | np.ndarray
    n: int
    permutations: int
    seed: int
    pairs: list | None = None

    def to_frame(self) -> pd.DataFrame:
        """One row per pair: pair, n, delta, p_value, method, permutations, seed."""
        delta = np.atleast_1d(self.delta)
        return pd.DataFrame({
            "pair": self.pairs if self.pairs is not None else range(delta.size),
            "n": self.n, "delta": delta, "p_value": np.atleast_1d(self.p_value),
            "method": np.atleast_1d(self.method), "permutations": self.permutations,
            "seed": self.seed,
        })  # fmt: skip


def _atoms(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    values, mult = np.unique(np.abs(d[d != 0]), return_counts=True)
    with np.errstate(over="ignore"):
        return values, mult, float(np.prod(mult + 1.0))


def _exact_p(d: np.ndarray, tol: float) -> float:
    values, mult, _ = _atoms(d)
    sums, probs = np.zeros(1), np.ones(1)
    for v, m in zip(values, mult, strict=True):
        j = np.arange(m + 1)
        sums = (sums[:, None] + v * (2 * j - m)[None, :]).ravel()
        pmf = special.binom(m, j) * 0.5**m  # Binomial(m, 1/2), exact for small m
        probs = (probs[:, None] * pmf[None, :]).ravel()
    observed = abs(float(d.sum()))
    return float(min(1.0, probs[np.abs(sums) >= observed - tol].sum()))


#: Row ``b`` lists the bits of byte ``b`` (most significant first), as 0.0/1.0.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(float)
#: Largest subset-sum table (float64 entries, 32 per query) before falling back to unpacked bits.
TABLE_BUDGET = 2**23


def _monte_carlo_p(d: np.ndarray, permutations: int, seed: int, tol: np.ndarray) -> np.ndarray:
    """Monte Carlo p-values for the rows of ``d`` (pairs x queries), same signs for every row."""
    m, n = d.shape
    groups = -(-n // 8)
    total = d.sum(axis=1)
    target = np.abs(total) - tol
    padded = np.zeros((m, groups * 8))
    padded[:, :n] = d
    rows = max(1, ELEMENT_BUDGET // n)  # depends on n only, so the byte stream does too
    use_table = 32 * n <= TABLE_BUDGET
    block = max(1, TABLE_BUDGET // (32 * n)) if use_table else m
    offsets = 256 * np.arange(groups)
    count = np.zeros(m, dtype=np.int64)
    for first in range(0, m, block):
        pairs = range(first, min(first + block, m))
        if use_table:  # tables[q, 256 j + b] = sum of d[q] over the set bits of byte b in group j
            tables = padded[first : pairs.stop].reshape(-1, groups, 8) @ _BYTE_BITS.T
            tables = tables.reshape(len(pairs), -1)
        rng = np.random.default_rng(seed)  # every block of pairs replays the same signs
        for start in range(0, permutations, rows):
            draws = rng.integers(
                0, 256, size=(min(rows, permutations - start), groups), dtype=np.uint8
            )
            if use_table:
                idx = draws + offsets
            else:
                bits = np.unpackbits(draws, axis=1, count=n)
            for q in pairs:
                flipped = (np.take(tables[q - first], idx).sum(axis=1) if use_table
                           else bits @ d[q])
                count[q] += np.count_nonzero(np.abs(total[q] - 2 * flipped) >= target[q])
    return (1 + count) / (permutations + 1)


def _as_matrix(differences) -> tuple[np.ndarray, list | None, bool]:
    if isinstance(differences, pd.DataFrame):
        nan = differences.isna().any(axis=1)
        if nan.any():
            raise InputError(
                f"{int(nan.sum())} query id(s) have a missing difference: "
                f"{_inputs._few(differences.index[nan])}",
                source="differences",
                key=str(differences.index[nan][0]),
            )
        return differences.to_numpy(dtype=float).T, list(differences.columns), False
    if isinstance(differences, pd.Series):
        s = _inputs.as_scores(differences, "differences")
        return s.to_numpy()[None, :], None, True
    arr = np.asarray(differences, dtype=float)
    if arr.ndim not in (1, 2) or arr.shape[-1] < 1:
        raise InputError(
            f"expected differences of shape (n,) or (pairs, n), got {arr.shape}",
            source="differences",
        )
    if np.isnan(arr).any():
        where = np.argwhere(np.isnan(arr))[0]
        raise InputError(
            f"NaN difference at position "
            f"{listed(tuple(int(i) for i in where), most=20)}", source="differences"
        )
    return np.atleast_2d(arr), None, arr.ndim == 1


def sign_flip_test(
    differences,
    *,
    permutations: int = 10_000,
    seed: int = DEFAULT_SEED,
    exact_limit: int = EXACT_LIMIT,
) -> SignFlipTest:
    """Two-sided paired sign-flip test of mean difference zero, for one or many pairs.

    Parameters
    ----------
    differences : array (n,) or (pairs, n), Series, or DataFrame
        Per-query differences ``challenger - baseline``. A DataFrame has one
        row per query and one column per pair (columns name the pairs).
    permutations : int
        Random sign vectors for the Monte Carlo pairs (shared by all pairs).
    seed : int
        Seeds a fresh ``numpy.random.Generator`` for this call.
    exact_limit : int
        Enumerate the permutation distribution exactly when it has at most
        this many atoms (``prod(m_k + 1)`` over distinct nonzero ``|d|``).

    Examples
    --------
    Three queries each +0.1: of the 8 equally likely sign patterns only
    (+,+,+) and (-,-,-) are as extreme, so p = 2/8.

    >>> sign_flip_test([0.1, 0.1, 0.1]).p_value
    0.25
    """
    permutations = _inputs.check_positive_int(permutations, "permutations")
    seed = _inputs.check_seed(seed)
    d, pairs, single = _as_matrix(differences)
    m, n = d.shape
    observed = d.sum(axis=1)
    tol = 1e-12 * n * np.max(np.abs(d), axis=1)
    p = np.empty(m)
    exact = np.array([_atoms(row)[2] <= exact_limit for row in d])
    for i in np.flatnonzero(exact):
        p[i] = _exact_p(d[i], tol[i])
    if not exact.all():
        p[~exact] = _monte_carlo_p(d[~exact], permutations, seed, tol[~exact])
    method = np.where(exact, "exact", "monte carlo")
    delta = observed / n
    if single:
        return SignFlipTest(float(delta[0]), float(p[0]), str(method[0]), n, permutations, seed)
    return SignFlipTest(delta, p, method, n, permutations, seed, pairs)


#: Sign vectors of :func:`sign_flip_bounds` when ``2^n`` is larger than this (else all).
FLIP_RESAMPLES = 20_000
#: The seed of those sign vectors.
FLIP_SEED = 20261206


def sign_flip_bounds(d, alpha: float = 0.05, *, resamples: int = FLIP_RESAMPLES,
                     seed: int = FLIP_SEED) -> tuple[float, float, float, str]:
    """One-sided ``1 - alpha`` bounds of the mean difference by inverting the paired sign-flip
    test, and its one-sided p-value at 0.

    Testing "``d`` symmetric about ``δ``" with ``T = Σ (d_i − δ)`` against sign flips, a
    vector with flipped set ``F`` reaches ``T`` iff ``mean_F(d) ≤ δ`` (``F`` empty: always),
    because ``Σ s_i (d_i − δ) ≥ Σ (d_i − δ)  ⟺  Σ_F (d_i − δ) ≤ 0``. So the test rejects
    ``δ`` (in favour of larger means) iff at most ``alpha · N`` of the ``N`` vectors have
    ``mean_F(d) ≤ δ``, and the lower bound is the ``(⌊alpha N⌋ + 1)``-th smallest
    ``mean_F(d)``; the upper bound mirrors it. At ``δ = 0`` this is the randomization test of
    "the two configs are exchangeable on every query", valid at every ``n`` for any
    distribution (Fisher 1935; Smucker et al. 2007); away from 0 it assumes the differences
    are symmetric about their mean. Every sign vector when ``2^n ≤ resamples``, else
    ``resamples`` random ones and the identity (a seeded numpy Generator).

    Returns ``(low, high, p, method)``; ``p = #{mean_F(d) ≤ 0 or F = ∅} / N``.
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    if n == 0:
        raise InputError("no differences to test", key="d")
    if 2.0 ** n <= resamples:
        flips = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(bool)
        how = f"all {2 ** n:,} sign vectors"
    else:
        rng = np.random.default_rng(seed)
        flips = np.vstack([np.zeros(n, bool), rng.random((resamples, n)) < 0.5])
        how = f"{resamples:,} random sign vectors and the identity (seed {seed})"
    size = flips.sum(axis=1)
    sums = flips.astype(float) @ d
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(size > 0, sums / np.where(size > 0, size, 1), np.nan)
    total = len(means)
    k = int(np.floor(alpha * total + 1e-9))
    low_side = np.sort(np.where(size > 0, means, -np.inf))
    high_side = np.sort(np.where(size > 0, means, np.inf))
    low = float(low_side[k]) if k < total else float("inf")
    high = float(high_side[total - 1 - k]) if k < total else float("-inf")
    p = float(np.count_nonzero(low_side <= 0) / total)
    return low, high, p, (f"paired sign-flip bounds, each one-sided {1 - alpha:.0%} "
                          f"(inverted randomization test, {how})")
