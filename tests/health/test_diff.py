"""Version diff: added / removed / re-judged counts and the scores behind them, by hand."""
import pandas as pd
import pytest

from ragnb.health import version_diff
from ragnb.health.diff import query_changes
from ragnb.io.run import validate_run

from ._data import make_test_set, q


@pytest.fixture
def versions(tmp_path):
    old = make_test_set(tmp_path, [
        q("q1", [("p1", 2, "v1"), ("p2", 0, "v1")]),
        q("q2", [("p3", 2, "v1")]),
        q("q3", [("p4", 1, "v1")]),
    ], name="v1")
    new = make_test_set(tmp_path, [
        q("q1", [("p1", 2, "v1"), ("p2", 0, "v2")]),        # new doc version only
        q("q2", [("p3", 1, "v1"), ("p5", 2, "v2")]),        # re-graded and a new judgment
        q("q4", [("p6", 2, "v2")]),                          # added
        q("q5", [("p7", 2, "v2")]),                          # added; q3 removed
    ], name="v2")
    import pandas as pd
    run = validate_run(pd.DataFrame({
        "query_id": ["q1", "q2", "q2", "q3", "q4", "q4", "q5"],
        "passage_id": ["p1", "p5", "p3", "p4", "p8", "p6", "p7"],
        "rank": [1, 1, 2, 1, 1, 2, 1]}), "run", name="sys")
    return old, new, run


def test_query_changes(versions):
    old, new, _ = versions
    c = query_changes(old, new).set_index("query_id")
    assert c["change"].to_dict() == {"q1": "unchanged", "q2": "rejudged", "q3": "removed",
                                     "q4": "added", "q5": "added"}
    assert c.loc["q1", "reversioned"] == 1 and c.loc["q1", "regraded"] == 0
    assert (c.loc["q2", "regraded"], c.loc["q2", "added_judgments"]) == (1, 1)
    assert (c.loc["q3", "removed_judgments"], c.loc["q3", "judgments_new"]) == (1, 0)


def test_scores_on_both_versions(versions):
    old, new, run = versions
    d = version_diff(old, new, run, "rr@10", resamples=200)
    assert d.counts() == {"added": 2, "removed": 1, "rejudged": 1, "unchanged": 1}
    r = d.table.iloc[0]
    # old: q1 1, q2 1/2 (p5 unjudged counts as not relevant), q3 1; new: q1 1, q2 1, q4 1/2, q5 1
    assert r["old"] == pytest.approx((1 + 0.5 + 1) / 3) and r["n_old"] == 3
    assert r["new"] == pytest.approx((1 + 1 + 0.5 + 1) / 4) and r["n_new"] == 4
    assert r["difference"] == pytest.approx(0.875 - 2.5 / 3)
    assert r["n_common"] == 2 and r["rejudging"] == pytest.approx(0.25)      # q2: 1/2 -> 1
    # per-query re-judging differences (q1 0, q2 +0.5): mean 0.25, SD (n-1) 0.5/sqrt 2
    assert r["rejudging_effect_size"] == pytest.approx(2 ** -0.5)
    assert d.display_table().loc[0, "re-judging effect size"] == "+0.71"
    assert r["n_added"] == 2 and r["added"] == pytest.approx(0.75)
    assert r["common_new"] == 1.0 and r["harder_by"] == pytest.approx(-0.25)
    assert r["added_no_relevant"] == 0
    assert "re-judging moved it +25.0 points" in d.reading("sys")
    # the finding, in points: 2.5/3 = 83.33 -> 3.5/4 = 87.50 is +4.2 points; q2 re-judged
    # +25.0 on 2 common queries; the added ones score 0.75 - 1 = -25.0 against the common
    f = d.finding()
    assert f.headline.answer.startswith(
        f"From {d.old_name} to {d.new_name} (2 queries added, 1 removed, 1 re-judged), rr@10: "
        f"sys: 83.33 points on {d.old_name} (3 queries) → 87.50 on {d.new_name} (4), +4.2 "
        "points; on the 2 common queries re-judging moved it +25.0 points; the 2 added queries "
        "score -25.0 points against the common ones [")
    t = d.display_table().iloc[0]
    assert (t[f"old ({d.old_name})"], t[f"new ({d.new_name})"], t["difference"],
            t["re-judging (common queries)"], t["added minus common"]) == (
        "83.33", "87.50", "+4.17", "+25.00", "-25.00")
    assert f.headline.verdict == "1 re-judged, 2 added"
    assert f.checks["holds"].all() and f.description == d.description


def test_nothing_added_leaves_the_harder_check_empty(versions):
    old, _, run = versions
    d = version_diff(old, old, run, "rr@10", resamples=100)
    r = d.table.iloc[0]
    assert d.counts()["unchanged"] == 3 and r["n_added"] == 0 and r["harder"] is None
    assert (r["rejudging"], r["rejudging_low"], r["rejudging_high"]) == (0.0, 0.0, 0.0)
    # every difference 0: SD 0, no effect size
    assert pd.isna(r["rejudging_effect_size"])
    assert d.display_table().loc[0, "re-judging effect size"] == "—"
