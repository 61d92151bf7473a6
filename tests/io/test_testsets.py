import gzip
import json

import pytest

from ragnb.errors import InputError
from ragnb.io import read_test_set

SEED_004_LINE = {
    "query_id": "q0042",
    "query": "can I change my billing address after the order ships",
    "source": "ticket", "intent": "billing",
    "answer": "Yes, until the carrier scans the parcel.",
    "judgments": [{"passage_id": "kb-billing-03#p2", "grade": 2, "doc_version": "2026-03-11"},
                  {"passage_id": "kb-shipping-11#p1", "grade": 1, "doc_version": "2026-03-11"}],
    "unanswerable": False,
}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_reads_seed_004_format(tmp_path):
    other = {**SEED_004_LINE, "query_id": "q7", "judgments": [], "unanswerable": True}
    ts = read_test_set(write_jsonl(tmp_path / "golden.jsonl", [SEED_004_LINE, other]))
    assert ts.name == "golden"
    assert list(ts.queries["query_id"]) == ["q0042", "q7"]
    assert list(ts.queries["intent"]) == ["billing", "billing"]
    assert ts.queries["unanswerable"].tolist() == [False, True]
    j = ts.judgments
    assert list(j["passage_id"]) == ["kb-billing-03#p2", "kb-shipping-11#p1"]
    assert list(j["grade"]) == [2, 1]
    assert list(j["doc_version"]) == ["2026-03-11", "2026-03-11"]
    assert ts.top_grade == 2
    assert ts.relevant_counts().to_dict() == {"q0042": 2, "q7": 0}


def test_reads_trec_qrels_plain_and_gzip(tmp_path):
    text = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d9 1\n"
    (tmp_path / "a.qrels").write_text(text)
    with gzip.open(tmp_path / "b.qrels.gz", "wt") as fh:
        fh.write(text)
    for name in ("a.qrels", "b.qrels.gz"):
        ts = read_test_set(tmp_path / name)
        assert list(ts.queries["query_id"]) == ["q1", "q2"]
        assert ts.judgments[["query_id", "passage_id", "grade"]].values.tolist() == [
            ["q1", "d1", 2], ["q1", "d2", 0], ["q2", "d9", 1]]


def test_qrels_with_tabs_and_blank_lines_take_the_slow_path(tmp_path):
    p = tmp_path / "t.qrels"
    p.write_text("q1\t0\td1\t2\n\nq1  0 d2 1\n")
    ts = read_test_set(p)
    assert ts.judgments["grade"].tolist() == [2, 1]
    assert ts.judgments["line"].tolist() == [1, 3]


def test_reads_csv_table(tmp_path):
    p = tmp_path / "j.csv"
    p.write_text("query_id,passage_id,grade,doc_version\nq1,p1,2,v1\nq1,p2,0,v1\n")
    ts = read_test_set(p)
    assert ts.judgments["grade"].tolist() == [2, 0]


@pytest.mark.parametrize("content, line, message", [
    ("q1 0 d1 2\nq1 0 d2 -2\n", 2, "negative grade"),   # -1 is trec_eval's pooled grade
    ("q1 0 d1 2\nq1 0 d2 1.5\n", 2, "not an integer"),
    ("q1 0 d1 2\nq1 0 d1 2\n", 1, "repeated judgments"),
    ("q1 0 d1 2\nq2 0 d3 1\nq1 0 d1 0\n", 1, "conflicting grades"),
    ("q1 0 d1\n", 1, "expected 4 whitespace-separated fields"),
])
def test_bad_qrels_name_file_line_and_problem(tmp_path, content, line, message):
    p = tmp_path / "bad.qrels"
    p.write_text(content)
    with pytest.raises(InputError, match=message) as info:
        read_test_set(p)
    assert info.value.source == str(p)
    assert info.value.line == line
    assert str(info.value).startswith(f"{p}:{line}: ")


