"""What trec_eval reads beyond the fields (ragnb.io.trec): comment lines, text after a run
line's sixth field, qrels grade -1 (pooled but unjudged); each counted in a note."""
from __future__ import annotations

import pytest

from ragnb.errors import InputError
from ragnb.io import read_run, read_test_set
from ragnb.metrics.score import score

QRELS = "# judged in 2026\nq1 0 d1 2\nq1 0 d2 0\n  # indented comment\nq1 0 d3 -1\n"
# d3 is pooled but unjudged, d4 outside the pool
RUN = ("# run by ragnb\nq1 Q0 d4 1 4.0 tag\nq1 Q0 d3 2 3.0 tag junk after the tag\n"
       "q1 Q0 d2 3 2.0 tag\nq1 Q0 d1 4 1.0 tag more\n")


def _notes(obj) -> dict[str, int]:
    return {n.kind: n.count for n in obj.notes}


def test_comments_and_pooled_lines_are_read_and_counted(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    ts = read_test_set(tmp_path / "q.qrels")
    assert _notes(ts) == {"comment_lines": 2, "pooled_unjudged": 1}
    assert list(ts.judgments["passage_id"]) == ["d1", "d2"]
    assert list(ts.pooled["passage_id"]) == ["d3"] and list(ts.queries["query_id"]) == ["q1"]


def test_run_comments_and_text_after_the_tag_are_counted(tmp_path):
    (tmp_path / "r.run").write_text(RUN)
    run = read_run(tmp_path / "r.run")
    assert _notes(run) == {"comment_lines": 1, "extra_fields": 2}
    assert list(run.table["passage_id"]) == ["d4", "d3", "d2", "d1"]


def test_a_four_field_comment_is_still_a_comment(tmp_path):
    # fits the fast path's columns exactly: the reader must still skip it
    (tmp_path / "q.qrels").write_text("# 0 d9 1\nq1 0 d1 1\n")
    (tmp_path / "r.run").write_text("# Q0 d9 1 2.0 x\nq1 Q0 d1 1 1.0 x\n")
    assert list(read_test_set(tmp_path / "q.qrels").judgments["query_id"]) == ["q1"]
    assert list(read_run(tmp_path / "r.run").table["query_id"]) == ["q1"]


def test_pooled_passages_are_unjudged_for_label_policies_and_sampled_by_infap(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    s = score(read_test_set(tmp_path / "q.qrels"), read_run(tmp_path / "r.run"),
              ["judged@4", "infAP", "p@4"], policy="lower")
    values = s.table.set_index("metric")["value"]
    assert values["judged@4"] == pytest.approx(2 / 4)   # d3 (pooled) counts as unjudged
    assert values["p@4"] == pytest.approx(1 / 4)
    # infAP by hand (trec_eval m_infap.c): d1 relevant at j = 3; above it one judged
    # non-relevant (d2), one pooled-unjudged (d3), one outside the pool (d4): r = 0, n = 1,
    # u = 1 -> 1/4 + (3/4) * ((0 + 1 + 1) / 3) * (eps / (1 + 2 eps)); R = 1
    eps = 1e-5
    assert values["infap"] == pytest.approx(1 / 4 + 3 / 4 * (2 / 3) * (eps / (1 + 2 * eps)))
    upper = score(read_test_set(tmp_path / "q.qrels"), read_run(tmp_path / "r.run"),
                  ["p@4"], policy="upper")
    assert upper.table["value"].iloc[0] == pytest.approx(3 / 4)  # d3, d4 unjudged -> grade 2


@pytest.mark.parametrize("text, line, message", [
    ("q1 0 d1 1\nq1 0 d1 -1\n", 2, "once as pooled but unjudged"),
    ("q1 0 d1 1\nq1 0 d2 -2\n", 2, "negative grade -2"),
])
def test_bad_pooled_lines_name_the_line(tmp_path, text, line, message):
    (tmp_path / "q.qrels").write_text(text)
    with pytest.raises(InputError, match=message) as err:
        read_test_set(tmp_path / "q.qrels")
    assert err.value.line == line


def test_pooled_lines_survive_a_qrels_round_trip_and_no_other_format_drops_them(tmp_path):
    from ragnb.io.writers import write_test_set

    (tmp_path / "q.qrels").write_text(QRELS)
    ts = read_test_set(tmp_path / "q.qrels")
    again = read_test_set(write_test_set(ts, tmp_path / "copy.qrels"))
    assert list(again.pooled["passage_id"]) == ["d3"] and len(again.judgments) == 2
    with pytest.raises(InputError, match="1 passages in the pool but not judged"):
        write_test_set(ts, tmp_path / "copy.csv")


def test_a_run_out_of_the_test_sets_query_order_keeps_its_pooled_rows(tmp_path):
    # judge_run regroups the run's queries in test-set order: the pooled mask moves too
    (tmp_path / "q.qrels").write_text("qa 0 d1 1\nqa 0 d2 -1\nqb 0 e1 1\nqb 0 e2 -1\n")
    (tmp_path / "r.run").write_text("qb Q0 e2 1 3.0 t\nqb Q0 x 2 2.0 t\nqb Q0 e1 3 1.0 t\n"
                                    "qa Q0 d1 1 3.0 t\nqa Q0 d2 2 2.0 t\n")
    s = score(read_test_set(tmp_path / "q.qrels"), read_run(tmp_path / "r.run"), ["infAP"])
    values = s.table.set_index("query_id")["value"]
    eps = 1e-5
    assert values["qa"] == pytest.approx(1.0)            # relevant at rank 1
    # qb: e1 at j = 2; above: e2 pooled (u = 1), x outside the pool; r = n = 0
    assert values["qb"] == pytest.approx(1 / 3 + (2 / 3) * (1 / 2) * (eps / (2 * eps)))


def test_a_qrels_file_and_a_run_file_swapped_are_named_as_such(tmp_path):
    """Issue 36 #4: a swap said only 'expected 4 fields, found 6'."""
    from ragnb.errors import InputError
    from ragnb.io import read_run, read_test_set

    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 9.5 bm25\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 2\n")
    with pytest.raises(InputError, match="this looks like a run file .*--judgments"):
        read_test_set(run, format="trec")
    with pytest.raises(InputError, match="this looks like TREC qrels"):
        read_run(qrels)
