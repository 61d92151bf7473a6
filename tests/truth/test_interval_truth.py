"""The headline interval and p-value against simulated truth (issue 23 #4, #5).

Per-query differences lie in [-1, 1]. Where Cochran's rule says a t-interval cannot be
trusted (skewed or sparse differences), the headline uses the skew-corrected t (Hall 1992),
and where fewer than three queries differ or none vary, the betting interval and test, valid
for any bounded distribution; ``benchmarks/sim_headline_interval.py``
prints the full coverage table (n = 6-100, five scenarios).
"""
from __future__ import annotations

import numpy as np
import pytest

from ragnb.stats import paired_bootstrap
from ragnb.stats.interval import delta_interval
from tests.truth._scenarios import allowed_wrong

DRAWS = 300


def skewed_zero_mean(rng, n):
    """Right-skewed gamma differences recentred to mean exactly 0 (capped below 1)."""
    return np.minimum(rng.gamma(0.5, 0.12, n), 0.9) - 0.06


def sparse_stress(rng, n):
    """Most differences small and negative, a few large and positive: mean 0."""
    return np.where(rng.random(n) < 0.1, 0.45, -0.05)


@pytest.mark.parametrize("n", [8, 20, 50])
@pytest.mark.parametrize("draw", [skewed_zero_mean, sparse_stress])
def test_a_true_zero_mean_is_rejected_at_most_5_percent(draw, n):
    """Before: the sign-flip p rejected 14.3% (n = 8) to 6.2% (n = 50) on skewed zero-mean
    differences and 30% / 10.5% on the sparse stress case."""
    rng = np.random.default_rng(500 + n)
    rejected = 0
    for _ in range(DRAWS):
        r = delta_interval(draw(rng, n))
        assert (r.p <= 0.05) == (not r.low <= 0 <= r.high)  # p and interval agree
        rejected += r.p <= 0.05
    assert rejected <= allowed_wrong(DRAWS), rejected


def test_constant_differences_are_not_known_without_error():
    """Issue 23 #4: ten differences of +0.1 gave [+0.100, +0.100], SE 0, MDE 0. They are
    not fixed by construction: a distribution with mean 0 (0.1 w.p. 0.9, -0.9 w.p. 0.1)
    yields ten +0.1 in 35% of samples, so 0 must stay inside a 95% interval."""
    r = paired_bootstrap(np.zeros(10), np.full(10, 0.1))
    assert r.guard == "betting" and r.ci_low < 0 < 0.1 < r.ci_high
    assert r.se > 0 and r.mde > 0 and r.p_value > 0.05
    assert "not fixed by construction" in r.note and "betting" in r.describe()


def test_fixed_by_construction_is_still_exactly_zero_width():
    r = paired_bootstrap(np.zeros(10), np.zeros(10), fixed=True)
    assert (r.ci_low, r.ci_high, r.guard) == (0.0, 0.0, "")


# --- issue 38: power on sparse, real-shaped differences -----------------------------------

SPARSE_DRAWS = 400


@pytest.fixture(scope="module")
def cast_sparse(real_data):
    """CAsT 2021's real nDCG@10 moves (ANCE+BERT over BM25, linear gain) as a population
    where 90% of queries are unchanged, centred among themselves (mean exactly 0)."""
    import ragnb

    folder = real_data / "trec-cast-2021/2021"
    runs = [folder / f"baselines/document_runs/{c}.run.gz"
            for c in ("org_manual_bm25", "org_manual_ance_bert")]
    s = ragnb.score(folder / "trec-cast-qrels-docs.2021.qrel", runs, "ndcg@10", extra="drop",
                    missing="empty")
    wide = s.wide("ndcg@10")
    d = (wide["org_manual_ance_bert"] - wide["org_manual_bm25"]).to_numpy()
    moved = d[d != 0]
    values, changed = np.zeros(moved.size * 10), np.zeros(moved.size * 10, dtype=bool)
    values[:moved.size], changed[:moved.size] = moved - moved.mean(), True
    return values, changed


def _shift(values, changed, gain):
    """Move only the changed queries so the mean is ``gain`` (clipped to [-1, 1])."""
    from scipy import optimize

    def mean_at(c):
        out = values.copy()
        out[changed] = np.clip(values[changed] + c, -1, 1)
        return out
    c = optimize.brentq(lambda c: mean_at(c).mean() - gain, -2, 2, xtol=1e-14)
    return mean_at(c)


def test_sparse_power_at_2_points_is_at_least_the_floored_ts(cast_sparse):
    """Issue 38: on a sparse population (90% of queries unchanged) the betting guard
    detected +2 points at n = 100 in 2-11% of samples, against 44-62% for the floored t
    (``benchmarks/sim_headline_interval.py``). The skew-corrected t must reach 0.8x the
    floored t's power there and keep >= 93% coverage, p agreeing with the interval."""
    from scipy import special

    from ragnb.stats.interval import floored_sd

    population = _shift(*cast_sparse, 0.02)
    rng = np.random.default_rng(20261207)
    headline = floored = covered = 0
    for _ in range(SPARSE_DRAWS):
        d = rng.choice(population, 100)
        r = delta_interval(d)
        assert (r.p <= 0.05) == (not r.low <= 0 <= r.high)
        headline += r.low > 0
        covered += r.low <= 0.02 <= r.high
        floored += d.mean() - special.stdtrit(99, 0.975) * floored_sd(d) / 10 > 0
    assert floored >= 0.3 * SPARSE_DRAWS          # the comparison is informative
    assert headline >= 0.8 * floored, (headline, floored)
    assert covered >= SPARSE_DRAWS - allowed_wrong(SPARSE_DRAWS, 0.07), covered


@pytest.mark.parametrize("n", [10, 30, 100])
@pytest.mark.parametrize("gain", [0.0, 0.02])
def test_sparse_coverage_holds_at_every_n(cast_sparse, n, gain):
    """Coverage >= 93% (binomial band) on the same population at n = 10, 30, 100: where
    fewer than 3 queries differ the betting interval takes over (the skew-corrected t
    covers 48-78% of such samples)."""
    population = _shift(*cast_sparse, gain) if gain else cast_sparse[0]
    rng = np.random.default_rng(20261207 + n)
    covered = sum(r.low <= gain <= r.high for r in
                  (delta_interval(rng.choice(population, n)) for _ in range(SPARSE_DRAWS)))
    assert covered >= SPARSE_DRAWS - allowed_wrong(SPARSE_DRAWS, 0.07), covered
