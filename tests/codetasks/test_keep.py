"""The keep condition: parsing (errors name the key) and the three-way reading."""
import numpy as np
import pandas as pd
import pytest

from ragnb.codetasks.keep import SEED_002_KEEP, evaluate_keep, parse_keep
from ragnb.errors import InputError


def test_parse_seed_002_condition():
    clauses = parse_keep(SEED_002_KEEP)
    assert [(c.metric, c.op, c.threshold) for c in clauses] == [("all_files", ">=", 0.8),
                                                                ("caller", ">=", 0.9)]
    assert parse_keep("all_files ≥ 0.80, caller ≥ 0.90") == clauses
    assert parse_keep("per_file<0.5")[0].op == "<"


@pytest.mark.parametrize("text, match", [
    ("", r"^keep: the keep condition is empty"),
    ("files>=0.8", (r"^keep \[files\]: unknown metric 'files'; choose one of per_file, "
                    r"all_files, read_set, caller$")),
    ("all_files=0.8", r"^keep \[all_files\]: the clause 'all_files=0.8' needs one of"),
    ("all_files 0.8", r"^keep \[all_files\]: the clause"),
    ("caller>=high", r"^keep \[caller\]: threshold 'high' is not a number$"),
    ("caller>=90", r"^keep \[caller\]: threshold 90 is not a recall in \[0, 1\]$"),
    ("caller>=0.9,caller>=0.8", r"^keep \[caller\]: the metric is given twice$"),
    ("all_files>=0.8,", r"^keep \[\(empty\)\]: cannot read the clause ''"),
    ("0.8<=all_files", r"^keep \[0.8<=all_files\]: cannot read the clause"),
])
def test_parse_errors_name_the_key(text, match):
    with pytest.raises(InputError, match=match):
        parse_keep(text)


def summary(rows):
    return pd.DataFrame(rows, columns=["metric", "mean", "ci_low", "ci_high", "n"])


@pytest.mark.parametrize("all_files, caller, verdict, statuses", [
    # both intervals wholly above the thresholds
    ((0.90, 0.85, 0.95), (0.95, 0.92, 0.98), "keep", ["met", "met"]),
    # seed 002's outcome: caller recall 0.44, interval below 0.90
    ((0.51, 0.40, 0.62), (0.44, 0.33, 0.56), "fix", ["failed", "failed"]),
    # one failed decides, whatever the other
    ((0.82, 0.75, 0.89), (0.60, 0.50, 0.70), "fix", ["inconclusive", "failed"]),
    # straddling: more tasks would settle it
    ((0.82, 0.75, 0.89), (0.95, 0.91, 0.99), "inconclusive", ["inconclusive", "met"]),
    # a threshold equal to the interval's end counts as inside for >=
    ((0.85, 0.80, 0.90), (0.95, 0.90, 0.99), "keep", ["met", "met"]),
    # no interval (one task): inconclusive
    ((0.85, 0.81, 0.90), (1.0, np.nan, np.nan), "inconclusive", ["met", "inconclusive"]),
])
def test_three_way_reading(all_files, caller, verdict, statuses):
    s = summary([("all_files", *all_files, 60), ("caller", *caller, 20)])
    v = evaluate_keep(s, SEED_002_KEEP)
    assert v.verdict == verdict
    assert v.clauses["status"].tolist() == statuses
    assert v.clauses["mean"].tolist() == [all_files[0], caller[0]]


def test_upper_bound_clause():
    s = summary([("per_file", 0.3, 0.2, 0.4, 10)])
    assert evaluate_keep(s, "per_file<0.5").verdict == "keep"
    assert evaluate_keep(s, "per_file<=0.2").verdict == "inconclusive"
    assert evaluate_keep(s, "per_file<0.2").verdict == "fix"


def test_a_clause_on_too_few_tasks_is_inconclusive():
    # issue 28 item 10: caller recall on 2 tasks, both missed: the bootstrap interval is
    # [0, 0] (zero width) and used to "fail" the clause; 2 < MIN_TASKS (10) decides nothing
    s = summary([("all_files", 0.9, 0.85, 0.95, 60), ("caller", 0.0, 0.0, 0.0, 2)])
    v = evaluate_keep(s, SEED_002_KEEP)
    assert v.clauses["status"].tolist() == ["met", "inconclusive"]
    assert v.verdict == "inconclusive"
    assert "defined on 2 task(s), fewer than 10" in v.clauses["reason"].iloc[1]
    # nine tasks: still too few; ten: decided
    assert evaluate_keep(summary([("caller", 0.0, 0.0, 0.0, 9)]), "caller>=0.9").verdict == (
        "inconclusive")
    assert evaluate_keep(summary([("caller", 0.0, 0.0, 0.0, 10)]), "caller>=0.9").verdict == "fix"


