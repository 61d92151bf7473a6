"""Bootstrap intervals for one mean and for a difference of two independent means.

Used where the queries differ — a cell of the four-cell table (one config on
one split) and the difficulty check (the same config on two different query
samples), where a paired bootstrap does not apply. Each group is resampled on
its own (sizes fixed), with the exact bounded-memory resampler of
:mod:`ragnb.stats._resample`; intervals are percentile intervals.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import special

from ragnb.stats import _inputs
from ragnb.stats._resample import child_seed, resample_sums
from ragnb.stats.betting import betting_interval
from ragnb.stats.interval import COCHRAN, floored_sd, normal_enough, skewness
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED


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
    guard: str = ""
    note: str = ""

    def describe(self) -> str:
        if self.guard:
            return f"{self.ci:.0%} interval of the mean of n={self.n} queries: {self.note}"
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
    guard: str = ""
    note: str = ""

    def describe(self) -> str:
        if self.guard:
            return (f"{self.ci:.0%} interval of a difference of independent means (n={self.n_a} "
                    f"and n={self.n_b}): {self.note}")
        return (f"{self.ci:.0%} percentile bootstrap CI of a difference of independent means, "
                f"{self.resamples:,} resamples of each group (n={self.n_a} and n={self.n_b}), "
                f"seed {self.seed}")

    def to_dict(self) -> dict:
        return {**asdict(self), "description": self.describe()}


def _replicates(x: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    sums, _, _ = resample_sums(x, resamples, np.random.default_rng(seed))
    return sums / x.size


def bootstrap_mean(x, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                   ci: float = 0.95, guard: bool = True) -> MeanInterval:
    """Percentile bootstrap interval of ``mean(x)``, guarded as the module docstring says.

    Examples
    --------
    Three equal scores do not make a mean known without error:

    >>> r = bootstrap_mean([0.5, 0.5, 0.5])
    >>> (r.mean, r.ci_low < 0.5 < r.ci_high, r.guard)
    (0.5, True, 'betting')
    """
    resamples = _inputs.check_positive_int(resamples, "resamples")
    seed, ci = _inputs.check_seed(seed), _inputs.check_ci(ci)
    v = _values(x, "scores")
    reps = _replicates(v, resamples, seed)
    lo, hi = np.quantile(reps, [(1 - ci) / 2, (1 + ci) / 2])
    se = float(reps.std(ddof=1))
    why = _untrusted(v) if guard else ""
    note = ""
    if why:
        b = betting_interval(v, lower=_bounds(v)[0], upper=_bounds(v)[1], alpha=1 - ci)
        lo, hi = b.low, b.high
        se = (hi - lo) / (2 * float(special.ndtri(0.5 + ci / 2)))
        note = (f"betting interval (Waudby-Smith & Ramdas 2024), since the percentile "
                f"bootstrap is not trusted here ({why})")
    return MeanInterval(float(v.mean()), float(lo), float(hi), se, v.size, resamples, seed, ci,
                        guard="betting" if note else "", note=note)


def _untrusted(v: np.ndarray) -> str:
    """Why a percentile interval of ``mean(v)`` is not trusted (``""`` if it is).

    Cochran's rule on the floored SD (:func:`ragnb.stats.interval.normal_enough`),
    and never for equal values: resampling them gives a zero-width interval.
    """
    if float(np.ptp(v)) <= 1e-12 * max(1.0, float(np.max(np.abs(v)))):
        return (f"all {v.size} values are equal ({float(v[0]) * 100:+.3g} points): no "
                "spread to resample")
    if v.size < 3:
        return f"{v.size} values are too few to check their skewness"
    ok, reason = normal_enough(v, _bounds(v)[1])
    return "" if ok else reason.replace("differences", "values")


def _bounds(v: np.ndarray) -> tuple[float, float]:
    """Bounds of a metric's values or differences: ``[0, 1]`` or ``[-1, 1]``, widened to fit."""
    top = max(1.0, float(np.max(np.abs(v))))
    return (0.0 if float(v.min()) >= 0 else -top), top


