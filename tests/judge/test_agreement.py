"""The judge against people: every figure equals a hand computation, and the LLMJudge 2024
files give the figures measured independently here (a numpy confusion matrix and κ by loops).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io import as_test_set
from ragnb.judge import agreement, attach_judge, quadratic_kappa


def _people_judge(people_rows, judge_rows):
    people = as_test_set(pd.DataFrame(people_rows, columns=["query_id", "passage_id", "grade"]),
                         name="people")
    return attach_judge(people, pd.DataFrame(judge_rows,
                                             columns=["query_id", "passage_id", "grade"]),
                        name="j")


def _kappa_by_loops(p: list[int], j: list[int], k: int) -> float:
    """Cohen (1968) quadratic-weighted κ written out with Python loops."""
    n = len(p)
    obs = [[0] * k for _ in range(k)]
    for a, b in zip(p, j):
        obs[a][b] += 1
    row = [sum(obs[a]) for a in range(k)]
    col = [sum(obs[a][b] for a in range(k)) for b in range(k)]
    num = sum((a - b) ** 2 * obs[a][b] for a in range(k) for b in range(k))
    den = sum((a - b) ** 2 * row[a] * col[b] / n for a in range(k) for b in range(k))
    return 1 - num / den


def test_a_small_case_by_hand():
    # 6 pairs on 2 queries: people 0,0,1,2,2,1 ; judge 0,1,1,2,1,0
    rows_p = [("q1", "a", 0), ("q1", "b", 0), ("q1", "c", 1), ("q2", "d", 2), ("q2", "e", 2),
              ("q2", "f", 1)]
    rows_j = [("q1", "a", 0), ("q1", "b", 1), ("q1", "c", 1), ("q2", "d", 2), ("q2", "e", 1),
              ("q2", "f", 0), ("q3", "g", 2)]   # q3: a judge-only query
    a = agreement(_people_judge(rows_p, rows_j), level=1, resamples=200)
    assert a.confusion.to_numpy().tolist() == [[1, 1, 0], [1, 1, 0], [0, 1, 1]]
    assert a.exact == pytest.approx(3 / 6)
    # observed disagreement 1+1+1 = 3 (each off by one); expected: rows (2,2,2) x cols (2,3,1)/6
    expected = sum((i - jj) ** 2 * r * c / 6 for i, r in enumerate((2, 2, 2))
                   for jj, c in enumerate((2, 3, 1)))
    assert a.kappa == pytest.approx(1 - 3 / expected)
    # relevant = grade >= 1: people 4 (c, d, e, f), judge 4 (b, c, d, e); both 3 (c, d, e)
    assert (a.precision, a.recall) == (pytest.approx(3 / 4), pytest.approx(3 / 4))
    assert a.counts["judge_only"] == 1 and a.counts["judge_only_queries"] == 1
    g2 = a.by_grade.set_index("people grade").loc[2]
    assert (g2["pairs"], g2["bias"], g2["under"]) == (2, pytest.approx(-0.5), pytest.approx(0.5))
    lo, hi = a.kappa_interval
    assert lo <= hi


def test_llmjudge_2024_agreement_equals_an_independent_computation(real_data):
    root = real_data / "llmjudge-2024"
    qrels = pd.read_csv(root / "qrels-human.txt", sep=" ", header=None,
                        names=["q", "it", "p", "g"])
    people = as_test_set(root / "qrels-human.txt")
    for name in ("willia-umbrela1", "NISTRetrieval-instruct0", "TREMA-nuggets"):
        judged = pd.read_csv(root / "judges" / f"{name}.txt", sep=" ", header=None,
                             names=["q", "it", "p", "g"])
        both = qrels.merge(judged, on=["q", "p"], suffixes=("_p", "_j"))
        a = agreement(attach_judge(people, root / "judges" / f"{name}.txt", name=name),
                      level=2, resamples=100)
        conf = np.zeros((4, 4), dtype=int)
        for x, y in zip(both["g_p"], both["g_j"]):
            conf[x, y] += 1
        assert (a.confusion.to_numpy() == conf).all()
        assert a.counts["both"] == len(both) == 4423
        assert a.exact == pytest.approx(float((both["g_p"] == both["g_j"]).mean()))
        assert a.kappa == pytest.approx(_kappa_by_loops(list(both["g_p"]), list(both["g_j"]),
                                                        4))
        tp = ((both["g_p"] >= 2) & (both["g_j"] >= 2)).sum()
        assert a.precision == pytest.approx(tp / (both["g_j"] >= 2).sum())
        assert a.recall == pytest.approx(tp / (both["g_p"] >= 2).sum())
        if name == "willia-umbrela1":  # PROVENANCE.md's orientation: about half exact
            assert 0.47 <= a.exact <= 0.55 and 0.50 <= a.precision <= 0.64


def test_a_grade_outside_the_people_scale_names_the_judge_file_and_line(real_data, tmp_path):
    root = real_data / "llmjudge-2024"
    people = as_test_set(root / "qrels-human.txt")
    with pytest.raises(InputError, match=r"RMITIR-llama70B.txt:2449: .*grade 5.*0 to 3"):
        attach_judge(people, root / "judges" / "RMITIR-llama70B.txt", name="llama70b")
    bad = tmp_path / "judge.tsv"
    bad.write_text("query_id\tpassage_id\tgrade\nq1\ta\t1\nq1\tb\t-1\n", encoding="utf-8")
    small = as_test_set(pd.DataFrame({"query_id": ["q1"], "passage_id": ["a"], "grade": [1]}))
    with pytest.raises(InputError, match=r"judge.tsv:3: negative grade"):
        attach_judge(small, bad, name="j")


def test_no_overlap_is_an_error_naming_both_counts():
    ts = _people_judge([("q1", "a", 1), ("q1", "b", 0)], [("q2", "c", 1)])
    with pytest.raises(InputError, match=r"share no labelled pair \(2 people's labels, 1 "
                                         r"judge's\)"):
        agreement(ts)


def test_a_judge_identical_to_the_people_is_said():
    rows = [("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 2)]
    a = agreement(_people_judge(rows, rows), resamples=50)
    assert a.kappa == pytest.approx(1.0) and a.identical
    assert quadratic_kappa(np.array([[3, 0], [0, 0]])) != quadratic_kappa(
        np.array([[3, 0], [0, 0]]))  # one grade only: κ undefined (NaN), not 1


def test_people_may_not_name_the_judge():
    one = pd.DataFrame({"query_id": ["q"], "passage_id": ["a"], "grade": [0]})
    with pytest.raises(InputError, match="'people' names the human labels"):
        attach_judge(as_test_set(one), one, name="people")


def test_every_grade_keeps_its_labeller():
    ts = _people_judge([("q1", "a", 1), ("q1", "b", 2)], [("q1", "a", 2), ("q2", "c", 1)])
    long = ts.labelled_by()
    assert sorted(map(tuple, long[["passage_id", "labeller", "grade"]].to_numpy().tolist())) == [
        ("a", "j", 2), ("a", "people", 1), ("b", "people", 2), ("c", "j", 1)]


def test_agreement_per_stratum_and_on_each_configs_own_passages():
    rows = [("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 2), ("q2", "d", 0)]
    judged = [("q1", "a", 1), ("q1", "b", 1), ("q2", "c", 0), ("q2", "d", 0)]
    ts = _people_judge(rows, judged)
    strata = pd.DataFrame({"query_id": ["q1", "q2"], "kind": ["x", "y"]})
    tops = {"base": pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["a", "c"]}),
            "new": pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["b", "c"]})}
    a = agreement(ts, strata=strata, by="kind", topk=tops, configs=["base", "new"],
                  resamples=50)
    per = a.by_stratum.set_index("kind")
    assert per.loc["x", "exact"] == pytest.approx(0.5) and per.loc["x", "bias"] == 0.5
    assert per.loc["y", "exact"] == pytest.approx(0.5) and per.loc["y", "bias"] == -1.0
    own = a.by_config.set_index("passages")
    # only base: (q1, a) agree; only new: (q1, b) judge higher; both: (q2, c) judge lower by 2
    assert own.loc["only base", "exact"] == 1 and own.loc["only new", "over"] == 1
    assert own.loc["both", "bias"] == -2 and own.loc["both", "pairs"] == 1
