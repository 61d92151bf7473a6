"""Bootstrap intervals for one mean and for a difference of two independent means.

Used where the queries differ — a cell of the four-cell table (one config on
one split) and the difficulty check (the same config on two different query
samples), where a paired bootstrap does not apply. Each group is resampled on
its own (sizes fixed), with the exact bounded-memory resampler of
:mod:`ragnb.stats._resample`; intervals are percentile intervals.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ragnb.stats import _inputs
from ragnb.stats._resample import child_seed, resample_sums
from ragnb.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED


def _values(x, name: str) -> np.ndarray:
    s = _inputs.as_scores(x, name)
    if len(s) < 2:
        from ragnb.errors import InputError

        raise InputError(f"a bootstrap needs at least 2 queries, got {len(s)}", source=name)
    return s.to_numpy(dtype=float)


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its percentile bootstrap interval (i.i.d. resampling of queries)."""

    mean: float
    ci_low: float
    ci_high: float
    se: float
    n: int
    resamples: int
    seed: int
    ci: float

    def describe(self) -> str:
        return (f"{self.ci:.0%} percentile bootstrap CI of the mean, {self.resamples:,} "
                f"resamples of n={self.n} queries, seed {self.seed}")

    def to_dict(self) -> dict:
        return {**asdict(self), "description": self.describe()}


@dataclass(frozen=True)
class UnpairedBootstrap:
    """Difference of two independent means (``b - a``) with a percentile interval."""

    delta: float
    ci_low: float
    ci_high: float
    se: float
    p_value: float
    n_a: int
    n_b: int
    resamples: int
    seed: int
    ci: float

    def describe(self) -> str:
        return (f"{self.ci:.0%} percentile bootstrap CI of a difference of independent means, "
                f"{self.resamples:,} resamples of each group (n={self.n_a} and n={self.n_b}), "
                f"seed {self.seed}")

    def to_dict(self) -> dict:
        return {**asdict(self), "description": self.describe()}


def _replicates(x: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    sums, _, _ = resample_sums(x, resamples, np.random.default_rng(seed))
    return sums / x.size


def bootstrap_mean(x, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                   ci: float = 0.95) -> MeanInterval:
    """Percentile bootstrap interval of ``mean(x)``.

    Examples
    --------
    >>> r = bootstrap_mean([0.5, 0.5, 0.5])
    >>> (r.mean, r.ci_low, r.ci_high)
    (0.5, 0.5, 0.5)
    """
    resamples = _inputs.check_positive_int(resamples, "resamples")
    seed, ci = _inputs.check_seed(seed), _inputs.check_ci(ci)
    v = _values(x, "scores")
    reps = _replicates(v, resamples, seed)
    lo, hi = np.quantile(reps, [(1 - ci) / 2, (1 + ci) / 2])
    mean = float(v.mean())
    if np.ptp(v) == 0:  # constant: the interval is the point
        lo = hi = mean
    return MeanInterval(mean, float(lo), float(hi), float(reps.std(ddof=1)), v.size, resamples,
                        seed, ci)


def unpaired_bootstrap(a, b, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                       ci: float = 0.95) -> UnpairedBootstrap:
    """Percentile bootstrap of ``mean(b) - mean(a)`` for independent samples.

    Each group is resampled separately (seeds derived from ``seed``); the
    two-sided p-value is the shift-method one of :func:`paired_bootstrap`:
    ``(1 + #{|rep - mean(rep)| >= |delta|}) / (B + 1)``.
    """
    resamples = _inputs.check_positive_int(resamples, "resamples")
    seed, ci = _inputs.check_seed(seed), _inputs.check_ci(ci)
    va, vb = _values(a, "a"), _values(b, "b")
    reps = (_replicates(vb, resamples, child_seed(seed, "b"))
            - _replicates(va, resamples, child_seed(seed, "a")))
    delta = float(vb.mean() - va.mean())
    lo, hi = np.quantile(reps, [(1 - ci) / 2, (1 + ci) / 2])
    extreme = np.count_nonzero(np.abs(reps - reps.mean()) >= abs(delta) - 1e-12)
    p = (1 + extreme) / (resamples + 1)
    return UnpairedBootstrap(delta, float(lo), float(hi), float(reps.std(ddof=1)), float(p),
                             va.size, vb.size, resamples, seed, ci)
