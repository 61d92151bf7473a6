"""Paired bootstrap: calibration, agreement with scipy, reproducibility, edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.stats import paired_bootstrap
from tests.stats._simulate import ndcg_like, rr_like


def mean_diff(x, y, axis=-1):
    return np.mean(y, axis=axis) - np.mean(x, axis=axis)


def skewed_pair(n=40, seed=5):
    """A few large gains and some small losses: a clearly skewed bootstrap distribution."""
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 5, n)
    chal = base.copy()
    chal[:8] = np.minimum(1, base[:8] + rng.exponential(0.3, 8))
    chal[8:12] = base[8:12] - 0.02
    return base, chal


# --- calibration --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("simulate", [ndcg_like, rr_like], ids=["ndcg-like", "rr-like"])
@pytest.mark.parametrize("n, datasets", [(50, 3000), (200, 1500)])
def test_intervals_cover_the_true_difference_93_to_97_percent(simulate, n, datasets):
    """Coverage of the 95% percentile and BCa intervals over simulated data sets.

    Each data set draws ``n`` queries from a skewed, bounded per-query metric
    whose true mean difference is known exactly (``tests/stats/_simulate.py``:
    zero-inflated Beta "nDCG", discrete-rank RR@10, paired through a Gaussian
    copula), and is bootstrapped with 2,000 resamples through the public API.

    Binomial band: with ``R`` independent data sets the observed coverage has
    SD ``sqrt(c (1 - c) / R)``. Even the exact bootstrap undercovers a little
    at small ``n`` (normal quantiles, variance biased by ``(n-1)/n``): about
    94.2% at n = 50, 94.8% at n = 200. With R = 3,000 at n = 50 (SD 0.43%)
    and R = 1,500 at n = 200 (SD 0.57%), 93% lies 2.8 and 3.2 SD below those
    and 97% more than 4 SD above, so a correct implementation fails by chance
    for well under 1% of seeds; an interval 5% too narrow (93.7% at best,
    before the small-n loss) fails often, and one 10% too narrow (92.2%) or
    20% too wide (98.1%) almost always.
    """
    base, chal, truth = simulate(np.random.default_rng(20260729 + n), (datasets, n))
    covered = {"percentile": 0, "bca": 0}
    for i in range(datasets):
        for method in covered:
            r = paired_bootstrap(base[i], chal[i], resamples=2_000, seed=i, method=method)
            covered[method] += r.ci_low <= truth <= r.ci_high
    for method, hits in covered.items():
        assert 0.93 <= hits / datasets <= 0.97, (method, hits / datasets)


# --- agreement with scipy -----------------------------------------------------------------


@pytest.mark.parametrize("method, scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_interval_agrees_with_scipy_within_monte_carlo_error(method, scipy_method):
    """Same data, 50,000 resamples each. An endpoint's MC SD is about
    sqrt(q(1-q)/B)/f(x_q) = 0.012 SE for q = 0.025; the difference of two
    independent runs about 0.017 SE, so 0.1 SE is ~6 SD."""
    base, chal = skewed_pair()
    ours = paired_bootstrap(base, chal, resamples=50_000, method=method)
    ref = stats.bootstrap(
        (base, chal), mean_diff, paired=True, method=scipy_method, n_resamples=50_000,
        rng=np.random.default_rng(1), vectorized=True,
    )  # fmt: skip
    tol = 0.1 * ref.standard_error
    assert abs(ours.ci_low - ref.confidence_interval.low) < tol
    assert abs(ours.ci_high - ref.confidence_interval.high) < tol
    assert ours.se_bootstrap == pytest.approx(ref.standard_error, rel=0.02)


def test_bca_and_percentile_differ_enough_on_this_data_for_the_check_to_bite():
    base, chal = skewed_pair()
    kw = {"paired": True, "n_resamples": 50_000, "vectorized": True}
    pct = stats.bootstrap((base, chal), mean_diff, method="percentile", rng=1, **kw)
    bca = stats.bootstrap((base, chal), mean_diff, method="BCa", rng=1, **kw)
    gap = abs(bca.confidence_interval.high - pct.confidence_interval.high)
    assert gap > 0.25 * bca.standard_error


# --- p-value, SE, MDE against theory -------------------------------------------------------


def test_se_matches_the_exact_bootstrap_se():
    """The bootstrap SE of a mean is exactly sd(d, ddof=0)/sqrt(n); with B = 10,000
    the relative MC error of the estimate is about 1/sqrt(2B) = 0.7%."""
    base, chal, _ = ndcg_like(np.random.default_rng(3), 300)
    r = paired_bootstrap(base, chal)
    exact = np.std(chal - base) / np.sqrt(300)
    assert r.se_bootstrap == pytest.approx(exact, rel=0.03)


def test_headline_se_and_mde_are_the_t_figures_when_most_queries_differ():
    """Every difference is nonzero, so the share floor does not bind (p_U = 1 and
    v_U = mean(d^2) - mean(d)^2 <= s^2): SE = sd(d, ddof=1)/sqrt(n), the interval
    is the textbook paired t-interval (scipy), and MDE = (t_.975 + t_.8) SE, df n-1."""
    rng = np.random.default_rng(3)
    base = rng.beta(2, 3, 300)
    chal = base + rng.normal(0.01, 0.2, 300)
    d = chal - base
    r = paired_bootstrap(base, chal)
    assert r.se == pytest.approx(np.std(d, ddof=1) / np.sqrt(300), rel=1e-12)
    ref = stats.ttest_rel(chal, base).confidence_interval(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((ref.low, ref.high), rel=1e-9)
    assert r.mde == pytest.approx((stats.t.ppf(0.975, 299) + stats.t.ppf(0.8, 299)) * r.se)


def test_shift_p_value_is_close_to_the_t_test_at_large_n():
    rng = np.random.default_rng(4)
    base = rng.beta(2, 3, 400)
    chal = np.clip(base + rng.normal(0.02, 0.2, 400), 0, 1)
    r = paired_bootstrap(base, chal)
    t = stats.ttest_rel(chal, base).pvalue
    assert 0.001 < t < 0.5  # the comparison is informative, not saturated
    assert r.p_value_bootstrap == pytest.approx(t, abs=0.01)
    # every difference nonzero and Cochran's rule holds: p is scipy's paired t-test
    assert r.p_value == pytest.approx(t, rel=1e-9)
    assert (r.p_method, r.guard) == ("t-test, floored SD", "")


def test_p_value_is_never_zero():
    base = np.zeros(30)
    chal = np.full(30, 0.5) + np.linspace(0, 0.1, 30)
    r = paired_bootstrap(base, chal, resamples=1_000)
    assert r.p_value_bootstrap == pytest.approx(1 / 1_001)
    t = stats.ttest_rel(chal, base).pvalue  # the interval's own test: tiny, never 0
    assert 0 < r.p_value == pytest.approx(t, rel=1e-9)


def test_no_p_value_where_there_is_no_interval():
    """Two queries, both better: no interval below MIN_QUERIES, so no p either (the p is
    the interval's own test); the bootstrap shift p says 1/(B+1), every resample alike."""
    r = paired_bootstrap([0.2, 0.4], [0.3, 0.5])
    assert np.isnan(r.p_value) and r.p_method == ""
    assert r.p_value_bootstrap < 0.001
    assert np.isnan(r.ci_low) and np.isnan(r.mde)
    assert r.note == "too few queries to say (n = 2 < 6)"


# --- edge cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["t", "percentile", "bca"])
@pytest.mark.parametrize("path", ["auto", "index", "counts"])
def test_observed_all_zero_differences_get_a_non_zero_interval_and_a_statement(method, path):
    """27 unchanged queries: an 80% Clopper-Pearson upper bound on the share that
    differ is 1 - 0.2^(1/27) = 5.78%; with |d| <= 1 the variance floor is that share,
    so the half-width is t_.975,26 sqrt(0.0578 * 27/26 / 27), by hand."""
    scores = pd.Series(np.linspace(0, 1, 27), index=[f"q{i}" for i in range(27)])
    r = paired_bootstrap(scores, scores.copy(), method=method, path=path)
    share = 1 - 0.2 ** (1 / 27)
    half = stats.t.ppf(0.975, 26) * np.sqrt(share / 26)
    assert (r.delta, r.p_value) == (0.0, 1.0)
    assert (r.ci_low, r.ci_high) == pytest.approx((-half, half), rel=1e-9)
    assert r.mde > 0
    assert "at most 11% of such queries differ" in r.note  # 1 - 0.05^(1/27) = 10.5%


@pytest.mark.parametrize("method", ["t", "percentile", "bca"])
def test_a_comparison_fixed_by_construction_has_exactly_zero_width(method):
    scores = pd.Series(np.zeros(27), index=[f"q{i}" for i in range(27)])
    r = paired_bootstrap(scores, scores.copy(), method=method, fixed=True)
    assert (r.delta, r.ci_low, r.ci_high, r.se, r.p_value) == (0.0, 0.0, 0.0, 0.0, 1.0)
    assert r.note.startswith("cannot move by construction")


def test_fixed_seed_reproduces_exactly_and_another_seed_does_not():
    base, chal = skewed_pair()
    a = paired_bootstrap(base, chal, seed=7, method="bca").to_dict()
    b = paired_bootstrap(base, chal, seed=7, method="bca").to_dict()
    c = paired_bootstrap(base, chal, seed=8, method="bca").to_dict()
    assert a == b
    assert (a["ci_low"], a["ci_high"]) != (c["ci_low"], c["ci_high"])


def test_global_random_state_is_untouched():
    np.random.seed(123)
    before = np.random.random()
    np.random.seed(123)
    paired_bootstrap(*skewed_pair(), resamples=100)
    assert np.random.random() == before


def test_series_tidy_frame_and_order_are_equivalent():
    base, chal = skewed_pair()
    ids = [f"q{i:02d}" for i in range(len(base))]
    s_base, s_chal = pd.Series(base, index=ids), pd.Series(chal, index=ids)
    tidy = pd.DataFrame({"query_id": ids[::-1], "value": chal[::-1]})
    r1 = paired_bootstrap(s_base, s_chal)
    r2 = paired_bootstrap(s_base.sample(frac=1, random_state=0), tidy)
    assert r1 == r2


def test_mismatch_is_an_error_naming_ids_and_counts():
    a = pd.Series([0.1, 0.2, 0.3, 0.4], index=["q1", "q2", "q3", "q4"])
    b = pd.Series([0.1, 0.2, 0.3, 0.9], index=["q1", "q2", "q3", "q9"])
    with pytest.raises(
        InputError, match=r"1 only in baseline \(q4\); 1 only in challenger \(q9\); 3 shared"
    ):
        paired_bootstrap(a, b)
    r = paired_bootstrap(a, b, drop_mismatched=True)
    assert (r.n, r.dropped) == (3, 2)
    assert r.delta == 0.0
    assert "2 unmatched query ids dropped" in r.describe()


def test_nan_is_an_error_naming_the_query():
    a = pd.Series([0.1, np.nan, 0.3], index=["q1", "q2", "q3"])
    with pytest.raises(
        InputError, match=r"baseline \[q2\]: 1 query id\(s\) have a missing \(NaN\) score: q2"
    ):
        paired_bootstrap(a, a.fillna(0))


def test_duplicate_query_ids_are_an_error():
    a = pd.Series([0.1, 0.2, 0.3], index=["q1", "q1", "q3"])
    with pytest.raises(InputError, match=r"appear more than once: q1"):
        paired_bootstrap(a, a)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"method": "bootstrap-t"}, r"`method` must be one of 't', 'percentile', 'bca'"),
        ({"resamples": 0}, r"`resamples` must be a positive integer"),
        ({"seed": -1}, r"`seed` must be a non-negative integer"),
        ({"seed": 1.5}, r"`seed` must be a non-negative integer"),
        ({"ci": 95}, r"`ci` must be between 0 and 1"),
        ({"path": "fast"}, r"`path` must be one of"),
    ],
)
def test_bad_options_name_the_argument(kwargs, message):
    with pytest.raises(InputError, match=message):
        paired_bootstrap([0.1, 0.2], [0.2, 0.3], **kwargs)


def test_one_query_is_not_enough():
    with pytest.raises(InputError, match="at least 2 shared queries"):
        paired_bootstrap([0.1], [0.2])


def test_describe_and_to_dict():
    r = paired_bootstrap(np.zeros(200), np.linspace(0, 0.1, 200), method="bca")
    assert r.describe() == (
        "95% BCa bootstrap, 10,000 paired resamples of n=200 queries; p: t-test, floored SD, "
        "seed 20260729"
    )
    d = r.to_dict()
    assert d["description"] == r.describe()
    assert {"delta", "ci_low", "ci_high", "se", "p_value", "n", "resamples", "seed", "method",
            "mde", "dropped", "path", "p_value_bootstrap", "se_bootstrap", "p_method",
            "note"} <= d.keys()  # fmt: skip


def test_resamples_share_the_bound_of_every_surface():
    # issue 27, item 5: the Python API refuses what the command line and reports refuse
    base, chal = np.zeros(30), np.linspace(0, 0.3, 30)
    with pytest.raises(InputError, match=r"`resamples` must be in \[1, 100,000\]"):
        paired_bootstrap(base, chal, resamples=100_001)
