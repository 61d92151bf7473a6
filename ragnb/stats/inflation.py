"""Selection inflation: how much keeping the best of N noisy estimates adds by luck alone.

The one definition (every page and command calls :func:`selection_inflation`)
    If ``N`` candidates are truly equal and each one's score on a split carries
    independent noise ``sigma`` (its *per-config* noise), the one that looks
    best is ahead of its true value by ``E[M_N] * sigma`` on average, where
    ``M_N`` is the maximum of ``N`` standard normals. What a split yields
    directly is the SE of a *paired* difference between two configs,
    ``SE_d``; for two configs whose noise is exchangeable (equal variance,
    equal correlation with the shared query difficulty, which cancels in the
    difference) ``Var(d) = 2 sigma^2``, so ``sigma = SE_d / sqrt(2)`` and::

        inflation = E[M_N] * SE_d / sqrt(2)

    Exchangeable noise is an assumption, stated wherever the figure is shown
    together with where ``SE_d`` came from (:class:`SelectionInflation`).
    Multiplying by ``SE_d`` itself overstates the gain by sqrt(2): simulated
    over formula 0.707 (issue 11). Keep-the-winner across ``N`` rounds is
    the same running maximum: the retained score is the best of the ``N + 1``
    configs seen, so after 40 rounds it is ahead by about
    ``E[M_41] SE_d / sqrt(2) = 1.55 SE_d`` (simulated 1.51-1.54; the tests
    check both by simulation).

``E[M_N]`` is computed by numerical integration of ::

    E[M_N] = integral x * N phi(x) Phi(x)^(N-1) dx

(Harter 1961 tabulates it), not by the asymptotic bound ``sqrt(2 ln N)``,
which is loose at the N that matter here (2.72 against 2.16 at N = 40).

Data-driven estimate beside it (bootstrapping the selection, after Tibshirani & Tibshirani 2009)
    Where the per-query scores of the candidates compared on the split are
    at hand, :func:`selection_optimism` repeats the selection on bootstrap
    resamples of the queries: with ``m_j`` the candidates' means and
    ``m*_j`` those of a resample, the resample's winner ``w* = argmax m*_j``
    looks better there than on the data by ``m*_{w*} - m_{w*}`` (the
    optimism of selection, Efron's bootstrap estimate of it; Tibshirani &
    Tibshirani estimate the same bias of a selected minimum from folds).
    In the bootstrap world the selection sees the sample's own noise *and*
    the resample's, two equal parts, so for equal candidates that average is
    ``E[M_N] sigma / sqrt(2)``; the estimate multiplies it by ``sqrt(2)``::

        optimism = sqrt(2) * mean_b (m*_b(w*_b) - m(w*_b))

    It uses the candidates' real spread and correlation: when one candidate
    is truly ahead it falls towards 0 where the formula (which assumes all
    are equal) does not. Simulated (n = 200, 10 candidates; points): all
    equal, truth 1.10, formula 1.09, this 1.07; one ahead by 3 paired SE,
    truth 0.04, formula 1.09, this 0.26; evenly spread over 2 SE, truth
    0.87, formula 1.09, this 0.92 (``tests/stats/test_inflation.py``).

References
----------
Harter, H. L. (1961). Expected values of normal order statistics. Biometrika 48, 151-165.
Smith, J. E. & Winkler, R. L. (2006). The optimizer's curse. Management Science 52(3).
Cawley, G. C. & Talbot, N. L. C. (2010). On over-fitting in model selection and
subsequent selection bias in performance evaluation. JMLR 11, 2079-2107.
Trefethen, L. N. & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal
rule. SIAM Review 56(3), 385-458.
Tibshirani, R. J. & Tibshirani, R. (2009). A bias correction for the minimum error
rate in cross-validation. Annals of Applied Statistics 3(2), 822-829.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from ragnb.errors import InputError

#: Points of the trapezoid rule over ``centre +- 12`` in :func:`_expected_max`.
_GRID = 4001


@lru_cache(maxsize=4096)
def _expected_max(n: int) -> float:
    """``E[M_n] = integral of x n phi(x) Phi(x)^(n-1) dx`` by the trapezoid rule.

    The integrand is analytic and decays like a Gaussian on both sides, where the
    trapezoid rule converges geometrically (Trefethen & Weideman 2014, SIAM Review
    56(3)); on 4,001 points over Blom's centre +- 12 it agrees with adaptive
    quadrature (``scipy.integrate.quad``, epsabs 1e-13) within 2e-10 for every n up
    to 10^7 and with the closed forms for n = 2, 3 to 1e-15, without loading
    scipy.integrate (0.3-1 s of imports).
    """
    if n == 1:
        return 0.0
    centre = float(special.ndtri((n - 0.375) / (n + 0.25)))  # Blom's approximation
    x = np.linspace(centre - 12.0, centre + 12.0, _GRID)
    # x * n phi(x) Phi(x)^(n-1), in logs so that large n neither under- nor overflows
    log_density = (math.log(n) - 0.5 * x * x - 0.5 * math.log(2 * math.pi)
                   + (n - 1) * special.log_ndtr(x))
    return float(np.trapezoid(x * np.exp(log_density), x))


def expected_max_normal(n: int) -> float:
    """Expected maximum of ``n`` independent standard normal variables.

    Parameters
    ----------
    n : int
        Number of candidates (``n >= 1``; ``n = 1`` gives 0).

    Examples
    --------
    >>> [round(expected_max_normal(n), 2) for n in (2, 10, 40, 100)]
    [0.56, 1.54, 2.16, 2.51]
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise InputError(f"`n` must be a positive integer, got {n!r}", source="n")
    return _expected_max(int(n))


