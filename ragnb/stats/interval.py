"""The headline interval of a mean paired difference, calibrated by simulation for small n.

Why not the bootstrap
    Percentile and BCa bootstrap intervals are too narrow at small ``n`` on
    the per-query differences retrieval metrics produce: on simulated RR-like
    differences they cover 89% at n = 10, and on sparse differences (most
    queries unchanged) 65% at n = 30, because a sample with few nonzero
    differences underestimates their spread (``benchmarks/calibration.py``
    prints the full table).

The interval (``method = "t"``)
    ``delta +- t_{n-1, (1+ci)/2} * SE`` with ``SE = sigma / sqrt(n)`` and a
    variance that cannot fall below what the share of queries that differ
    allows. Write ``d_i = Z_i Y_i`` with ``Z_i ~ Bernoulli(p)`` (the query
    differs) and ``Y_i`` its nonzero difference; then
    ``Var(d) = p a - p^2 mu^2`` with ``a = E[Y^2]``, ``mu = E[Y]``. With ``k``
    of ``n`` differences nonzero, ``p_U`` the one-sided
    :data:`SHARE_LEVEL` Clopper-Pearson upper bound on ``p``
    (``Beta(SHARE_LEVEL; k + 1, n - k)``, 1 when ``k = n``) and ``a``, ``mu``
    estimated from the nonzero differences::

        v_U     = max_{p in [k/n, p_U]} (p a - p^2 mu^2)
        sigma^2 = max(s^2, v_U n / (n - 1))          (s^2: sample variance)

    The floor only binds when few queries differ; with many it is within a
    few percent of ``s^2``. With no nonzero difference ``a`` is the largest
    possible squared difference, ``bound^2`` (1 for metrics in [0, 1]), so an
    all-zero sample still gets an honest, non-zero interval: at most ``p_U``
    of such queries could differ. ``SHARE_LEVEL = 0.8`` was chosen by that
    simulation: 0.9 and 0.975 over-cover (above 97% at n = 50 and 200 on
    sparse and tie-heavy differences), 0.8 keeps every scenario in 93-97%
    at n = 50 and 200 and above 93% from :data:`MIN_QUERIES` up.

Zero width only by construction
    When every difference is fixed at 0 by construction (``fixed=True``:
    nothing to retrieve in any config's reach, or identical rankings) the
    interval is ``[0, 0]``; observed zeros alone never give zero width.

Too few queries
    Below :data:`MIN_QUERIES` no interval, MDE or queries-needed is given:
    the row reads "too few queries to say".

The guard: where the t-interval is not trusted
    A t-interval leans on the mean being near normal, which fails at small n
    for skewed or sparse differences (most queries unchanged, a few large
    moves one way): there it covers 54-93% and a test on it rejects a true
    zero mean 10-30% of the time (``benchmarks/sim_headline_interval.py``).
    The stated diagnostic is Cochran's rule (Cochran 1977, eq. 2.56): the
    normal approximation is trusted when::

        n >= 25 * G1^2       (G1: adjusted sample skewness, ``m3 / sigma^3``)

    with ``sigma`` the floored SD above, so that a sparse sample whose few
    moves go both ways (where the floor already keeps the t-interval at
    93-97%) is sent to the guard less often than one whose moves go one way;
    and never when the differences have no spread but are not all 0 (ten
    differences of exactly +0.1 are not a difference known without error).

    Where it fails and at least :data:`MIN_MOVED` queries differ, the interval
    is the skew-corrected t (``guard = "skew-corrected"``): Hall's (1992)
    monotone transformation of the studentised mean removes the
    ``n^{-1/2}`` skewness term of its Edgeworth expansion. With
    ``T = sqrt(n) (mean - mu) / sigma`` and ``g1 = m3 / m2^{3/2}``
    (``m2 = sigma^2 (n - 1) / n``, the floored variance)::

        g(T) = T + g1 T^2 / (3 sqrt n) + g1^2 T^3 / (27 n) + g1 / (6 sqrt n)
        g^-1(x) = (3 sqrt n / g1) ((1 + g1 (x - g1 / (6 sqrt n)) / sqrt n)^{1/3} - 1)
        interval: mean - sigma / sqrt(n) * g^-1(+-t_{n-1, (1+ci)/2})

    ``g`` is increasing (``g' = (1 + g1 T / (3 sqrt n))^2``), so the interval is
    the set of ``mu`` its test does not reject and the p-value,
    ``2 min(F(g(T_0)), 1 - F(g(T_0)))`` at ``mu = 0`` (``F``: Student's t,
    n - 1 df), says the same as the interval at every level. On real-shaped
    sparse populations (80-95% of queries unchanged, CAsT 2021 and CODEC) it
    covers 93-100% from n = 6 and keeps most of the t-test's power; the
    betting interval it replaces detected +2 points at n = 100 in 0-16% of
    samples (``benchmarks/sim_headline_interval.py``).

    With fewer than :data:`MIN_MOVED` queries that differ there is no third
    moment to correct by (the skew-corrected interval covers 48-78% on such
    samples), and with no spread there is no scale: the interval is the
    betting confidence interval of a bounded mean (Waudby-Smith & Ramdas
    2024, :func:`ragnb.stats.betting.betting_interval`), valid for every
    distribution at every n (``guard = "betting"``); its p-value is the same
    construction's (:func:`ragnb.stats.betting.betting_p_value` with the
    interval's bets), so ``p <= 1 - ci`` exactly when the interval excludes 0.

The p-value
    Every row's p is the dual of its own interval (``p``, ``p_method``): the
    t-test with the floored SD, the skew-corrected t-test, or the betting test.
    SE, MDE and queries needed are read off the floored SD, or off the
    betting interval's half-width, ``SE = half / t_{n-1, (1+ci)/2}``.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
illustrated in the case of the binomial. Biometrika 26(4), 404-413.
Cochran, W. G. (1977). Sampling Techniques, 3rd ed., Wiley, eq. 2.56.
Hall, P. (1992). On the removal of skewness by transformation. JRSS-B 54(1), 221-228.
Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables
by betting. JRSS-B 86(1), 1-27.
Smucker, M. D., Allan, J. & Carterette, B. (2007). A comparison of statistical
significance tests for information retrieval evaluation. CIKM (the t-test is as
reliable as the randomization test on IR metrics).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ragnb.stats.power import queries_needed

#: Fewest queries for which an interval, MDE and queries-needed are shown.
#: At 5 queries the calibrated interval still covers >= 93% in every simulated
#: scenario, but the sign-flip test cannot reach p < 0.0625 (2 / 2^5), so no
#: difference could ever be called out; from 6 it can (2 / 64 = 0.031).
MIN_QUERIES = 6
#: One-sided level of the upper bound on the share of queries that differ.
SHARE_LEVEL = 0.8
#: Text shown instead of an interval below :data:`MIN_QUERIES`.
TOO_FEW = "too few queries to say"
METHOD_LABEL = "t-interval, variance floored by the share of queries that differ"
#: Cochran's rule: the t-interval is trusted when ``n >= COCHRAN * G1^2``.
COCHRAN = 25.0
#: ``guard`` of an interval from the betting construction.
BETTING = "betting"
BETTING_LABEL = ("distribution-free betting interval (Waudby-Smith & Ramdas 2024): the "
                 "t-interval is not trusted here")
#: ``guard`` of the skew-corrected t-interval (Hall 1992).
SKEW = "skew-corrected"
SKEW_LABEL = ("skew-corrected t-interval (Hall 1992 transformation, floored SD): the plain "
              "t-interval is not trusted here")
#: Fewest queries that differ for the skew-corrected interval; below, the betting one.
MIN_MOVED = 3
#: How every headline p-value is made, for method lines.
P_TEXT = ("p: the two-sided test each interval inverts (t with the floored SD; Hall's "
          "skew-corrected t where Cochran's rule fails; the betting test where fewer than "
          f"{MIN_MOVED} queries differ), so p <= 0.05 exactly when the 95% interval excludes 0")
#: ``p_method`` of each construction.
P_METHODS = {"": "t-test, floored SD", SKEW: "skew-corrected t-test (Hall 1992)",
             BETTING: "betting test (Waudby-Smith & Ramdas 2024), fixed n"}


@dataclass(frozen=True)
class DeltaInterval:
    """The calibrated interval of ``mean(d)`` and what goes beside it.

    ``low``, ``high``, ``se``, ``sigma``, ``mde`` and ``queries_needed`` are
    NaN below :data:`MIN_QUERIES` (``note`` says so); ``note`` also carries
    the statement for an all-zero sample or a difference fixed by construction.
    ``guard`` is ``""`` for the calibrated t-interval, :data:`SKEW` or
    :data:`BETTING` when the diagnostic (``diagnostic``) sent the row to the
    skew-corrected or the betting interval. ``p`` is the two-sided p-value of
    the test the interval inverts (``p_method``): ``p <= 1 - ci`` exactly when
    the interval excludes 0; NaN below :data:`MIN_QUERIES`, 1 when fixed.
    """

    low: float
    high: float
    se: float
    sigma: float
    mde: float
    queries_needed: float
    nonzero: int
    share_upper: float
    note: str
    guard: str = ""
    diagnostic: str = ""
    p: float = math.nan
    p_method: str = ""


def share_upper(k: int, n: int, level: float = SHARE_LEVEL) -> float:
    """One-sided Clopper-Pearson upper bound on a share with ``k`` of ``n`` observed.

    Examples
    --------
    None of 30 queries differ: at 95% at most 1 - 0.05^(1/30) = 9.5% could.

    >>> round(share_upper(0, 30, 0.95), 4)
    0.095
    """
    return 1.0 if k >= n else float(special.betaincinv(k + 1, n - k, level))


def floored_sd(d: np.ndarray, bound: float = 1.0) -> float:
    """``sigma = sqrt(max(s^2, v_U n / (n - 1)))`` of the module docstring."""
    n = d.size
    nz = d[d != 0]
    k = nz.size
    p_hat, p_up = k / n, share_upper(k, n)
    a = float(np.mean(nz**2)) if k else float(bound) ** 2
    mu2 = float(np.mean(nz)) ** 2 if k else 0.0
    p_star = p_up if mu2 == 0 else min(max(a / (2 * mu2), p_hat), p_up)
    v_up = p_star * a - p_star**2 * mu2
    s2 = float(np.var(d, ddof=1))
    return math.sqrt(max(s2, v_up * n / (n - 1)))


def skewness(d: np.ndarray, sd: float | None = None) -> float:
    """Adjusted skewness ``G1 = m3 / sd^3 * sqrt(n (n-1)) / (n-2)``; NaN when there is no spread.

    ``sd`` defaults to the sample's (``m2``, divisor n: Fisher-Pearson's G1);
    :func:`normal_enough` passes the floored SD of :func:`floored_sd` instead.
    """
    n = d.size
    c = d - d.mean()
    m2 = float(np.mean(c**2)) if sd is None else sd**2 * (n - 1) / n
    if n < 3 or m2 <= (1e-12 * max(1.0, float(np.max(np.abs(d))))) ** 2:
        return math.nan
    g1 = float(np.mean(c**3)) / m2**1.5
    return g1 * math.sqrt(n * (n - 1)) / (n - 2)


def normal_enough(d: np.ndarray, bound: float = 1.0) -> tuple[bool, str]:
    """Cochran's rule for the mean of ``d`` (module docstring): trusted, and why not."""
    n = d.size
    if not np.any(d):
        return True, ""  # all zero: the share floor of the calibrated interval is made for it
    constant = float(np.ptp(d)) <= 1e-12 * max(1.0, float(np.max(np.abs(d))))
    g1 = math.nan if constant else skewness(d, floored_sd(d, bound))
    if math.isnan(g1):
        return False, (f"all {n} differences are equal ({float(d[0]) * 100:+.3g} points) but "
                       "not fixed by construction: no spread to build a t-interval from")
    need = COCHRAN * g1**2
    if n >= need:
        return True, ""
    return False, (f"skewed differences (skewness {g1:+.2f}): Cochran's rule trusts a "
                   f"t-interval from n >= 25 x skewness^2 = {math.ceil(need)}, here n = {n}")


