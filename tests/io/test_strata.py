import json

import pandas as pd
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
    with pytest.raises(InputError, match="available: kind$"):
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


@pytest.mark.parametrize("line, match", [
    ('{"query_id": null, "domain": "x"}', r"s.jsonl:1: 'query_id' must be a string .*null"),
    ('{"query_id": true, "domain": "x"}', r"s.jsonl:1: .*got true"),
    ('{"query_id": 1.5, "domain": "x"}', r"s.jsonl:1: .*got 1.5"),
    ('{"query_id": ["q1"], "domain": "x"}', r"s.jsonl:1: .*got \["),
    ('{"query_id": "", "domain": "x"}', r"s.jsonl:1: empty 'query_id'"),
    ('{"domain": "x"}', r"s.jsonl:1: missing key 'query_id'"),
    ('{"query_id": "q1", "domain": "x", "domain": "y"}', r"s.jsonl:1: JSON key 'domain' appears"),
    ('{"query_id": "q1", "domain": ["x"]}', r"s.jsonl:1 \[domain\]: 'domain' must be a string"),
    ('{"query_id": "q1", "line": 3}', r"s.jsonl:1 \[line\]: 'line' is reserved"),
])
def test_jsonl_ids_are_strict(tmp_path, line, match):
    """A null query_id used to become the query "None" (issue 13)."""
    path = tmp_path / "s.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=match) as exc:
        read_strata(path)
    assert "\n" not in str(exc.value)


def test_json_integer_ids_read_as_digits_and_booleans_as_json_text(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"query_id": 7, "multi": true}\n{"query_id": "q\u20288", "multi": false}\n')
    df = read_strata(path)
    assert df["query_id"].tolist() == ["7", "q\u20288"]
    assert df["multi"].tolist() == ["true", "false"]


def test_keyed_object_refuses_repeats_empty_keys_and_conflicting_ids(tmp_path):
    path = tmp_path / "topics.json"
    for text, match in (('{"q1": {"d": "a"},\n "q1": {"d": "b"}}', "appears twice"),
                        ('{"": {"d": "a"},\n "q2": {"d": "b"}}', "empty query id"),
                        ('{"q1": {"query_id": "q9"},\n "q2": {}}', "different query_id"),
                        ('{"q1": {"d": {"x": 1}},\n "q2": {}}', r"\[d\]: 'd' must be")):
        path.write_text(text)
        with pytest.raises(InputError, match=match):
            read_strata(path)


def test_table_ids_strict(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("query_id,domain\nq1,a\n,b\n")
    with pytest.raises(InputError, match=r"s.csv:3: empty query_id"):
        read_strata(path)
    path.write_text("query_id,line\nq1,a\n")
    with pytest.raises(InputError, match=r"'line' is reserved"):
        read_strata(path)
    pq = tmp_path / "s.parquet"
    pd.DataFrame({"query_id": [1.0, 2.0], "d": ["a", "b"]}).to_parquet(pq)
    with pytest.raises(InputError, match=r"s.parquet: query_id must be text or integers"):
        read_strata(pq)
    pd.DataFrame({"query_id": [1, 2], "d": ["a", "b"]}).to_parquet(pq)
    assert read_strata(pq)["query_id"].tolist() == ["1", "2"]


def test_one_bom_is_ignored_a_second_is_an_error(tmp_path):
    """Found by the fuzz: two BOMs were both dropped (the rule is one)."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"query_id": "q1", "d": "x"}\n')
    assert read_strata(path)["query_id"].tolist() == ["q1"]
    path.write_bytes(b"\xef\xbb\xbf" * 2 + b'{"query_id": "q1", "d": "x"}\n')
    with pytest.raises(InputError, match=r"s.jsonl:1: invalid JSON"):
        read_strata(path)


def test_cast_topics_json_reads_as_conversations_and_turns(tmp_path):
    import gzip as _gzip
    import json as _json

    from ragnb.io.strata_table import suggest_stratum

    conv = [{"number": 106, "turn": [{"number": 1, "raw_utterance": "a b", "canonical": [1]},
                                     {"number": 2, "raw_utterance": "c"}]},
            {"number": 107, "turn": [{"number": 1, "raw_utterance": "d"}]}]
    (tmp_path / "topics.json.gz").write_bytes(_gzip.compress(_json.dumps(conv).encode()))
    table = read_strata(tmp_path / "topics.json.gz")
    assert list(table["query_id"]) == ["106_1", "106_2", "107_1"]
    assert list(table["conversation"]) == [106, 106, 107] and list(table["turn"]) == [1, 2, 1]
    assert "canonical" not in table      # a list: left out
    # one query a value: free text; 3 queries is too few for a default stratum
    assert suggest_stratum(table).column == ""
    (tmp_path / "other.json").write_text('[{"id": 1}]')
    with pytest.raises(InputError, match="a JSON list is read as TREC CAsT's conversations") as e:
        read_strata(tmp_path / "other.json")
    assert "CODEC's topics.json" in str(e.value) and "JSON Lines" in str(e.value)


def test_a_header_row_given_with_its_column_names_is_a_header_not_a_query(tmp_path):
    """Issue 36 #4: the README's --strata-columns on a TSV with a header row read the header
    as a query (351 annotations instead of 350)."""
    from ragnb.io.strata import read_strata

    path = tmp_path / "s.tsv"
    path.write_text("query_id\tkind\nq1\ta\nq2\tb\n")
    t = read_strata(path, columns=["query_id", "kind"])
    assert t["query_id"].tolist() == ["q1", "q2"]


def test_a_headerless_file_read_with_a_header_names_the_option(tmp_path):
    """Issue 36 #4: the message listed the internal 'line' column as found and did not name
    --strata-columns."""
    from ragnb.errors import InputError
    from ragnb.io.strata import read_strata

    path = tmp_path / "s.tsv"
    path.write_text("q1\ta\nq2\tb\n")
    with pytest.raises(InputError) as e:
        read_strata(path)
    assert "the header reads: q1, a" in str(e.value) and "line" not in str(e.value)
    assert "--strata-columns query_id,COLUMN" in str(e.value)
