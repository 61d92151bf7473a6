"""Audit a published figure: what a mean over ``n`` queries can support, from the figure alone.

A table reports "recall@5 = 1.00 on 10 queries, baseline 0.70". Without the
per-query values, three things still follow from ``n`` and the means:

The interval the figure supports (Hoeffding 1963, Theorem 1)
    For values in ``[0, 1]`` with mean ``mu`` and any distribution,
    ``P(mean >= mu + t) <= exp(-n kl(mu + t || mu))`` with the Bernoulli
    Kullback-Leibler divergence ``kl(p || q) = p log(p/q) + (1-p) log((1-p)/(1-q))``
    (and the mirror bound below), so ``{mu : n kl(v || mu) <= log(2 / alpha)}``
    is a ``1 - alpha`` interval for the mean behind an observed mean ``v``,
    valid for every metric bounded in ``[0, 1]``. The difference from a
    baseline is that interval minus the baseline's figure, taken as exact:
    that favours the claim, so a difference it does not establish is not
    established by the figures at all.

The smallest p-value any comparison at that n could reach
    The exact paired sign-flip (randomization) test, the project's headline
    test, has ``2^n`` equally likely sign patterns under the null; its smallest
    two-sided p-value is ``2 / 2^n`` (every difference non-zero and of one sign).

The minimum detectable effect (Bloom 1995, with t quantiles)
    ``MDE = (t_{n-1, 1-alpha/2} + t_{n-1, power}) sigma_d / sqrt(n)``. Without
    a given ``sigma_d`` the largest one the two means allow is used: for
    ``x, y`` in ``[0, 1]`` with means ``v, b``, ``E d^2 <= E|x - y| <=
    min(v + b, 2 - v - b)`` and ``d^2 <= 1``, so
    ``sigma_d <= sqrt(min(1, v + b, 2 - v - b) - (v - b)^2)`` (reached by 0/1
    values): the MDE is then an upper bound, "effects this large could be missed".

References
----------
Hoeffding, W. (1963). Probability inequalities for sums of bounded random
variables. JASA 58, 13-30.
Bloom, H. S. (1995). Minimum detectable effects. Evaluation Review 19(5), 547-556.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ragnb.errors import InputError
from ragnb.stats.interval import t_mde


def kl_bernoulli(p: float, q: float) -> float:
    """``kl(p || q)`` of two Bernoulli laws (``0 log 0 = 0``; infinite when ``q`` is 0 or 1
    and ``p`` is not).
    """
    out = 0.0
    for a, b in ((p, q), (1 - p, 1 - q)):
        if a > 0:
            if b <= 0:
                return math.inf
            out += a * math.log(a / b)
    return out


def kl_interval(mean: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """``{mu : n kl(mean || mu) <= log(2 / alpha)}`` for a mean of ``n`` values in ``[0, 1]``.

    Examples
    --------
    Ten queries all at 1.0: the true mean may be as low as ``40^(-1/10)`` = 0.69.

    >>> [round(x, 3) for x in kl_interval(1.0, 10)]
    [0.692, 1.0]
    """
    bound = math.log(2 / alpha) / n

    def solve(lo: float, hi: float, inside_at_lo: bool) -> float:
        for _ in range(200):
            mid = (lo + hi) / 2
            inside = kl_bernoulli(mean, mid) <= bound
            if inside == inside_at_lo:
                lo = mid
            else:
                hi = mid
        return hi  # the outside end: rounding only widens the interval

    low = 0.0 if kl_bernoulli(mean, 0.0) <= bound else solve(mean, 0.0, True)
    high = 1.0 if kl_bernoulli(mean, 1.0) <= bound else solve(mean, 1.0, True)
    return min(low, mean), max(high, mean)


def sd_bound(value: float, baseline: float) -> float:
    """The largest SD of ``x - y`` for ``x, y`` in ``[0, 1]`` with means ``value, baseline``."""
    second = min(1.0, value + baseline, 2 - value - baseline)
    return math.sqrt(max(second - (value - baseline) ** 2, 0.0))


@dataclass(frozen=True)
class Audit:
    """What a mean over ``n`` queries supports (values 0-1; module docstring)."""

    n: int
    value: float
    baseline: float | None
    metric: str
    alpha: float
    power: float
    low: float
    high: float
    delta_low: float | None
    delta_high: float | None
    min_p: float
    sd: float | None
    sd_source: str
    mde: float | None

    def headline(self) -> str:
        """The answer first, in points."""
        fig = (f"{self.metric} = {self.value * 100:.1f} points on {self.n} queries supports "
               f"a true mean anywhere in [{self.low * 100:.1f}, {self.high * 100:.1f}] "
               f"({1 - self.alpha:.0%}, any distribution)")
        if self.baseline is None or self.delta_low is None or self.delta_high is None:
            return fig + "."
        gap = self.value - self.baseline
        if self.delta_low > 0 or self.delta_high < 0:
            verdict = (f"the {gap * 100:+.1f}-point difference from the baseline "
                       f"{self.baseline * 100:.1f} is supported: its interval "
                       f"[{self.delta_low * 100:+.1f}, {self.delta_high * 100:+.1f}] excludes 0 "
                       "(the baseline taken as exact)")
        else:
            verdict = (f"the {gap * 100:+.1f}-point difference from the baseline "
                       f"{self.baseline * 100:.1f} is not established at this n, even taking "
                       f"the baseline as exact: its interval [{self.delta_low * 100:+.1f}, "
                       f"{self.delta_high * 100:+.1f}] holds 0")
        return f"{fig}; {verdict}."

    def lines(self) -> list[str]:
        out = [self.headline(),
               f"smallest p-value any paired comparison of {self.n} queries can reach: "
               f"{self.min_p:.3g} (exact sign-flip test: 2 / 2^{self.n})"]
        if self.mde is not None:
            out.append(f"minimum detectable effect ({self.power:.0%} power, alpha "
                       f"{self.alpha:g}): {self.mde * 100:.1f} points, with SD of the "
                       f"differences {self.sd * 100 if self.sd is not None else 0:.1f} points "
                       f"({self.sd_source})")
        out.append("method: Hoeffding (1963) Bernoulli-KL interval from the mean alone, valid "
                   "for any metric in [0, 1]; the difference is it minus the baseline; MDE "
                   "(t_(n-1, 1-alpha/2) + t_(n-1, power)) SD / sqrt(n)")
        return out

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def audit(n: int, value: float, baseline: float | None = None, *, metric: str = "metric",
          alpha: float = 0.05, power: float = 0.8, sd: float | None = None) -> Audit:
    """Audit a figure (module docstring).

    Examples
    --------
    >>> a = audit(10, 1.0, 0.70, metric="recall@5")
    >>> round(a.low, 3), a.min_p, round(a.mde, 3)
    (0.692, 0.001953125, 0.456)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise InputError(f"`n` must be an integer >= 2, got {n!r}", key="--n")
    for key, x in (("--value", value), ("--baseline", baseline)):
        if x is not None and not 0 <= x <= 1:
            raise InputError(f"must be a metric value in [0, 1], got {x!r} (give 0.70, not 70)",
                             key=key)
    if not 0 < alpha < 1:
        raise InputError(f"must be in (0, 1), got {alpha!r}", key="--alpha")
    if not 0 < power < 1:
        raise InputError(f"must be in (0, 1), got {power!r}", key="--power")
    if sd is not None and not 0 < sd <= 1:
        raise InputError(f"must be an SD of differences in (0, 1], got {sd!r}", key="--sd")
    low, high = kl_interval(value, n, alpha)
    delta_low = delta_high = mde = None
    source = ""
    if baseline is not None:
        delta_low, delta_high = low - baseline, high - baseline
        if sd is None:
            sd = sd_bound(value, baseline)
            source = "the largest the two means allow, so the MDE is an upper bound"
        else:
            source = "given"
        mde = t_mde(sd / math.sqrt(n), n, alpha, power) if sd > 0 else 0.0
    return Audit(n, float(value), baseline, metric, alpha, power, low, high, delta_low,
                 delta_high, math.ldexp(2.0, -n), sd, source, mde)
