"""Effect size, paired t-test and Wilcoxon signed-rank: hand values and scipy."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from ragnb.errors import InputError
from ragnb.stats import holm
from ragnb.stats.classic import add_classic_columns, classic_tests, effect_size
from ragnb.stats.family import compare_metrics


def test_hand_values():
    # d = [0, 1, 2]: mean 1, sd 1 -> d_z = 1, t = sqrt(3) on 2 df; for 2 df
    # P(|T| > t) = 1 - t / sqrt(2 + t^2) = 1 - sqrt(3/5)
    r = classic_tests([0.0, 1.0, 2.0])
    assert r.effect_size == pytest.approx(1.0)
    assert r.t_stat == pytest.approx(math.sqrt(3))
    assert r.p_ttest == pytest.approx(1 - math.sqrt(3 / 5), abs=1e-12)
    # Wilcoxon drops the zero: [1, 2] all positive, W = 0; exact two-sided p = 2 * 1/4
    assert (r.n_zero, r.w_stat, r.p_wilcoxon) == (1, 0.0, pytest.approx(0.5))
    # d = [1, 2, 3, 4]: W- = 0, exact two-sided p = 2 / 2^4
    assert classic_tests([1.0, 2.0, 3.0, 4.0]).p_wilcoxon == pytest.approx(0.125)
    assert effect_size([1.0, 2.0, 3.0, 4.0]) == pytest.approx(2.5 / math.sqrt(5 / 3))


def test_against_scipy_on_tied_bounded_differences():
    rng = np.random.default_rng(20261201)
    base = rng.integers(0, 5, 200) / 4          # bounded, heavily tied, like P@4
    chal = np.clip(base + rng.integers(-1, 3, 200) / 4, 0, 1)
    d = chal - base
    r = classic_tests(d)
    t = st.ttest_rel(chal, base)
    assert (r.t_stat, r.p_ttest) == pytest.approx((t.statistic, t.pvalue), abs=1e-12)
    w = st.wilcoxon(chal, base, zero_method="wilcox")
    assert (r.w_stat, r.p_wilcoxon) == pytest.approx((w.statistic, w.pvalue), abs=1e-12)
    assert r.n_zero == int((d == 0).sum()) > 0
    assert r.effect_size == pytest.approx(d.mean() / d.std(ddof=1))


def test_undefined_tests_are_nan_not_invented():
    r = classic_tests([0.0, 0.0, 0.0])
    assert math.isnan(r.p_ttest) and math.isnan(r.p_wilcoxon) and math.isnan(r.effect_size)
    assert math.isnan(classic_tests([0.3]).effect_size)
    # equal differences up to float noise (0.5 - 0.2 != 0.7 - 0.4 in binary): still sd = 0
    assert math.isnan(effect_size([0.5 - 0.2, 0.7 - 0.4]))
    # ... and for the t-test: sd 5.6e-17 gave t = 9.4e15, p = 1e-32 before
    noisy = np.array([0.5, 0.7, 0.9]) - np.array([0.2, 0.4, 0.6])
    assert noisy.std(ddof=1) > 0
    r = classic_tests(noisy)
    assert math.isnan(r.t_stat) and math.isnan(r.p_ttest)
    assert r.p_wilcoxon == pytest.approx(0.25)  # three equal positive ranks: 2 / 2^3
    with pytest.raises(InputError, match="finite"):
        classic_tests([0.1, float("nan")])


def _table(rng, n=60):
    rows = []
    base = {m: rng.random(n) for m in ("m1", "m2")}
    for config, shift in (("base", 0.0), ("c1", 0.05), ("c2", 0.01)):
        for m in ("m1", "m2"):
            v = np.clip(base[m] + shift + rng.normal(0, 0.1, n), 0, 1)
            rows += [{"config": config, "query_id": f"q{i}", "metric": m, "value": v[i]}
                     for i in range(n)]
    return pd.DataFrame(rows)


def test_compare_metrics_states_one_holm_family_over_metrics_and_challengers():
    scores = _table(np.random.default_rng(7))
    t = compare_metrics(scores, baseline="base", metrics=["m1", "m2"], tests=["ttest"],
                        resamples=500, seed=1)
    assert list(zip(t["metric"], t["challenger"])) == [("m1", "c1"), ("m1", "c2"),
                                                      ("m2", "c1"), ("m2", "c2")]
    assert (t["holm_family"] == "Holm over 4 tests: 2 metric(s) x 2 challenger(s) vs base").all()
    p = t["p_value"].to_numpy()
    order = np.argsort(p)
    by_hand = np.empty(4)
    by_hand[order] = np.minimum(1, np.maximum.accumulate((4 - np.arange(4)) * p[order]))
    assert t["p_holm"].to_numpy() == pytest.approx(by_hand)
    assert t["p_holm"].to_numpy() == pytest.approx(np.asarray(holm(p)))
    w = scores.pivot_table(index=["metric", "query_id"], columns="config", values="value")
    d = (w["c1"] - w["base"]).loc["m2"]
    row = t[(t["metric"] == "m2") & (t["challenger"] == "c1")].iloc[0]
    assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert row["p_ttest"] == pytest.approx(st.ttest_1samp(d, 0).pvalue)
    assert "p_wilcoxon" not in t.columns
    assert "Cohen's d_z" in t.attrs["classic"] and "ttest_rel" in t.attrs["classic"]


def test_classic_columns_follow_the_stratum_of_each_row():
    scores = _table(np.random.default_rng(3), n=40)
    strata = pd.Series({f"q{i}": "A" if i < 25 else "B" for i in range(40)})
    t = compare_metrics(scores, baseline="base", challengers=["c1"], metrics=["m1"],
                        strata=strata, tests=["wilcoxon"], resamples=300, seed=2, min_stratum=5)
    w = scores[scores["metric"] == "m1"].pivot(index="query_id", columns="config",
                                                values="value")
    d = w["c1"] - w["base"]
    for stratum, ids in (("A", [f"q{i}" for i in range(25)]), ("pooled", list(d.index))):
        row = t[t["stratum"] == stratum].iloc[0]
        assert row["p_wilcoxon"] == pytest.approx(st.wilcoxon(d[ids]).pvalue)
        assert row["effect_size"] == pytest.approx(d[ids].mean() / d[ids].std(ddof=1))
    assert "x 3 rows (2 strata + pooled)" in t["holm_family"].iloc[0]
    assert t.attrs["checks"] and {c["metric"] for c in t.attrs["checks"]} == {"m1"}


def test_unknown_test_is_an_error():
    with pytest.raises(InputError, match="unknown test"):
        add_classic_columns(pd.DataFrame(columns=["metric", "baseline", "challenger",
                                                  "stratum"]), pd.DataFrame(), tests=["z"])
