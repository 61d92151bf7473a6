"""The split id: a content hash that changes with content, not with row order."""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.ledger.content import parse_split_id, split_content


def test_split_id_matches_the_documented_canonical_form():
    qrels = pd.DataFrame({"query_id": ["q1"], "passage_id": ["p1"], "grade": [2]})
    # The canonical form written out by hand from the module docstring.
    text = '{"format":"ragnb-split/1","judgments":[["q1","p1",2]],"queries":["q1","q2"]}'
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    c = split_content("golden", qrels, ["q2", "q1"])
    assert c.split_id == f"golden@sha256:{expected}"
    assert (c.n_queries, c.n_judgments) == (2, 1)


def test_one_changed_grade_changes_the_id(qrels):
    before = split_content("golden", qrels).split_id
    changed = qrels.copy()
    changed.loc[1, "grade"] = 1
    assert split_content("golden", changed).split_id != before


def test_one_added_query_without_judgments_changes_the_id(qrels):
    queries = ["q1", "q2", "q3"]
    assert (split_content("golden", qrels, queries).split_id
            != split_content("golden", qrels, queries + ["q4"]).split_id)
    # ... but the judgments-only default equals listing exactly the judged queries.
    assert split_content("golden", qrels).split_id == split_content("golden", qrels,
                                                                     queries).split_id


def test_one_added_or_removed_judgment_changes_the_id(qrels):
    base = split_content("golden", qrels).split_id
    extra = pd.concat([qrels, pd.DataFrame({"query_id": ["q3"], "passage_id": ["p5"],
                                            "grade": [0]})])
    assert split_content("golden", extra).split_id != base
    assert split_content("golden", qrels.iloc[1:], ["q1", "q2", "q3"]).split_id != base


def test_reordered_rows_and_dtypes_keep_the_id(qrels):
    base = split_content("golden", qrels, ["q3", "q1", "q2"])
    shuffled = qrels.sample(frac=1, random_state=np.random.default_rng(7).integers(1 << 31))
    assert split_content("golden", shuffled, ["q2", "q3", "q1"]).split_id == base.split_id
    as_float = qrels.astype({"grade": float})  # 2.0 is the grade 2
    assert split_content("golden", as_float).split_id == base.split_id
    numeric = pd.DataFrame({"query_id": [101, 102], "passage_id": ["d1", "d2"], "grade": [1, 2]})
    textual = numeric.astype({"query_id": str})
    assert split_content("t", numeric).split_id == split_content("t", textual).split_id


def test_name_is_part_of_the_id_but_not_of_the_hash(qrels):
    a, b = split_content("golden", qrels), split_content("golden-v2", qrels)
    assert a.split_id != b.split_id and a.sha256 == b.sha256


def test_doc_version_is_provenance_not_identity(qrels):
    v1 = split_content("golden", qrels.assign(doc_version="2026-01"))
    v2 = split_content("golden", qrels.assign(doc_version=["2026-01", "2026-01", "2026-04",
                                                           "2026-01"]))
    assert v1.split_id == v2.split_id == split_content("golden", qrels).split_id
    assert v1.doc_versions_sha256 != v2.doc_versions_sha256


def test_relabelled_split_shares_the_queries_digest(qrels):
    relabelled = qrels.assign(grade=[1, 1, 1, 1])
    a, b = split_content("golden", qrels), split_content("golden", relabelled)
    assert a.split_id != b.split_id and a.queries_sha256 == b.queries_sha256


@pytest.mark.parametrize(("frame", "queries", "match"), [
    (pd.DataFrame({"query_id": ["q1"], "grade": [1]}), None, r"missing column.*passage_id"),
    (pd.DataFrame({"query_id": ["q1"], "passage_id": ["p"], "grade": [1.5]}), None,
     r"\[grade\].*1\.5.*not a non-negative integer"),
    (pd.DataFrame({"query_id": ["q1"], "passage_id": ["p"], "grade": [-1]}), None,
     r"-1.*not a non-negative integer"),
    (pd.DataFrame({"query_id": ["q1"], "passage_id": ["p"], "grade": ["2"]}), None,
     r"'2'.*not a non-negative integer"),
    (pd.DataFrame({"query_id": ["q1", "q1"], "passage_id": ["p", "p"], "grade": [1, 2]}), None,
     r"passage 'p' is judged more than once for query 'q1'"),
    (pd.DataFrame({"query_id": ["q1", None], "passage_id": ["p", "p"], "grade": [1, 2]}), None,
     r"query_id number 2 is missing"),
    (pd.DataFrame({"query_id": ["q9"], "passage_id": ["p"], "grade": [1]}), ["q1"],
     r"not in the split's query list, first 'q9'"),
    (pd.DataFrame({"query_id": ["q1"], "passage_id": ["p"], "grade": [1]}), ["q1", "q1"],
     r"query 'q1' is listed more than once"),
])
def test_bad_content_names_source_and_problem(frame, queries, match):
    with pytest.raises(InputError, match=match) as info:
        split_content("golden", frame, queries, source="golden.tsv")
    assert info.value.source in ("golden.tsv", "query_ids")


def test_empty_split_and_bad_names_are_refused(qrels):
    with pytest.raises(InputError, match="at least one query"):
        split_content("golden", qrels.iloc[:0])
    for bad in ["", "has space", "../escape", "a/b", "-dash"]:
        with pytest.raises(InputError, match="split name"):
            split_content(bad, qrels)


def test_parse_split_id():
    hexd = "ab" * 32
    assert parse_split_id(f"prod-2026Q2@sha256:{hexd}") == ("prod-2026Q2", hexd)
    with pytest.raises(InputError, match=r"manifest.json \[split_id\].*not a split id"):
        parse_split_id("golden@sha256:e5b2", source="manifest.json")
