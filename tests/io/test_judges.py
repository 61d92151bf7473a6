"""A model judge's labels in a workspace: the manifest key, every reader format, the split
ledger's content hash and seal, and the judge cut to a split's query list.
"""
from __future__ import annotations

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.ledger import Ledger
from ragnb.ledger.content import split_content
from ragnb.ledger.policy import match_split
from ragnb.workspace import open_workspace, parse_manifest

PEOPLE = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
JUDGE = [("q1", "d1", 2), ("q1", "d9", 1), ("q3", "d4", 0)]


def _write_judge(path, fmt):
    df = pd.DataFrame(JUDGE, columns=["query_id", "passage_id", "grade"])
    if fmt == "trec":
        path.write_text("".join(f"{q} 0 {p} {g}\n" for q, p, g in JUDGE))
    elif fmt == "jsonl":
        path.write_text('{"query_id": "q1", "judgments": [{"passage_id": "d1", "grade": 2}, '
                        '{"passage_id": "d9", "grade": 1}]}\n'
                        '{"query_id": "q3", "judgments": [{"passage_id": "d4", "grade": 0}]}\n')
    elif fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "tsv":
        df.to_csv(path, index=False, sep="\t")
    else:
        df.to_parquet(path, index=False)


def _workspace(tmp_path, judge_value: str, judge_file: str = "", fmt: str = "trec"):
    (tmp_path / "qrels.txt").write_text(PEOPLE)
    if judge_file:
        _write_judge(tmp_path / judge_file, fmt)
    (tmp_path / "ragnb.toml").write_text(f'[test_sets.t]\npath = "qrels.txt"\n'
                                         f'judge = {judge_value}\n')
    return tmp_path


@pytest.mark.parametrize("fmt, name", [("trec", "gpt.qrels"), ("jsonl", "gpt.jsonl"),
                                       ("csv", "gpt.csv"), ("tsv", "gpt.tsv"),
                                       ("parquet", "gpt.parquet")])
def test_every_reader_format_and_both_sources_kept(tmp_path, fmt, name):
    ws = open_workspace(_workspace(tmp_path, f'"{name}"', name, fmt))
    ts = ws.test_set("t")
    assert ts.judge.name == "gpt"  # the file name up to the first dot
    long = ts.labelled_by()
    both = long[(long["query_id"] == "q1") & (long["passage_id"] == "d1")]
    assert sorted(zip(both["labeller"], both["grade"])) == [("gpt", 2), ("people", 1)]
    assert len(ts.judgments) == 3 and len(ts.judge.judgments) == 3  # never merged


def test_the_table_form_names_the_judge_and_bad_keys_are_errors(tmp_path):
    _workspace(tmp_path, '{ path = "j.txt", name = "umbrela", format = "trec" }', "j.txt")
    m = parse_manifest(tmp_path)
    assert (m.test_sets["t"].judge.name, m.test_sets["t"].judge.format) == ("umbrela", "trec")
    for value, key, problem in [('{ path = "j.txt", nmae = "x" }', "test_sets.t.judge",
                                 "nmae"),
                                ('{ path = "j.txt", name = "people" }', "test_sets.t.judge.name",
                                 "'people' names the human labels"),
                                ('"absent.txt"', "test_sets.t.judge.path", "no such file")]:
        (tmp_path / "ragnb.toml").write_text(f'[test_sets.t]\npath = "qrels.txt"\n'
                                             f'judge = {value}\n')
        with pytest.raises(InputError, match=problem) as raised:
            parse_manifest(tmp_path)
        assert key in str(raised.value)


def test_a_query_list_cuts_the_judge_too(tmp_path):
    _workspace(tmp_path, '"j.txt"', "j.txt")
    (tmp_path / "ids.txt").write_text("q1\nq3\n")
    (tmp_path / "ragnb.toml").write_text('[test_sets.t]\npath = "qrels.txt"\njudge = "j.txt"\n'
                                         'queries = "ids.txt"\n')
    ts = open_workspace(tmp_path).test_set("t")
    assert sorted(ts.judge.judgments["query_id"].unique()) == ["q1", "q3"]
    assert list(ts.query_ids) == ["q1"]


def test_the_content_hash_covers_the_judge_and_a_swapped_judge_is_another_content(tmp_path):
    people = pd.DataFrame({"query_id": ["q1"], "passage_id": ["d1"], "grade": [1]})
    judge = pd.DataFrame({"query_id": ["q1"], "passage_id": ["d1"], "grade": [2]})
    plain = split_content("s", people)
    assert split_content("s", people, judge=None).split_id == plain.split_id  # unchanged
    with_judge = split_content("s", people, judge=judge)
    other = split_content("s", people, judge=judge.assign(grade=[0]))
    assert len({plain.sha256, with_judge.sha256, other.sha256}) == 3
    assert with_judge.queries_sha256 == plain.queries_sha256

    ws_dir = _workspace(tmp_path, '"j.txt"', "j.txt")
    ts = open_workspace(ws_dir).test_set("t")
    led = Ledger(tmp_path / "ledger")
    led.register("t", ts.judgments.drop(columns="line"), list(ts.query_ids),
                 role="confirmation", judge=ts.judge.judgments.drop(columns="line"))
    assert match_split(tmp_path / "ledger", ts)[1] == "content"
    (tmp_path / "j.txt").write_text("q1 0 d1 0\nq1 0 d9 1\nq3 0 d4 0\n")  # swapped judge
    swapped = open_workspace(ws_dir).test_set("t")
    manifest, how = match_split(tmp_path / "ledger", swapped)
    assert how == "queries" and manifest.sealed  # detected as a human change is: seal holds
