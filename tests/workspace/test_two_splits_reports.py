"""The four-cell and trajectory reports on a workspace made by ``ragnb init`` from qrels
and TREC runs (two test sets, rounds), with no demo file in sight (slow)."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ragnb.cli import main
from ragnb.paths import DEMO_DIR

pytestmark = pytest.mark.slow
ROUNDS = ("round-00", "round-20", "round-40")


def cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("two-splits")
    for split in ("golden", "production"):
        cli("convert", DEMO_DIR / f"{split}.jsonl", "--out", tmp / f"{split}.qrels")
        (tmp / split).mkdir()
        for c in ROUNDS:
            cli("convert", DEMO_DIR / "runs" / split / f"{c}.jsonl", "--out",
                tmp / split / f"{c}.trec")
    said = cli("init", tmp / "ws", "--test-set", f"golden={tmp / 'golden.qrels'}",
               "--test-set", f"production={tmp / 'production.qrels'}",
               "--runs", str(tmp / "golden" / "*.trec"),
               "--runs", str(tmp / "production" / "*.trec"),
               "--rounds", ",".join(ROUNDS), "--baseline", "round-00", "--challenger", "round-40")
    assert "report fit: runs" in said and "report trajectory: runs" in said
    return tmp


def test_four_cell_and_trajectory_from_qrels_and_trec_runs(workspace, tmp_path):
    from ragnb.report.runner import build_reports

    results = {r.name: r for r in build_reports(["fit", "trajectory"], {"resamples": 200},
                                                workspace=workspace / "ws", out_dir=tmp_path)}
    assert all(r.ok for r in results.values()), [r.message for r in results.values()]
    means = {}
    for split in ("golden", "production"):
        out = cli("score", "--judgments", workspace / f"{split}.qrels", "--order", "score",
                  "--run", f"a={workspace / split / 'round-00.trec'}",
                  "--run", f"b={workspace / split / 'round-40.trec'}",
                  "--metric", "ndcg_cut_10", "--format", "json")   # init on qrels: linear gain
        means[split] = {r["config"]: r["mean"] for r in json.loads(out)}
    page = results["01-fit"].html_path.read_text()
    gain = (means["production"]["b"] - means["production"]["a"]) * 100
    assert f"<strong>Honest gain:</strong> {gain:+.1f} points" in page
    for text in ("data/demo", str(DEMO_DIR), "January baseline"):   # no demo path or name
        assert text not in page and text not in results["02-trajectory"].html_path.read_text()
