"""Stratified bootstrap: seed 000's table, the identity, checks and reconciliation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.stats import paired_bootstrap, reconcile_pooled, stratified_bootstrap

SEED000 = {  # stratum: (queries, delta in nDCG@10 points as printed)
    "in_scope_single_turn": (118, 1.4),
    "follow_up": (41, 0.6),
    "out_of_scope": (27, 0.0),
    "malformed": (14, -0.3),
}


def seed000_scores(seed=0):
    """Per-query scores whose stratum deltas are exactly seed 000's printed figures."""
    rng = np.random.default_rng(seed)
    base, chal, label = [], [], []
    for name, (n, points) in SEED000.items():
        b = np.zeros(n) if name == "out_of_scope" else rng.beta(2, 3, n)
        d = np.zeros(n) if name == "out_of_scope" else rng.normal(0, 0.1, n)
        d = d - d.mean() + points / 100
        base += list(b)
        chal += list(b + d)
        label += [name] * n
    ids = [f"q{i:03d}" for i in range(len(base))]
    return pd.Series(base, ids), pd.Series(chal, ids), pd.Series(label, ids)


@pytest.fixture(scope="module")
def seed000():
    base, chal, strata = seed000_scores()
    return stratified_bootstrap(base, chal, strata, reported_pooled=0.011)


def test_seed000_table_has_one_row_per_stratum_then_pooled(seed000):
    t = seed000.table
    assert list(t["stratum"]) == [*SEED000, "pooled"]
    assert list(t["n"]) == [118, 41, 27, 14, 200]
    expected = [points / 100 for _, points in SEED000.values()]
    assert t["delta"].iloc[:-1].to_numpy() == pytest.approx(expected, abs=1e-12)
    # pooled = (118*1.4 + 41*0.6 + 27*0 - 14*0.3) / 200 = 185.6 / 200 points, by hand
    assert t["delta"].iloc[-1] == pytest.approx(0.00928, abs=1e-12)


def test_seed000_out_of_scope_interval_has_exactly_zero_width_only_when_fixed(seed000):
    """Out-of-scope queries have nothing to retrieve: passed as ``fixed`` they cannot
    move and the interval is [0, 0]; the same zeros merely observed get a non-zero
    interval: 27 zeros, 80% upper share 1 - 0.2^(1/27), half-width t_.975,26 sqrt(share/26)."""
    base, chal, strata = seed000_scores()
    fixed = strata.index[strata == "out_of_scope"]
    t = stratified_bootstrap(base, chal, strata, fixed=fixed).table.set_index("stratum")
    row = t.loc["out_of_scope"]
    assert (row["ci_low"], row["ci_high"], row["se"]) == (0.0, 0.0, 0.0)
    assert np.isnan(row["p_value"])  # not a test: it cannot move
    assert row["zero_width"].startswith("cannot move by construction")
    others = t.drop("out_of_scope")
    assert (others["ci_high"] > others["ci_low"]).all()
    assert (others["zero_width"] == "").all()
    observed = seed000.table.set_index("stratum").loc["out_of_scope"]
    half = stats.t.ppf(0.975, 26) * np.sqrt((1 - 0.2 ** (1 / 27)) / 26)
    assert (observed["ci_low"], observed["ci_high"]) == pytest.approx((-half, half))
    assert observed["zero_width"] == ""
    assert observed["statement"].startswith("all 27 differences are 0 in this sample")


def test_seed000_checks_and_flagged_reconciliation(seed000):
    checks = seed000.checks.set_index("check")
    assert checks.loc["stratum sizes add up", "holds"]
    assert (
        checks.loc["stratum sizes add up", "detail"]
        == "118 + 41 + 27 + 14 = 200 of 200 queries compared"
    )
    assert checks.loc["unclassified queries", "holds"]
    assert checks.loc["strata under 10 queries", "holds"]  # malformed has 14
    rec = seed000.reconciliation
    # reported 0.011 is printed to 3 decimals: rounding explains at most 0.0005
    assert rec.tolerance == pytest.approx(0.0005)
    assert rec.residual == pytest.approx(0.011 - 0.00928, abs=1e-12)
    assert rec.flagged
    assert not checks.loc["reconciles with reported pooled", "holds"]
    assert "FLAGGED" in checks.loc["reconciles with reported pooled", "detail"]


def test_seed000_in_scope_stratum_cannot_resolve_its_gain(seed000):
    row = seed000.table.set_index("stratum").loc["in_scope_single_turn"]
    assert row["ci_low"] < 0 < row["ci_high"]
    assert row["mde"] > row["delta"]
    assert row["queries_needed"] > 118


