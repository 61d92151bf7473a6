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
