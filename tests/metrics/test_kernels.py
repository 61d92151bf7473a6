"""Every metric and policy on a hand-worked example.

Judgments: q1: a=2, b=1, c=0, d=1 (three relevant); q2: x=0 (nothing relevant);
q3: e=2. Run (rank order): q1 = [c, u1, a, b] (u1 unjudged), q2 = [x, u2],
q3 has no ranking (scored as an empty ranking). Every expected value below is
worked by hand in the comment beside it.
"""
import math

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io.run import validate_run
from ragnb.io.testset import TestSet, validate_judgments
from ragnb.metrics import parse_metric
from ragnb.metrics.score import score

L3 = math.log2(3)


def make_test_set(rows, queries=None):
    j = validate_judgments(pd.DataFrame(rows, columns=["query_id", "passage_id", "grade"]), "j")
    qids = queries or list(dict.fromkeys(r[0] for r in rows))
    return TestSet(pd.DataFrame({"query_id": qids}), j, name="t", source="j")


def make_run(rankings, name="run"):
    rows = [(q, p, r) for q, ps in rankings.items() for r, p in enumerate(ps, start=1)]
    return validate_run(pd.DataFrame(rows, columns=["query_id", "passage_id", "rank"]), "r",
                        name=name)


@pytest.fixture
def example():
    ts = make_test_set([("q1", "a", 2), ("q1", "b", 1), ("q1", "c", 0), ("q1", "d", 1),
                        ("q2", "x", 0), ("q3", "e", 2)])
    run = make_run({"q1": ["c", "u1", "a", "b"], "q2": ["x", "u2"]})
    return ts, run


def values(ts, run, metric, policy="lower", **kw):
    s = score(ts, run, metric, policy=policy, missing="empty", **kw)
    return s.values("run", metric).round(12).to_dict()


IDEAL_EXP_3 = 3 + 1 / L3 + 1 / 2          # grades [2, 1, 1, 0] -> gains 3, 1, 1
IDEAL_LIN_3 = 2 + 1 / L3 + 1 / 2


@pytest.mark.parametrize("metric, expected", [
    # q1 top 3 = c(0), u1(0), a(2): DCG = 3/log2(4) = 1.5
    ("ndcg@3", {"q1": 1.5 / IDEAL_EXP_3, "q2": 0.0, "q3": 0.0}),
    ("ndcg_linear@3", {"q1": 1.0 / IDEAL_LIN_3, "q2": 0.0, "q3": 0.0}),
    ("rr@3", {"q1": 1 / 3, "q2": 0.0, "q3": 0.0}),
    ("recall@3", {"q1": 1 / 3, "q2": 0.0, "q3": 0.0}),       # a of {a, b, d}
    ("p@3", {"q1": 1 / 3, "q2": 0.0, "q3": 0.0}),
    ("answer_recall@3", {"q1": 1.0, "q2": 0.0, "q3": 0.0}),  # a has the top grade 2
    ("judged@3", {"q1": 2 / 3, "q2": 1 / 3, "q3": 0.0}),     # c, a judged; x judged
    # relevance [0, 0, 1, 1]: 0.5 * (0.5^2 + 0.5^3)
    ("rbp(p=0.5)", {"q1": 0.1875, "q2": 0.0, "q3": 0.0}),
    # p^d + (1-p) * p^(i-1) over unjudged: q1 d=4, u1 at i=2; q2 d=2, u2 at i=2; q3 d=0
    ("rbp_residual(p=0.5)", {"q1": 0.0625 + 0.25, "q2": 0.25 + 0.25, "q3": 1.0}),
    ("rr", {"q1": 1 / 3, "q2": 0.0, "q3": 0.0}),
    ("recall@1", {"q1": 0.0, "q2": 0.0, "q3": 0.0}),
])
def test_lower_policy(example, metric, expected):
    got = values(*example, metric)
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("metric, expected", [
    # u1 removed: top 3 = c(0), a(2), b(1): DCG = 3/log2 3 + 1/2
    ("ndcg@3", {"q1": (3 / L3 + 0.5) / IDEAL_EXP_3, "q2": 0.0, "q3": 0.0}),
    ("rr@3", {"q1": 0.5, "q2": 0.0, "q3": 0.0}),
    ("recall@3", {"q1": 2 / 3, "q2": 0.0, "q3": 0.0}),
    ("p@3", {"q1": 2 / 3, "q2": 0.0, "q3": 0.0}),
    # judged@k describes the labels, whatever the policy
    ("judged@3", {"q1": 2 / 3, "q2": 1 / 3, "q3": 0.0}),
])
def test_condensed_policy(example, metric, expected):
    assert values(*example, metric, "condensed") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("metric, expected", [
    # u1 -> grade 2: top 3 = 0, 2, 2: DCG = 3/log2 3 + 3/2; ideal [2, 2, 1, 1, 0]
    ("ndcg@3", {"q1": (3 / L3 + 1.5) / (3 + 3 / L3 + 0.5),
                # q2: [x=0, u2=2]: DCG = 3/log2 3, ideal [2, 0] = 3
                "q2": (3 / L3) / 3, "q3": 0.0}),
    ("recall@3", {"q1": 2 / 4, "q2": 1.0, "q3": 0.0}),     # u1 joins both counts
    ("rr@3", {"q1": 0.5, "q2": 0.5, "q3": 0.0}),
    ("p@3", {"q1": 2 / 3, "q2": 1 / 3, "q3": 0.0}),
])
def test_upper_policy(example, metric, expected):
    assert values(*example, metric, "upper") == pytest.approx(expected, abs=1e-12)


