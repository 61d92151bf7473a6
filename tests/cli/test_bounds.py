"""``ragnb bounds`` on the demo and the real data; bad input is one line on stderr, exit 2."""
import json

import pytest

from ragnb.cli import main
from tests.labelbias.demo_data import CONFIGS, demo_dir


def demo_args():
    d = demo_dir()
    runs = [x for c in CONFIGS for x in ("--run", str(d / "runs" / f"{c}.trec"))]
    return ["bounds", "--test-set", str(d / "testset.jsonl"), *runs, "--metric", "rr@10"]


def test_demo_table_and_verdicts(capsys):
    assert main([*demo_args(), "--baseline", "m0_r1", "--by", "intent", "--resamples",
                 "2000"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # the answer first, as Finding.to_text() prints it: question, answer, Next, Verdict
    assert lines[0] == "Is the answer key biased?"
    assert lines[1].startswith("Labels decide for 1 of 5 challengers: m1_r1 gains")
    assert any(ln.startswith("Next: Judge the pooled unjudged passages") for ln in lines[:20])
    assert "Verdict: labels decide: 1 of 5" in lines[:24]
    assert "Pooling assumption" in out
    assert "bound_min: bound: exact minimum" in out and "condensed: policy" in out
    start = next(i for i, ln in enumerate(lines) if ln.startswith("challenger  current"))
    rows = {ln.split()[0]: ln for ln in lines[start + 2:start + 7]}
    # m2_r1 is ahead under every labelling (conservative mean > 0): more queries decide it
    assert "labels decide" in rows["m1_r1"] and "more queries decide" in rows["m2_r1"]
    # rejected: m0_r2's optimistic interval lies below zero, m1_r2's and m2_r2's include it
    assert "cannot win" in rows["m0_r2"]
    for c in ("m1_r2", "m2_r2"):
        assert "not shown to win" in rows[c]
    assert "per-query bounds joint" in " ".join(out.split())        # the default since #23
    # metric values and differences in points, the unit stated in each table's caption
    assert "rr@10 in points (metric × 100): challenger − m0_r1" in out
    assert "rr@10 in points (metric × 100): unjudged share" in out
    # points, not -0.0035; the headline interval, as 01-fit prints this pair (issue 33 #7)
    assert rows["m1_r1"].split()[1:3] == ["-0.3", "[-4.4,"]
    # no NaN, no header line longer than the terminal's text width
    assert "NaN" not in out and "nan" not in out.split()
    assert max(len(ln) for ln in lines if not ln.startswith(("-", "config", "challenger",
                                                             "m", "["))) <= 100


def test_text_in_points_csv_in_fractions(capsys, tmp_path):
    assert main([*demo_args(), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert main(demo_args()) == 0
    out = capsys.readouterr().out
    first = rows[0]
    row = next(ln.split() for ln in out.splitlines() if ln.split()[:1] == [first["config"]])
    # the text row shows the JSON's 0-1 values x 100 (two decimals)
    assert f"{first['lower'] * 100:.1f}" in row and f"{first['bound_max'] * 100:.1f}" in row
    assert f"{first['unjudged_share']:.1%}" in row
    assert 0 <= first["lower"] <= 1


def test_demo_json(capsys):
    assert main([*demo_args(), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["config"] for r in rows] == list(CONFIGS)
    assert {"unjudged_share", "lower", "condensed", "upper", "bound_min", "bound_max"} <= set(
        rows[0])


@pytest.mark.parametrize("extra, message", [
    (["--metric", "nope@10"], "unknown metric 'nope'"),
    (["--baseline", "zzz"], "unknown baseline 'zzz'"),
    (["--top-grade", "1"], "top_grade 1 is below the highest judged grade 2"),
    (["--by", "missing_column"], "[missing_column]: choose a stratum column with --by"),
])
def test_bad_input_one_line_exit_2(capsys, extra, message):
    assert main([*demo_args(), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("ragnb bounds: ")


def test_missing_file(capsys, tmp_path):
    assert main(["bounds", "--test-set", str(tmp_path / "none.jsonl"), "--run",
                 str(tmp_path / "r.trec")]) == 2
    assert "file not found" in capsys.readouterr().err


@pytest.mark.realdata
def test_real_data_codec_and_cast(capsys, real_data):
    codec = real_data / "codec"
    runs = ["--run", f"bm25={codec}/system_runs/runs/document_bm25-tuned.run.gz",
            "--run", f"bm25_t5={codec}/system_runs/runs/document_bm25-tuned+t5-maxp.run.gz"]
    assert main(["bounds", "--test-set", str(codec / "qrels/document_ndcg.qrels"), *runs,
                 "--metric", "ndcg@10", "--order", "score", "--baseline", "bm25",
                 "--resamples", "1000"]) == 0
    assert "bm25_t5" in capsys.readouterr().out
    cast = real_data / "trec-cast-2021/2021"
    assert main(["bounds", "--test-set", str(cast / "trec-cast-qrels-docs.2021.qrel"),
                 "--run", f"{cast}/baselines/document_runs/org_convdr.run.gz",
                 "--run", f"{cast}/baselines/document_runs/org_manual_bm25.run.gz",
                 "--metric", "ndcg@10", "--order", "score"]) == 2      # 81 turns unjudged
    assert "not in the test set" in capsys.readouterr().err
    assert main(["bounds", "--test-set", str(cast / "trec-cast-qrels-docs.2021.qrel"),
                 "--run", f"{cast}/baselines/document_runs/org_convdr.run.gz",
                 "--run", f"{cast}/baselines/document_runs/org_manual_bm25.run.gz",
                 "--metric", "ndcg@10", "--order", "score", "--extra", "drop",
                 "--baseline", "org_manual_bm25", "--joint", "--resamples", "1000"]) == 0
    out = capsys.readouterr().out
    assert "org_convdr" in out and "dropped_run_queries" in out



@pytest.mark.parametrize(("flag", "kind"), [((), "joint"), (("--separate",), "separate")])
def test_joint_bounds_by_default_separate_on_request(capsys, flag, kind):
    """The verdict's method names the bounds its intervals used, joint unless --separate."""
    assert main([*demo_args(), "--baseline", "m0_r1", "--challenger", "m1_r1",
                 "--resamples", "200", *flag]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"per-query bounds {kind}" in out
    assert f"per-query bounds {'separate' if kind == 'joint' else 'joint'}" not in out
