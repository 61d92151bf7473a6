"""The one result shape: formatting in points, checks in one line, adapters per analysis."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragnb.codetasks.keep import evaluate_keep
from ragnb.errors import InputError
from ragnb.fit import four_cell
from ragnb.health import HealthReview
from ragnb.result import Finding, Result, checks_line, display_name, finding, interval, points


def test_points_and_intervals_are_metric_times_100():
    assert points(0.5123) == "51.2"
    assert points(0.0112, signed=True) == "+1.1"
    assert points(-0.004, signed=True, digits=2) == "-0.40"
    assert points(float("nan")) == "—" and points(None) == "—"
    assert interval(-0.01, 0.032, signed=True) == "[-1.0, +3.2]"


def test_display_name_keeps_the_code_beside_the_name():
    assert display_name("m0_r1", {"m0_r1": "e5 + reranker 1"}) == "e5 + reranker 1 (m0_r1)"
    assert display_name("m0_r1", {}) == "m0_r1"


def test_display_name_never_doubles_the_name():
    names = {"round-40": "July champion", "m0_r1": "e5 (m0_r1)"}
    once = display_name("round-40", names)
    assert once == "July champion (round-40)"
    assert display_name(once, names) == once                     # shown twice: unchanged
    assert display_name("m0_r1", names) == "e5 (m0_r1)"          # name already carries its code


def test_four_cell_chart_names_the_configs():
    fc = four_cell(_scores(np.random.default_rng(7)), baseline="b", champion="c",
                   resamples=100, seed=1)
    f = finding(fc, display_names={"c": "champion system"})
    spec = f.chart.to_dict()
    (values,) = spec["datasets"].values()
    labels = {v["label"] for v in values}
    assert labels == {"b, baseline", "champion system (c), champion"}
    assert spec["title"]["subtitle"] == "champion system (c) vs b"


def test_checks_collapse_to_one_line_with_failures_named():
    ok = pd.DataFrame({"check": list("abc"), "ok": [True] * 3, "detail": ["", "", ""]})
    assert checks_line(ok) == "3 of 3 checks hold"
    bad = ok.assign(ok=[True, False, True], detail=["", "gap 0.1", ""])
    assert checks_line(bad) == "2 of 3 checks hold; failing: b (gap 0.1)"


def test_an_unregistered_result_is_an_error_naming_its_type():
    with pytest.raises(InputError, match="no finding adapter for a dict"):
        finding({"a": 1})


def _scores(rng):
    rows = []
    for split, gain in (("golden", 0.10), ("production", 0.01)):
        base = rng.uniform(0.3, 0.7, 80)
        champ = np.clip(base + gain + rng.normal(0, 0.02, 80), 0, 1)
        for config, values in (("b", base), ("c", champ)):
            rows += [{"split": split, "config": config, "query_id": f"{split[0]}{i}", "value": v,
                      "metric": "ndcg@10"} for i, v in enumerate(values)]
    return pd.DataFrame(rows)


def test_four_cell_headline_states_both_gains_in_points_with_names():
    scores = _scores(np.random.default_rng(7))
    fc = four_cell(scores, baseline="b", champion="c", resamples=300, seed=1)
    f = finding(fc, display_names={"c": "champion system"}, chart=False)
    assert isinstance(f, Result) and isinstance(f, Finding)
    # the gains, computed here from the scores, appear in points in the answer
    for split in ("golden", "production"):
        s = scores[scores["split"] == split].pivot(index="query_id", columns="config",
                                                    values="value")
        gain = (s["c"] - s["b"]).mean()
        assert f"{gain * 100:+.1f}" in f.headline.answer
    assert "champion system (c)" in f.headline.answer
    assert f.headline.question == "Is the gain real or fit?"
    # two means checks and the overlap check (issue 23 #8): disjoint ids here
    assert checks_line(f.checks) == "3 of 3 checks hold"
    assert "points" in f.caption


def test_keep_headline_states_thresholds_and_values_in_points():
    summary = pd.DataFrame([
        {"metric": "all_files", "mean": 0.586, "ci_low": 0.478, "ci_high": 0.714, "n": 70},
        {"metric": "caller", "mean": 0.95, "ci_low": 0.92, "ci_high": 0.98, "n": 20}])
    verdict = evaluate_keep(summary, "all_files >= 0.80, caller >= 0.90")
    f = finding(verdict)
    assert f.headline.verdict == verdict.verdict == "fix"
    assert f.headline.answer == ("Fix the retriever: all_files recall is 58.6 [47.8, 71.4] "
                                 "points against all_files >= 80.0; 1 of 2 clauses fail.")
    assert list(f.display_table["mean (points)"]) == ["58.6", "95.0"]
    # no method column given: the description falls back to each clause's n
    assert f.description == verdict.description
    assert "Intervals: all_files: n=70 tasks; caller: n=20 tasks" in f.description
    assert "inconclusive when the interval straddles the threshold" in f.description


def test_keep_description_carries_each_interval_method():
    summary = pd.DataFrame([{"metric": "per_file", "mean": 0.9, "ci_low": 0.85, "ci_high": 0.95,
                             "n": 40, "method": "95% percentile bootstrap of 40 tasks, seed 3"}])
    verdict = evaluate_keep(summary, "per_file >= 0.80")
    assert verdict.verdict == "keep"
    assert verdict.description.endswith(
        "Intervals: per_file: 95% percentile bootstrap of 40 tasks, seed 3")


def test_split_use_description_says_how_inflation_was_made():
    from ragnb.ledger.finding import SplitUse

    manifests = pd.DataFrame({"split": ["dev"], "selections_against": [4], "budget": [10],
                              "inflation": [0.0123],
                              "inflation_method": ["worst case: all candidates equal"]})
    guard = pd.DataFrame({"check": ["rank"], "outcome": ["allowed"]})
    su = SplitUse(manifests, guard, "dev", 0.0045, alert_is_illustration=False)
    f = su.finding()
    assert f.description == su.description
    assert su.description.endswith("the guard's checks run on dev; SE of its pair: 0.45 points")
    assert "by at most 1.23 points (worst case: all candidates equal)" in f.headline.why[0]
    assert f.display_table["selection inflation (points)"].tolist() == [
        "at most 1.23 (worst case: all candidates equal)"]
    data = SplitUse(manifests.assign(inflation_method="empirical-Bayes selection bootstrap"),
                    guard, "dev", 0.0045).finding()
    assert "by about 1.23 points (empirical-Bayes selection bootstrap)" in data.headline.why[0]


def test_health_headline_counts_the_checks_that_hold():
    review = HealthReview("production")
    review.add("coverage", True, "all covered")
    review.add("near-duplicates", False, "32 groups", failure="32 near-duplicate groups")
    review.add("held-back 20%", False, "-9.8 points", urgency=1,
               failure="held-back 20% disagrees with the rest by -9.8 points")
    f = finding(review)
    assert f.headline.answer == ("1 of 3 health checks hold for production; most urgent: "
                                 "held-back 20% disagrees with the rest by -9.8 points.")
    assert f.headline.why[0] == "Also failing: 32 near-duplicate groups."
    assert f.headline.next_step == "Fix the held-back 20% check first; its chart is below."
    assert list(f.checks["holds"]) == [True, False, False]


def test_three_way_headline_counts_verdicts_and_shows_points():
    from ragnb.labelbias.verdict import TEST_COLUMNS, ThreeWay

    tests, verdicts = [], []
    for chal, (cur, cons, opt), verdict in (("a", (0.02, 0.01, 0.03), "adopt"),
                                             ("b", (0.0, -0.01, 0.02), "labelling decides"),
                                             ("c", (-0.05, -0.06, -0.04), "reject")):
        for test, d in zip(("current", "conservative", "optimistic"), (cur, cons, opt)):
            tests.append(dict.fromkeys(TEST_COLUMNS) | {
                "baseline": "base", "challenger": chal, "test": test, "delta": d,
                "ci_low": d - 0.005, "ci_high": d + 0.005, "effect_size": d * 10, "n": 50,
                "bounds": "policy" if test == "current" else "joint"})
        verdicts.append({"baseline": "base", "challenger": chal, "verdict": verdict,
                         "reason": "", "joint_min": cons, "joint_max": opt,
                         "separate_min": cons - 0.2, "separate_max": opt + 0.2})
    tw = ThreeWay(pd.DataFrame(tests), pd.DataFrame(verdicts), "rr@10", "method")
    f = finding(tw, display_names={"b": "bge"}, chart=False)
    assert f.headline.answer == (
        "1 of 3 challengers wins whatever the labels: a gains +1.0 [+0.5, +1.5] rr@10 points "
        "over base even if every unjudged passage goes against it.")
    assert f.headline.why[:3] == (
        "Wins whatever the labels (conservative interval above zero): a conservative +1.0 "
        "[+0.5, +1.5].",
        "Labels decide (optimistic interval above zero, conservative not): bge (b) optimistic "
        "+2.0 [+1.5, +2.5].",
        "Cannot win (optimistic interval below zero): c optimistic -4.0 [-4.5, -3.5].")
    assert f.headline.next_step.startswith("Judge the pooled unjudged passages")
    assert list(f.display_table.columns) == ["challenger", "current", "effect size",
                                             "conservative", "optimistic", "verdict",
                                             "joint bounds", "separate bounds"]
    assert list(f.display_table["effect size"]) == ["+0.20", "+0.00", "-0.50"]  # the current test's
    assert f.display_table.loc[0, "conservative"] == "+1.0 [+0.5, +1.5] *"
    assert f.display_table.loc[1, "current"] == "+0.0 [-0.5, +0.5]"
    assert f.display_table.loc[1, "joint bounds"] == "[-1.0, +2.0]"
    assert f.display_table.loc[1, "separate bounds"] == "[-21.0, +22.0]"


def test_breakdown_headline_names_the_stratum_that_moved_most_either_way():
    """Strata deltas +0.02, -0.10, +0.01 with every interval across zero: the -0.10 stratum
    (10 points) is the largest move, not the largest signed delta."""
    from types import SimpleNamespace

    from ragnb.strata.finding import breakdown_finding

    strata = pd.DataFrame({"stratum": ["a", "b", "c"], "delta": [0.02, -0.10, 0.01],
                           "ci_low": [-0.05, -0.20, -0.04], "ci_high": [0.09, 0.01, 0.06],
                           "n": [10, 10, 10], "p_holm": [1.0, 0.3, 1.0],
                           "queries_needed": [400.0, 60.0, 900.0]})
    bd = SimpleNamespace(pooled=pd.Series({"delta": -0.02, "ci_low": -0.06, "ci_high": 0.02,
                                           "n": 30, "queries_needed": 200.0}),
                         strata=strata, reconciliation=None, challenger="c1", baseline="c0",
                         metric="ndcg@10", ok=True, column="kind", alpha=0.05,
                         heterogeneity=None, p_heterogeneity_holm=float("nan"),
                         checks=pd.DataFrame({"check": ["sizes"], "holds": [True], "detail": [""]}),
                         display_table=lambda: strata, description="")
    f = breakdown_finding(bd, display_names={}, chart=False)
    # named with its column (issue 23 #1: a bare "129" read as "129 queries")
    assert "largest move: kind = b -10.0 [-20.0, +1.0] points, n = 10" in f.headline.said


def test_every_analysis_result_has_the_one_shape():
    import ragnb.codetasks  # noqa: F401 - each package registers its adapter
    import ragnb.fit  # noqa: F401
    import ragnb.health  # noqa: F401
    import ragnb.labelbias  # noqa: F401
    import ragnb.ledger  # noqa: F401
    import ragnb.strata  # noqa: F401
    import ragnb.trajectory  # noqa: F401
    import ragnb.watch  # noqa: F401
    from ragnb.result import ADAPTERS, Analysis

    assert sorted(k.__name__ for k in ADAPTERS) == [
        "Bounds", "Breakdown", "Coverage", "DuplicateGroups", "FourCell", "HealthReview",
        "HoldoutCheck", "KeepVerdict", "SplitUse", "Staleness", "TaskRecall", "ThreeWay",
        "Trajectory", "VersionDiff", "Watch"]
    for kind in ADAPTERS:
        assert issubclass(kind, Analysis), kind
        # `table` is data wherever it exists; the formatted table is `display_table`
        assert not callable(getattr(kind, "table", None)), kind
        # how it was made is the `description` (a property or field), never `describe()`
        assert not hasattr(kind, "describe"), kind
        assert isinstance(getattr(kind, "description", None), property) or \
            "description" in getattr(kind, "__dataclass_fields__", {}), kind
        # the display table is `display_table`, a method, or the adapter builds it
        assert not isinstance(getattr(kind, "display_table", None), property), kind
    review = HealthReview("golden")
    review.add("coverage", False, "3 queries lost their passage")
    f = review.finding()
    assert f.headline == finding(review).headline
    assert f.headline.verdict == "0 of 1 hold"
    assert list(f.display_table["holds"]) == ["fails"]