def test_upper_policy_at_an_interior_grade(example):
    # u1 -> grade 1: top 3 = 0, 1, 2: DCG = 1/log2 3 + 3/2; ideal [2, 1, 1, 1, 0] top 3
    got = values(*example, "ndcg@3", "upper", upper_grade=1)
    assert got["q1"] == pytest.approx((1 / L3 + 1.5) / (3 + 1 / L3 + 0.5), abs=1e-12)
    # answer_recall: an unjudged passage at grade 1 does not answer the query
    assert values(*example, "answer_recall@2", "upper", upper_grade=1)["q1"] == 0.0
    assert values(*example, "answer_recall@2", "upper")["q1"] == 1.0


def test_upper_is_not_an_upper_bound_for_ndcg():
    # STATS-REFERENCES: the only relevant passage at rank 1, an unjudged one at rank 10
    ts = make_test_set([("q", "rel", 1)] + [("q", f"n{i}", 0) for i in range(8)])
    run = make_run({"q": ["rel"] + [f"n{i}" for i in range(8)] + ["u"]})
    assert values(ts, run, "ndcg_linear@10")["q"] == pytest.approx(1.0)
    expected = (1 + 1 / math.log2(11)) / (1 + 1 / math.log2(3))
    assert values(ts, run, "ndcg_linear@10", "upper")["q"] == pytest.approx(expected)
    assert expected == pytest.approx(0.79, abs=0.005)


def test_p_at_k_divides_by_k_when_fewer_are_retrieved(example):
    assert values(*example, "p@10")["q1"] == pytest.approx(2 / 10)


def test_graded_rel_threshold(example):
    assert values(*example, "p@4(rel=2)")["q1"] == pytest.approx(1 / 4)
    assert values(*example, "recall@4(rel=2)")["q1"] == pytest.approx(1.0)


def test_ideal_uses_judgments_not_retrieved(example):
    # d (grade 1) is never retrieved but is in the ideal ranking
    got = values(*example, "ndcg_linear@4")["q1"]
    dcg = 2 / 2 + 1 / math.log2(5)              # a at 3, b at 4
    ideal = 2 + 1 / L3 + 1 / 2                  # 2, 1, 1, 0
    assert got == pytest.approx(dcg / ideal)


def test_no_relevant_queries_are_counted_and_can_be_dropped(example):
    ts, run = example
    kept = score(ts, run, "ndcg@3", missing="empty")
    assert list(kept.no_relevant) == ["q2"]
    note = [n for n in kept.notes if n.kind == "no_relevant"][0]
    assert note.count == 1 and "kept" in note.detail
    dropped = score(ts, run, "ndcg@3", missing="empty", no_relevant="drop")
    assert sorted(dropped.table["query_id"]) == ["q1", "q3"]
    assert [n.count for n in dropped.notes if n.kind == "no_relevant"] == [1]


def test_missing_and_extra_queries(example):
    ts, run = example
    with pytest.raises(InputError, match="1 test-set query has no ranking"):
        score(ts, run, "ndcg@3")
    dropped = score(ts, run, "ndcg@3", missing="drop")
    assert sorted(dropped.table["query_id"]) == ["q1", "q2"]
    extra = make_run({"q1": ["a"], "q2": ["x"], "q3": ["e"], "q9": ["z"]})
    with pytest.raises(InputError, match="not in the test set"):
        score(ts, extra, "ndcg@3")
    s = score(ts, extra, "ndcg@3", extra="drop")
    assert [n.count for n in s.notes if n.kind == "dropped_run_queries"] == [1]
    assert sorted(s.table["query_id"]) == ["q1", "q2", "q3"]


def test_tidy_table_shape(example):
    ts, run = example
    s = score(ts, [run, make_run({"q1": ["a"], "q2": ["x"], "q3": ["e"]}, "b")],
              ["ndcg@3", "mrr@3"], missing="empty")
    assert list(s.table.columns) == ["config", "query_id", "metric", "value"]
    assert len(s.table) == 2 * 2 * 3
    assert set(s.table["metric"]) == {"ndcg@3", "rr@3"}        # the alias is canonicalised
    means = s.means().set_index(["config", "metric"])["mean"]
    assert means[("b", "rr@3")] == pytest.approx(2 / 3)       # q1: 1, q2: 0, q3: 1


@pytest.mark.parametrize("text, message", [
    ("ndcg@0", "at least 1"), ("ndcg@x", "not an integer"), ("foo@10", "unknown metric"),
    ("rbp(p=2)", "must lie in"), ("rbp(q=1)", "no parameter 'q'"), ("p@10(rel=x)", "must be int"),
])
def test_metric_parse_errors(text, message):
    with pytest.raises(InputError, match=message):
        parse_metric(text)


def test_metric_names_are_canonical():
    assert str(parse_metric("NDCG@10")) == "ndcg@10"
    assert str(parse_metric("mrr@10")) == "rr@10"
    assert str(parse_metric("ndcg_cut@5")) == "ndcg_linear@5"
    assert str(parse_metric("rbp(p=0.8)")) == "rbp"
    assert str(parse_metric("rbp(p=0.95)")) == "rbp(p=0.95)"
