"""The test-set health demo files (seed 004): byte-identical regeneration and their figures.

Each figure is derived from the files with plain csv/json code and from the
generator's stated design, then compared with what :mod:`ragnb.health` reports.
"""
import csv
import hashlib
import json
import shutil

import pandas as pd
import pytest

from ragnb.demo import health as demo
from ragnb.health import coverage, holdout_check, holdout_split, staleness, version_diff
from ragnb.io import read_corpus, read_run, read_test_set
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from ragnb.workspace.splits import read_round_runs

FILES = ("corpus.csv", "health/production-v1.jsonl", "health/champion-with-holdout.jsonl")


def jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def corpus_rows():
    with open(DEMO_DIR / "corpus.csv", newline="") as fh:
        return {r["passage_id"]: r for r in csv.DictReader(fh)}


@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path):
    for name in ("golden.jsonl", "production.jsonl", "production_strata.csv"):
        shutil.copy(DEMO_DIR / name, tmp_path / name)
    shutil.copytree(DEMO_DIR / "runs", tmp_path / "runs")
    written = demo.generate(tmp_path)
    assert sorted(str(p.relative_to(tmp_path)) for p in written) == sorted(FILES)
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (DEMO_DIR / name).read_bytes(), name


def test_coverage_below_one_by_the_removed_answers():
    rows = corpus_rows()
    answerable = [q for q in jsonl(DEMO_DIR / "production.jsonl") if not q["unanswerable"]]
    gone = [q["query_id"] for q in answerable
            if not any(j["grade"] == 2 and j["passage_id"] in rows for j in q["judgments"])]
    assert len(answerable) == 173 and len(gone) == demo.REMOVED_ANSWERS == 6
    cov = coverage(read_test_set(DEMO_DIR / "production.jsonl"),
                   read_corpus(DEMO_DIR / "corpus.csv"))
    assert (cov.n_covered, cov.n_answerable) == (173 - 6, 173)
    assert sorted(cov.uncovered()["query_id"]) == sorted(gone)
    assert cov.counts["unanswerable"] == 27


def test_versions_follow_the_design_and_staleness_matches_a_plain_join():
    rows = corpus_rows()
    by_doc = {}
    for r in rows.values():
        by_doc.setdefault(r["doc_id"], set()).add(r["doc_version"])
    assert all(len(v) == 1 for v in by_doc.values())           # one version per document
    edited = pd.Series([v.pop() for v in by_doc.values()]).value_counts().to_dict()
    assert {k: n for k, n in edited.items() if k != demo.BASE_VERSION} == {"2026-04-02": 3,
                                                                        "2026-06-15": 4}
    for split in ("production", "golden"):
        expected = {"current": 0, "stale": 0, "removed": 0}
        for query in jsonl(DEMO_DIR / f"{split}.jsonl"):
            for j in query["judgments"]:
                row = rows.get(j["passage_id"])
                # ISO dates of one format order as strings
                kind = ("removed" if row is None else
                        "stale" if j["doc_version"] < row["doc_version"] else "current")
                expected[kind] += 1
        got = staleness(read_test_set(DEMO_DIR / f"{split}.jsonl"),
                        read_corpus(DEMO_DIR / "corpus.csv")).counts().set_index("status")
        assert {k: int(got.loc[k, "judgments"]) for k in expected} == expected, split
    assert expected["stale"] > 0 and expected["removed"] > 0


def test_production_v1_is_production_without_the_later_query_kinds():
    with open(DEMO_DIR / "production_strata.csv", newline="") as fh:
        kinds = {r["query_id"]: r["query_type"] for r in csv.DictReader(fh)}
    v1 = (DEMO_DIR / "health" / "production-v1.jsonl").read_text().splitlines()
    v2 = (DEMO_DIR / "production.jsonl").read_text().splitlines()
    assert v1 == [line for line in v2 if kinds[json.loads(line)["query_id"]]
                  in ("in_scope_single_turn", "follow_up")]
    assert len(v1) == 118 + 41


def test_version_diff_v1_to_v2():
    old = read_test_set(DEMO_DIR / "health" / "production-v1.jsonl")
    new = read_test_set(DEMO_DIR / "production.jsonl")
    runs = read_round_runs(DEMO_DIR / "runs" / "production", ["round-00", "round-40"])
    d = version_diff(old, new, runs, "ndcg@10", resamples=500)
    assert d.counts() == {"added": 27 + 14, "removed": 0, "rejudged": 0, "unchanged": 159}
    t = d.table.set_index("config")
    assert (t["rejudging"] == 0).all() and (t["added_no_relevant"] == 27).all()
    assert t.loc["round-00", "new"] == pytest.approx(0.498, abs=5e-4)     # seed 000's figure
    assert t["harder"].all()


def test_version_diff_of_the_label_bias_key():
    from ragnb.labelbias import merge_judgments
    v4 = read_test_set(DEMO_DIR / "labelbias" / "testset.jsonl")
    labels = pd.read_csv(DEMO_DIR / "labelbias" / "pooled_labels.csv", dtype=str)
    v5, counts = merge_judgments(v4, labels, name="v5")
    runs = [read_run(DEMO_DIR / "labelbias" / "runs" / f"{c}.trec") for c in ("m0_r1", "m2_r1")]
    d = version_diff(v4, v5, runs, "rr@10", resamples=500)
    assert d.counts()["rejudged"] == counts.queries_touched == 164
    t = d.table.set_index("config")
    assert t.loc["m0_r1", "difference"] == 0     # its passages were all judged already
    assert t.loc["m2_r1", "rejudging"] > 0.02    # seed 003: KURE gains once its finds are judged


def test_the_held_back_counterfactual_diverges():
    ids = [q["query_id"] for q in jsonl(DEMO_DIR / "golden.jsonl")]
    held = {i for i in ids if int.from_bytes(hashlib.sha256(
        f"golden\x00{i}".encode()).digest()[:8], "big") / 2**64 < 0.2}
    mixed = (DEMO_DIR / "health" / "champion-with-holdout.jsonl").read_text().splitlines()
    r09 = (DEMO_DIR / "runs" / "golden" / "round-09.jsonl").read_text().splitlines()
    r40 = (DEMO_DIR / "runs" / "golden" / "round-40.jsonl").read_text().splitlines()
    for line, a, b, qid in zip(mixed, r09, r40, ids):
        assert line == (a if qid in held else b)
    golden = read_test_set(DEMO_DIR / "golden.jsonl")
    runs = [read_run(DEMO_DIR / "runs" / "golden" / "round-00.jsonl"),
            read_run(DEMO_DIR / "health" / "champion-with-holdout.jsonl")]
    split = holdout_split(golden.query_ids, salt="golden")
    assert set(split.held_back) == held
    check = holdout_check(score(golden, runs, "ndcg@10"), split, config="champion-with-holdout",
                          baseline="round-00", metric="ndcg@10", resamples=2000)
    assert check.diverged and check.result.delta < -0.05