def selection_inflation(n_selections: int, paired_se: float) -> float:
    """Expected upward bias of the best of ``n_selections``: ``E[M_N] * paired_se / sqrt(2)``.

    Parameters
    ----------
    n_selections : int
        Candidates (or rounds of keep-the-winner) selected among on one split;
        0 gives 0.
    paired_se : float
        SE of a paired difference between two configs on that split (metric
        units); the per-config noise is ``paired_se / sqrt(2)`` under the
        exchangeable-noise assumption of the module docstring.

    Examples
    --------
    40 rounds at a paired SE of 0.0069 inflate by about 1.06 points, not 1.5.

    >>> round(selection_inflation(40, 0.0069) * 100, 2)
    1.05
    """
    if paired_se is None or paired_se < 0 or np.isnan(paired_se):
        raise InputError(f"`paired_se` must be >= 0, got {paired_se!r}", source="se")
    if n_selections == 0:
        return 0.0
    return expected_max_normal(n_selections) * float(paired_se) / math.sqrt(2)


def implied_inflation(n_selections: int | None, paired_se: float | None) -> float | None:
    """The inflation a split's selection count implies, where either may be unknown.

    ``0`` for a split never selected against (whatever its SE), ``None`` when the
    count or the SE is unknown (a split no ledger knows, a comparison not made),
    else :func:`selection_inflation`. Every table that shows a split's inflation
    beside its ``selections_against`` fills it from here.

    Examples
    --------
    >>> implied_inflation(0, None), implied_inflation(None, 0.01), implied_inflation(40, None)
    (0.0, None, None)
    >>> round(implied_inflation(40, 0.0069) * 100, 2)
    1.05
    """
    if n_selections is None or (n_selections != 0 and paired_se is None):
        return None
    return float(selection_inflation(int(n_selections), 0.0 if paired_se is None else paired_se))


def implied_se(inflation: float, n_selections: int) -> float:
    """The paired SE at which ``n_selections`` candidates inflate by ``inflation``."""
    return float(inflation) * math.sqrt(2) / expected_max_normal(n_selections)


ASSUMPTION = "configs' noise assumed exchangeable: per-config noise = paired SE / √2"


