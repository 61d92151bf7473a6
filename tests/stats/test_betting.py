"""Betting intervals, sequences and p-values: coverage, inversion, widths, validation.

Coverage cells use binomial bands: with ``R`` simulated data sets the observed
coverage of a method that covers at least 95% falls below
``0.95 - 3 sqrt(0.95 * 0.05 / R)`` with probability under 0.2%.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from ragnb.errors import InputError
from ragnb.stats.betting import (
    TRUNCATION,
    BettingInterval,
    betting_interval,
    betting_p_value,
    betting_sequence,
)
from tests.stats._simulate import rr_like, sparse_like, tie_heavy


def band(reps: int, level: float = 0.95) -> float:
    """Lowest coverage a ``level`` method shows in ``reps`` draws, 3 binomial SDs."""
    return level - 3 * math.sqrt(level * (1 - level) / reps)


def skewed_sparse(rng, n):
    """70% zeros, 20% small gains U(0, 0.2), 10% large gains U(0.6, 1), recentred by -0.05.

    E = 0.2 * 0.1 + 0.1 * 0.8 - 0.05 = 0.05; values in [-0.05, 0.95].
    """
    u = rng.random(n)
    v = np.where(u < 0.7, 0.0, np.where(u < 0.9, rng.uniform(0, 0.2, n), rng.uniform(0.6, 1, n)))
    return v - 0.05, 0.05


def rare_loss(rng, n):
    """A rare large loss: -1 with probability 0.04, else 0.01 (mean -0.0304)."""
    return np.where(rng.random(n) < 0.04, -1.0, 0.01), 0.04 * -1.0 + 0.96 * 0.01


def rr_diff(rng, n):
    base, chal, truth = rr_like(rng, n)
    return chal - base, truth


def sparse_diff(rng, n):
    base, chal, truth = sparse_like(rng, n)
    return chal - base, truth


def tie_diff(rng, n):
    base, chal, truth = tie_heavy(rng, n)
    return chal - base, truth


# --- an independent, loop-by-loop reading of WSR 2024 -----------------------------------------


def hedged_peak(x, m, alpha, n_fixed, lower=-1.0, upper=1.0):
    """``max_t max(K+_t, K-_t) / 2`` at candidate mean ``m`` (data scale), plain Python loops.

    Without ``n_fixed`` each side's capital is the average over three gamblers whose
    bets use ``min(t log(1 + t), H)`` for H = infinity, 100 and 1,000.
    """
    y = [(v - lower) / (upper - lower) for v in x]
    mm = (m - lower) / (upper - lower)
    caps = [None] if n_fixed else [math.inf, 100.0, 1000.0]
    up = [1.0] * len(caps)
    down = [1.0] * len(caps)
    peak = 0.0
    s = ss = 0.0
    sigma2_prev = 0.25
    for t, yt in enumerate(y, start=1):
        for j, cap in enumerate(caps):
            scale = n_fixed if n_fixed else min(t * math.log(1 + t), cap)
            lam = math.sqrt(2 * math.log(2 / alpha) / (sigma2_prev * scale))
            lam_up = min(lam, TRUNCATION / mm) if mm > 0 else lam
            lam_down = min(lam, TRUNCATION / (1 - mm)) if mm < 1 else lam
            up[j] *= 1 + lam_up * (yt - mm)
            down[j] *= 1 - lam_down * (yt - mm)
        peak = max(peak, sum(up) / len(caps) / 2, sum(down) / len(caps) / 2)
        s += yt
        mu_t = (0.5 + s) / (t + 1)
        ss += (yt - mu_t) ** 2
        sigma2_prev = (0.25 + ss) / (t + 1)
    return peak


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interval_ends_are_where_the_capital_crosses_one_over_alpha(seed):
    rng = np.random.default_rng(seed)
    x, _ = skewed_sparse(rng, 40)
    r = betting_interval(x, alpha=0.1)
    eps = 1e-6
    assert hedged_peak(x, r.low - eps, 0.1, 40) >= 1 / 0.1
    assert hedged_peak(x, r.low + eps, 0.1, 40) < 1 / 0.1
    assert hedged_peak(x, r.high + eps, 0.1, 40) >= 1 / 0.1
    assert hedged_peak(x, r.high - eps, 0.1, 40) < 1 / 0.1


def test_p_value_is_one_over_the_peak_hedged_capital():
    rng = np.random.default_rng(3)
    x, _ = skewed_sparse(rng, 60)
    for null in (0.0, 0.02, 0.2):
        expected = min(1.0, 1 / hedged_peak(x, null, 0.05, None))
        assert betting_p_value(x, null=null) == pytest.approx(expected, rel=1e-9)


# --- coverage ------------------------------------------------------------------------------


@pytest.mark.parametrize("draw", [skewed_sparse, rare_loss, sparse_diff, tie_diff])
@pytest.mark.parametrize("n", [8, 20, 50])
def test_interval_covers_at_least_95_percent_at_small_n(draw, n):
    rng = np.random.default_rng(2024 + n)
    reps = 100
    hits = 0
    for _ in range(reps):
        x, mu = draw(rng, n)
        r = betting_interval(x)
        hits += r.low <= mu <= r.high
    assert hits / reps >= band(reps)


@pytest.mark.parametrize("draw", [skewed_sparse, rr_diff, rare_loss])
def test_capital_at_the_true_mean_stays_below_one_over_alpha_over_200_looks(draw):
    """Simultaneous coverage over t <= 200, read off the independent loop implementation.

    The sequence misses ``mu`` at some ``t`` exactly when the hedged capital at
    ``mu`` ever reaches ``1 / alpha``; 400 streams per distribution.
    """
    rng = np.random.default_rng(7)
    reps = 400
    hits = sum(hedged_peak(x, mu, 0.05, None) < 1 / 0.05
               for x, mu in (draw(rng, 200) for _ in range(reps)))
    assert hits / reps >= band(reps)


def test_sequence_covers_simultaneously_over_200_looks():
    rng = np.random.default_rng(17)
    reps = 60
    hits = 0
    for _ in range(reps):
        x, mu = skewed_sparse(rng, 200)
        cs = betting_sequence(x)
        hits += bool(((cs["low"] <= mu) & (mu <= cs["high"])).all())
    assert hits / reps >= band(reps)


def test_p_value_rejects_a_true_null_at_most_alpha():
    rng = np.random.default_rng(11)
    reps = 300
    rejections = 0
    for _ in range(reps):
        x, mu = skewed_sparse(rng, 100)
        rejections += betting_p_value(x, null=mu) <= 0.05
    assert rejections / reps <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)


# --- width, shape and agreement ---------------------------------------------------------------


def test_no_wider_than_hoeffding_on_a_low_variance_sample():
    rng = np.random.default_rng(5)
    x = rng.uniform(-0.05, 0.1, 100)
    r = betting_interval(x)
    hoeffding = 2 * 2 * math.sqrt(math.log(2 / 0.05) / (2 * 100))  # range 2
    assert r.low <= x.mean() <= r.high
    assert r.high - r.low < 0.5 * hoeffding


def test_constant_data_get_a_positive_width_containing_the_value():
    for value, n in [(0.0, 30), (0.3, 200), (1.0, 10), (-1.0, 5)]:
        r = betting_interval([value] * n)
        assert r.low <= value <= r.high
        assert r.high - r.low > 0
        assert r.low >= -1 and r.high <= 1


def test_wider_as_alpha_falls():
    rng = np.random.default_rng(8)
    for _ in range(5):
        x, _ = skewed_sparse(rng, 60)
        widths = [betting_interval(x, alpha=a).high - betting_interval(x, alpha=a).low
                  for a in (0.2, 0.1, 0.05, 0.01)]
        assert np.all(np.diff(widths) > 0)


def test_sequence_is_a_running_intersection_and_ends_inside_its_bounds():
    rng = np.random.default_rng(9)
    x, _ = skewed_sparse(rng, 300)
    cs = betting_sequence(x)
    assert list(cs.columns) == ["t", "low", "high", "estimate"]
    assert cs["t"].tolist() == list(range(1, 301))
    assert cs["low"].is_monotonic_increasing and cs["high"].is_monotonic_decreasing
    assert (cs["low"] <= cs["high"]).all()
    assert cs["estimate"].iloc[-1] == pytest.approx(x.mean())
    assert cs["low"].iloc[0] == -1.0 and cs["high"].iloc[0] == 1.0  # one value excludes nothing


def test_sequence_is_wider_than_the_fixed_n_interval_at_n():
    """The price of looking at every t: at the planned n the sequence is wider."""
    rng = np.random.default_rng(10)
    x, _ = rr_diff(rng, 400)
    ci = betting_interval(x)
    last = betting_sequence(x).iloc[-1]
    assert last["high"] - last["low"] > ci.high - ci.low


def test_p_value_at_most_alpha_exactly_when_the_sequence_excludes_the_null():
    rng = np.random.default_rng(12)
    seen = set()
    for shift in (0.0, 0.02, 0.04, 0.06, 0.1, 0.2):
        x = np.clip(rng.normal(shift, 0.3, 150), -1, 1)
        p = betting_p_value(x, null=0.0)
        last = betting_sequence(x).iloc[-1]
        excluded = not last["low"] <= 0.0 <= last["high"]
        assert (p <= 0.05) == excluded
        seen.add(excluded)
    assert seen == {True, False}


def test_other_bounds_rescale():
    rng = np.random.default_rng(13)
    y = rng.beta(2, 5, 80)
    unit = betting_interval(y, lower=0, upper=1)
    scaled = betting_interval(y * 100, lower=0, upper=100)
    assert scaled.low == pytest.approx(100 * unit.low)
    assert scaled.high == pytest.approx(100 * unit.high)
    assert scaled.estimate == pytest.approx(100 * y.mean())


def test_result_records_method_n_and_alpha():
    r = betting_interval([0.1, -0.2, 0.3, 0.0, 0.05], alpha=0.1)
    assert isinstance(r, BettingInterval)
    assert (r.n, r.alpha) == (5, 0.1)
    assert "Waudby-Smith & Ramdas 2024" in r.method and "n=5" in r.method
    with pytest.raises(AttributeError):
        r.low = 0  # type: ignore[misc]


def test_fast_at_200_and_fine_at_5000():
    rng = np.random.default_rng(14)
    x = np.clip(rng.normal(0.02, 0.2, 200), -1, 1)
    best = min(_timed(betting_interval, x) for _ in range(5))
    assert best < 0.025  # ~2 ms measured on one core; slack for a loaded CI machine
    big = np.clip(rng.normal(0.02, 0.2, 5000), -1, 1)
    r = betting_interval(big)
    assert r.low < big.mean() < r.high and r.high - r.low < 0.05
    assert _timed(betting_interval, big) < 1.0


def _timed(f, x):
    start = time.perf_counter()
    f(x)
    return time.perf_counter() - start


# --- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, kwargs, match",
    [
        ([0.1, 1.5], {}, r"1 value\(s\) lie outside \[-1.0, 1.0\] \(first at position 1: 1.5\)"),
        ([0.1, float("nan")], {}, r"NaN or infinite \(first at position 1\)"),
        ([], {}, "no values"),
        ([[0.1]], {}, "expected 1-D"),
        ([0.1], {"lower": 1.0, "upper": 1.0}, "`lower` must be below `upper`"),
        ([0.1], {"alpha": 1.0}, r"`alpha` must be in \(0, 1\)"),
    ],
)
def test_bad_input_names_the_problem(x, kwargs, match):
    with pytest.raises(InputError, match=match):
        betting_interval(x, **kwargs)


def test_p_value_null_outside_the_bounds():
    with pytest.raises(InputError, match=r"`null` 2.0 lies outside \[-1.0, 1.0\]"):
        betting_p_value([0.1], null=2.0)


@pytest.mark.parametrize("above, below", [(0.0, 0.0), (0.02, 0.0), (0.013, -0.007)])
def test_stopping_times_are_where_the_sequence_first_shows_each_end(above, below):
    """Stream by stream against betting_sequence's own low and high columns."""
    from ragnb.stats.betting import stopping_times
    rng = np.random.default_rng(8)
    x = np.clip(rng.normal(0.0, 0.15, (24, 300)) + rng.choice([-0.04, 0.04], (24, 1)), -1, 1)
    up, down = stopping_times(x, above=above, below=below)
    for i, s in enumerate(x):
        cs = betting_sequence(s)
        lo = np.flatnonzero(cs["low"].to_numpy() > above)
        hi = np.flatnonzero(cs["high"].to_numpy() < below)
        assert up[i] == (lo[0] + 1 if lo.size else 0)
        assert down[i] == (hi[0] + 1 if hi.size else 0)
    assert (up > 0).any() and (down > 0).any()
