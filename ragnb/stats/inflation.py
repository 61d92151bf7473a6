"""Selection inflation: how much keeping the best of N noisy candidates adds by luck alone.

One figure per split (:func:`split_inflation`, which every page, command and widget calls)
    The truth it estimates is ``E[m_w - mu_w]``: the winner's mean on the
    split minus its true mean, ``w = argmax_k m_k`` over the candidates
    selected among. Its method is named wherever it is shown.

The worst case, when only the count is known (:func:`selection_inflation`)
    If ``N`` candidates are truly equal and each one's mean carries
    independent noise ``sigma``, the winner is ahead by ``E[M_N] sigma``,
    ``M_N`` the maximum of ``N`` standard normals. For exchangeable candidates
    the SE of a paired difference between two of them is ``SE_d = sqrt(2)
    sigma``, so::

        inflation = E[M_N] * SE_d / sqrt(2)

    It is right only when every candidate is equal and ``SE_d`` is the SE
    *between candidates*: spread candidates give less (the truth is x 0.82 of
    it at a spread of 2 SE), one candidate far ahead far less (x 0.07 at 3 SE
    ahead of 39), and the SE of the champion against a distinct baseline
    overstates it (x 1.41 when the baseline's difference has twice the
    variance). So it is
    shown as an upper bound, "worst case: all candidates equal".

The data-driven estimate from the candidates' per-query scores (:func:`selection_bias_estimate`)
    1. Noise: each candidate's noise ``sigma_k`` from the variances of the
       per-query differences between candidates (:func:`candidate_noise`; the
       shared query difficulty cancels), and ``B`` bootstrap resamples of the
       queries, ``e_b = m*_b - m``, for the noise of all means jointly.
    2. True means: empirical Bayes. The distribution ``G`` of the true means
       is estimated by nonparametric maximum likelihood (Kiefer & Wolfowitz
       1956; EM on a grid, Jiang & Zhang 2009) from ``m_k ~ N(mu_k,
       sigma_k^2)``; ``mu^_k = E_G[mu_k | m_k]``. Equal candidates collapse
       to one value, a candidate far ahead keeps its lead, a spread is kept.
    3. The selection repeated on them: ``t = mean_b (e_b[w_b] - e_b[l])``,
       ``w_b = argmax_k (mu^_k + e_b,k)``, ``l = argmax_k mu^_k``; ``e_b[l]``
       averages to 0 (a control variate), and every term is >= 0.
    4. Bias correction (the iterated bootstrap on the log scale, Hall 1992
       sec. 1.4): ``t`` errs by a factor, mostly where one candidate leads
       (shrinking its lead raises ``t``), and refitting on ``R`` data sets
       drawn from ``mu^`` (``m* = mu^ + e_r``) errs by the same factor again,
       so ``t_bc = t^2 / median_r t*_r``, clipped to ``[0, E[M_K] max_k
       sigma_k]`` (never negative, never above the worst case).

    5. The range (``low`` to ``high``): ``low`` is the estimate refitted with
       the leading candidate's mean raised by ``1.645 sigma_lead`` (a one-sided
       95% limit for its true mean: the larger its lead, the smaller the
       figure), ``high`` the worst case, which no selection exceeds
       (``e_w <= max_k e_k``). Where the refits disagree (SD of ``log t*_r``
       above :data:`SPREAD_LIMIT`) the range, not the point, is the figure.

    Validated against the simulated truth (``benchmarks/sim_inflation.py``:
    40 candidates, 250 queries, 200 data sets; a fast version in
    ``tests/stats/test_inflation.py``), estimate / truth, median and mean:
    all equal 0.99 and 0.96; spread over 2 SE 1.02 and 0.95; a distinct
    baseline 0.99 and 0.94; one ahead by 3 SE 1.06 and 3.6. Where one leads
    the truth is small (0.16 of one candidate's noise) and falls 40-fold
    within one SE of the lead, the very noise the data measure the lead
    with, so no estimate from one data set is unbiased in the mean there;
    its median is. There the range is the figure in 78% of data sets and
    holds the truth in 94% (98% where shown); in the other 22% the data show
    no leader and the point, 11.7 times the truth, errs on the side of more
    inflation. Elsewhere the range is shown in 4-15% of data sets and always
    holds the truth. The optimism bootstrap it replaces (the selection
    bootstrapped on the observed means, x sqrt(2)) had medians 1.02, 1.11,
    1.03 and 4.85 (mean 5.6) in the same four; the worst case 13.9 where one
    leads.

References
----------
Harter, H. L. (1961). Expected values of normal order statistics. Biometrika 48, 151-165.
Smith, J. E. & Winkler, R. L. (2006). The optimizer's curse. Management Science 52(3).
Kiefer, J. & Wolfowitz, J. (1956). Consistency of the maximum likelihood estimator in the
presence of infinitely many incidental parameters. Ann. Math. Stat. 27, 887-906.
Jiang, W. & Zhang, C.-H. (2009). General maximum likelihood empirical Bayes estimation of
normal means. Ann. Stat. 37(4), 1647-1684.
Efron, B. (2011). Tweedie's formula and selection bias. JASA 106, 1602-1614.
Hall, P. (1992). The Bootstrap and Edgeworth Expansion. Springer (sec. 1.4, iterated bootstrap).
Trefethen, L. N. & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal
rule. SIAM Review 56(3), 385-458.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from scipy import special

from ragnb.errors import InputError
from ragnb.vocab import DEFAULT_SEED

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
    """Worst-case bias of the best of ``n_selections`` equal candidates: ``E[M_N] SE / sqrt(2)``.

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


