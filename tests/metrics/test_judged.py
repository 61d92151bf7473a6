"""judge_run: grades attached to the right rows, queries in test-set order.

Expected arrays are written out by hand from the tiny example in each test.
"""
import numpy as np
import pandas as pd
import pytest

from ragnb.io.run import validate_run
from ragnb.io.testset import TestSet, validate_judgments
from ragnb.metrics import JudgmentIndex, judge_run


def make_test_set(rows, queries):
    j = validate_judgments(pd.DataFrame(rows, columns=["query_id", "passage_id", "grade"]), "j")
    return TestSet(pd.DataFrame({"query_id": queries}), j, name="t", source="j")


def run_of(rankings):
    rows = [(q, p, r) for q, ps in rankings for r, p in enumerate(ps, start=1)]
    return validate_run(pd.DataFrame(rows, columns=["query_id", "passage_id", "rank"]), "r")


def test_rows_follow_test_set_query_order_and_keep_ranking_order():
    ts = make_test_set([("q1", "a", 2), ("q1", "b", 0), ("q3", "a", 1), ("q3", "z", 3)],
                  ["q1", "q2", "q3"])
    # the run lists q3 before q1; "a" is judged for both queries with different grades
    run = run_of([("q3", ["u", "a", "z"]), ("q1", ["b", "a", "u"])])
    judged = judge_run(run, JudgmentIndex.from_test_set(ts), missing="empty")
    assert judged.q.tolist() == [0, 0, 0, 2, 2, 2]          # q1 rows, then q3 rows
    assert judged.pos.tolist() == [0, 1, 2, 0, 1, 2]
    assert np.array_equal(judged.grade, [0, 2, np.nan, np.nan, 1, 3], equal_nan=True)
    assert [n.kind for n in judged.notes] == ["empty_rankings"]  # q2


def test_extra_queries_are_dropped_and_counted():
    ts = make_test_set([("q1", "a", 1)], ["q1"])
    run = run_of([("x9", ["a"]), ("q1", ["c", "a"]), ("x8", ["a", "b"])])
    judged = judge_run(run, JudgmentIndex.from_test_set(ts), extra="drop")
    assert judged.q.tolist() == [0, 0]
    assert np.array_equal(judged.grade, [np.nan, 1], equal_nan=True)
    note = judged.notes[0]
    assert note.kind == "dropped_run_queries" and note.count == 2


def test_missing_query_is_an_error_by_default():
    from ragnb.errors import InputError

    ts = make_test_set([("q1", "a", 1), ("q2", "b", 1)], ["q1", "q2"])
    with pytest.raises(InputError, match="no ranking"):
        judge_run(run_of([("q1", ["a"])]), JudgmentIndex.from_test_set(ts))


def test_per_query_sums_booleans_and_floats_by_query():
    ts = make_test_set([("q1", "a", 2), ("q2", "b", 1), ("q3", "c", 1)], ["q1", "q2", "q3"])
    run = run_of([("q1", ["a", "x", "y"]), ("q3", ["c", "a"])])  # q2: no ranking
    view = judge_run(run, JudgmentIndex.from_test_set(ts), missing="empty").view("lower")
    assert view.per_query(view.grade >= 1).tolist() == [1.0, 0.0, 1.0]
    assert view.per_query(view.grade).tolist() == [2.0, 0.0, 1.0]
    assert view.per_query(np.ones(2, dtype=bool), rows=np.array([0, 3])).tolist() == [1, 0, 1]
    assert view.depth().tolist() == [3.0, 0.0, 2.0]