@dataclass(frozen=True)
class SelectionInflation:
    """The selection inflation of one split, with everything needed to read it.

    Attributes
    ----------
    split : str
    selections : int
        ``selections_against`` of the split.
    paired_se : float
        SE of the paired difference it is computed from (metric units).
    se_source : str
        Which comparison that SE comes from and how it was computed.
    inflation : float
        ``selection_inflation(selections, paired_se)`` (metric units).
    optimism : float or None
        The data-driven estimate of :func:`selection_optimism`, when computed.
    """

    split: str
    selections: int
    paired_se: float
    se_source: str
    inflation: float
    optimism: float | None = None

    @property
    def points(self) -> float:
        return self.inflation * 100

    @property
    def expected_max(self) -> float:
        """``E[max of N standard normals]`` for ``N = selections`` (0 when nothing was selected)."""
        return expected_max_normal(self.selections) if self.selections else 0.0

    def describe(self) -> str:
        """One sentence, the same on every page (points)."""
        emax = self.expected_max
        text = (f"selection inflation on {self.split}: {self.points:.2f} points = E[max of "
                f"{self.selections} standard normals] {emax:.2f} × per-config noise "
                f"{self.paired_se / math.sqrt(2) * 100:.2f} points (paired SE "
                f"{self.paired_se * 100:.2f} points / √2; {ASSUMPTION}; SE: {self.se_source})")
        if self.optimism is not None:
            text += (f"; bootstrapping the selection itself (Tibshirani & Tibshirani 2009) "
                     f"gives {self.optimism * 100:.2f} points")
        return text


def split_inflation(split: str, selections: int, paired_se: float, se_source: str,
                    optimism: float | None = None) -> SelectionInflation:
    """Build the :class:`SelectionInflation` of one split (the one formula inside)."""
    return SelectionInflation(split, int(selections), float(paired_se), se_source,
                              selection_inflation(int(selections), paired_se), optimism)


def paired_se(baseline, champion) -> tuple[float, str]:
    """The split's paired SE and its source: the calibrated SE of ``champion - baseline``.

    Deterministic (no resampling), so every page that compares the same two
    configs on the same split gets the same figure
    (:func:`ragnb.stats.interval.delta_interval`).
    """
    from ragnb.stats import _inputs
    from ragnb.stats.interval import delta_interval

    pair = _inputs.align(baseline, champion)
    d = pair.challenger - pair.baseline
    se = delta_interval(d).se
    names = [getattr(x, "name", None) for x in (champion, baseline)]
    label = f"{names[0]} − {names[1]}" if all(isinstance(n, str) for n in names) else "the pair"
    return float(se), (f"calibrated SE of the paired difference {label} over {d.size} "
                       f"queries")


def selection_optimism(scores, *, resamples: int = 2_000, seed: int = 20260729) -> float:
    """Data-driven optimism of the winner among candidates, by bootstrapping the selection.

    Parameters
    ----------
    scores : DataFrame or array (queries, candidates)
        Per-query scores of every candidate selected among on the split
        (higher is better).
    resamples : int
        Bootstrap resamples of the queries.
    seed : int
        Seeds a fresh ``numpy.random.Generator``.

    Returns
    -------
    float
        ``sqrt(2) * mean_b (m*_b(w*_b) - m(w*_b))`` (module docstring), metric units.
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 2:
        raise InputError(f"need per-query scores of >= 2 candidates on >= 2 queries, got "
                         f"shape {x.shape}", source="scores")
    if np.isnan(x).any():
        raise InputError("per-query scores contain NaN", source="scores")
    n = x.shape[0]
    m = x.mean(axis=0)
    rng = np.random.default_rng(seed)
    total, rows = 0.0, max(1, 2**18 // (n + x.shape[1]))
    for start in range(0, resamples, rows):
        b = min(rows, resamples - start)
        counts = rng.multinomial(n, np.full(n, 1 / n), size=b)  # (b, n)
        means = counts @ x / n  # (b, candidates)
        best = means.argmax(axis=1)
        total += float((means[np.arange(b), best] - m[best]).sum())
    return math.sqrt(2) * total / resamples