def implied_se(inflation: float, n_selections: int) -> float:
    """The paired SE at which ``n_selections`` equal candidates inflate by ``inflation``."""
    return float(inflation) * math.sqrt(2) / expected_max_normal(n_selections)


#: The method names a :class:`SelectionInflation` carries (one per way it was computed).
DATA_DRIVEN = "empirical-Bayes selection bootstrap"
WORST_CASE = "worst case: all candidates equal"
NEVER = "never selected against"
#: Defaults of :func:`split_inflation` (seed as every resampling in ragnb).
RESAMPLES, REFITS, SEED = 2_000, 50, DEFAULT_SEED
#: The range of a data-driven figure: its lower end raises the leader's mean by this many of
#: its SEs (a one-sided 95% limit for the leader's true mean); above a spread of the log
#: estimate over the refits of :data:`SPREAD_LIMIT` the range, not the point, is the figure.
LEAD_Z, SPREAD_LIMIT = 1.645, 0.5
#: Grid points and EM iterations of the deconvolution in :func:`_posterior_means`.
_GRID_POINTS, _EM_ITERATIONS = 100, 300


@dataclass(frozen=True)
class SelectionInflation:
    """The one selection-inflation figure of a split, with how it was computed.

    Attributes
    ----------
    split : str
    selections : int
        ``selections_against`` of the split.
    inflation : float
        The figure (metric units, >= 0).
    method : str
        :data:`DATA_DRIVEN` (from the candidates' per-query scores),
        :data:`WORST_CASE` (the count and an SE only) or :data:`NEVER`.
    se : float or None
        SE of a paired difference between two candidates (metric units): the
        median over pairs of candidates when computed from their scores.
    se_source : str
        Which comparison that SE comes from.
    candidates : int
        Candidates whose scores were used (0 for the worst case).
    n : int
        Queries (0 when unknown).
    resamples, refits, seed : int
        Bootstrap resamples of the queries, parametric refits of the bias
        correction and the seed (0 when nothing was resampled).
    low, high : float or None
        The data-driven figure's range (:func:`selection_bias_estimate`).
    spread : float
        SD of the log estimate over the refits; above :data:`SPREAD_LIMIT` the
        figure is shown as its range (:attr:`ranged`).
    """

    split: str
    selections: int
    inflation: float
    method: str
    se: float | None = None
    se_source: str = ""
    candidates: int = 0
    n: int = 0
    resamples: int = 0
    refits: int = 0
    seed: int = 0
    low: float | None = None
    high: float | None = None
    spread: float = 0.0

    @property
    def points(self) -> float:
        return self.inflation * 100

    @property
    def ranged(self) -> bool:
        """True where one estimate is too unstable to show alone: the range is the figure."""
        return self.method == DATA_DRIVEN and self.low is not None and \
            self.spread > SPREAD_LIMIT

    def _range(self) -> str:
        return f"{(self.low or 0.0) * 100:.2f}–{(self.high or 0.0) * 100:.2f} points"

    @property
    def worst_case(self) -> bool:
        return self.method == WORST_CASE

    @property
    def expected_max(self) -> float:
        """``E[max of N standard normals]``, N = selections (0 when nothing was selected)."""
        return expected_max_normal(self.selections) if self.selections else 0.0

    def label(self) -> str:
        """The figure with its method in a few words (points), for tables and headlines."""
        if self.method == NEVER:
            return "0.00 points (never selected against)"
        if self.worst_case:
            return f"at most {self.points:.2f} points (worst case: all candidates equal)"
        if self.ranged:
            return (f"{self._range()} ({DATA_DRIVEN} over {self.candidates} candidates; one "
                    f"leads by too uncertain a margin for a single figure)")
        return (f"{self.points:.2f} points ({DATA_DRIVEN} over {self.candidates} "
                f"candidates)")

    def describe(self) -> str:
        """One sentence, the same on every page and command (points)."""
        head = f"selection inflation on {self.split} after {self.selections} selections: "
        if self.method == NEVER:
            return head + "0.00 points (never selected against)"
        se = "" if self.se is None else f"{self.se * 100:.2f} points"
        if self.worst_case:
            return head + (
                f"at most {self.points:.2f} points, the worst case (all candidates equal): "
                f"E[max of {self.selections} standard normals] {self.expected_max:.2f} × SE "
                f"{se} / √2 (SE: {self.se_source}; the candidates' per-query scores, which "
                f"would give a data-driven figure, are not at hand)")
        span = (f"from the estimate with the leading candidate's mean raised by {LEAD_Z} of "
                f"its SEs (a one-sided 95% limit) to the worst case (all candidates equal)")
        if self.ranged:
            return head + (
                f"{self._range()}, not one figure: one candidate leads by a margin the data "
                f"measure with the very noise the figure is about, so the estimate "
                f"({self.points:.2f} points, {DATA_DRIVEN} over {self.candidates} candidates "
                f"on {self.n} queries, {self.resamples:,} query resamples, {self.refits} "
                f"refits, seed {self.seed}) is unstable (SD of its log over the refits "
                f"{self.spread:.2f}, above {SPREAD_LIMIT}); the range runs {span}")
        lead = "" if self.low is None else f"; range {self._range()}, {span}"
        return head + (
            f"{self.points:.2f} points, {DATA_DRIVEN} over {self.candidates} candidates on "
            f"{self.n} queries: their true means estimated by empirical-Bayes deconvolution "
            f"(Kiefer-Wolfowitz NPMLE) of their means with each one's noise between "
            f"candidates, the selection repeated on {self.resamples:,} query resamples, "
            f"bias-corrected by {self.refits} parametric refits, seed {self.seed}; SE of a "
            f"difference between candidates {se} ({self.se_source}){lead}")


