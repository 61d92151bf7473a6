"""``ragnb convert`` (every --out writes its suffix's format) and ``ragnb init``."""
from __future__ import annotations

import gzip

import pandas as pd
import pytest

from ragnb.cli import main
from ragnb.io import read_run, read_test_set
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from ragnb.workspace import open_workspace

LB = DEMO_DIR / "labelbias"


def judgments(ts):
    return sorted(zip(ts.judgments["query_id"], ts.judgments["passage_id"],
                      ts.judgments["grade"]))


@pytest.mark.parametrize("suffix, first_fields", [
    (".qrels", 4), (".qrels.gz", 4), (".jsonl", None), (".csv", None), (".tsv", None),
    (".parquet", None)])
def test_test_set_round_trips_through_every_format(tmp_path, suffix, first_fields, capsys):
    src = LB / "testset.jsonl"
    out = tmp_path / f"t{suffix}"
    assert main(["convert", str(src), "--out", str(out)]) == 0
    assert "test set testset" in capsys.readouterr().out
    if first_fields:
        opener = gzip.open if suffix.endswith(".gz") else open
        with opener(out, "rt") as fh:
            assert len(fh.readline().split()) == first_fields   # trec_eval reads it
    assert judgments(read_test_set(out)) == judgments(read_test_set(src))


@pytest.mark.parametrize("suffix", [".run", ".jsonl", ".csv", ".parquet", ".trec.gz"])
def test_run_round_trips_with_the_same_ranking_and_scores(tmp_path, suffix):
    src = LB / "runs" / "m1_r2.trec"
    out = tmp_path / f"m1_r2{suffix}"
    assert main(["convert", str(src), "--out", str(out)]) == 0
    ts = read_test_set(LB / "testset.jsonl")
    a = score(ts, read_run(src), ["rr@10", "ndcg@10"]).table
    b = score(ts, read_run(out), ["rr@10", "ndcg@10"]).table
    pd.testing.assert_frame_equal(a, b)


def test_a_jsonl_run_written_as_trec_keeps_its_order_for_trec_eval(tmp_path):
    src = DEMO_DIR / "runs" / "golden" / "round-07.jsonl"
    out = tmp_path / "r.run"
    assert main(["convert", str(src), "--out", str(out)]) == 0
    first = out.read_text().splitlines()[:2]
    assert [line.split()[3:5] for line in first] == [["1", "10.0"], ["2", "9.0"]]  # n - rank + 1
    original, back = read_run(src), read_run(out)           # back: by score (trec_eval)
    assert back.order == "score"
    assert original.table["passage_id"].tolist() == back.table["passage_id"].tolist()


def test_unknown_suffix_and_overwriting_the_input_are_errors(tmp_path, capsys):
    assert main(["convert", str(LB / "testset.jsonl"), "--out", str(tmp_path / "x.dat")]) == 2
    assert "cannot tell the format from the suffix '.dat'" in capsys.readouterr().err
    copy = tmp_path / "t.jsonl"
    copy.write_bytes((LB / "testset.jsonl").read_bytes())
    assert main(["convert", str(copy), "--out", str(copy)]) == 2
    assert "would overwrite the input" in capsys.readouterr().err


