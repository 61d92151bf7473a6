"""The calibrated interval and the sign-flip headline p: coverage and null rejection by simulation.

``benchmarks/calibration.py`` prints the full table (2,000 data sets a cell);
these tests run the same scenarios (``tests/stats/_simulate.py``) at modest
size with binomial bands: a cell of ``R`` data sets has Monte Carlo SD
``sqrt(c (1 - c) / R)``, 0.49% at c = 0.95 and R = 2,000, so a band 3 SD
outside the target fails a correct method by chance about once in 700.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ragnb.stats import sign_flip_test
from ragnb.stats.interval import MIN_QUERIES, delta_interval, floored_sd, share_upper
from tests.stats._simulate import SCENARIOS, exchangeable

R = 2_000
SD = math.sqrt(0.95 * 0.05 / R)


def coverage(simulate, n, seed, *, with_guard=False):
    base, chal, truth = simulate(np.random.default_rng(seed), (R, n))
    hits = guarded = 0
    for i in range(R):
        r = delta_interval(chal[i] - base[i])
        hits += r.low <= truth <= r.high
        guarded += bool(r.guard)
    return (hits / R, guarded / R) if with_guard else hits / R


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_95_percent_intervals_cover_at_least_93_percent_at_n_30(name):
    """Issue 11: >= 93% at n = 30 on skewed, tie-heavy and sparse differences (the
    percentile bootstrap covers 64% on the sparse scenario; benchmarks/calibration.py)."""
    assert coverage(SCENARIOS[name], 30, 30) >= 0.93 - 3 * SD


@pytest.mark.parametrize("n", [50, 200])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_95_percent_intervals_stay_within_93_to_97_percent(name, n):
    """The calibrated interval is kept where it holds 93-97% (the guard fires on at most
    a few percent of these data sets); on the sparse scenario, where a few large moves
    make Cochran's rule fail, the guard's distribution-free interval over-covers (the
    price of honesty on one-sided sparse data, issue 23 #5), so only the floor applies."""
    c, guarded = coverage(SCENARIOS[name], n, n, with_guard=True)
    assert c >= 0.93 - 3 * SD, c
    if name != "sparse":
        assert guarded <= 0.05, guarded
        assert c <= 0.97 + 3 * SD, c


@pytest.mark.parametrize("n", [6, 10, 30])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_sign_flip_rejects_an_exchangeable_null_at_most_5_percent(name, n):
    """Each query's two scores swapped with probability 1/2: the sign-flip test is
    exact under that null, so it rejects at most alpha (less where the discrete
    distribution has no atom at 5%); the bootstrap p rejected 18% at n = 5."""
    base, chal, _ = exchangeable(SCENARIOS[name])(np.random.default_rng(n), (1_000, n))
    p = [sign_flip_test(chal[i] - base[i], permutations=1_000, seed=i).p_value
         for i in range(1_000)]
    assert np.mean(np.array(p) <= 0.05) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 1_000)


@pytest.mark.parametrize("n", range(1, 13))
def test_exact_sign_flip_equals_brute_force_enumeration(n):
    """All 2^n sign vectors enumerated by hand, on tie-heavy values (so the
    distinct-value shortcut is exercised), for every n up to 12."""
    d = np.random.default_rng(n).choice([-0.4, -0.2, 0.0, 0.2, 0.2, 0.6], n)
    observed = abs(d.sum())
    hits = sum(abs(np.dot(s, d)) >= observed - 1e-12
               for s in itertools.product((1, -1), repeat=n))
    r = sign_flip_test(d)
    assert r.method == "exact"
    assert r.p_value == pytest.approx(hits / 2**n, abs=1e-12)


def test_below_the_minimum_there_is_no_interval_and_mde():
    r = delta_interval([0.1, 0.2, 0.0, 0.3, 0.1])
    assert MIN_QUERIES == 6
    assert math.isnan(r.low) and math.isnan(r.mde) and math.isnan(r.queries_needed)
    assert r.note == "too few queries to say (n = 5 < 6)"


@pytest.mark.parametrize("d", [[0.0] * 6, [0.0] * 40, [0.5] + [0.0] * 39, [0.1] * 12])
def test_mde_and_queries_needed_are_never_zero_or_negative(d):
    r = delta_interval(d)
    assert r.mde > 0 and r.high > r.low
    assert r.queries_needed >= 2 or math.isinf(r.queries_needed)


def test_variance_floor_by_hand():
    """40 queries, one differs by 0.5: k = 1, 80% upper share p_U = Beta^-1(0.8; 2, 39);
    a = 0.25, mu = 0.5; p* = clip(a / (2 mu^2) = 0.5, 1/40, p_U) = p_U;
    v_U = p_U a - p_U^2 mu^2; sigma^2 = max(s^2, v_U 40/39)."""
    d = np.r_[0.5, np.zeros(39)]
    p_up = stats.beta.ppf(0.8, 2, 39)
    assert share_upper(1, 40) == pytest.approx(p_up)
    v = p_up * 0.25 - p_up**2 * 0.25
    sigma = math.sqrt(max(np.var(d, ddof=1), v * 40 / 39))
    assert floored_sd(d) == pytest.approx(sigma)
    # one move of 40, all one way: skewness (with the floored SD) far past Cochran's
    # rule, so the headline interval is the guard's, not the t-interval of this floor
    r = delta_interval(d)
    assert r.guard == "betting" and "Cochran" in r.note
    # 39 unchanged queries and one more that moves the other way: the floor binds and the
    # t-interval is kept (skewness 0: n >= 25 x 0)
    d2 = np.r_[0.5, -0.5, np.zeros(38)]
    r2 = delta_interval(d2)
    half = stats.t.ppf(0.975, 39) * floored_sd(d2) / math.sqrt(40)
    assert r2.guard == "" and (r2.low, r2.high) == pytest.approx((-half, half))