def split_inflation(split: str, selections: int | None, se: float | None = None,
                    se_source: str = "", *, scores=None,
                    resamples: int = RESAMPLES, refits: int = REFITS,
                    seed: int = SEED) -> SelectionInflation | None:
    """The selection inflation of one split: the one figure every surface shows.

    Parameters
    ----------
    split : str
    selections : int or None
        ``selections_against`` of the split (None: unknown, gives None).
    se, se_source : float, str
        Without ``scores``: the SE of a paired difference between two configs
        and where it comes from; the figure is the worst case
        :func:`selection_inflation`.
    scores : DataFrame or array (queries, candidates), optional
        Per-query scores of the candidates selected among on the split. When
        given (>= 2 candidates), the figure is :func:`selection_bias_estimate`.
    resamples, refits, seed : int
        Passed to :func:`selection_bias_estimate`.

    Returns
    -------
    SelectionInflation or None
        None when neither scores nor an SE are known for a split selected against.

    Examples
    --------
    >>> split_inflation("golden", 40, se=0.0069, se_source="b − a").label()
    'at most 1.05 points (worst case: all candidates equal)'
    >>> split_inflation("prod", 0).label()
    '0.00 points (never selected against)'
    """
    if selections is None:
        return None
    selections = int(selections)
    if selections == 0:
        return SelectionInflation(split, 0, 0.0, NEVER)
    if scores is not None and np.asarray(scores).shape[1] >= 2:
        x = np.asarray(scores, dtype=float)
        est = selection_bias_estimate(x, resamples=resamples, refits=refits, seed=seed)
        return SelectionInflation(
            split, selections, est.inflation, DATA_DRIVEN, est.se_between,
            "median over pairs of candidates of the SE of their paired difference",
            x.shape[1], x.shape[0], resamples, refits, seed, est.low, est.high, est.spread)
    if se is None:
        return None
    return SelectionInflation(split, selections, selection_inflation(selections, se),
                              WORST_CASE, float(se), se_source)