def test_grades_match_a_pandas_merge_on_shuffled_runs_with_extra_queries():
    """Random runs whose query blocks are out of test-set order (and include queries the
    test set lacks): the grades written straight to their reordered rows equal a left
    merge of the run, kept rows stably sorted by test-set query, with the judgments."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        qids = [f"q{i}" for i in range(int(rng.integers(1, 30)))]
        rows = [(q, f"d{p}", int(rng.integers(0, 4))) for q in qids
                for p in rng.choice(50, size=rng.integers(1, 20), replace=False)]
        ts = make_test_set(rows, qids)
        order = list(rng.permutation([*qids, "x1", "x2"]))
        run = run_of([(q, [f"d{p}" for p in rng.choice(60, size=rng.integers(1, 25),
                                                        replace=False)]) for q in order])
        judged = judge_run(run, JudgmentIndex.from_test_set(ts), extra="drop")
        t = run.table[run.table["query_id"].isin(qids)].astype({"query_id": str})
        t = t.assign(qi=t["query_id"].map({q: i for i, q in enumerate(qids)}))
        merged = t.sort_values("qi", kind="stable").merge(
            pd.DataFrame(rows, columns=["query_id", "passage_id", "grade"]),
            on=["query_id", "passage_id"], how="left")
        assert judged.q.tolist() == merged["qi"].tolist()
        assert np.array_equal(judged.grade, merged["grade"].to_numpy(float), equal_nan=True)


def test_grades_scattered_in_blocks_on_the_pool_equal_a_plain_assignment():
    # 2.5M joined pairs: three blocks of 2**20 written by the thread pool, against numpy's
    # one-shot fancy assignment (the rows are distinct, so the order of writes is moot)
    from ragnb.metrics.judged import _scatter_grades

    rng = np.random.default_rng(7)
    n, m = 4_000_000, 2_500_000
    rows = np.sort(rng.choice(n, m, replace=False)).astype(np.int32)
    judgments = rng.permutation(m).astype(np.int32)
    jgrade = rng.integers(0, 4, m).astype(np.float64)
    graded, unjudged = _scatter_grades(n, rows, judgments, jgrade)
    want_graded, want_unjudged = np.zeros(n), np.ones(n, dtype=bool)
    want_graded[rows], want_unjudged[rows] = jgrade[judgments], False
    np.testing.assert_array_equal(graded, want_graded)
    np.testing.assert_array_equal(unjudged, want_unjudged)
    assert unjudged.sum() == n - m


@pytest.mark.parametrize(("ranked", "refused"), [(["q1", "q2"], False), (["q1"], True),
                                                 ([], True)])
def test_a_run_sharing_under_half_of_the_test_set_is_refused_whatever_the_flags(ranked,
                                                                                refused):
    from ragnb.errors import InputError

    ts = make_test_set([(q, "a", 1) for q in ("q1", "q2", "q3", "q4")],
                       ["q1", "q2", "q3", "q4"])
    run = run_of([(q, ["a"]) for q in ranked] + [("x1", ["a"])])
    index = JudgmentIndex.from_test_set(ts)
    if not refused:   # 2 of 4 is half: scored, the rest counted
        judged = judge_run(run, index, extra="drop", missing="empty")
        assert [n.count for n in judged.notes] == [1, 2]
        return
    with pytest.raises(InputError, match=rf"belongs to another test set: it shares "
                                         rf"{len(ranked)} of the test set's 4 queries"):
        judge_run(run, index, extra="drop", missing="empty")


def test_the_api_refuses_a_run_of_another_split_on_every_path():
    """The demo's golden round-40 run shares none of production's 200 queries: ``score``
    (any flags) and the label bounds (``missing="drop"`` restricts before judging) refuse it."""
    import ragnb
    from ragnb.errors import InputError
    from ragnb.io import read_run, read_test_set
    from ragnb.labelbias import label_bounds
    from ragnb.paths import DEMO_DIR

    production = read_test_set(DEMO_DIR / "production.jsonl")
    golden_run = read_run(DEMO_DIR / "runs" / "golden" / "round-40.jsonl")
    own_run = read_run(DEMO_DIR / "runs" / "production" / "round-40.jsonl", name="own")
    for missing in ("error", "empty", "drop"):
        with pytest.raises(InputError, match="shares 0 of the test set's 200 queries"):
            ragnb.score(production, golden_run, "ndcg@10", extra="drop", missing=missing)
    with pytest.raises(InputError, match="belongs to another test set") as e:
        label_bounds(production, [own_run, golden_run], "ndcg@10", extra="drop", missing="drop")
    assert "round-40.jsonl" in str(e.value) and "golden" in str(e.value)
