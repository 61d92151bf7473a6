"""The pooled labelling list, its counts and exports, and the judge-next order."""
import json

import pandas as pd
import pytest

from ragnb.io import read_test_set
from ragnb.io.testset import TestSet, validate_judgments
from ragnb.labelbias import (
    build_pool,
    export_labelling_list,
    judge_next,
    label_bounds,
    labelling_list,
    pool_counts,
)

from ._brute import make_run


@pytest.fixture
def case():
    """q1: judged a(1), n(0); b = [a, u1, n], c = [u2, u1, a]; q2: judged x(1), both [x, v]."""
    j = validate_judgments(pd.DataFrame([("q1", "a", 1), ("q1", "n", 0), ("q2", "x", 1)],
                                        columns=["query_id", "passage_id", "grade"]), "j")
    ts = TestSet(pd.DataFrame({"query_id": ["q1", "q2"], "query": ["first?", "second?"]}), j,
                 source="j")
    runs = [make_run({"q1": ["a", "u1", "n"], "q2": ["x", "v"]}, "b"),
            make_run({"q1": ["u2", "u1", "a"], "q2": ["x", "v"]}, "c")]
    return ts, runs


def test_list_is_union_of_top_k_minus_judged(case):
    ts, runs = case
    t = labelling_list(build_pool(ts, runs, 3), ts)
    assert list(zip(t["query_id"], t["passage_id"])) == [("q1", "u2"), ("q1", "u1"),
                                                         ("q2", "v")]
    u1 = t.iloc[1]
    assert (u1["n_configs"], u1["best_rank"], u1["retrieved_by"]) == (2, 2, "b:2; c:2")
    assert (u1["rank_b"], u1["rank_c"]) == (2, 2)
    assert pd.isna(t.iloc[0]["rank_b"]) and t.iloc[0]["rank_c"] == 1
    assert list(t["query"]) == ["first?", "first?", "second?"]


def test_counts_per_query_and_config(case):
    ts, runs = case
    c = pool_counts(build_pool(ts, runs, 3)).set_index(["query_id", "config"])["unjudged"]
    assert c[("q1", "b")] == 1 and c[("q1", "c")] == 2 and c[("q1", "union")] == 2
    assert c[("q2", "union")] == 1
    # depth 1: only c's u2 is pooled
    c1 = pool_counts(build_pool(ts, runs, 1)).set_index(["query_id", "config"])["unjudged"]
    assert c1[("q1", "union")] == 1 and c1[("q2", "union")] == 0


def test_judge_next_puts_the_passage_that_moves_the_difference_first(case):
    """RR@3, baseline b, challenger c, 2 queries. Labelling u2 (c's rank 1 only) relevant
    moves c's RR on q1 from 1/3 to 1: swing (1 - 1/3) / 2 = 1/3. u1 is rank 2 in both:
    b's RR stays 1 (a at 1), c's goes 1/3 -> 1/2: swing (1/2 - 1/3) / 2 = 1/12.
    v is rank 2 in both on q2, where both already score 1: swing 0."""
    ts, runs = case
    t = judge_next(label_bounds(ts, runs, "rr@3"), "b", test_set=ts)
    assert list(t["passage_id"]) == ["u2", "u1", "v"]
    assert list(t["order"]) == [1, 2, 3]
    assert t["swing"].tolist() == pytest.approx([1 / 3, 1 / 12, 0.0])
    assert list(t["direction"]) == ["+", "+", ""]
    assert t["cumulative_swing"].iloc[-1] == pytest.approx(1 / 3 + 1 / 12)


def test_judge_next_for_success(case):
    """success@2: b's top 2 [a, u1] already succeeds; c's [u2, u1] does not. Labelling u2
    or u1 relevant makes c succeed on q1, b unchanged: swing 1/2 each; v (q2, both
    already succeed): 0."""
    ts, runs = case
    t = judge_next(label_bounds(ts, runs, "success@2"), "b", test_set=ts)
    assert set(t["passage_id"][:2]) == {"u1", "u2"} and t["passage_id"].iloc[2] == "v"
    assert t["swing"].tolist() == pytest.approx([0.5, 0.5, 0.0])


def test_exports_round_trip_into_a_merge(case, tmp_path):
    ts, runs = case
    t = labelling_list(build_pool(ts, runs, 3), ts)
    csv_path, jsonl_path = export_labelling_list(t, tmp_path / "l.csv", tmp_path / "l.jsonl")
    assert pd.read_csv(csv_path)["passage_id"].tolist() == ["u2", "u1", "v"]
    rows = [json.loads(x) for x in jsonl_path.read_text().splitlines()]
    assert rows[1]["retrieved_by"] == [{"config": "b", "rank": 2}, {"config": "c", "rank": 2}]
    assert rows[0]["query"] == "first?" and rows[0]["grade"] is None
    # a labeller fills the grades; the file reads back as judgments
    for r in rows:
        r["grade"] = 1
    (tmp_path / "filled.csv").write_text(
        "query_id,passage_id,grade\n" + "".join(f"{r['query_id']},{r['passage_id']},1\n"
                                                for r in rows))
    back = read_test_set(tmp_path / "filled.csv")
    assert len(back.judgments) == 3


def test_pool_summary_leads_with_the_union_baseline_and_challenger():
    """16 configs, each with one unjudged passage (its own) in its top 2: a body cut at 15
    rows shows the union, the baseline and the challenger; every row is kept."""
    from ragnb.labelbias import build_pool, pool_summary

    from ._brute import make_run, make_test_set

    names = [f"c{i:02d}" for i in range(16)]
    ts = make_test_set({"q": {"a": 1}})
    pool = build_pool(ts, [make_run({"q": ["a", f"u{n}"]}, n) for n in names], 2)
    t = pool_summary(pool, first=["c00", "c15"])
    assert list(t["config"]) == ["union", "c00", "c15", *names[1:15]]
    assert list(t["passages"]) == [16] + [1] * 16