def paired_se(baseline, champion) -> tuple[float, str]:
    """The paired SE of ``champion - baseline`` and its source (deterministic).

    Used by the worst case of :func:`split_inflation` where the candidates'
    scores are not at hand, and by the guard's ranking margin
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


def candidate_noise(scores) -> tuple[np.ndarray, float]:
    """Each candidate's own noise in its mean, and the median SE between two candidates.

    With ``D_ij`` the variance of the per-query difference of candidates ``i``
    and ``j`` and ``v_i`` candidate ``i``'s idiosyncratic variance (the shared
    query difficulty cancels in a difference), ``D_ij = v_i + v_j``; least
    squares over all pairs gives ``V = sum_ij D_ij / (2(K - 1))`` (sum over
    ``i != j``, halved) and ``v_i = (sum_j D_ij - V) / (K - 2)`` (``K = 2``:
    ``v = D / 2``). The noise of candidate ``i``'s mean is ``sqrt(v_i / n)``.

    Returns
    -------
    (sigma, se_between) : (ndarray (K,), float)
        ``sqrt(v_i / n)`` (floored at a tenth of their median) and the median
        over pairs of ``sqrt(D_ij / n)``, the SE of a paired difference between
        two candidates.
    """
    x = np.asarray(scores, dtype=float)
    n, k = x.shape
    c = np.cov(x, rowvar=False)
    d = np.diag(c)[:, None] + np.diag(c)[None, :] - 2 * c  # Var(x_i - x_j)
    if k == 2:
        v = np.full(2, d[0, 1] / 2)
    else:
        total = d.sum() / 2 / (k - 1)
        v = (d.sum(axis=1) - total) / (k - 2)
    pairs = d[np.triu_indices(k, 1)]
    se_between = float(np.sqrt(np.median(pairs) / n))
    floor = 0.1 * max(float(np.median(v)), 1e-30)
    return np.sqrt(np.maximum(v, floor) / n), se_between


def _posterior_means(means: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Empirical-Bayes true means: posterior means under the NPMLE of their distribution.

    Kiefer-Wolfowitz nonparametric maximum likelihood of the distribution ``G``
    of the true means on a grid of :data:`_GRID_POINTS` between the smallest and
    largest observed mean, each mean ``m_k ~ N(mu_k, sigma_k^2)``, by EM
    (Jiang & Zhang 2009: ``w_g <- w_g mean_k L_kg / sum_h w_h L_kh``), then
    ``E[mu_k | m_k] = sum_g g w_g L_kg / sum_g w_g L_kg``. Equal candidates
    collapse to one value; one far ahead keeps its own. Leading axes are
    batches (shape ``(..., K)``).
    """
    lo = means.min(axis=-1, keepdims=True)
    hi = means.max(axis=-1, keepdims=True)
    grid = lo + (hi - lo) * np.linspace(0.0, 1.0, _GRID_POINTS)   # (..., G)
    z = (means[..., :, None] - grid[..., None, :]) / sigma[:, None]
    lik = np.exp(-0.5 * z * z) / sigma[:, None]                     # (..., K, G)
    w = np.full(grid.shape, 1.0 / _GRID_POINTS)
    for _ in range(_EM_ITERATIONS):
        f = (lik * w[..., None, :]).sum(axis=-1, keepdims=True)
        w = w * (lik / f).mean(axis=-2)
    post = lik * w[..., None, :]
    return (post * grid[..., None, :]).sum(axis=-1) / post.sum(axis=-1)