def skew_corrected(d: np.ndarray, sigma: float, q: float) -> tuple[float, float, float]:
    """Hall's (1992) skew-corrected interval ``(low, high)`` at t quantile ``q`` and its p at 0.

    The transformation and its inverse are in the module docstring; ``sigma``
    is the floored SD.

    Examples
    --------
    Right-skewed differences: the interval reaches further above the mean than below.

    >>> d = np.array([0.0] * 12 + [0.02, 0.03, 0.04, 0.6])
    >>> lo, hi, p = skew_corrected(d, floored_sd(d), 2.131)
    >>> bool(hi - d.mean() > d.mean() - lo)
    True
    """
    n = d.size
    mean = float(d.mean())
    m2 = sigma**2 * (n - 1) / n
    g1 = float(np.mean((d - mean) ** 3)) / m2**1.5
    rn = math.sqrt(n)
    se = sigma / rn
    t0 = mean / se
    if abs(g1) < 1e-12:
        return mean - q * se, mean + q * se, float(2 * special.stdtr(n - 1, -abs(t0)))

    def inverse(x: float) -> float:
        return float(3 * rn / g1 * (np.cbrt(1 + g1 / rn * (x - g1 / (6 * rn))) - 1))

    g0 = t0 + g1 * t0**2 / (3 * rn) + g1**2 * t0**3 / (27 * n) + g1 / (6 * rn)
    return (mean - se * inverse(q), mean - se * inverse(-q),
            float(2 * special.stdtr(n - 1, -abs(g0))))