def difference_skewness(va: np.ndarray, vb: np.ndarray) -> float:
    """Skewness of ``mean(b) - mean(a)``: ``(k3_b / n_b^2 - k3_a / n_a^2) / SE^3``.

    ``k3 = G1 sigma^3`` per group (adjusted skewness on the floored SD,
    :func:`ragnb.stats.interval.floored_sd`; 0 for equal values) and
    ``SE^2 = sigma_a^2 / n_a + sigma_b^2 / n_b``. For one group it is
    ``G1 / sqrt(n)``, so ``|skewness| <= 1 / 5`` is Cochran's ``n >= 25 G1^2``.
    NaN when there is no spread at all.
    """
    k3, var = [], []
    for v in (va, vb):
        sd = floored_sd(v, _bounds(v)[1])
        g1 = skewness(v, sd)
        k3.append(0.0 if math.isnan(g1) else g1 * sd**3)
        var.append(sd**2 / v.size)
    se2 = var[0] + var[1]
    if se2 <= 0:
        return math.nan
    return (k3[1] / vb.size**2 - k3[0] / va.size**2) / se2**1.5


def guarded_difference(va: np.ndarray, vb: np.ndarray, ci: float) -> tuple[float, float, str]:
    """The betting interval of ``mean(b) - mean(a)`` where Cochran's rule fails (module doc).

    Returns ``(low, high, why)``; ``why`` is ``""`` and the ends NaN when the
    rule holds (the percentile interval stands).
    """
    if min(va.size, vb.size) < 3:
        why = f"{min(va.size, vb.size)} values are too few to check their skewness"
    elif equal := [name for name, v in (("first", va), ("second", vb))
                   if _untrusted(v).startswith("all ")]:
        why = (f"the {' and '.join(equal)} group's values are all equal: no spread to "
               "resample")
    else:
        g = difference_skewness(va, vb)
        need = COCHRAN ** -0.5
        why = ("" if abs(g) <= need else
               f"the difference of means is skewed ({g:+.2f}): Cochran's rule trusts a "
               f"normal approximation up to |{need:g}|")
    if not why:
        return math.nan, math.nan, ""
    alpha = (1 - ci) / 2
    ia, ib = (betting_interval(v, lower=_bounds(v)[0], upper=_bounds(v)[1], alpha=alpha)
              for v in (va, vb))
    note = (f"two betting intervals (Waudby-Smith & Ramdas 2024), one per group at "
            f"{(1 - alpha) * 100:g}%, differenced (Bonferroni), since the percentile bootstrap is "
            f"not trusted here ({why})")
    return ib.low - ia.high, ib.high - ia.low, note


def unpaired_bootstrap(a, b, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                       ci: float = 0.95, guard: bool = True) -> UnpairedBootstrap:
    """Percentile bootstrap of ``mean(b) - mean(a)`` for independent samples.

    Each group is resampled separately (seeds derived from ``seed``); the
    two-sided p-value is the shift-method one of :func:`paired_bootstrap`:
    ``(1 + #{|rep - mean(rep)| >= |delta|}) / (B + 1)``. With ``guard`` (the
    default) a group that fails Cochran's rule sends the interval to the
    betting construction of the module docstring, named in ``guard``.
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
    se = float(reps.std(ddof=1))
    note = ""
    if guard:
        g_lo, g_hi, note = guarded_difference(va, vb, ci)
        if note:
            lo, hi = g_lo, g_hi
            se = (g_hi - g_lo) / (2 * float(special.ndtri(0.5 + ci / 2)))
    return UnpairedBootstrap(delta, float(lo), float(hi), se, float(p), va.size, vb.size,
                             resamples, seed, ci, guard="betting" if note else "", note=note)