def test_reconcile_seed000_printed_figures():
    """+1.4 on 118, +0.6 on 41, 0.0 on 27, -0.3 on 14 against +1.1 (points, one decimal).

    By hand: weighted = 185.6 / 200 = 0.928; rounding each stratum figure to one
    decimal moves the weighted mean by at most 0.05, the reported one by 0.05:
    tolerance 0.10 < residual 0.172, so it is flagged."""
    r = reconcile_pooled([1.4, 0.6, 0.0, -0.3], [118, 41, 27, 14], 1.1)
    assert r.weighted == pytest.approx(0.928)
    assert r.residual == pytest.approx(0.172)
    assert r.tolerance == pytest.approx(0.10)
    assert r.flagged
    assert "±0.1" in r.line and "FLAGGED" in r.line


def test_reconcile_within_rounding_is_not_flagged():
    assert not reconcile_pooled([1.4, 0.6, 0.0, -0.3], [118, 41, 27, 14], 1.0).flagged
    # printed with two decimals the tolerance shrinks: 0.005 + 0.005
    r = reconcile_pooled(["1.40", "0.60", "0.00", "-0.30"], [118, 41, 27, 14], "0.93")
    assert r.tolerance == pytest.approx(0.01)
    assert not r.flagged
    assert reconcile_pooled(["1.40", "0.60", "0.00", "-0.30"], [118, 41, 27, 14], "0.95").flagged


def test_stratum_rows_are_reproduced_by_paired_bootstrap_with_the_row_seed(seed000):
    base, chal, strata = seed000_scores()
    for _, row in seed000.table.iloc[:-1].iterrows():
        ids = strata.index[strata == row["stratum"]]
        r = paired_bootstrap(base[ids], chal[ids], seed=int(row["seed"]))
        assert (r.ci_low, r.ci_high, r.p_value, r.se) == (
            row["ci_low"], row["ci_high"], row["p_value"], row["se"])  # fmt: skip


def test_pooled_se_matches_the_exact_stratified_bootstrap_se(seed000):
    """Var of a stratified replicate = sum_h (n_h/N)^2 var_h / n_h with ddof=0 variances
    (theory); the MC relative error of the SE at B = 10,000 is ~0.7%."""
    base, chal, strata = seed000_scores()
    d = chal - base
    var = sum((len(g) / 200) ** 2 * np.var(g) / len(g) for _, g in d.groupby(strata))
    assert seed000.table["se"].iloc[-1] == pytest.approx(np.sqrt(var), rel=0.03)


def test_identity_checks_are_reported_for_point_and_every_replicate(seed000):
    checks = seed000.checks.set_index("check")
    point = checks.loc["pooled = size-weighted strata (point)"]
    reps = checks.loc["pooled = size-weighted strata (all 10,000 replicates)"]
    assert point["holds"] and reps["holds"]
    assert float(reps["detail"].split("= ")[-1]) < 1e-12


def test_unclassified_queries_form_their_own_stratum_and_are_shown():
    base, chal, strata = seed000_scores()
    strata = strata.copy()
    strata.iloc[:3] = np.nan  # three NaN labels
    strata = strata.drop(strata.index[3:5])  # two queries with no label at all
    r = stratified_bootstrap(base, chal, strata, resamples=500)
    t = r.table.set_index("stratum")
    assert t.loc["unclassified", "n"] == 5
    assert t["n"].iloc[:-1].sum() == 200
    checks = r.checks.set_index("check")
    assert not checks.loc["unclassified queries", "holds"]
    assert "5 queries have no stratum" in checks.loc["unclassified queries", "detail"]
    assert checks.loc["unclassified queries", "detail"].endswith("'unclassified' stratum")
    assert t.loc["unclassified", "small"]


def test_small_strata_are_flagged():
    base, chal, strata = seed000_scores()
    r = stratified_bootstrap(base, chal, strata, resamples=500, min_stratum=20)
    small = r.checks.set_index("check").loc["strata under 20 queries"]
    assert not small["holds"]
    assert small["detail"] == "malformed (n=14)"
    assert list(r.table.loc[r.table["small"], "stratum"]) == ["malformed"]


def test_labels_for_queries_not_compared_are_counted():
    base, chal, strata = seed000_scores()
    extra = pd.concat([strata, pd.Series(["follow_up"], index=["q999"])])
    r = stratified_bootstrap(base, chal, extra, resamples=200)
    check = r.checks.set_index("check").loc["labels for other queries"]
    assert not check["holds"] and check["detail"].startswith("1 labelled query ids")


def test_categorical_strata_keep_their_order_and_bca_runs():
    base, chal, strata = seed000_scores()
    order = ["malformed", "out_of_scope", "follow_up", "in_scope_single_turn"]
    cat = strata.astype(pd.CategoricalDtype(order))
    r = stratified_bootstrap(base, chal, cat, resamples=2_000, method="bca")
    assert list(r.table["stratum"]) == [*order, "pooled"]
    pooled = r.pooled
    assert pooled["ci_low"] < pooled["delta"] < pooled["ci_high"]


