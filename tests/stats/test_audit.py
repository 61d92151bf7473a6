"""Auditing a figure: the Bernoulli-KL interval, the sign-flip floor, the MDE bound."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.stats.audit import audit, kl_bernoulli, kl_interval, sd_bound


def test_all_ones_has_the_closed_form_lower_end():
    # kl(1 || mu) = -log(mu), so the end is mu = (alpha / 2)^(1/n)
    for n in (5, 10, 40):
        low, high = kl_interval(1.0, n)
        assert low == pytest.approx(0.025 ** (1 / n), abs=1e-12) and high == 1.0


def test_ends_sit_on_the_bound_and_contain_the_exact_binomial_interval():
    """For 0/1 values the Clopper-Pearson interval is exact; Hoeffding's KL bound is looser."""
    for k, n in [(3, 10), (50, 100), (1, 30)]:
        low, high = kl_interval(k / n, n)
        assert n * kl_bernoulli(k / n, low) == pytest.approx(math.log(40), rel=1e-9)
        assert n * kl_bernoulli(k / n, high) == pytest.approx(math.log(40), rel=1e-9)
        cp = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert low <= cp.low and high >= cp.high


def test_interval_covers_skewed_bounded_means():
    rng = np.random.default_rng(4)
    reps, hits = 2000, 0
    for _ in range(reps):
        x = np.where(rng.random(12) < 0.8, 1.0, rng.beta(0.5, 3, 12))  # mean 0.8 + 0.2/7
        low, high = kl_interval(float(x.mean()), 12)
        hits += low <= 0.8 + 0.2 / 7 <= high
    assert hits / reps >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps)


def test_the_issue_example():
    a = audit(10, 1.0, 0.70, metric="recall@5")
    assert a.low == pytest.approx(0.025 ** 0.1) and a.high == 1.0
    assert (a.delta_low, a.delta_high) == pytest.approx((0.025 ** 0.1 - 0.7, 0.3))
    assert a.min_p == 2 / 1024
    # sd bound: x = 1 always, y Bernoulli(0.7): d is 0/1 with mean 0.3, SD sqrt(0.21)
    assert a.sd == pytest.approx(math.sqrt(0.21))
    t = stats.t.ppf(0.975, 9) + stats.t.ppf(0.8, 9)
    assert a.mde == pytest.approx(t * math.sqrt(0.21) / math.sqrt(10))
    assert "not established at this n" in a.headline()
    assert audit(200, 0.80, 0.70).headline().endswith("excludes 0 (the baseline taken as exact).")


def test_sd_bound_is_reached_by_zero_one_values():
    rng = np.random.default_rng(5)
    for v, b in [(0.5, 0.5), (0.9, 0.2), (0.3, 0.1)]:
        bound = sd_bound(v, b)
        # any [0, 1] pair with these means stays under it
        x, y = rng.beta(2, 2 * (1 - v) / v, 20000), rng.beta(2, 2 * (1 - b) / b, 20000)
        assert np.std(x - y) <= bound + 0.01
    # at (0.5, 0.5): x = 1 - y Bernoulli(1/2): d = +-1, SD 1
    assert sd_bound(0.5, 0.5) == 1.0


def test_floor_does_not_overflow_and_bad_input():
    assert audit(5000, 0.5).min_p == 0.0
    with pytest.raises(InputError, match=r"give 0.70, not 70"):
        audit(10, 70)
    with pytest.raises(InputError, match="integer >= 2"):
        audit(1, 0.5)
    with pytest.raises(InputError, match=r"SD of differences in \(0, 1\]"):
        audit(10, 0.5, 0.4, sd=2)
