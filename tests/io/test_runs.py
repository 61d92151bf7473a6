import json

import pytest

from ragnb.errors import InputError
from ragnb.io import read_run


def ranking(run, qid):
    t = run.table
    return list(t.loc[t["query_id"] == qid, "passage_id"])


def test_trec_run_in_rank_order_by_default(tmp_path):
    p = tmp_path / "bm25.run"
    # rank order disagrees with score order on purpose
    p.write_text("q1 Q0 a 2 9.0 t\nq1 Q0 b 1 1.0 t\nq2 Q0 c 1 5.0 t\n")
    run = read_run(p)
    assert run.name == "bm25" and run.order == "rank"
    assert ranking(run, "q1") == ["b", "a"]
    assert ranking(read_run(p, order="score"), "q1") == ["a", "b"]


def test_score_order_breaks_ties_by_passage_id_descending(tmp_path):
    # trec_eval: score descending, then docno descending (strcmp)
    p = tmp_path / "r.run"
    p.write_text("q1 Q0 d10 1 1.0 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d9 3 2.0 t\nq1 Q0 d1 4 1.0 t\n")
    run = read_run(p, order="score")
    assert ranking(run, "q1") == ["d9", "d2", "d10", "d1"]


def test_rows_of_a_query_are_grouped(tmp_path):
    p = tmp_path / "r.run"
    p.write_text("q1 Q0 a 1 3 t\nq2 Q0 x 1 3 t\nq1 Q0 b 2 2 t\n")
    run = read_run(p)
    assert run.table["query_id"].tolist() == ["q1", "q1", "q2"]
    assert run.table["line"].tolist() == [1, 3, 2]


def test_jsonl_run_list_order_is_rank(tmp_path):
    p = tmp_path / "e5.jsonl"
    p.write_text(json.dumps({"q1": ["p3", "p1"]}) + "\n" + json.dumps({"q2": []}) + "\n")
    run = read_run(p)
    assert ranking(run, "q1") == ["p3", "p1"]
    assert run.table["rank"].tolist() == [1, 2]


def test_csv_run_with_scores_only(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("query_id,passage_id,score\nq1,a,0.1\nq1,b,0.9\n")
    run = read_run(p)
    assert run.order == "score"
    assert ranking(run, "q1") == ["b", "a"]


@pytest.mark.parametrize("content, kwargs, line, message", [
    ("q1 Q0 a 1 3 t\nq1 Q0 a 2 2 t\n", {}, 2, "appears more than once"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b 1 2 t\n", {}, 2, "given twice"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b 3 2 t\n", {}, 2, "a gap"),
    ("q1 Q0 a 2 3 t\nq1 Q0 b 3 2 t\n", {}, 1, "starts at rank 2"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b x 2 t\n", {}, 2, "rank 'x' is not a number"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b 2 nan t\n", {"order": "score"}, 2, "not a finite number"),
    ("q1 Q0 a 1 3\n", {}, 1, "expected 6"),
])
def test_bad_runs_name_file_line_and_problem(tmp_path, content, kwargs, line, message):
    p = tmp_path / "bad.run"
    p.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        read_run(p, **kwargs)
    assert info.value.source == str(p)
    assert info.value.line == line


def test_score_order_accepts_rank_gaps(tmp_path):
    p = tmp_path / "r.run"
    p.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 3 2 t\n")
    assert ranking(read_run(p, order="score"), "q1") == ["a", "b"]


def test_jsonl_duplicate_passage(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text(json.dumps({"q1": ["a", "b", "a"]}) + "\n")
    with pytest.raises(InputError, match="appears more than once"):
        read_run(p)


def test_empty_run_file(tmp_path):
    p = tmp_path / "r.run"
    p.write_text("")
    with pytest.raises(InputError, match="empty"):
        read_run(p)
