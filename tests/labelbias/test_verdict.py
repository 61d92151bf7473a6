"""The three-way verdict: the rule on seed 003's own figures, and its table on the demo."""
import pytest

from ragnb.errors import InputError
from ragnb.labelbias import label_bounds, three_way
from ragnb.labelbias.verdict import decide, format_interval
from ragnb.stats import paired_bootstrap

from ._brute import make_run, make_test_set
from .demo_data import loaded

# seed 003 §2-1: (conservative CI low, optimistic CI low) -> verdict
SEED_ROWS = {
    "m0_r2": (-0.0657 - 0.04, -0.1005, "reject"),      # conservative and optimistic below 0
    "m1_r1": (-0.0434, 0.0106, "labelling decides"),
    "m1_r2": (-0.0881 - 0.05, -0.0778, "reject"),
    "m2_r1": (-0.0309, 0.0197, "labelling decides"),
    "m2_r2": (-0.0760 - 0.05, -0.0569, "reject"),
}


@pytest.mark.parametrize("config", list(SEED_ROWS))
def test_rule_on_the_seed_intervals(config):
    cons, opt, want = SEED_ROWS[config]
    assert decide(cons, opt)[0] == want


def test_rule_adopts_only_above_zero():
    assert decide(0.001, 0.05)[0] == "adopt"
    assert decide(0.0, 0.05)[0] == "labelling decides"   # touching zero is not above it
    assert decide(-0.1, 0.0)[0] == "reject"


def test_seed_003_verdict_table_on_the_demo():
    """m0_r2, m1_r2, m2_r2 rejected; m1_r1 and m2_r1: labelling decides (seed 003 §2-1)."""
    ts, runs = loaded()
    result = three_way(label_bounds(ts, runs, "rr@10"), "m0_r1")
    got = dict(zip(result.verdicts["challenger"], result.verdicts["verdict"]))
    assert got == {"m0_r2": "reject", "m1_r1": "labelling decides", "m1_r2": "reject",
                   "m2_r1": "labelling decides", "m2_r2": "reject"}
    t = result.tests.set_index(["challenger", "test"])
    # the seed's intervals, within a few thousandths (the demo is calibrated, not copied)
    assert t.loc[("m2_r1", "current"), "delta"] == pytest.approx(0.0068, abs=0.003)
    assert t.loc[("m2_r1", "optimistic"), "delta"] == pytest.approx(0.0559, abs=0.003)
    assert t.loc[("m1_r1", "optimistic"), "ci_low"] == pytest.approx(0.0106, abs=0.006)
    assert t.loc[("m0_r2", "current"), "ci_high"] == pytest.approx(-0.0275, abs=0.006)
    assert set(t["n"]) == {164} and set(t["resamples"]) == {10_000}
    assert set(t["seed"]) == {20260729}


def test_intervals_nested_and_reproducible_with_paired_bootstrap():
    """Seed 003's percentile bootstrap: per query conservative <= current <= optimistic and
    the three share resamples, so the intervals are ordered; a row is reproduced by
    paired_bootstrap on the per-query bounds."""
    ts, runs = loaded()
    b = label_bounds(ts, runs, "rr@10")
    result = three_way(b, "m0_r1", ["m2_r1"], resamples=2000, seed=5, method="percentile")
    t = result.tests.set_index("test")
    for col in ("delta", "ci_low", "ci_high"):
        assert t.loc["conservative", col] <= t.loc["current", col] <= t.loc["optimistic", col]
    low = b.values("m2_r1", "bound_min")
    high = b.values("m0_r1", "bound_max")
    r = paired_bootstrap(high * 0, low - high, resamples=2000, seed=5, path="index",
                         method="percentile")
    assert (r.delta, r.ci_low, r.ci_high) == pytest.approx(
        (t.loc["conservative", "delta"], t.loc["conservative", "ci_low"],
         t.loc["conservative", "ci_high"]))
    # the conservative delta is the difference of the two configs' bound means
    assert t.loc["conservative", "delta"] == pytest.approx(low.mean() - high.mean())


