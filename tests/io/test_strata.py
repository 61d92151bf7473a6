import json

import pytest

from ragnb.errors import InputError
from ragnb.io import read_strata
from ragnb.io.strata import UNCLASSIFIED, assign_strata


def test_csv_jsonl_and_keyed_json_read_alike(tmp_path):
    (tmp_path / "s.csv").write_text("query_id,domain\nq1,finance\nq2,history\n")
    (tmp_path / "s.jsonl").write_text('{"query_id": "q1", "domain": "finance"}\n'
                                      '{"query_id": "q2", "domain": "history"}\n')
    (tmp_path / "topics.json").write_text(json.dumps(
        {"q1": {"domain": "finance", "Query": "x"}, "q2": {"domain": "history", "Query": "y"}},
        indent=1))
    for name in ("s.csv", "s.jsonl", "topics.json"):
        df = read_strata(tmp_path / name)
        assert dict(zip(df["query_id"], df["domain"])) == {"q1": "finance", "q2": "history"}


def test_unclassified_queries_form_their_own_stratum_and_are_counted(tmp_path):
    (tmp_path / "s.csv").write_text("query_id,kind\nq1,a\nq2,\n")
    labels, notes = assign_strata(read_strata(tmp_path / "s.csv"), ["q1", "q2", "q3"], "kind")
    assert labels.to_dict() == {"q1": "a", "q2": UNCLASSIFIED, "q3": UNCLASSIFIED}
    assert notes[0].kind == "unclassified" and notes[0].count == 2


@pytest.mark.parametrize("content, message", [
    ("query_id,kind\nq1,a\nq1,b\n", "classified more than once"),
    ("qid,kind\nq1,a\n", "no query_id column"),
])
def test_bad_strata_files(tmp_path, content, message):
    (tmp_path / "s.csv").write_text(content)
    with pytest.raises(InputError, match=message):
        read_strata(tmp_path / "s.csv")


def test_unknown_ids_and_missing_column(tmp_path):
    (tmp_path / "s.csv").write_text("query_id,kind\nq1,a\nzz,b\n")
    table = read_strata(tmp_path / "s.csv")
    with pytest.raises(InputError, match="not in the test set"):
        assign_strata(table, ["q1"], "kind")
    with pytest.raises(InputError, match="available: \\['kind'\\]"):
        assign_strata(table, ["q1"], "nope")
