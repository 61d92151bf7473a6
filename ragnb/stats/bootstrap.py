"""Paired bootstrap of the mean per-query difference between two configs.

With per-query differences ``d_i = challenger_i - baseline_i`` on the same
``n`` queries, the estimate is ``delta = mean(d)``. A replicate draws ``n``
queries with replacement (one shared index for both configs, which is what
"paired" means) and takes ``delta*_b = mean(d[idx_b])``, ``b = 1..B``.

Intervals (Efron & Tibshirani 1993)
    percentile (ch. 13)
        the ``alpha/2`` and ``1 - alpha/2`` quantiles of ``delta*``.
    BCa (ch. 14.3)
        the quantiles at ``Phi(z0 + (z0 + z_q) / (1 - a (z0 + z_q)))`` for
        ``z_q = Phi^-1(alpha/2), Phi^-1(1 - alpha/2)``, with bias correction
        ``z0 = Phi^-1(#{delta* < delta} / B)`` (ties counted half, as scipy
        does) and jackknife acceleration
        ``a = sum(u^3) / (6 (sum(u^2))^1.5)``, ``u_i = theta_bar - theta_(i)``.
        For the mean the jackknife is closed-form, ``u_i = (d_i - dbar) / (n-1)``,
        so ``a = sum((d - dbar)^3) / (6 (sum((d - dbar)^2))^1.5)`` costs O(n).

Headline interval and p-value
    The default ``method="t"`` is the calibrated interval of
    :mod:`ragnb.stats.interval` (chosen by simulation: the bootstrap intervals
    below are too narrow at small n), and ``p_value`` is the two-sided test
    that interval inverts (:mod:`ragnb.stats.interval`, "The p-value"), so the
    two never disagree. SE,
    MDE and queries needed come from the calibrated interval whatever the
    method. The bootstrap quantities are kept, labelled: ``se_bootstrap`` and
    ``p_value_bootstrap`` below.

Secondary p-value (two-sided), bootstrap shift method
    The null is imposed by shifting the differences to mean zero,
    ``d - dbar`` (Efron & Tibshirani 1993, sec. 16.4), which is the bootstrap
    test used by Urbano, Lima & Hanjalic (2019); resampling the shifted data is
    ``delta* - delta`` on the same replicates, so::

        p = (1 + #{ |delta*_b - delta| >= |delta| }) / (B + 1)

    The ``+1`` counts the observed sample as one of the resamples (Davison &
    Hinkley 1997, eq. 4.11), so ``p`` is never exactly 0; all-zero differences
    give ``p = 1``. Ties within floating-point slack count as extreme.

References
----------
Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
Davison, A. C. & Hinkley, D. V. (1997). Bootstrap Methods and their Application. CUP.
Urbano, J., Lima, H. & Hanjalic, A. (2019). Statistical significance testing in
information retrieval: type I, II and III errors. SIGIR. doi:10.1145/3331184.3331259
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from scipy import special

from ragnb.errors import InputError
from ragnb.stats import _inputs
from ragnb.stats._resample import PATHS, resample_sums, tie_tolerance
from ragnb.stats.interval import delta_interval
from ragnb.stats.power import queries_needed as _queries_needed
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

#: Interval methods of :func:`paired_bootstrap` (see its ``method``).
Method = Literal["t", "percentile", "bca"]
METHODS: tuple[Method, ...] = ("t", "percentile", "bca")


def method_label(method: str) -> str:
    return {"t": "calibrated t", "percentile": "percentile", "bca": "BCa"}[method]


def describe_method(method: str, resamples: int) -> str:
    """How an interval of ``method`` was made, in words (for tables and reports)."""
    if method == "t":
        return "calibrated t-interval (variance floored by the share of queries that differ)"
    return f"{method_label(method)} bootstrap, {resamples:,} paired resamples"


def jackknife_acceleration(u: np.ndarray) -> float:
    """BCa acceleration ``sum(u^3) / (6 (sum(u^2))^1.5)`` from jackknife influences ``u``.

    Returns 0 when every ``u`` is zero (no spread, nothing to accelerate).
    """
    ss = float(np.dot(u, u))
    return 0.0 if ss == 0 else float(np.sum(u**3)) / (6 * ss**1.5)


def interval(
    reps: np.ndarray, estimate: float, *, ci: float, method: str, accel: float, tol: float
) -> tuple[float, float]:
    """Percentile or BCa interval from bootstrap replicates ``reps`` of ``estimate``."""
    if method == "t":
        raise ValueError("the calibrated t interval is ragnb.stats.interval.delta_interval")
    alpha = 1 - ci
    if method == "percentile":
        levels = np.array([alpha / 2, 1 - alpha / 2])
    else:
        b = reps.size
        below = np.count_nonzero(reps < estimate - tol) + np.count_nonzero(reps <= estimate + tol)
        # ties count half; clip so that z0 stays finite when every replicate is on one side
        prop = np.clip(below / (2 * b), 0.5 / b, 1 - 0.5 / b)
        z0 = special.ndtri(prop)
        zq = special.ndtri(np.array([alpha / 2, 1 - alpha / 2]))
        levels = special.ndtr(z0 + (z0 + zq) / (1 - accel * (z0 + zq)))
    low, high = np.quantile(reps, levels)
    return float(low), float(high)


def shift_p_value(reps: np.ndarray, estimate: float, tol: float) -> float:
    """Two-sided shift-method p-value ``(1 + #{|reps - est| >= |est|}) / (B + 1)``."""
    extreme = np.count_nonzero(np.abs(reps - estimate) >= abs(estimate) - tol)
    return float((1 + extreme) / (reps.size + 1))


def check_options(resamples, seed, ci, method, path) -> tuple[int, int, float]:
    _inputs.check_choice(method, "method", METHODS)
    _inputs.check_choice(path, "path", PATHS)
    return (
        _inputs.check_positive_int(resamples, "resamples"),
        _inputs.check_seed(seed),
        _inputs.check_ci(ci),
    )


@dataclass(frozen=True)
class PairedBootstrap:
    """Result of :func:`paired_bootstrap` (all differences are challenger - baseline).

    Attributes
    ----------
    delta : float
        Mean per-query difference.
    ci_low, ci_high : float
        Interval endpoints at level ``ci`` (NaN below
        :data:`ragnb.stats.interval.MIN_QUERIES` with the calibrated method).
    se : float
        Standard error of the calibrated interval (:mod:`ragnb.stats.interval`).
    p_value : float
        Two-sided p-value of the test the calibrated interval inverts
        (:mod:`ragnb.stats.interval`, "The p-value"): at the interval's level it
        is below ``1 - ci`` exactly when the interval excludes 0.
    p_method : str
        That test (:data:`ragnb.stats.interval.P_METHODS`).
    se_bootstrap, p_value_bootstrap : float
        Secondary: SD of the bootstrap replicates and the shift-method p-value,
        never below ``1 / (resamples + 1)``.
    n : int
        Queries compared (after dropping, if asked).
    resamples, seed, method, ci
        The settings that produced the interval.
    mde : float
        Minimum detectable effect at 80% power, alpha 0.05:
        ``(t_{.975} + t_{.8}) * se``, df ``n - 1``; never 0 unless fixed.
    baseline_mean, challenger_mean : float
        Means over the ``n`` compared queries.
    sd_diff : float
        SD of the per-query differences used for power planning: the sample
        SD floored as in :mod:`ragnb.stats.interval`.
    dropped : int
        Query ids present on one side only and dropped (``drop_mismatched=True``).
    path : {"index", "counts"}
        How replicates were drawn: resampled indices, or multinomial counts over
        the ``n_distinct`` distinct differences (exact, cheaper when few).
    n_distinct : int
        Number of distinct per-query differences.
    note : str
        What a reader must know about the interval ("too few queries to say",
        an all-zero sample, a difference fixed by construction, the guard), or "".
    guard : str
        ``"skew-corrected"`` or ``"betting"`` when Cochran's rule sent the
        interval and p-value to those constructions (:mod:`ragnb.stats.interval`,
        "The guard"), else ``""``.
    """

    delta: float
    ci_low: float
    ci_high: float
    se: float
    p_value: float
    n: int
    resamples: int
    seed: int
    method: Method
    ci: float
    mde: float
    baseline_mean: float
    challenger_mean: float
    sd_diff: float
    dropped: int
    path: Literal["index", "counts"]
    n_distinct: int
    p_method: str = ""
    se_bootstrap: float = float("nan")
    p_value_bootstrap: float = float("nan")
    note: str = ""
    guard: str = ""

    def describe(self) -> str:
        """One line stating how the interval and p-value were made."""
        if self.guard:
            text = (f"{self.ci:.0%} interval of n={self.n} queries and p: {self.note}; "
                    f"p from the {self.p_method}")
        else:
            text = (f"{self.ci:.0%} {describe_method(self.method, self.resamples)} of "
                    f"n={self.n} queries; p: {self.p_method or 'none'}"
                    + ("" if self.method == "t" else f", seed {self.seed}"))
        if self.dropped:
            text += f" ({self.dropped} unmatched query ids dropped)"
        return text

    def to_dict(self) -> dict:
        """Plain dict of every field plus the ``describe()`` line."""
        return {**asdict(self), "description": self.describe()}

    def queries_needed(self, target_delta: float, alpha: float = 0.05, power: float = 0.8):
        """Queries needed to resolve ``target_delta`` given this comparison's ``sd_diff``."""
        if self.sd_diff != self.sd_diff:  # too few queries to estimate it
            return float("nan")
        return _queries_needed(self.sd_diff, target_delta, alpha, power)


def paired_bootstrap(
    baseline,
    challenger,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
    method: Method = "t",
    drop_mismatched: bool = False,
    path: Literal["auto", "index", "counts"] = "auto",
    fixed: bool = False,
) -> PairedBootstrap:
    r"""Paired bootstrap CI, standard error, p-value and MDE of ``mean(challenger - baseline)``.

    Parameters
    ----------
    baseline, challenger : Series, DataFrame or 1-D array
        Per-query scores: a Series indexed by query id, a tidy DataFrame with
        columns ``query_id`` and ``value``, or an array (positions are the ids).
        Aligned by query id; a NaN is an error naming the query.
    resamples : int
        Bootstrap replicates ``B`` (default 10,000).
    seed : int
        Seeds a fresh ``numpy.random.Generator`` for this call only.
    ci : float
        Interval level (default 0.95).
    method : {"t", "percentile", "bca"}
        Interval method: the calibrated t-interval (default, see
        :mod:`ragnb.stats.interval`) or a bootstrap interval (module docstring).
    drop_mismatched : bool
        Drop query ids present on one side only (counted in ``dropped``)
        instead of raising :class:`~ragnb.errors.InputError`.
    path : {"auto", "index", "counts"}
        Resampling path; ``"auto"`` picks counts over distinct values when
        that is cheaper. Both are exact; the choice only changes the random
        stream, so keep ``"auto"`` unless comparing the two.
    fixed : bool
        The differences are 0 by construction (nothing to retrieve in any
        config's reach, or identical rankings): only then is the interval
        of zero width.

    Returns
    -------
    PairedBootstrap

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.Series([0.5, 0.2, 0.0, 1.0], index=["q1", "q2", "q3", "q4"])
    >>> r = paired_bootstrap(a, a, fixed=True)
    >>> (r.delta, r.ci_low, r.ci_high, r.p_value)
    (0.0, 0.0, 0.0, 1.0)
    >>> print(r.describe().replace("; ", ";\n"))
    95% calibrated t-interval (variance floored by the share of queries that differ) of n=4 queries;
    p: fixed by construction
    """
    resamples, seed, ci = check_options(resamples, seed, ci, method, path)
    pair = _inputs.align(baseline, challenger, drop_mismatched=drop_mismatched)
    n = pair.query_ids.size
    if n < 2:
        raise InputError(
            f"a paired bootstrap needs at least 2 shared queries, got {n}", source="paired scores"
        )
    d = pair.challenger - pair.baseline
    tol = tie_tolerance(d)
    delta = float(d.mean())
    if abs(delta) <= tol:  # differences that cancel on paper leave ~1e-18 of float noise
        delta = 0.0
    rng = np.random.default_rng(seed)
    sums, used, n_distinct = resample_sums(d, resamples, rng, path)
    reps = sums / n
    calibrated = delta_interval(d, ci, fixed=fixed)
    if method == "t" or fixed:  # the headline interval (with its guard)
        low, high = calibrated.low, calibrated.high
    else:
        accel = jackknife_acceleration((d - delta) / (n - 1)) if method == "bca" else 0.0
        low, high = interval(reps, delta, ci=ci, method=method, accel=accel, tol=tol)
        if low == high:  # every resample alike, but not by construction: not certainty
            low, high = calibrated.low, calibrated.high
    p_value, p_method = calibrated.p, calibrated.p_method  # the interval's own test
    return PairedBootstrap(
        delta=delta,
        ci_low=low,
        ci_high=high,
        se=calibrated.se,
        p_value=p_value,
        n=n,
        resamples=resamples,
        seed=seed,
        method=method,
        ci=ci,
        mde=calibrated.mde,
        baseline_mean=float(pair.baseline.mean()),
        challenger_mean=float(pair.challenger.mean()),
        sd_diff=calibrated.sigma,
        dropped=pair.dropped,
        path=used,
        n_distinct=n_distinct,
        p_method=p_method,
        guard=calibrated.guard,
        se_bootstrap=float(reps.std(ddof=1)) if resamples > 1 else 0.0,
        p_value_bootstrap=shift_p_value(reps, delta, tol),
        note=calibrated.note,
    )
