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


def _three_way(rows, kind="joint", n=40):
    """A ThreeWay from (challenger, verdict, {test: (delta, low, high)}) rows."""
    from ragnb.labelbias.verdict import TEST_COLUMNS, VERDICT_COLUMNS, ThreeWay

    tests, verdicts = [], []
    for chal, verdict, cis in rows:
        for test, (d, lo, hi) in cis.items():
            tests.append(dict.fromkeys(TEST_COLUMNS) | {
                "baseline": "base", "challenger": chal, "test": test, "delta": d,
                "ci_low": lo, "ci_high": hi, "n": n, "se": (hi - lo) / (2 * 1.959964),
                "bounds": "policy" if test == "current" else kind})
        verdicts.append(dict.fromkeys(VERDICT_COLUMNS) | {
            "baseline": "base", "challenger": chal, "verdict": verdict})
    return ThreeWay(pd.DataFrame(tests), pd.DataFrame(verdicts), "ndcg@10", "method")


def test_a_reject_with_an_optimistic_mean_above_zero_is_worded_as_not_shown():
    """Issue 23 #9: 'cannot win even if every unjudged passage goes their way' was false for
    a run whose optimistic mean was 4.55 points above the baseline; the sentence now says what
    the rule established (the optimistic interval includes zero: inconclusive at this n), names
    the run and the queries that would resolve its optimistic gain."""
    from scipy.stats import norm

    cis = {"current": (0.01, -0.03, 0.05), "conservative": (-0.02, -0.06, 0.02),
           "optimistic": (0.0455, -0.0102, 0.1010)}
    f = finding(_three_way([("r", "reject", cis)]), chart=False)
    answer = f.headline.answer
    head = ("Against base on ndcg@10 (40 queries, joint bounds of the difference, points), of 1 "
            "challenger: 1 is not shown to win even if every unjudged passage goes its way, "
            "inconclusive at 40 queries: r (optimistic +4.55 [-1.02, +10.10], about ")
    assert answer.startswith(head) and answer.endswith(
        " queries to resolve it) (optimistic interval includes zero).")
    # the normal formula ((z.975 + z.8) SD / mean)^2 with SD = SE sqrt(40); t quantiles add a few
    sd = (0.1010 + 0.0102) / (2 * 1.959964) * 40 ** 0.5
    normal = ((norm.ppf(0.975) + norm.ppf(0.8)) * sd / 0.0455) ** 2
    got = int(answer[len(head):].split(" ")[0].replace(",", ""))
    assert normal <= got <= normal + 5, (normal, got)
    assert "cannot win" not in answer
    assert list(f.display_table["verdict"]) == ["reject: not shown to win"]
    assert f.headline.next_step == ("No verdict depends on the missing labels; r needs more "
                                    "queries to show a win or rule one out.")


def test_many_runs_of_one_verdict_are_all_named_and_separate_bounds_said():
    cis = {"current": (-0.1, -0.2, -0.05), "conservative": (-0.1, -0.2, -0.05),
           "optimistic": (-0.1, -0.2, -0.05)}
    runs = [(f"r{i}", "reject", cis) for i in range(5)]
    up = {"current": (0.0, -0.1, 0.1), "conservative": (-0.1, -0.2, 0.0),
          "optimistic": (0.2, 0.1, 0.3)}
    f = finding(_three_way([*runs, ("u", "labelling decides", up)], kind="separate"),
                chart=False)
    assert f.headline.answer == (
        "Against base on ndcg@10 (40 queries, separate bounds of the difference, points), of 6 "
        "challengers: 1 depends on the missing labels: u (optimistic +20.00 [+10.00, +30.00]) "
        "(optimistic interval above zero, conservative not); 5 cannot win even if every "
        "unjudged passage goes their way: r0, r1, r2, r3, r4 (optimistic interval below zero; "
        "each run's intervals in the table).")
    assert f.headline.next_step == ("Judge the pooled unjudged passages, in the judge-next "
                                    "order below, before deciding on u.")
    assert list(f.display_table["verdict"]) == ["reject: cannot win"] * 5 + [
        "labelling decides"]


def test_the_bounds_table_leads_with_the_baseline_and_the_challenger():
    """16 configs: a body cut at 15 rows used to drop the last one, the configured
    challenger; ``first`` puts baseline and challenger at the top, the rest in order."""
    from ragnb.labelbias import bounds_table

    ts = make_test_set({"q": {"a": 1}})
    names = [f"c{i:02d}" for i in range(16)]
    b = label_bounds(ts, [make_run({"q": ["a", "u"]}, n) for n in names], "rr@2")
    t = bounds_table(b, first=["c03", "c15"])
    assert list(t["config"]) == ["c03", "c15", *(n for n in names if n not in ("c03", "c15"))]
    assert list(bounds_table(b)["config"]) == names