def test_pool_merge_out_qrels_writes_trec_qrels(tmp_path, capsys):
    out = tmp_path / "v5.qrels"
    assert main(["pool", "merge", "--test-set", str(LB / "testset.jsonl"), "--labels",
                 str(LB / "pooled_labels.csv"), "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert all(len(line.split()) == 4 and line.split()[1] == "0" for line in lines)
    as_jsonl = tmp_path / "v5.jsonl"
    assert main(["pool", "merge", "--test-set", str(LB / "testset.jsonl"), "--labels",
                 str(LB / "pooled_labels.csv"), "--out", str(as_jsonl)]) == 0
    assert judgments(read_test_set(out)) == judgments(read_test_set(as_jsonl))


def test_init_scaffolds_a_workspace_from_qrels_and_a_folder_of_runs(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    assert main(["convert", str(LB / "testset.jsonl"), "--out", str(qrels)]) == 0
    runs = tmp_path / "runs"
    runs.mkdir()
    for c in ("m0_r1", "m2_r1"):
        (runs / f"{c}.run").write_bytes((LB / "runs" / f"{c}.trec").read_bytes())
    topics = tmp_path / "topics.tsv"      # header-less, wider than the test set
    ids = read_test_set(qrels).query_ids
    topics.write_text("".join(f"{q}\t{'even' if i % 2 else 'odd'}\n" for i, q in enumerate(ids))
                      + "not-judged\todd\n")
    capsys.readouterr()
    ws_dir = tmp_path / "ws"
    assert main(["init", str(ws_dir), "--test-set", str(qrels), "--runs", str(runs / "*.run"),
                 "--strata", str(topics), "--strata-columns", "query_id,kind"]) == 0
    said = capsys.readouterr().out
    assert "2 runs: m0_r1, m2_r1" in said
    assert "1 not in the test set (counted in a note)" in said
    assert "stratum column: kind" in said
    assert "report strata: runs" in said and "report fit: skipped (needs two test sets" in said
    ws = open_workspace(ws_dir)
    assert ws.configs("qrels") == ["m0_r1", "m2_r1"]
    assert (ws.setting("strata", "baseline"), ws.setting("strata", "challenger")) == \
        ("m0_r1", "m2_r1")
    manifest = (ws_dir / "ragnb.toml").read_text()
    assert 'columns = ["query_id", "kind"]' in manifest and 'extra = "error"' in manifest
    # a second init refuses to overwrite; a bad file is an error naming it, no manifest left
    assert main(["init", str(ws_dir), "--test-set", str(qrels)]) == 2
    assert "pass --force" in capsys.readouterr().err
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 d1 high\n")
    assert main(["init", str(tmp_path / "ws2"), "--test-set", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "grade 'high'" in err
    assert not (tmp_path / "ws2" / "ragnb.toml").exists()


def test_init_help_documents_every_manifest_key(capsys):
    from ragnb.workspace.manifest import SECTIONS

    with pytest.raises(SystemExit):
        main(["init", "--help"])
    text = capsys.readouterr().out
    for section, keys in SECTIONS.items():
        assert f"[{section}]" in text
        assert all(k in text for k in keys)


def test_score_by_column_gives_per_stratum_means_of_the_per_query_values(tmp_path):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    def run(*args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            assert main([str(a) for a in args]) == 0, err.getvalue()
        return out.getvalue(), err.getvalue()

    ts, r = DEMO_DIR / "production.jsonl", DEMO_DIR / "runs" / "production" / "round-40.jsonl"
    strata = tmp_path / "kinds.tsv"      # header-less, plus two queries the test set lacks
    lines = (DEMO_DIR / "production_strata.csv").read_text().splitlines()[1:]
    strata.write_text("".join(f"{line.split(',')[0]}\t{line.split(',')[1]}\n" for line in lines)
                      + "zz1\tx\nzz2\tx\n")
    out, err = run("score", "--judgments", ts, "--run", f"c={r}", "--metric", "ndcg@10",
                   "--strata", strata, "--strata-columns", "query_id,query_type", "--by",
                   "query_type", "--format", "csv")
    assert "strata_outside_test_set: 2" in err
    by = pd.read_csv(io.StringIO(out)).set_index("query_type")
    per_query, _ = run("score", "--judgments", ts, "--run", f"c={r}", "--metric", "ndcg@10",
                       "--per-query", "--format", "csv")
    values = pd.read_csv(io.StringIO(per_query)).set_index("query_id")["value"]
    kinds = pd.read_csv(DEMO_DIR / "production_strata.csv").set_index("query_id")["query_type"]
    expected = values.groupby(kinds.reindex(values.index)).agg(["size", "mean"])
    assert by["n"].to_dict() == expected["size"].to_dict()      # 118 / 41 / 27 / 14
    assert by["mean"].to_dict() == pytest.approx(expected["mean"].to_dict(), abs=1e-12)
    # the workspace gives the same per-stratum means from its manifest
    out_ws, _ = run("score", "--workspace", DEMO_DIR, "--split", "production", "--config",
                    "round-40", "--metric", "ndcg@10", "--by", "query_type", "--format", "csv")
    ws_by = pd.read_csv(io.StringIO(out_ws)).set_index("query_type")
    assert ws_by["mean"].to_dict() == pytest.approx(by["mean"].to_dict(), abs=1e-12)


def test_score_prints_the_order_note_and_ranks_by_score(tmp_path, capsys):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 a 1\nq2 0 c 1\n")
    run = tmp_path / "r.run"      # q1: the rank column puts b (score 1) above a (score 9)
    run.write_text("q1 Q0 a 2 9.0 t\nq1 Q0 b 1 1.0 t\nq2 Q0 c 1 5.0 t\n")
    assert main(["score", "--judgments", str(qrels), "--run", str(run), "--metric", "rr@10"]) == 0
    out = capsys.readouterr().out
    assert "# note: rank_disagrees: 1 of 2 — run r:" in out and "ranking order score" in out
    assert "100.00" in out           # a ranked first: rr = 1 (100 points) on both
    assert main(["score", "--judgments", str(qrels), "--run", str(run), "--metric", "rr@10",
                 "--order", "rank"]) == 0
    assert "75.00" in capsys.readouterr().out     # (1/2 + 1) / 2 = 0.75 in rank order, in points


@pytest.mark.parametrize("suffix, check", [
    (".csv", lambda text: text.startswith("config,metric,mean")),
    (".tsv", lambda text: text.startswith("config\tmetric\tmean")),
    (".json", lambda text: text.lstrip().startswith("[")),
    (".txt", lambda text: text.startswith("# test set")),
])
def test_score_out_writes_the_format_its_suffix_names(tmp_path, suffix, check):
    out = tmp_path / f"means{suffix}"
    assert main(["score", "--judgments", str(LB / "testset.jsonl"), "--run",
                 str(LB / "runs" / "m0_r1.trec"), "--metric", "rr@10", "--out", str(out)]) == 0
    assert check(out.read_text())