def test_the_current_row_is_the_interval_every_other_page_prints():
    """Issue 33 #7: one comparison, one interval. By default the current test is the
    headline interval (paired_bootstrap's default, which 01-fit and 03-strata print) of
    the same per-query scores under the lower policy, to the last digit."""
    ts, runs = loaded()
    b = label_bounds(ts, runs, "rr@10")
    t = three_way(b, "m0_r1", ["m2_r1"]).tests.set_index("test")
    lower = {c: b.values(c, "lower") for c in ("m0_r1", "m2_r1")}
    r = paired_bootstrap(lower["m0_r1"], lower["m2_r1"])
    assert (t.loc["current", "ci_low"], t.loc["current", "ci_high"]) == (r.ci_low, r.ci_high)
    assert set(t["method"]) == {"calibrated t"}


def test_the_rule_reads_the_current_end_beside_the_bounds():
    """Intervals of different spread need not be ordered: adopt also needs the current
    end above zero, and a current end above zero counts as an optimistic one."""
    assert decide(0.01, 0.05, 0.02)[0] == "adopt"
    assert decide(0.01, 0.05, -0.01) == ("labelling decides", "the conservative interval lies "
                                         "above zero but the current one does not: more "
                                         "queries decide")
    assert decide(-0.02, -0.01, 0.005)[0] == "labelling decides"
    assert decide(-0.02, -0.01, -0.001)[0] == "reject"
    assert decide(-0.02, -0.01)[0] == "reject"  # seed 003's two-end rule without it


def test_joint_verdict_is_at_least_as_tight():
    ts, runs = loaded()
    b = label_bounds(ts, runs, "rr@10")
    sep = three_way(b, "m0_r1", resamples=1000).tests.set_index(["challenger", "test"])
    joint = three_way(b, "m0_r1", joint=True, resamples=1000).tests.set_index(
        ["challenger", "test"])
    for chal in ("m1_r1", "m2_r1"):
        assert joint.loc[(chal, "conservative"), "delta"] >= sep.loc[(chal, "conservative"),
                                                                     "delta"] - 1e-12
        assert joint.loc[(chal, "optimistic"), "delta"] <= sep.loc[(chal, "optimistic"),
                                                                   "delta"] + 1e-12


def test_format_and_errors():
    assert format_interval(0.0068, -0.029, 0.0433) == "+0.0068 [-0.0290, +0.0433]"
    assert format_interval(-0.0638, -0.1005, -0.0275).endswith("*")
    ts = make_test_set({"q1": {"a": 1}, "q2": {"b": 1}})
    runs = [make_run({"q1": ["a"], "q2": ["b"]}, "x"), make_run({"q1": ["u"], "q2": ["b"]}, "y")]
    b = label_bounds(ts, runs, "rr@1")
    with pytest.raises(InputError, match="unknown baseline 'z'"):
        three_way(b, "z")
    with pytest.raises(InputError, match=r"unknown challenger\(s\) w; configs: x, y"):
        three_way(b, "x", ["w"])
    w = three_way(b, "x", resamples=100).wide()
    assert list(w.columns) == ["baseline", "challenger", "current", "conservative", "optimistic",
                               "effect_size", "verdict"]


def test_effect_size_per_test_by_hand():
    # rr@1: x gets (1, 1, 0) with q3's z unjudged, y gets (1, 1, 1), every y passage judged.
    # current d = (0, 0, 1): mean 1/3, SD sqrt((1/9 + 1/9 + 4/9) / 2) = 1/sqrt 3 -> 1/sqrt 3;
    # conservative: x at its maximum (z relevant) -> d = (0, 0, 0), SD 0 -> NaN;
    # optimistic: x at its minimum = current -> 1/sqrt 3.
    ts = make_test_set({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}})
    runs = [make_run({"q1": ["a"], "q2": ["b"], "q3": ["z"]}, "x"),
            make_run({"q1": ["a"], "q2": ["b"], "q3": ["c"]}, "y")]
    r = three_way(label_bounds(ts, runs, "rr@1"), "x", resamples=100)
    es = r.tests.set_index("test")["effect_size"]
    assert es["current"] == pytest.approx(3 ** -0.5)
    assert es["optimistic"] == pytest.approx(3 ** -0.5)
    assert es.isna()["conservative"]
    assert r.wide().loc[0, "effect_size"] == "+0.58"
