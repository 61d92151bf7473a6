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
    labels, notes = assign_strata(table, ["q1", "q2"], "kind")
    assert labels.to_dict() == {"q1": "a", "q2": "unclassified"}
    # the file covers more queries than the test set: counted, not an error
    assert [(n.kind, n.count) for n in notes] == [("strata_outside_test_set", 1),
                                                  ("unclassified", 1)]
    with pytest.raises(InputError, match="available: \\['kind'\\]"):
        assign_strata(table, ["q1"], "nope")


def test_header_less_tsv_with_column_names_and_a_key(tmp_path):
    p = tmp_path / "topics.tsv"
    p.write_text("101\tfinance\t2\n102\thistory\t1\n103\tfinance\t3\n")
    table = read_strata(p, key="qid", columns=["qid", "domain", "turn"])
    assert table["query_id"].tolist() == ["101", "102", "103"]      # the first line is data
    assert table["domain"].tolist() == ["finance", "history", "finance"]
    labels, notes = assign_strata(table, ["101", "102"], "domain")
    assert labels.tolist() == ["finance", "history"]
    assert [(n.kind, n.count) for n in notes] == [("strata_outside_test_set", 1)]
    # a header-less file without a known extension is read as TSV when it has tabs
    q = tmp_path / "annotations"
    q.write_text("101\tfinance\n")
    assert read_strata(q, columns=["query_id", "domain"])["domain"].tolist() == ["finance"]


def test_header_less_strata_errors_name_the_file_and_the_key(tmp_path):
    p = tmp_path / "topics.tsv"
    p.write_text("101\tfinance\t2\n")
    with pytest.raises(InputError, match="3 columns in the file, 2 names given") as err:
        read_strata(p, columns=["query_id", "domain"])
    assert err.value.source == str(p) and err.value.key == "columns"
    with pytest.raises(InputError, match="key column 'qid' is not among"):
        read_strata(p, key="qid", columns=["query_id", "domain", "turn"])
