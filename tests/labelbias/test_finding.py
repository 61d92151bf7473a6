"""The bounds' finding: a headline that leads with how far the missing labels could move a score."""
import pandas as pd

from ragnb.labelbias import label_bounds
from ragnb.result import Analysis, finding

from ._brute import make_run, make_test_set


def test_bounds_headline_leads_with_the_widest_move():
    """Ranking [n(0), u1, a(2), u2], k=4: rr@4 is 1/3 (a at 3) with both unjudged passages
    not relevant and at most 1/2 (u1 relevant at 2): bounds [33.33, 50.00] points, width
    16.67; 2 of the 4 passages in the top 4 are unjudged (50.0%)."""
    ts = make_test_set({"q": {"n": 0, "a": 2, "b": 1}})
    b = label_bounds(ts, [make_run({"q": ["n", "u1", "a", "u2"]}, "s")], "rr@4")
    assert isinstance(b, Analysis)
    f = b.finding(display_names={"s": "system"})
    assert f.headline.answer == (
        "The missing labels could move rr@4 by up to 16.67 points, for system (s) (50.0% of "
        "its top k unjudged); exact bounds in points: system (s) [33.33, 50.00] (now 33.33).")
    assert f.headline.verdict == "up to 16.67 points"
    row = f.display_table.iloc[0]
    assert (row["lower"], row["exact bounds"], row["unjudged share"]) == (
        "33.33", "[33.33, 50.00]", "50.0%")
    assert f.checks["holds"].all() and len(f.checks) == 1
    assert "rr@4 on 1 queries for 1 configs" in f.description
    assert "Pooling assumption" in f.description


def test_bounds_headline_when_every_label_is_known():
    ts = make_test_set({"q": {"a": 1}})
    b = label_bounds(ts, [make_run({"q": ["a"]}, "s")], "rr@1")
    f = finding(b, chart=False)
    assert f.headline.verdict == "exact"
    assert f.headline.answer.startswith("The missing labels cannot move rr@1")
    assert "s [100.00, 100.00] (now 100.00)" in f.headline.answer


def test_a_policy_outside_the_bounds_fails_the_check():
    ts = make_test_set({"q": {"n": 0, "a": 2, "b": 1}})
    b = label_bounds(ts, [make_run({"q": ["n", "u1", "a", "u2"]}, "s")], "rr@4")
    broken = type(b)(b.per_query.assign(upper=0.9), b.metric, b.pool, b.notes)
    f = finding(broken, chart=False)
    assert list(f.checks["holds"]) == [False]
    assert f.checks["detail"].iloc[0] == "1 queries outside"
    assert isinstance(f.display_table, pd.DataFrame)