def construction(d: np.ndarray, bound: float = 1.0) -> tuple[str, str]:
    """Which interval the guard picks for ``d`` (module docstring, "The guard").

    Returns ``(guard, why)``: ``""`` (calibrated t), :data:`SKEW` or :data:`BETTING`,
    and why the t-interval is not trusted (``""`` when it is).
    """
    trusted, why = normal_enough(d, bound)
    if trusted:
        return "", ""
    if float(np.ptp(d)) <= 1e-12:  # no spread: no scale to correct
        return BETTING, why
    k = int(np.count_nonzero(d))
    if k < MIN_MOVED:
        return BETTING, f"{why}; only {k} {'query differs' if k == 1 else 'queries differ'}"
    return SKEW, why


def t_mde(se: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable effect, t quantiles: ``(t_{1-alpha/2} + t_{power}) * SE``, df = n-1."""
    return float((special.stdtrit(n - 1, 1 - alpha / 2) + special.stdtrit(n - 1, power)) * se)


def delta_interval(
    d, ci: float = 0.95, *, bound: float = 1.0, fixed: bool = False
) -> DeltaInterval:
    """Calibrated interval, SE, MDE and queries needed for the mean of differences ``d``.

    Parameters
    ----------
    d : array (n,)
        Per-query differences ``challenger - baseline``.
    ci : float
        Interval level.
    bound : float
        Largest possible ``|d_i|`` (1 for metrics in [0, 1]); used only when
        every observed difference is 0.
    fixed : bool
        Every difference is 0 by construction (the stratum cannot move).

    Examples
    --------
    Thirty unchanged queries: not a zero-width interval, a bound.

    >>> r = delta_interval([0.0] * 30)
    >>> r.low < 0 < r.high, r.note[:39]
    (True, 'all 30 differences are 0 in this sample')
    """
    d = np.asarray(d, dtype=float)
    n = d.size
    nan = math.nan
    if fixed:
        return DeltaInterval(0.0, 0.0, 0.0, 0.0, nan, nan, 0, 0.0,
                             "cannot move by construction (nothing to retrieve in any config's "
                             "reach, or identical rankings): zero width is exact", p=1.0,
                             p_method="fixed by construction")
    k = int(np.count_nonzero(d))
    if n < MIN_QUERIES:
        return DeltaInterval(nan, nan, nan, nan, nan, nan, k, nan,
                             f"{TOO_FEW} (n = {n} < {MIN_QUERIES})")
    mean = float(d.mean())
    t_crit = float(special.stdtrit(n - 1, 0.5 + ci / 2))
    guard, why = construction(d, bound)
    if guard == BETTING:
        from ragnb.stats.betting import betting_interval, betting_p_value

        bound = max(float(bound), float(np.max(np.abs(d))))
        b = betting_interval(d, lower=-bound, upper=bound, alpha=1 - ci)
        se = (b.high - b.low) / (2 * t_crit)
        sigma = se * math.sqrt(n)
        return DeltaInterval(b.low, b.high, se, sigma, t_mde(se, n),
                             float(queries_needed(sigma, mean)), k, share_upper(k, n),
                             f"{BETTING_LABEL} ({why})", guard=BETTING, diagnostic=why,
                             p=betting_p_value(d, lower=-bound, upper=bound, alpha=1 - ci),
                             p_method=P_METHODS[BETTING])
    sigma = floored_sd(d, bound)
    se = sigma / math.sqrt(n)
    mde, needed = t_mde(se, n), float(queries_needed(sigma, mean))
    if guard == SKEW:
        low, high, p = skew_corrected(d, sigma, t_crit)
        return DeltaInterval(low, high, se, sigma, mde, needed, k, share_upper(k, n),
                             f"{SKEW_LABEL} ({why})", guard=SKEW, diagnostic=why, p=p,
                             p_method=P_METHODS[SKEW])
    half = t_crit * se
    note = ""
    if k == 0:
        note = (f"all {n} differences are 0 in this sample, which does not make the stratum "
                f"fixed: with 95% confidence at most {share_upper(0, n, 0.95):.0%} of such "
                f"queries differ (exact binomial bound), so the interval is not zero")
    p = float(2 * special.stdtr(n - 1, -abs(mean) / se))
    return DeltaInterval(mean - half, mean + half, se, sigma, mde, needed, k, share_upper(k, n),
                         note, p=p, p_method=P_METHODS[""])
