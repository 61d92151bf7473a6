import json

import pytest

from ragnb.errors import InputError
from ragnb.io import read_run


def ranking(run, qid):
    t = run.table
    return list(t.loc[t["query_id"] == qid, "passage_id"])


def test_trec_run_in_trec_eval_order_by_default_rank_order_opt_in(tmp_path):
    p = tmp_path / "bm25.run"
    # rank order disagrees with score order on purpose (query q1 only)
    p.write_text("q1 Q0 a 2 9.0 t\nq1 Q0 b 1 1.0 t\nq2 Q0 c 1 5.0 t\n")
    run = read_run(p)
    assert run.name == "bm25" and run.order == "score"
    assert ranking(run, "q1") == ["a", "b"]
    by_rank = read_run(p, order="rank")
    assert ranking(by_rank, "q1") == ["b", "a"]
    # the note counts the one query whose ranks disagree, whichever order is used
    for r in (run, by_rank):
        assert [(n.kind, n.count) for n in r.notes] == [("rank_disagrees", 1)]


def test_rank_gaps_are_fine_in_score_order_and_no_note_when_ranks_agree(tmp_path):
    p = tmp_path / "gaps.run"
    p.write_text("q1 Q0 a 1 9.0 t\nq1 Q0 b 5 3.0 t\nq1 Q0 c 9 1.0 t\nq2 Q0 x 3 2.0 t\n")
    run = read_run(p)
    assert ranking(run, "q1") == ["a", "b", "c"] and run.notes == ()
    with pytest.raises(InputError, match="gap"):
        read_run(p, order="rank")


def test_order_note_counts_queries_on_a_tie_broken_by_docno(tmp_path):
    # trec_eval breaks the tie by docno descending (d2 before d1); a rank column that
    # puts d1 first disagrees, in q1 and q3 but not q2
    p = tmp_path / "ties.run"
    p.write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 1.0 t\n"
                 "q2 Q0 d2 1 1.0 t\nq2 Q0 d1 2 1.0 t\n"
                 "q3 Q0 d1 1 5.0 t\nq3 Q0 d2 2 7.0 t\n")
    run = read_run(p)
    assert [(n.kind, n.count) for n in run.notes] == [("rank_disagrees", 2)]
    assert ranking(run, "q1") == ["d2", "d1"]


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
    ("q1 Q0 a 1 3 t\nq1 Q0 b 1 2 t\n", {"order": "rank"}, 2, "given twice"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b 3 2 t\n", {"order": "rank"}, 2, "a gap"),
    ("q1 Q0 a 2 3 t\nq1 Q0 b 3 2 t\n", {"order": "rank"}, 1, "starts at rank 2"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b x 2 t\n", {}, 2, "rank 'x' is not an integer"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b 2 nan t\n", {"order": "score"}, 2, "'nan' is not a decimal"),
    ("q1 Q0 a 1 3\n", {}, 1, "expected at least 6"),
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


RUN_LINES = [("q2", "d3", 1, 9.5), ("q2", "d10", 2, 9.25), ("q1", "d1", 1, 3.0),
             ("q1", "d2", 2, 2.0), ("q1", "d22", 3, 2.0), ("q3", "d9", 1, -1.5)]


def write_run(path, sep, rows=RUN_LINES, gz=False):
    import gzip

    text = "".join(sep.join([q, "Q0", p, str(r), repr(s), "tag"]) + "\n" for q, p, r, s in rows)
    if gz:
        with gzip.open(path, "wt") as fh:
            fh.write(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("order", ["rank", "score"])
def test_fast_and_slow_trec_paths_agree(tmp_path, order, monkeypatch):
    """Single spaces take pyarrow's path; tabs and repeated spaces the line-by-line one."""
    import ragnb.io.runs

    slow_reads = []
    split = ragnb.io.runs.split_lines
    monkeypatch.setattr(ragnb.io.runs, "split_lines",
                        lambda *a, **k: slow_reads.append(1) or split(*a, **k))
    fast = read_run(write_run(tmp_path / "a.run", " "), order=order)
    gz = read_run(write_run(tmp_path / "b.run.gz", " ", gz=True), order=order)
    assert not slow_reads
    slow = read_run(write_run(tmp_path / "c.run", " \t "), order=order)
    assert slow_reads
    for other in (gz, slow):
        assert other.table.dtypes.to_dict() == fast.table.dtypes.to_dict()
        assert other.table.to_dict("list") == fast.table.to_dict("list")
    t = fast.table
    assert t["query_id"].tolist() == ["q2", "q2", "q1", "q1", "q1", "q3"]
    # score order breaks the 2.0 tie by passage id descending: d22 before d2
    expected_q1 = ["d1", "d2", "d22"] if order == "rank" else ["d1", "d22", "d2"]
    assert t.loc[t["query_id"] == "q1", "passage_id"].tolist() == expected_q1
    assert t["line"].tolist() == ([1, 2, 3, 4, 5, 6] if order == "rank" else [1, 2, 3, 5, 4, 6])


def test_run_column_types(tmp_path):
    from ragnb.io.keys import ID_DTYPE

    t = read_run(write_run(tmp_path / "a.run", " ")).table
    assert list(t.columns) == ["query_id", "passage_id", "rank", "score", "line"]
    assert t["query_id"].dtype == ID_DTYPE and t["passage_id"].dtype == ID_DTYPE
    assert t["rank"].dtype == "float64" and t["score"].dtype == "float64"
    assert t["line"].dtype == "int32"


def test_fast_path_errors_name_the_line(tmp_path):
    """Errors found after pyarrow's parse (duplicates, gaps) still name file and line."""
    rows = RUN_LINES[:3] + [("q1", "d1", 2, 2.0)]
    with pytest.raises(InputError, match="appears more than once") as info:
        read_run(write_run(tmp_path / "dup.run", " ", rows))
    assert info.value.line == 4
    rows = RUN_LINES[:3] + [("q1", "d2", 3, 2.0)]
    with pytest.raises(InputError, match="a gap") as info:
        read_run(write_run(tmp_path / "gap.run", " ", rows), order="rank")
    assert info.value.line == 4


def test_rows_out_of_rank_order_are_sorted(tmp_path):
    rows = [("q1", "b", 2, 1.0), ("q2", "x", 1, 1.0), ("q1", "a", 1, 2.0)]
    t = read_run(write_run(tmp_path / "r.run", " ", rows)).table
    assert t["passage_id"].tolist() == ["a", "b", "x"]
    assert t["line"].tolist() == [3, 1, 2]


@pytest.mark.parametrize("content, line, message", [
    # in order, steps of 1, but not integers: found on the fast path's block heads
    ("q1 Q0 a 1 3 t\nq2 Q0 b 1.5 2 t\nq2 Q0 c 2.5 1 t\n", 2, "rank '1.5' is not an integer"),
    ("q1 Q0 a 1 3 t\nq1 Q0 b inf 2 t\n", 2, "rank 'inf' is not an integer"),
    # a duplicate is reported before a bad start, as on the slow path
    ("q1 Q0 a 2 3 t\nq1 Q0 a 3 2 t\n", 2, "appears more than once"),
])
def test_rank_errors_on_the_fast_path(tmp_path, content, line, message):
    p = tmp_path / "bad.run"
    p.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        read_run(p, order="rank")
    assert info.value.line == line


def test_run_query_ids_in_order_of_appearance(tmp_path):
    run = read_run(write_run(tmp_path / "a.run", " "))
    assert list(run.query_ids) == ["q2", "q1", "q3"]
    assert run.query_ids.name == "query_id" and run.query_ids.dtype == "str"