def _selected_noise(true_means: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """``mean_b (e_b[w_b] - e_b[l])``, ``w_b = argmax(true_means + e_b)``: the selection's bias.

    ``noise`` (B, K) holds noise draws of the candidates' means (zero mean). The
    winner's noise ``e_b[w_b]`` averages to the bias; ``e_b[l]``, the noise of
    the candidate ``l`` that leads on ``true_means``, averages to 0 whoever wins,
    so subtracting it (a control variate) leaves the expectation and removes the
    Monte Carlo noise of the draws ``l`` wins, the most where one leads. Every
    term is >= 0 (``w_b`` beat ``l``: ``e_w - e_l > mu_l - mu_w >= 0``), so the
    figure is never negative. Leading axes of ``true_means`` are batches.
    """
    x = true_means[..., None, :] + noise                             # (..., B, K)
    e = np.broadcast_to(noise, x.shape)
    win = x.argmax(axis=-1)[..., None]
    lead = np.broadcast_to(true_means.argmax(axis=-1)[..., None, None], win.shape)
    gain = np.take_along_axis(e, win, axis=-1) - np.take_along_axis(e, lead, axis=-1)
    return gain[..., 0].mean(axis=-1)


def _bias_estimate(means: np.ndarray, sigma: np.ndarray, noise: np.ndarray,
                   refit_noise: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The estimate of :func:`selection_bias_estimate` from means and noise draws.

    ``means`` (..., K); ``sigma`` (K,) each candidate's noise; ``noise`` (B, K)
    and ``refit_noise`` (R, K) independent noise draws of the means. Returns
    ``min(max(0, t^2 / median_r t*_r), E[M_K] max sigma)`` (module docstring) and
    the SD over the refits of ``log t*_r`` (``t*`` floored at ``1e-6 max sigma``):
    how far the estimate moves between data sets like this one.
    """
    k = means.shape[-1]
    mu = _posterior_means(means, sigma)
    t = _selected_noise(mu, noise)
    star = mu[..., None, :] + refit_noise                            # (..., R, K)
    t_star = _selected_noise(_posterior_means(star, sigma), noise)
    med = np.median(t_star, axis=-1)
    corrected = np.where(med > 0, t * t / np.where(med > 0, med, 1.0), t)
    worst = expected_max_normal(k) * float(sigma.max())
    spread = np.log(np.maximum(t_star, 1e-6 * float(sigma.max()))).std(axis=-1)
    return np.clip(corrected, 0.0, worst), spread


class BiasEstimate(NamedTuple):
    """What :func:`selection_bias_estimate` returns (metric units)."""

    inflation: float
    se_between: float
    low: float
    high: float
    spread: float


def selection_bias_estimate(scores, *, resamples: int = RESAMPLES, refits: int = REFITS,
                            seed: int = SEED) -> BiasEstimate:
    """Data-driven selection inflation of the winner among candidates (module docstring).

    Parameters
    ----------
    scores : DataFrame or array (queries, candidates)
        Per-query scores of every candidate selected among on the split
        (higher is better), no NaN.
    resamples : int
        Bootstrap resamples of the queries: the noise of the selection.
    refits : int
        Parametric refits of the bias correction.
    seed : int
        Seeds a fresh ``numpy.random.Generator``.

    Returns
    -------
    BiasEstimate
        ``inflation`` (the estimate, >= 0), ``se_between`` (the median SE of a
        paired difference between two candidates, :func:`candidate_noise`),
        ``low`` and ``high`` (the range: the estimate with the leader's mean
        raised by :data:`LEAD_Z` of its own SEs, and the worst case ``E[M_K] max
        sigma``) and ``spread`` (SD of the log estimate over the refits; above
        :data:`SPREAD_LIMIT` the range is the figure).
    """
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2 or x.shape[1] < 2 or x.shape[0] < 2:
        raise InputError(f"need per-query scores of >= 2 candidates on >= 2 queries, got "
                         f"shape {x.shape}", source="scores")
    if np.isnan(x).any():
        raise InputError("per-query scores contain NaN", source="scores")
    n = x.shape[0]
    m = x.mean(axis=0)
    sigma, between = candidate_noise(x)
    if between == 0:
        return BiasEstimate(0.0, 0.0, 0.0, 0.0, 0.0)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=resamples + refits)
    draws = counts @ x / n - m                                        # (B + R, K)
    value, low, high, spread = _estimate_and_range(m, sigma, draws[:resamples],
                                                   draws[resamples:])
    return BiasEstimate(float(value), between, float(low), float(high), float(spread))


def _estimate_and_range(means: np.ndarray, sigma: np.ndarray, noise: np.ndarray,
                        refit_noise: np.ndarray):
    """``(estimate, low, high, spread)`` of :func:`selection_bias_estimate` (batched like means).

    ``low`` is the estimate refitted with the leading candidate's mean raised by
    ``LEAD_Z sigma_lead`` (no higher than the estimate), ``high`` the worst case.
    """
    lead = means.argmax(axis=-1)
    raised = means.copy()
    np.put_along_axis(raised, lead[..., None],
                      np.take_along_axis(means, lead[..., None], axis=-1)
                      + LEAD_Z * sigma[lead][..., None], axis=-1)
    value, spread = _bias_estimate(np.stack([means, raised]), sigma, noise, refit_noise)
    worst = np.full(value[0].shape, expected_max_normal(means.shape[-1]) * float(sigma.max()))
    return value[0], np.minimum(value[1], value[0]), worst, spread[0]


def as_inflation(split: str, selections: int | None,
                 given: SelectionInflation | float | None) -> SelectionInflation | None:
    """A split's figure from what a caller has: the figure itself, an SE, or nothing.

    A :class:`SelectionInflation` is returned as it is (the one figure, computed
    by :func:`split_inflation` from the candidates' scores where they exist); an
    SE gives the worst case; ``None`` gives a figure only for a split never
    selected against.
    """
    if isinstance(given, SelectionInflation):
        return given
    if selections is None:
        return None
    if given is None:
        return split_inflation(split, selections) if int(selections) == 0 else None
    return split_inflation(split, selections, se=float(given),
                           se_source="the SE of a paired difference given for the split")


def inflation_text(value: float | None, method: str | None, low: float | None = None,
                   high: float | None = None) -> str:
    """A figure and its method in a table cell (points): the worst case says "at most".

    ``low`` and ``high`` (a row's ``inflation_low`` / ``inflation_high``,
    :func:`range_columns`; missing as None, NaN or NA) are given for a figure
    shown as its range (:attr:`SelectionInflation.ranged`), which the cell then
    shows instead.

    Examples
    --------
    >>> inflation_text(0.0142, WORST_CASE)
    'at most 1.42 (worst case: all candidates equal)'
    >>> inflation_text(0.0024, DATA_DRIVEN)
    '0.24 (empirical-Bayes selection bootstrap)'
    >>> inflation_text(0.0001, DATA_DRIVEN, 0.0, 0.0132)
    '0.00–1.32 (empirical-Bayes selection bootstrap; a range: one candidate leads)'
    >>> inflation_text(None, None)
    '—'
    """
    if value is None or value != value:
        return "—"
    if method == WORST_CASE:
        return f"at most {value * 100:.2f} ({WORST_CASE})"
    if low is not None and high is not None and _given(low) and _given(high):
        return (f"{float(low) * 100:.2f}–{float(high) * 100:.2f} ({method}; a range: one "
                f"candidate leads)")
    return f"{value * 100:.2f}" + (f" ({method})" if method else "")


def range_columns(figure: SelectionInflation | None) -> dict:
    """``inflation_low`` and ``inflation_high`` of a table row: the range where it is the figure."""
    if figure is None or not figure.ranged:
        return {"inflation_low": None, "inflation_high": None}
    return {"inflation_low": figure.low, "inflation_high": figure.high}


def _given(x) -> bool:
    """A table cell holds a number: not None, NaN or pandas' NA."""
    try:
        return x is not None and not math.isnan(float(x))
    except TypeError:  # pd.NA
        return False
