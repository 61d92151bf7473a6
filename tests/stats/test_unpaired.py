"""One-sample and two-sample percentile bootstrap: theory checks."""
import numpy as np
import pytest

from ragnb.stats.unpaired import bootstrap_mean, unpaired_bootstrap


def test_se_matches_the_standard_error_of_the_mean():
    x = np.random.default_rng(5).beta(2, 3, size=400)
    r = bootstrap_mean(x, resamples=20000, seed=1)
    assert r.mean == pytest.approx(x.mean())
    # bootstrap SE of a mean = sd(ddof=0)/sqrt(n), up to Monte Carlo error (~1%)
    assert r.se == pytest.approx(x.std() / np.sqrt(x.size), rel=0.03)


def test_unpaired_se_adds_variances():
    rng = np.random.default_rng(6)
    a, b = rng.beta(2, 3, 300), rng.beta(3, 3, 200)
    r = unpaired_bootstrap(a, b, resamples=20000, seed=2)
    assert r.delta == pytest.approx(b.mean() - a.mean())
    expected = np.sqrt(a.var() / a.size + b.var() / b.size)
    assert r.se == pytest.approx(expected, rel=0.03)
    assert r.ci_low < r.delta < r.ci_high


def test_coverage_of_the_difference_of_means():
    """Over 600 data sets with a known difference, the 95% interval covers it ~95%
    (binomial band for 600 trials at p=.95: roughly 92.5%-97.5%)."""
    rng = np.random.default_rng(7)
    hits = 0
    for i in range(600):
        a, b = rng.beta(2, 5, 120), rng.beta(2, 4, 100)   # means 2/7 and 1/3
        r = unpaired_bootstrap(a, b, resamples=1000, seed=i)
        hits += r.ci_low <= (1 / 3 - 2 / 7) <= r.ci_high
    assert 0.925 <= hits / 600 <= 0.975


def test_constant_sample_has_a_point_interval_and_seeds_reproduce():
    r = bootstrap_mean([0.25] * 10)
    assert (r.ci_low, r.ci_high) == (0.25, 0.25)
    x = np.random.default_rng(1).random(50)
    assert unpaired_bootstrap(x, x[::-1] + 0.1, seed=3) == unpaired_bootstrap(x, x[::-1] + 0.1,
                                                                                seed=3)