def test_one_query_stratum_has_no_p_value():
    base, chal, strata = seed000_scores()
    strata = strata.copy()
    strata.iloc[0] = "singleton"
    t = stratified_bootstrap(base, chal, strata, resamples=200).table.set_index("stratum")
    assert np.isnan(t.loc["singleton", "p_value"])
    assert np.isnan(t.loc["singleton", "ci_low"]) and np.isnan(t.loc["singleton", "mde"])
    assert t.loc["singleton", "statement"] == "too few queries to say (n = 1 < 6)"
    assert t.loc["singleton", "zero_width"] == ""


def test_a_two_query_stratum_gets_no_p_value_at_all():
    """Issue 11: two queries that both gain printed p = 0.0001 from the bootstrap; issue 23
    #14: the exact sign-flip p (0.5) then still printed beside "too few queries to say".
    The row says only that: no p-value, bootstrap p, MDE or queries needed."""
    base, chal, strata = seed000_scores()
    strata = strata.copy()
    strata.iloc[:2] = "pair"
    chal = chal.copy()
    chal.iloc[:2] = base.iloc[:2] + [0.1, 0.3]
    t = stratified_bootstrap(base, chal, strata, resamples=2_000).table.set_index("stratum")
    assert np.isnan(t.loc["pair", "p_value"]) and np.isnan(t.loc["pair", "p_bootstrap"])
    assert t.loc["pair", "statement"] == "too few queries to say (n = 2 < 6)"
    assert np.isnan(t.loc["pair", "mde"]) and np.isnan(t.loc["pair", "queries_needed"])


def test_a_stratum_called_pooled_is_refused():
    base, chal, strata = seed000_scores()
    with pytest.raises(InputError, match="may not be called 'pooled'"):
        stratified_bootstrap(base, chal, strata.replace("malformed", "pooled"), resamples=10)


def test_describe_states_method_resamples_and_seed(seed000):
    assert seed000.describe() == (
        "95% calibrated t-interval (variance floored by the share of queries that differ) "
        "intervals in each of 4 strata and pooled, n=200 queries; p: the two-sided test each "
        "interval inverts (t with the floored SD; Hall's skew-corrected t where Cochran's rule "
        "fails; the betting test where fewer than 3 queries differ), so p <= 0.05 exactly when "
        "the 95% interval excludes 0; bootstrap (10,000 "
        "resamples within strata, sizes fixed) for the secondary p_bootstrap and se_bootstrap; "
        "seed 20260729 (one derived seed per stratum, in the table)"
    )


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_one_stratum_pooled_row_equals_the_stratum_row(method):
    """With a single stratum the weighted jackknife influences reduce to the plain
    ones and the pooled replicates are the stratum's: the two rows must coincide."""
    base, chal, strata = seed000_scores()
    t = stratified_bootstrap(
        base, chal, pd.Series("all", index=strata.index), method=method, resamples=3_000
    ).table
    cols = ["n", "delta", "ci_low", "ci_high", "se", "mde", "se_bootstrap", "p_bootstrap"]
    assert t.iloc[0][cols].tolist() == pytest.approx(t.iloc[1][cols].tolist(), abs=1e-15)
    # the sign-flip p of the two rows uses two seeds: equal within Monte Carlo error
    assert t.iloc[0]["p_value"] == pytest.approx(t.iloc[1]["p_value"], abs=0.03)


def test_strata_of_one_query_each_are_refused_with_the_reason():
    # issue 27, item 5: one stratum per query took 21 s for 16,000 queries; a stratum of
    # one query has no variance to resample, so such a column is refused at once
    rng = np.random.default_rng(27)
    ids = [f"q{i}" for i in range(16_000)]
    base = pd.Series(rng.random(16_000), index=ids)
    chal = pd.Series(rng.random(16_000), index=ids)
    with pytest.raises(InputError, match="16,000 of the 16,000 strata hold one query: strata "
                                         "of one query cannot be bootstrapped"):
        stratified_bootstrap(base, chal, pd.Series(ids, index=ids), resamples=100)
    # 21 singletons in 41 strata: most strata are one query, refused; 20 are allowed
    labels = pd.Series([f"s{i}" if i < 21 else f"g{i % 20}" for i in range(421)],
                       index=ids[:421])
    with pytest.raises(InputError, match="21 of the 41 strata hold one query"):
        stratified_bootstrap(base[:421], chal[:421], labels, resamples=100)
    r = stratified_bootstrap(base[1:421], chal[1:421], labels[1:], resamples=100)
    assert (r.table["n"] == 1).sum() == 20
