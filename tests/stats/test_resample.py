"""The two resampling paths: same distribution, bounded memory, sensible choice."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ragnb.stats import _resample
from ragnb.stats._resample import ELEMENT_BUDGET, choose_path, resample_sums
from tests.stats._simulate import RR_VALUES


def rr_deltas(n, seed=0):
    rng = np.random.default_rng(seed)
    a = RR_VALUES[rng.integers(0, 11, n)]
    b = np.where(rng.random(n) < 0.5, a, RR_VALUES[rng.integers(0, 11, n)])
    return b - a


@pytest.mark.parametrize("path", ["index", "counts"])
def test_each_path_matches_the_exact_bootstrap_moments(path):
    """The bootstrap distribution of a sum of n draws from the empirical distribution
    has exactly mean n*mu, variance n*s2 and third central moment n*m3 (s2, m3 the
    ddof=0 central moments of d): theory, not the code, gives the targets."""
    d = rr_deltas(400)
    b = 40_000
    sums, used, _ = resample_sums(d, b, np.random.default_rng(1), path)
    assert used == path
    n, mu = d.size, d.mean()
    s2, m3, m4 = (np.mean((d - mu) ** k) for k in (2, 3, 4))
    # Monte Carlo SDs: var(sum) = n s2; fourth central moment of the sum = n m4 + 3n(n-1) s2^2
    var_sum, mu4_sum = n * s2, n * m4 + 3 * n * (n - 1) * s2**2
    assert abs(sums.mean() - n * mu) < 4 * np.sqrt(var_sum / b)
    assert abs(sums.var() - var_sum) < 4 * np.sqrt((mu4_sum - var_sum**2) / b)
    third = np.mean((sums - n * mu) ** 3)
    assert abs(third - n * m3) < 4 * np.sqrt(15 * (n * s2) ** 3 / b)


def test_counting_path_and_index_path_give_the_same_distribution():
    """Exact counting over distinct values vs plain resampling: quantiles agree within
    Monte Carlo error and a two-sample KS test does not reject."""
    d = rr_deltas(600, seed=3)
    b = 20_000
    idx, _, _ = resample_sums(d, b, np.random.default_rng(10), "index")
    cnt, _, k = resample_sums(d, b, np.random.default_rng(11), "counts")
    assert k == np.unique(d).size <= 121
    assert stats.ks_2samp(idx, cnt).pvalue > 1e-3
    sd = np.sqrt(d.size * d.var())
    for q in (0.025, 0.25, 0.5, 0.75, 0.975):
        # SD of a sample quantile ~ sqrt(q(1-q)/B)/f(x_q); f from the normal approximation
        f = stats.norm.pdf(stats.norm.ppf(q)) / sd
        tol = 4 * np.sqrt(2) * np.sqrt(q * (1 - q) / b) / f
        assert abs(np.quantile(idx, q) - np.quantile(cnt, q)) < tol


def test_a_wrong_counting_distribution_would_be_caught():
    """Guard on the test above: uniform probabilities over the distinct values (a
    plausible bug) give a clearly different distribution."""
    d = rr_deltas(600, seed=3)
    values = np.unique(d)
    rng = np.random.default_rng(12)
    wrong = rng.multinomial(d.size, np.full(values.size, 1 / values.size), size=20_000) @ values
    right, _, _ = resample_sums(d, 20_000, np.random.default_rng(11), "counts")
    assert stats.ks_2samp(right, wrong).pvalue < 1e-6


class _Recorder:
    """Wraps a Generator and records the size of every block it is asked for."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.sizes = []

    def integers(self, low, high, size):
        self.sizes.append(int(np.prod(size)))
        return self.rng.integers(low, high, size=size)

    def multinomial(self, n, p, size):
        self.sizes.append(size * len(p))
        return self.rng.multinomial(n, p, size=size)


@pytest.mark.parametrize("n, path", [(50_000, "index"), (300, "index"), (50_000, "counts")])
def test_memory_stays_within_the_element_budget(n, path):
    d = rr_deltas(n)
    rec = _Recorder(0)
    sums, _, _ = resample_sums(d, 2_000, rec, path)
    assert sums.shape == (2_000,)
    assert max(rec.sizes) <= ELEMENT_BUDGET
    assert sum(rec.sizes) == 2_000 * (n if path == "index" else np.unique(d).size)


def test_one_query_larger_than_the_budget_still_works(monkeypatch):
    monkeypatch.setattr(_resample, "ELEMENT_BUDGET", 10)
    d = np.arange(25.0)
    sums, _, _ = resample_sums(d, 7, np.random.default_rng(0), "index")
    assert sums.shape == (7,)


def test_auto_chooses_counts_only_when_distinct_values_are_few():
    assert choose_path(100_000, 121) == "counts"  # RR@10 deltas on a big set
    assert choose_path(200, 121) == "index"
    assert choose_path(200, 5) == "counts"  # zero-heavy stratum
    assert choose_path(200, 200) == "index"


def test_seeded_sums_are_memoised_and_equal_a_fresh_draw():
    import numpy as np

    from ragnb.stats._resample import resample_sums, seeded_sums

    d = np.random.default_rng(3).normal(size=500)
    first, path, k = seeded_sums(d, 2000, 11)
    again, _, _ = seeded_sums(d.copy(), 2000, 11)
    assert again is first and not first.flags.writeable          # reused, read-only
    fresh, _, _ = resample_sums(d, 2000, np.random.default_rng(11), path)
    assert np.array_equal(first, fresh)                            # same draw as uncached
    other, _, _ = seeded_sums(d, 2000, 12)
    assert not np.array_equal(first, other)


@pytest.mark.parametrize("path", ["index", "counts"])
def test_chunked_replicates_equal_one_unchunked_draw(monkeypatch, path):
    """Blocks bound the memory, never the numbers: tiny blocks (including ones that do
    not divide the replicate count) give bit-identical replicates to a single block."""
    d = rr_deltas(301, seed=5)
    monkeypatch.setattr(_resample, "ELEMENT_BUDGET", 10**9)  # one block: the whole matrix
    whole, used, _ = resample_sums(d, 1_003, np.random.default_rng(17), path)
    assert used == path
    k = d.size if path == "index" else np.unique(d).size
    for rows in (1, 3, 64):
        monkeypatch.setattr(_resample, "ELEMENT_BUDGET", rows * k)
        rec = _Recorder(17)
        chunked, _, _ = resample_sums(d, 1_003, rec, path)
        assert max(rec.sizes) <= rows * k and len(rec.sizes) == -(-1_003 // rows)
        assert np.array_equal(chunked, whole)


def test_a_million_queries_never_hold_the_full_replicate_matrix():
    """10,000 x 1,000,000 would be 80 GB; the largest block drawn stays in the budget."""
    d = np.random.default_rng(4).normal(size=1_000_000)
    rec = _Recorder(2)
    sums, used, _ = resample_sums(d, 3, rec, "index")
    assert used == "index" and sums.shape == (3,)
    # n exceeds the budget: one replicate (n indices, 8 MB) per block, each freed before
    # the next, so 10,000 resamples draw 10,000 such blocks and never one (10,000, n) matrix
    assert ELEMENT_BUDGET < 1_000_000 and rec.sizes == [1_000_000] * 3
