"""Power of a paired comparison: minimum detectable effect and queries needed.

For a two-sided test at level ``alpha`` with power ``1 - beta`` on the mean of
``n`` paired per-query differences with standard deviation ``sigma_d``
(Bloom 1995; Webber, Moffat & Zobel 2008; Sakai 2016)::

    MDE = (z_{1-alpha/2} + z_{1-beta}) * SE,        SE = sigma_d / sqrt(n)
    n   = ((z_{1-alpha/2} + z_{1-beta}) * sigma_d / delta) ** 2

At ``alpha = 0.05`` and 80% power the multiplier is 1.960 + 0.842 = 2.80.
For small ``n`` the normal quantiles are replaced by ``t_{n-1}`` quantiles and
``n`` is found by fixed-point iteration.

References
----------
Bloom, H. S. (1995). Minimum detectable effects. Evaluation Review 19(5), 547-556.
Webber, W., Moffat, A. & Zobel, J. (2008). Statistical power in retrieval
experimentation. CIKM.
Sakai, T. (2016). Topic set size design. Information Retrieval Journal 19, 256-283.
"""

from __future__ import annotations

import math

from scipy import special

from ragnb.errors import InputError


def _check_levels(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise InputError(f"`alpha` must be between 0 and 1, got {alpha!r}", source="alpha")
    if not 0 < power < 1:
        raise InputError(f"`power` must be between 0 and 1, got {power!r}", source="power")


def mde(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Minimum detectable effect ``(z_{1-alpha/2} + z_{power}) * se``.

    Parameters
    ----------
    se : float
        Standard error of the mean difference (same units as the result).
    alpha : float
        Two-sided significance level.
    power : float
        Probability of detecting a true effect of that size.

    Examples
    --------
    >>> round(mde(1.0), 3)
    2.802
    """
    _check_levels(alpha, power)
    return float((special.ndtri(1 - alpha / 2) + special.ndtri(power)) * se)


#: Beyond this many queries a target is treated as unresolvable (``inf``).
MAX_QUERIES = 1e15


def queries_needed(
    sd_diff: float,
    target_delta: float,
    alpha: float = 0.05,
    power: float = 0.8,
    *,
    max_iter: int = 100,
) -> float:
    """Queries needed to detect ``target_delta`` with the given power.

    Starts from the normal formula
    ``n0 = ((z_{1-alpha/2} + z_{power}) * sd_diff / target_delta) ** 2`` and
    iterates ``n <- ((t_{1-alpha/2, n-1} + t_{power, n-1}) * sd_diff / delta) ** 2``
    to its fixed point, rounding up (Sakai 2016 sec. 3 uses the same t
    approximation). Returns ``inf`` for a zero target (or one needing more than
    :data:`MAX_QUERIES`) and ``2`` at least.

    Parameters
    ----------
    sd_diff : float
        Standard deviation of the per-query differences.
    target_delta : float
        Mean difference to resolve (same units as ``sd_diff``); sign ignored.
    alpha, power : float
        Two-sided level and power.

    Examples
    --------
    >>> queries_needed(0.1, 0.02)  # normal formula alone gives 196.2
    199
    """
    _check_levels(alpha, power)
    delta = abs(float(target_delta))
    if sd_diff < 0 or math.isnan(sd_diff):
        raise InputError(f"`sd_diff` must be >= 0, got {sd_diff!r}", source="sd_diff")
    if delta == 0 or math.isnan(delta):
        return math.inf
    if sd_diff == 0:
        return 2
    ratio = sd_diff / delta
    n0 = ((special.ndtri(1 - alpha / 2) + special.ndtri(power)) * ratio) ** 2
    if not math.isfinite(n0) or n0 > MAX_QUERIES:
        return math.inf  # a target indistinguishable from zero (e.g. float noise of a tie)
    n = max(2, math.ceil(n0))
    for _ in range(max_iter):
        df = n - 1
        t = special.stdtrit(df, 1 - alpha / 2) + special.stdtrit(df, power)
        new = max(2, math.ceil((t * ratio) ** 2))
        if new == n:
            break
        n = new
    return n


def se_from_interval(low: float, high: float, ci: float = 0.95) -> float:
    """Standard error implied by a symmetric normal-theory interval ``(low, high)``.

    ``SE = (high - low) / (2 z_{(1+ci)/2})``; e.g. (-0.4, +3.2) at 95% gives 0.918.
    """
    return float((float(high) - float(low)) / (2 * special.ndtri((1 + ci) / 2)))