def test_a_clause_no_ranking_can_meet_at_k_is_out_of_reach():
    """Issue 37 item 5. Twelve tasks changing a signature: nine with 3 callers, three with
    25. A ranking of every caller first is perfect for caller recall, yet at k=10 the three
    large tasks find 10 of 25: (9 x 1 + 3 x 0.4) / 12 = 85.0 points, the ceiling
    min(1, k/n) averaged by hand. "caller >= 0.90" cannot hold at k=10: out of reach, not
    a retriever to fix; at k=25 it is decided again."""
    from ragnb.codetasks.recall import ceiling, task_recall
    from ragnb.result import finding

    sig = [{"path": "m.py", "name": "f", "qualname": "f", "before": "x", "after": "x, y"}]
    rows, run = [], {}
    for i in range(12):
        callers = [f"t{i}/c{j}.py" for j in range(25 if i < 3 else 3)]
        rows.append({"task_id": f"t{i}", "edit_set": ["m.py"], "read_set": [],
                     "callers": callers, "signature_changes": sig})
        run[f"t{i}"] = [*callers, "m.py"]
    tasks = pd.DataFrame(rows)
    assert ceiling("caller", [3, 25], 10).tolist() == [1.0, 0.4]

    at10 = task_recall(tasks, run, k=10)
    s = at10.summary(resamples=1000, seed=3).set_index("metric")
    assert s.loc["caller", "mean"] == pytest.approx(0.85)
    assert s.loc["caller", "ceiling"] == pytest.approx(0.85)
    assert s.loc["caller", "over_k"] == 3
    # a ranking holding m.py first keeps 9 slots: (9 x 1 + 3 x 9/25) / 12 = 0.84
    assert s.loc["caller", "edit_first"] == pytest.approx(0.84)
    assert s.loc["caller", "crowded"] == 3
    # all-files: the edit file sits at rank 26 in the large tasks, but one file fits in k
    assert s.loc["all_files", "ceiling"] == 1.0 and s.loc["all_files", "over_k"] == 0
    v = evaluate_keep(at10.summary(resamples=1000, seed=3), "caller>=0.90")
    assert v.clauses["status"].tolist() == ["out of reach"]
    assert v.verdict == "inconclusive"
    assert v.clauses["reason"].iloc[0] == (
        "3 of 12 tasks have more than 10 files, so a perfect ranking scores at most 85.0 "
        "points at k=10: caller >= 90.0 cannot hold at this k")
    assert v.reason == "caller >= 90.0 (points) cannot hold at k=10: raise k or restate it"
    f = finding(v, chart=False)
    assert f.headline.answer == (
        "Out of reach at k=10: 3 of 12 tasks have more than 10 files, so even a perfect "
        "ranking scores at most 85.0 points of caller recall against caller >= 90.0.")
    assert list(f.display_table["perfect ranking at k=10 (points)"]) == ["85.0"]
    # a clause the retriever can meet but whose interval misses it still decides: fix
    s2 = at10.summary(resamples=1000, seed=3)
    s2.loc[s2["metric"] == "per_file", ["mean", "ci_low", "ci_high"]] = [0.5, 0.4, 0.6]
    assert evaluate_keep(s2, "caller>=0.90,per_file>=0.80").verdict == "fix"
    # "<=" clauses are never out of reach (a retriever can always score lower)
    assert evaluate_keep(at10.summary(resamples=1000, seed=3), "caller<=0.95").clauses[
        "status"].iloc[0] != "out of reach"
    # at k=25 every caller fits: the clause is read against the interval again (12 tasks
    # all at 1.0 give the betting interval [67.6, 100.0], which straddles 90)
    at25 = task_recall(tasks, run, k=25).summary(resamples=1000, seed=3)
    assert at25.set_index("metric").loc["caller", "ceiling"] == 1.0
    v25 = evaluate_keep(at25, "caller>=0.90").clauses
    assert v25["status"].iloc[0] == "inconclusive" and "straddles 90.0" in v25["reason"].iloc[0]


def test_a_clause_only_a_ranking_of_callers_first_can_meet_says_so():
    """Issue 37 item 5, as on pallets/flask: a retriever perfect on the edit set scores
    caller recall 82.1 at k=10 because callers and edited files together overflow k in
    10 of 25 tasks. Here: nine tasks with 1 edited file and 3 callers, three with 8 edited
    files and 4 other callers. Ranking the edit set first leaves 2 slots in the three
    crowded tasks: caller recall (9 x 1 + 3 x 2/4) / 12 = 87.5 points, below 90, though a
    ranking of the callers first reaches 100. Not out of reach, but the page says what caps
    it, and that a larger k is the next step."""
    from ragnb.codetasks.recall import task_recall
    from ragnb.result import finding

    sig = [{"path": "m.py", "name": "f", "qualname": "f", "before": "x", "after": "x, y"}]
    rows, run = [], {}
    for i in range(12):
        crowded = i < 3
        edit = ["m.py", *(f"t{i}/e{j}.py" for j in range(7 if crowded else 0))]
        callers = [f"t{i}/c{j}.py" for j in range(4 if crowded else 3)]
        rows.append({"task_id": f"t{i}", "edit_set": edit, "read_set": [], "callers": callers,
                     "signature_changes": sig})
        run[f"t{i}"] = [*edit, *callers]
    s = task_recall(pd.DataFrame(rows), run, k=10).summary(resamples=1000, seed=3)
    by = s.set_index("metric")
    assert by.loc["caller", "mean"] == pytest.approx(0.875)
    assert (by.loc["caller", "ceiling"], by.loc["caller", "over_k"]) == (1.0, 0)
    assert by.loc["caller", "edit_first"] == pytest.approx(0.875)
    assert by.loc["caller", "crowded"] == 3
    v = evaluate_keep(s, "caller>=0.90")
    assert v.clauses["status"].iloc[0] == "inconclusive"
    assert v.clauses["reason"].iloc[0].endswith(
        "; a ranking that holds every edited file first reaches at most 87.5 points at k=10 "
        "(3 of 12 tasks have more edited and caller files than k)")
    h = finding(v, chart=False).headline
    assert h.why[0] == (
        "At k=10, a ranking that holds every edited file first reaches at most 87.5 points of "
        "caller recall (3 of 12 tasks have more edited and caller files than k): caller >= "
        "90.0 needs caller files ranked above edited ones, or a larger k.")
    assert h.next_step.startswith("Score at a larger k")
    # at k=12 every task's files fit: no cap, no such line
    s12 = task_recall(pd.DataFrame(rows), run, k=12).summary(resamples=1000, seed=3)
    assert not finding(evaluate_keep(s12, "caller>=0.90"), chart=False).headline.why[0].startswith(
        "At k=")
