"""Betting intervals and confidence sequences for a bounded mean (any distribution, any n).

Per-query metric differences lie in ``[-1, 1]``; a mean of bounded values
has intervals that hold for every distribution at every ``n`` and, as
confidence sequences, however often they are looked at. This module
implements the hedged-capital construction of Waudby-Smith & Ramdas (2024).

The construction
    Rescale to ``y_i = (x_i - lower) / (upper - lower)`` in ``[0, 1]``. For a
    candidate mean ``m`` two gamblers bet that the mean is above and below
    ``m``; their capital after ``t`` observations is::

        K+_t(m) = prod_{i<=t} (1 + l+_i(m) (y_i - m)),   l+_i(m) = min(l_i, c / m)
        K-_t(m) = prod_{i<=t} (1 - l-_i(m) (y_i - m)),   l-_i(m) = min(l_i, c / (1 - m))

    with ``c = 3/4`` (:data:`TRUNCATION`; WSR suggest 1/2 or 3/4, and 3/4
    lets low-variance samples, such as metric differences where most
    queries are unchanged, shrink the interval faster). The hedged capital
    ``K_t(m) = max(K+_t(m), K-_t(m)) / 2`` is bounded by the martingale
    ``(K+ + K-) / 2`` under ``m = mu``, so by Ville's inequality
    ``P(exists t: K_t(mu) >= 1 / alpha) <= alpha`` (WSR 2024, Theorem 3).
    The confidence set is every ``m`` whose hedged capital never reached
    ``1 / alpha`` (the running intersection): an interval, because ``K+`` is
    non-increasing and ``K-`` non-decreasing in ``m``.

The bets (predictable plug-in, WSR 2024 eqs. 26-27)
    ``l_t`` uses only ``y_1 .. y_{t-1}``::

        mu_t      = (1/2 + sum_{i<=t} y_i) / (t + 1)
        sigma2_t  = (1/4 + sum_{i<=t} (y_i - mu_i)^2) / (t + 1)
        l_t (CS)  = sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t)))
        l_t (CI)  = sqrt(2 log(2/alpha) / (sigma2_{t-1} n))

    The fixed-n interval (:func:`betting_interval`) tunes the bets to ``n``.
    The sequence (:func:`betting_sequence`) splits its capital equally among
    three gamblers (:data:`HORIZONS`): WSR's, whose bets shrink at every ``t``
    (``t log(1 + t)`` above), and two whose bets stop shrinking once
    ``t log(1 + t)`` reaches 100 and 1,000 (about ``t`` = 30 and 170), tuned to
    the gains a watch must find within its first batches and over a long
    stream. An average of nonnegative supermartingales starting at 1 is one,
    so Ville's inequality holds for the mixture as for each gambler; the
    mixture costs each ``log 3`` of capital and buys stopping power. On CAsT
    2021 differences (``benchmarks/sim_gate.py``, tables 4 and 5; batches of 10
    queries) a 5-point change is found by batch 30 in 68-70% of streams (WSR's
    bets alone: 61-63%) and a 2-point one within 300 batches in 70-75% (55%),
    always in the right direction but 1 in 75; the sequence misses the truth
    in 1.5% of null streams over 30 looks (0.7%).

Inversion
    The capital is evaluated on :data:`GRID` candidate means at once
    (an ``n x GRID`` array of log-capital increments, cumulative sums down
    the rows); the interval's ends are bracketed on that grid and refined by
    bisection to :data:`TOLERANCE` (in the ``[0, 1]`` scale), always
    reporting the excluded side of the bracket so rounding only widens the
    interval. The sequence reports the excluded grid neighbour of every end
    (resolution ``(upper - lower) / (SEQ_GRID - 1)``), a block of rows at a time.

References
----------
Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random
variables by betting. JRSS-B 86(1), 1-27 (Theorem 3; Section 5.1 for the
predictable plug-in bets).
Ville, J. (1939). Etude critique de la notion de collectif. Gauthier-Villars.
Hoeffding, W. (1963). Probability inequalities for sums of bounded random
variables. JASA 58, 13-30 (the widest distribution-free baseline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ragnb.errors import InputError

#: Largest fraction of capital a bet may risk (``c`` in WSR 2024, who suggest 1/2 or 3/4).
TRUNCATION = 0.75
#: Hedging weight between the "above" and "below" gamblers.
THETA = 0.5
#: Where each of the sequence's gamblers stops shrinking its bets (``t log(1 + t)`` capped).
HORIZONS = (math.inf, 100.0, 1000.0)
#: Candidate means evaluated at once before bisection refines the ends.
GRID = 65
#: Candidate means of the confidence sequence (its resolution is 1 / (SEQ_GRID - 1)).
SEQ_GRID = 1025
#: Rows of the sequence's capital computed at once.
_BLOCK = 256
#: Capital elements (gamblers x streams x n) :func:`stopping_times` computes at once.
_ELEMENTS = 2_000_000
#: Bisection stops when the bracket is this narrow (``[0, 1]`` scale).
TOLERANCE = 1e-9
#: The alpha the p-value's bets are tuned for (p <= 0.05 iff the 95% sequence excludes null).
P_VALUE_DESIGN_ALPHA = 0.05


@dataclass(frozen=True)
class BettingInterval:
    """A betting confidence interval for a bounded mean.

    ``low`` and ``high`` are in the data's scale; ``method`` says how the
    interval was built and its ``n``.
    """

    low: float
    high: float
    estimate: float
    n: int
    alpha: float
    method: str


def _validate(x, lower: float, upper: float, alpha: float | None, ndim: int = 1) -> np.ndarray:
    """The one validation place: finite values inside ``[lower, upper]``, a proper alpha
    (``ndim`` 2: one stream of values a row).
    """
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise InputError(f"`lower` must be below `upper`, got [{lower}, {upper}]", key="lower")
    if alpha is not None and not 0 < alpha < 1:
        raise InputError(f"`alpha` must be in (0, 1), got {alpha}", key="alpha")
    arr = np.asarray(x, dtype=float)
    if arr.ndim != ndim:
        raise InputError(f"expected {ndim}-D values, got shape {arr.shape}", key="x")
    if arr.size == 0:
        raise InputError("no values: a betting interval needs at least one", key="x")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise InputError(f"{bad.size} value(s) are NaN or infinite (first at position {bad[0]})",
                         key="x")
    out = np.flatnonzero((arr < lower) | (arr > upper))
    if out.size:
        raise InputError(
            f"{out.size} value(s) lie outside [{lower}, {upper}] (first at position {out[0]}: "
            f"{arr[out[0]]}); the interval is valid only for bounded values",
            key="x",
        )
    return (arr - lower) / (upper - lower)


def _bets(y: np.ndarray, alpha: float, n_fixed: int | None) -> np.ndarray:
    """Predictable plug-in bets ``l_t`` (module docstring), shape ``(gamblers, n)``.

    One gambler tuned to ``n_fixed``; without it, one per :data:`HORIZONS`. Rows of a
    2-D ``y`` are streams of their own: the shape is then ``(gamblers, streams, n)``.
    """
    n = y.shape[-1]
    t = np.arange(1, n + 1)
    mu = (0.5 + np.cumsum(y, axis=-1)) / (t + 1)
    sigma2 = (0.25 + np.cumsum((y - mu) ** 2, axis=-1)) / (t + 1)
    sigma2_prev = np.concatenate((np.full(y.shape[:-1] + (1,), 0.25), sigma2[..., :-1]),
                                 axis=-1)
    scale = (np.full((1,) * y.ndim + (n,), float(n_fixed)) if n_fixed is not None
             else np.minimum(t * np.log1p(t), np.asarray(HORIZONS).reshape((-1,) + (1,) * y.ndim)))
    return np.sqrt(2 * math.log(2 / alpha) / (sigma2_prev * scale))


def _mixed(log_capital: np.ndarray) -> np.ndarray:
    """Log of the gamblers' average capital (axis 0): ``logsumexp - log(gamblers)``."""
    if log_capital.shape[0] == 1:
        return log_capital[0]
    return special.logsumexp(log_capital, axis=0) - math.log(log_capital.shape[0])


