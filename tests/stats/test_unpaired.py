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


def test_constant_sample_is_not_a_mean_known_without_error_and_seeds_reproduce():
    """Ten equal scores: resampling gives a zero-width interval, which claims the
    mean is known exactly; the guard gives the betting interval on [0, 1] instead."""
    from ragnb.stats.betting import betting_interval

    r = bootstrap_mean([0.25] * 10)
    b = betting_interval([0.25] * 10, lower=0, upper=1, alpha=0.05)
    assert (r.ci_low, r.ci_high) == (b.low, b.high) and r.ci_low < 0.25 < r.ci_high
    assert r.guard == "betting" and "all 10 values are equal (+25 points)" in r.describe()
    x = np.random.default_rng(1).random(50)
    assert unpaired_bootstrap(x, x[::-1] + 0.1, seed=3) == unpaired_bootstrap(x, x[::-1] + 0.1,
                                                                                seed=3)


def _sparse(rng, n):
    """Scores like reciprocal rank: most queries 0, a quarter anywhere in (0, 1)."""
    return np.where(rng.random(n) < 0.25, rng.beta(2, 2, n), 0.0)


def test_small_skewed_samples_get_the_betting_guard_and_keep_their_level():
    """At 10 vs 10 sparse scores the percentile bootstrap covers a true zero
    difference ~90% (below its 95%); the guarded interval holds its level for
    any distribution (two 97.5% betting intervals, Bonferroni). 400 data sets:
    the binomial band for p = .95 ends at ~92.8%, for p = .90 at ~93.0%."""
    rng = np.random.default_rng(1)
    guarded = plain = used = 0
    for i in range(400):
        a, b = _sparse(rng, 10), _sparse(rng, 10)
        r = unpaired_bootstrap(a, b, resamples=1000, seed=i)
        r0 = unpaired_bootstrap(a, b, resamples=1000, seed=i, guard=False)
        used += r.guard == "betting"
        guarded += r.ci_low <= 0 <= r.ci_high
        plain += r0.ci_low <= 0 <= r0.ci_high
    assert used >= 380
    assert guarded / 400 >= 0.95
    assert plain / 400 < 0.93
    assert "two betting intervals" in r.describe() and "97.5%" in r.describe()


def test_large_symmetric_samples_keep_the_percentile_interval():
    rng = np.random.default_rng(8)
    r = unpaired_bootstrap(rng.beta(3, 3, 200), rng.beta(3, 3, 200), resamples=2000, seed=1)
    assert r.guard == "" and "percentile bootstrap" in r.describe()
