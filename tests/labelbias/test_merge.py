"""Merging new judgments: a new version, a record, conflicts listed; the bounds collapse."""
import hashlib
import json
from datetime import UTC, datetime

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io import read_test_set
from ragnb.labelbias import label_bounds, merge_files, merge_judgments, record_path

from ._brute import make_test_set
from .demo_data import CONFIGS, demo_dir, loaded


def test_merge_adds_counts_and_keeps_repeats_once():
    ts = make_test_set({"q1": {"a": 1, "b": 0}, "q2": {"c": 2}})
    new = pd.DataFrame([("q1", "a", 1), ("q1", "u", 2), ("q2", "v", 0)],
                       columns=["query_id", "passage_id", "grade"])
    merged, counts = merge_judgments(ts, new)
    assert (counts.added, counts.already_present, counts.new_relevant) == (2, 1, 1)
    assert (counts.base_judgments, counts.merged_judgments, counts.queries_touched) == (3, 5, 2)
    assert len(ts.judgments) == 3                       # the old version is untouched
    got = merged.judgments.set_index(["query_id", "passage_id"])["grade"].to_dict()
    assert got == {("q1", "a"): 1, ("q1", "b"): 0, ("q2", "c"): 2, ("q1", "u"): 2,
                   ("q2", "v"): 0}


def test_conflicts_are_an_error_listing_them():
    ts = make_test_set({"q1": {"a": 1, "b": 0}})
    new = pd.DataFrame([("q1", "a", 2), ("q1", "b", 1), ("q1", "c", 0)],
                       columns=["query_id", "passage_id", "grade"])
    with pytest.raises(InputError) as err:
        merge_judgments(ts, new)
    msg = str(err.value)
    assert "2 conflicting judgment(s)" in msg
    assert "(q1, a) old grade 1 at line 1, new grade 2 at line 1" in msg
    assert "(q1, b) old grade 0 at line 2, new grade 1 at line 2" in msg


def test_unknown_queries_are_an_error():
    ts = make_test_set({"q1": {"a": 1}})
    new = pd.DataFrame([("q9", "a", 1)], columns=["query_id", "passage_id", "grade"])
    with pytest.raises(InputError, match=r"1 query not in the test set 't': q9$"):
        merge_judgments(ts, new)


def test_merge_files_writes_a_new_version_and_a_record(tmp_path):
    base = tmp_path / "v4.jsonl"
    base.write_text('{"query_id": "q1", "query": "what?", "judgments": '
                    '[{"passage_id": "a", "grade": 1, "doc_version": "d1"}]}\n')
    labels = tmp_path / "new.csv"
    labels.write_text("query_id,passage_id,grade,doc_version\nq1,u,2,d2\n")
    before = base.read_bytes()
    out = tmp_path / "v5.jsonl"
    when = datetime(2026, 7, 29, 12, 0, tzinfo=UTC)
    rec = merge_files(base, labels, out, now=when)
    assert base.read_bytes() == before
    row = json.loads(out.read_text())
    assert row["query"] == "what?"
    assert row["judgments"] == [{"passage_id": "a", "grade": 1, "doc_version": "d1"},
                                {"passage_id": "u", "grade": 2, "doc_version": "d2"}]
    saved = json.loads(record_path(out).read_text())
    assert saved["base_sha256"] == hashlib.sha256(before).hexdigest()
    assert saved["output_sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert saved["labels_sha256"] == hashlib.sha256(labels.read_bytes()).hexdigest()
    assert saved["merged_at"] == "2026-07-29T12:00:00+00:00"
    assert saved["counts"]["added"] == 1 and rec.counts.new_relevant == 1
    with pytest.raises(InputError, match="the output exists"):
        merge_files(base, labels, out)
    with pytest.raises(InputError, match="would overwrite an input"):
        merge_files(base, labels, base)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.csv", "v4.jsonl", "v5.jsonl",
                                                          "v5.jsonl.merge.json"]


def test_demo_bounds_collapse_after_merging_the_pooled_labels(tmp_path):
    """Seed 003 §6: after merging, unjudged share 0 and lower = condensed = upper for every
    config; KURE+R1's gain over e5+R1 grows from about +0.0068 to about +0.0297."""
    _, runs = loaded()
    d = demo_dir()
    rec = merge_files(d / "testset.jsonl", d / "pooled_labels.csv", tmp_path / "v5.jsonl")
    assert (rec.counts.added, rec.counts.new_relevant) == (2105, 42)     # seed 003 §4
    assert rec.counts.merged_judgments == 8856                            # seed 003 §5
    v5 = read_test_set(tmp_path / "v5.jsonl")
    t = label_bounds(v5, runs, "rr@10").summary().set_index("config")
    assert (t["unjudged_share"] == 0).all()
    for col in ("condensed", "upper", "bound_min", "bound_max"):
        assert (t[col] - t["lower"]).abs().max() < 1e-12, col
    before = label_bounds(read_test_set(d / "testset.jsonl"), runs, "rr@10").summary().set_index(
        "config")
    gain_before = before.loc["m2_r1", "lower"] - before.loc["m0_r1", "lower"]
    gain_after = t.loc["m2_r1", "lower"] - t.loc["m0_r1", "lower"]
    assert gain_before == pytest.approx(0.0068, abs=0.002)
    assert gain_after == pytest.approx(0.0297, abs=0.002)
    assert t.loc["m0_r1", "lower"] == pytest.approx(before.loc["m0_r1", "lower"], abs=1e-12)
    assert list(t.index) == list(CONFIGS)