def _log_capital(y: np.ndarray, lam: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative log capital of both sides (each the gamblers' average), shape ``(n, len(m))``.

    Each factor is at least ``1 - c > 0``, so the logs are finite.
    """
    m = np.asarray(m, dtype=float)[None, None, :]
    lam_up = np.minimum(lam[:, :, None], TRUNCATION / np.maximum(m, 1e-300))
    lam_down = np.minimum(lam[:, :, None], TRUNCATION / np.maximum(1 - m, 1e-300))
    diff = y[None, :, None] - m
    return (_mixed(np.cumsum(np.log1p(lam_up * diff), axis=1)),
            _mixed(np.cumsum(np.log1p(-lam_down * diff), axis=1)))


def _peak(y: np.ndarray, lam: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Largest log capital over ``t <= n`` of each gambler at each candidate ``m``."""
    up, down = _log_capital(y, lam, m)
    return up.max(axis=0), down.max(axis=0)


def _ends(y: np.ndarray, lam: np.ndarray, threshold: float) -> tuple[float, float]:
    """Ends of ``{m : max_t K+_t(m), max_t K-_t(m) < threshold}`` (log scale), bisected.

    Each end is found on its own gambler's monotone capital (``K+`` for the
    low end, ``K-`` for the high end), so a set narrower than the grid
    spacing is still found.
    """
    grid = np.linspace(0.0, 1.0, GRID)
    up, down = _peak(y, lam, grid)
    # K+ is non-increasing in m: the excluded candidates form a prefix of the grid.
    k_low = int(np.count_nonzero(up >= threshold))
    k_high = int(np.count_nonzero(down >= threshold))
    # brackets [excluded, included]; an end never reached stays at the bound
    lo_out, lo_in = (grid[k_low - 1], grid[k_low]) if k_low else (0.0, 0.0)
    hi_out, hi_in = (grid[GRID - k_high], grid[GRID - k_high - 1]) if k_high else (1.0, 1.0)
    while abs(lo_in - lo_out) > TOLERANCE or abs(hi_in - hi_out) > TOLERANCE:
        mids = np.array([(lo_out + lo_in) / 2, (hi_out + hi_in) / 2])
        up_mid, down_mid = _peak(y, lam, mids)
        if up_mid[0] >= threshold:
            lo_out = mids[0]
        else:
            lo_in = mids[0]
        if down_mid[1] >= threshold:
            hi_out = mids[1]
        else:
            hi_in = mids[1]
    if lo_out > hi_out:
        # both gamblers won: an empty set (probability <= alpha); report the crossing point
        lo_out = hi_out = (lo_out + hi_out) / 2
    return float(lo_out), float(hi_out)


def _running_ends(
    y: np.ndarray, lam: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """Ends of the running intersection at every ``t``, on the :data:`SEQ_GRID` grid.

    ``m`` is out at ``t`` when either gambler's log capital reached
    ``threshold`` at some ``s <= t``; each end is the excluded grid neighbour
    of the true end. Rows are processed in blocks to keep the arrays in cache.
    """
    grid = np.linspace(0.0, 1.0, SEQ_GRID)[None, :]
    lam_up_cap = TRUNCATION / np.maximum(grid, 1e-300)
    lam_down_cap = TRUNCATION / np.maximum(1 - grid, 1e-300)
    lo, hi = np.empty(y.size), np.empty(y.size)
    level_up = level_down = np.zeros((lam.shape[0], 1, SEQ_GRID))
    peak_up, peak_down = np.full(SEQ_GRID, -np.inf), np.full(SEQ_GRID, -np.inf)
    for start in range(0, y.size, _BLOCK):
        rows = slice(start, start + _BLOCK)
        diff = y[rows, None] - grid
        each_up = level_up + np.cumsum(
            np.log1p(np.minimum(lam[:, rows, None], lam_up_cap) * diff), axis=1)
        each_down = level_down + np.cumsum(
            np.log1p(-np.minimum(lam[:, rows, None], lam_down_cap) * diff), axis=1)
        level_up, level_down = each_up[:, -1:], each_down[:, -1:]
        up, down = _mixed(each_up), _mixed(each_down)
        run_up = np.maximum(np.maximum.accumulate(up, axis=0), peak_up)
        run_down = np.maximum(np.maximum.accumulate(down, axis=0), peak_down)
        peak_up, peak_down = run_up[-1], run_down[-1]
        # K+ is non-increasing in m: excluded candidates are a prefix (K-: a suffix)
        k_low = np.count_nonzero(run_up >= threshold, axis=1)
        k_high = np.count_nonzero(run_down >= threshold, axis=1)
        lo[rows] = np.where(k_low > 0, grid[0, np.maximum(k_low - 1, 0)], 0.0)
        hi[rows] = np.where(k_high > 0, grid[0, np.minimum(SEQ_GRID - k_high, SEQ_GRID - 1)], 1.0)
    return lo, hi


def _threshold(alpha: float) -> float:
    """``log(1 / (theta alpha))``: one gambler's log capital at which ``m`` is excluded."""
    return math.log(1 / (THETA * alpha))


def betting_interval(
    x, *, lower: float = -1.0, upper: float = 1.0, alpha: float = 0.05
) -> BettingInterval:
    """Fixed-n betting confidence interval for the mean of values in ``[lower, upper]``.

    Valid for any distribution at any ``n`` (WSR 2024, Theorem 3 with bets
    tuned to ``n``): ``P(mu in [low, high]) >= 1 - alpha``. Constant data
    still gets a positive width.

    Parameters
    ----------
    x : array (n,)
        The values, e.g. per-query differences ``challenger - baseline``.
    lower, upper : float
        Bounds every value lies within (``[-1, 1]`` for metric differences).
    alpha : float
        One minus the coverage.

    Examples
    --------
    >>> r = betting_interval([0.1] * 20 + [-0.1] * 20)
    >>> r.low < 0 < r.high, r.n
    (True, 40)
    """
    y = _validate(x, lower, upper, alpha)
    lam = _bets(y, alpha, n_fixed=y.size)
    lo, hi = _ends(y, lam, _threshold(alpha))
    span = upper - lower
    return BettingInterval(
        low=lower + span * lo,
        high=lower + span * hi,
        estimate=float(np.mean(x)),
        n=int(y.size),
        alpha=float(alpha),
        method=(f"betting CI (Waudby-Smith & Ramdas 2024, hedged capital, predictable plug-in), "
                f"n={y.size}, {1 - alpha:.0%}, values in [{lower:g}, {upper:g}]"),
    )


def betting_sequence(
    x, *, lower: float = -1.0, upper: float = 1.0, alpha: float = 0.05
) -> pd.DataFrame:
    """Anytime-valid confidence sequence for the running mean, one row per ``t``.

    ``P(mu in [low_t, high_t] for every t) >= 1 - alpha``: the rows may be
    looked at after every observation (or batch) and a decision taken at any
    of them. Each row is the running intersection of the sets so far, so
    ``low`` never decreases and ``high`` never increases.

    Returns
    -------
    DataFrame
        Columns ``t`` (1..n), ``low``, ``high``, ``estimate`` (the mean of the
        first ``t`` values), in the data's scale.

    Examples
    --------
    >>> cs = betting_sequence([0.2] * 50)
    >>> bool(cs["low"].is_monotonic_increasing), bool((cs["high"] > 0.2).all())
    (True, True)
    """
    y = _validate(x, lower, upper, alpha)
    lam = _bets(y, alpha, n_fixed=None)
    lo, hi = _running_ends(y, lam, _threshold(alpha))
    t = np.arange(1, y.size + 1)
    span = upper - lower
    raw = np.asarray(x, dtype=float)
    return pd.DataFrame({
        "t": t,
        "low": lower + span * lo,
        "high": lower + span * hi,
        "estimate": np.cumsum(raw) / t,
    })


def stopping_times(
    x, *, above: float, below: float, lower: float = -1.0, upper: float = 1.0,
    alpha: float = 0.05,
) -> tuple[np.ndarray, np.ndarray]:
    """For each stream (row of ``x``), the first ``t`` at which :func:`betting_sequence`
    shows ``low > above`` and the first at which it shows ``high < below`` (0: never).

    The same capital as the sequence, evaluated only where the answer changes:
    ``low`` is the largest excluded point of the sequence's grid, and ``K+`` is
    non-increasing in ``m``, so ``low > above`` exactly when the smallest grid
    point above ``above`` is excluded (``high < below``: the largest grid point
    below ``below``). Streams are processed a block at a time; the cost is that of
    two candidate means instead of :data:`SEQ_GRID`, which is what makes
    simulating a watch's stopping batch cheap (:func:`ragnb.watch.stream.stopping`).

    Examples
    --------
    >>> up, down = stopping_times([[0.3] * 60, [-0.3] * 60], above=0.0, below=0.0)
    >>> bool(up[0] > 0), int(up[1]), int(down[0]), bool(down[1] > 0)
    (True, 0, 0, True)
    """
    y = _validate(x, lower, upper, alpha, ndim=2)
    span = upper - lower
    grid = np.linspace(0.0, 1.0, SEQ_GRID)
    k_up = int(np.searchsorted(grid, (above - lower) / span, side="right"))
    k_down = int(np.searchsorted(grid, (below - lower) / span, side="left")) - 1
    threshold = _threshold(alpha)
    first_up = np.zeros(y.shape[0], dtype=int)
    first_down = np.zeros(y.shape[0], dtype=int)
    rows = max(1, _ELEMENTS // (len(HORIZONS) * y.shape[1]))
    for start in range(0, y.shape[0], rows):
        block = y[start:start + rows]
        lam = _bets(block, alpha, n_fixed=None)
        for k, sign, first in ((k_up, 1.0, first_up), (k_down, -1.0, first_down)):
            if not 0 <= k < SEQ_GRID:
                continue  # no grid point beyond the threshold: never shown
            m = grid[k]
            cap = TRUNCATION / max(m if sign > 0 else 1 - m, 1e-300)
            log_k = _mixed(np.cumsum(np.log1p(sign * np.minimum(lam, cap) * (block - m)),
                                     axis=-1))
            hit = log_k >= threshold
            first[start:start + rows] = np.where(hit.any(axis=-1), hit.argmax(axis=-1) + 1, 0)
    return first_up, first_down


def betting_p_value(
    x, *, null: float = 0.0, lower: float = -1.0, upper: float = 1.0,
    alpha: float | None = None,
) -> float:
    """Anytime-valid p-value for ``mean = null``: ``min(1, 1 / max_t K_t(null))``.

    ``K_t`` is the hedged capital of the confidence sequence with bets tuned
    for ``alpha = 0.05`` (:data:`P_VALUE_DESIGN_ALPHA`), so
    ``p <= 0.05`` exactly when the 95% :func:`betting_sequence` excludes
    ``null`` at some ``t``; by Ville's inequality ``P(p <= a) <= a`` for every
    ``a`` under the null, however long the data are watched. With ``alpha``
    the bets are the fixed-n interval's instead, so ``p <= alpha`` exactly
    when ``betting_interval(x, alpha=alpha)`` excludes ``null`` (still valid
    at every level: the bets are predictable whatever they were tuned for).

    Examples
    --------
    >>> betting_p_value([0.0] * 10)
    1.0
    """
    y = _validate(x, lower, upper, None)
    if not lower <= null <= upper:
        raise InputError(f"`null` {null} lies outside [{lower}, {upper}]", key="null")
    m = (null - lower) / (upper - lower)
    lam = (_bets(y, P_VALUE_DESIGN_ALPHA, n_fixed=None) if alpha is None
           else _bets(y, alpha, n_fixed=y.size))
    up, down = _log_capital(y, lam, np.array([m]))
    peak = max(float(up.max()), float(down.max())) + math.log(THETA)
    return float(min(1.0, math.exp(-peak)))