def test_conflicting_grades_are_listed(tmp_path):
    p = tmp_path / "bad.qrels"
    p.write_text("q1 0 d1 2\nq2 0 d3 1\nq1 0 d1 0\n")
    with pytest.raises(InputError, match=r"\(q1, d1\) grades 2, 0 at lines 1, 3$"):
        read_test_set(p)


def test_empty_file_is_an_error(tmp_path):
    p = tmp_path / "empty.qrels"
    p.write_text("\n")
    with pytest.raises(InputError, match="empty"):
        read_test_set(p)
    p.write_text("# comments only\n")
    with pytest.raises(InputError, match="no judgment lines, only 1 comment line"):
        read_test_set(p)


@pytest.mark.parametrize("row, message", [
    ({"query": "x", "judgments": []}, "missing key 'query_id'"),
    ({"query_id": "q1", "judgments": [{"passage_id": "p", "grade": -2}]}, "negative grade"),
    ({"query_id": "q1", "judgments": [{"passage_id": "p"}]}, "needs 'passage_id' and 'grade'"),
    ({"query_id": "q1", "judgments": [{"passage_id": "p", "grade": 2}], "unanswerable": True},
     "marked unanswerable"),
    ({"query_id": "q1", "judgments": [], "unanswerable": "no"}, "must be true or false"),
])
def test_bad_jsonl_lines(tmp_path, row, message):
    p = write_jsonl(tmp_path / "t.jsonl", [SEED_004_LINE, row])
    with pytest.raises(InputError, match=message) as info:
        read_test_set(p)
    assert info.value.line == 2


def test_duplicate_query_in_jsonl(tmp_path):
    p = write_jsonl(tmp_path / "t.jsonl", [SEED_004_LINE, SEED_004_LINE])
    with pytest.raises(InputError, match="appears more than once") as info:
        read_test_set(p)
    assert info.value.line == 2


def test_invalid_json_names_the_line(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text(json.dumps(SEED_004_LINE) + "\n{not json\n")
    with pytest.raises(InputError, match="invalid JSON") as info:
        read_test_set(p)
    assert info.value.line == 2


def test_fast_and_slow_qrels_paths_agree(tmp_path, monkeypatch):
    """Single spaces take pyarrow's path; tabs the line-by-line one: same table."""
    import ragnb.io.testsets

    slow_reads = []
    split = ragnb.io.testsets.split_lines
    monkeypatch.setattr(ragnb.io.testsets, "split_lines",
                        lambda *a: slow_reads.append(1) or split(*a))
    rows = [("q2", "d1", 1), ("q2", "d10", 0), ("q1", "d7", 3), ("q3", "d1", 2)]
    (tmp_path / "a.qrels").write_text("".join(f"{q} 0 {p} {g}\n" for q, p, g in rows))
    (tmp_path / "b.qrels").write_text("".join(f"{q}\t0\t{p}\t{g}\n" for q, p, g in rows))
    fast = read_test_set(tmp_path / "a.qrels")
    assert not slow_reads
    slow = read_test_set(tmp_path / "b.qrels")
    assert slow_reads
    assert slow.judgments.dtypes.to_dict() == fast.judgments.dtypes.to_dict()
    assert slow.judgments.to_dict("list") == fast.judgments.to_dict("list")
    j = fast.judgments
    assert j[["query_id", "passage_id", "grade"]].values.tolist() == [list(r) for r in rows]
    assert j["doc_version"].isna().all()
    assert j["line"].tolist() == [1, 2, 3, 4]
    assert list(fast.queries["query_id"]) == ["q2", "q1", "q3"]
    assert fast.relevant_counts().to_dict() == {"q2": 1, "q1": 1, "q3": 1}


def test_repeated_judgment_far_apart_on_the_fast_path(tmp_path):
    p = tmp_path / "r.qrels"
    lines = [f"q{i // 3} 0 d{i} 1\n" for i in range(30)] + ["q2 0 d7 0\n"]
    p.write_text("".join(lines))
    with pytest.raises(InputError, match=r"conflicting grades .*\(q2, d7\) grades 1, 0 "
                                         r"at lines 8, 31$") as info:
        read_test_set(p)
    assert info.value.line == 8
