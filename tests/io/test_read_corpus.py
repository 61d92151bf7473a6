"""Reading corpus builds: CSV, TSV, JSONL and Parquet alike; errors name file and line."""
import gzip

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io import read_corpus


def test_formats_read_alike(tmp_path):
    (tmp_path / "b.csv").write_text("passage_id,doc_version\np1,2026-01-01\np2,2026-02-01\n")
    (tmp_path / "b.tsv").write_text("passage_id\tdoc_version\np1\t2026-01-01\np2\t2026-02-01\n")
    (tmp_path / "b.jsonl").write_text('{"passage_id": "p1", "doc_version": "2026-01-01"}\n'
                                      '{"passage_id": "p2", "doc_version": "2026-02-01"}\n')
    pd.DataFrame({"passage_id": ["p1", "p2"], "doc_version": ["2026-01-01", "2026-02-01"]}
                 ).to_parquet(tmp_path / "b.parquet")
    with gzip.open(tmp_path / "c.csv.gz", "wt") as fh:
        fh.write("passage_id,doc_version\np1,2026-01-01\np2,2026-02-01\n")
    for name in ("b.csv", "b.tsv", "b.jsonl", "b.parquet", "c.csv.gz"):
        build = read_corpus(tmp_path / name)
        assert dict(zip(build.passages["passage_id"], build.passages["doc_version"])) == {
            "p1": "2026-01-01", "p2": "2026-02-01"}, name


@pytest.mark.parametrize("name, content, message, line", [
    ("b.csv", "passage_id,doc_version\np1,v1\np2,v2\np1,v3\n", "appears more than once", 4),
    ("b.csv", "passage_id,doc_version\np1,v1\np2,\n", "has no doc_version", 3),
    ("b.jsonl", '{"passage_id": "p1", "doc_version": "v1"}\n{"passage_id": \n', "invalid JSON", 2),
    ("b.jsonl", ('{"passage_id": "p1", "doc_version": "v1"}\n{"passage_id": "p2", '
                '"doc_version": "2026-01-01"}\n'), "number versions", 2),
])
def test_errors_name_file_and_line(tmp_path, name, content, message, line):
    (tmp_path / name).write_text(content)
    with pytest.raises(InputError, match=message) as err:
        read_corpus(tmp_path / name)
    assert err.value.line == line and err.value.source == str(tmp_path / name)


def test_empty_missing_and_wrong_files(tmp_path):
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(InputError, match="empty"):
        read_corpus(tmp_path / "e.csv")
    with pytest.raises(InputError, match="not found"):
        read_corpus(tmp_path / "nope.csv")
    (tmp_path / "h.csv").write_text("passage,version\np1,v1\n")
    with pytest.raises(InputError, match=r"lacks column\(s\)"):
        read_corpus(tmp_path / "h.csv")
    (tmp_path / "r.trec").write_text("p1 v1\n")
    with pytest.raises(InputError, match="must be CSV, TSV, Parquet or JSONL"):
        read_corpus(tmp_path / "r.trec")


@pytest.mark.parametrize("line, match", [
    ('{"passage_id": null, "doc_version": "v1"}', r"b.jsonl:1: 'passage_id' must be a string"),
    ('{"passage_id": false, "doc_version": "v1"}', r"b.jsonl:1: .*got false"),
    ('{"passage_id": "p1", "doc_version": 1.10}', r"b.jsonl:1 \[doc_version\]: doc_version must"),
    ('{"passage_id": "p1", "doc_version": ["v1"]}', r"b.jsonl:1 \[doc_version\]"),
    ('{"passage_id": "p1", "passage_id": "p2", "doc_version": "v1"}', r"appears twice"),
    ('{"doc_version": "v1"}', r"b.jsonl:1: missing key 'passage_id'"),
])
def test_jsonl_ids_and_versions_are_strict(tmp_path, line, match):
    """null used to become the passage "None", 1.10 the version "1.1" (issue 13)."""
    path = tmp_path / "b.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputError, match=match) as exc:
        read_corpus(path)
    assert "\n" not in str(exc.value)


def test_integer_ids_and_versions_read_as_digits(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_text('{"passage_id": 12, "doc_version": 4}\n{"passage_id": "p\u2028", '
                    '"doc_version": "v5"}\n')
    build = read_corpus(path)
    assert build.passages["passage_id"].tolist() == ["12", "p\u2028"]
    assert build.passages["doc_version"].tolist() == ["4", "v5"]


def test_parquet_decimal_ids_refused(tmp_path):
    path = tmp_path / "b.parquet"
    pd.DataFrame({"passage_id": [1.5, 2.0], "doc_version": ["v1", "v2"]}).to_parquet(path)
    with pytest.raises(InputError, match="b.parquet: passage_id must be text or integers"):
        read_corpus(path)


def test_repeated_header_name_and_unicode_digit_versions_refused(tmp_path):
    """Found by review: pandas renamed a repeated column 'a.1'; \\d matched U+0661."""
    path = tmp_path / "b.csv"
    path.write_text("passage_id,doc_version,doc_version\np1,v1,v2\n")
    with pytest.raises(InputError, match=r"b.csv:1: column 'doc_version' appears twice"):
        read_corpus(path)
    path.write_text("passage_id,doc_version\np1,v\u0661\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"b.csv:2: doc_version 'v\u0661' is neither"):
        read_corpus(path)


def test_pandas_index_column_is_an_extra_column(tmp_path):
    path = tmp_path / "b.csv"
    pd.DataFrame({"passage_id": ["p1"], "doc_version": ["v1"]}).to_csv(path)  # index column
    assert read_corpus(path).passages["passage_id"].tolist() == ["p1"]
