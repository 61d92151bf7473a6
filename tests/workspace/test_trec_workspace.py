"""Done when (issue 25): from one qrels file, a folds file and a folder of runs named as TREC
archives (``input.<tag>.gz``), ``ragnb init`` + ``ragnb report --all`` make the four-cell,
trajectory, strata and label-bias reports in two commands, no script or hand edit; and
``ndcg@10`` in the TREC-initialised workspace is trec_eval's ``ndcg_cut_10`` (pytrec_eval).

TREC CAsT 2021: 158 judged turns, the five baseline document runs, the automatic topics JSON
(a list of conversations) as strata. Slow (four notebooks), 200 resamples.
"""
from __future__ import annotations

import gzip
import io
import json
import re
import shutil
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ragnb.cli import main
from ragnb.io import read_test_set

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is a test extra")

pytestmark = [pytest.mark.slow, pytest.mark.realdata]

ROUNDS = ("org_manual_bm25", "org_convdr", "org_convdr_bert")


def cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def made(real_data, tmp_path_factory):
    base = real_data / "trec-cast-2021" / "2021"
    qrels = base / "trec-cast-qrels-docs.2021.qrel"
    tmp = tmp_path_factory.mktemp("trec-workspace")
    (tmp / "runs").mkdir()
    for run in sorted((base / "baselines" / "document_runs").glob("*.run.gz")):
        shutil.copy(run, tmp / "runs" / f"input.{run.name.removesuffix('.run.gz')}.gz")
    # two folds by conversation: every other conversation is golden
    ids = list(read_test_set(qrels).query_ids)
    conversations = sorted({q.split("_")[0] for q in ids}, key=int)
    golden = set(conversations[::2])
    (tmp / "folds.json").write_text(json.dumps({
        "golden": [q for q in ids if q.split("_")[0] in golden],
        "production": [q for q in ids if q.split("_")[0] not in golden]}))
    code, said, err = cli("init", tmp / "ws", "--test-set", qrels, "--folds", tmp / "folds.json",
                          "--runs", str(tmp / "runs" / "input.*.gz"), "--strata",
                          base / "2021_automatic_evaluation_topics_v1.0.json.gz",
                          "--rounds", ",".join(ROUNDS))
    assert code == 0, err
    code, _, err = cli("report", "--all", "--workspace", tmp / "ws", "--out", tmp / "reports",
                       "-p", "resamples=200")
    assert code == 0, err
    return tmp, qrels, said + err


def test_two_commands_make_the_four_reports(made):
    tmp, _, said = made
    assert "stratum column: turn (test sets golden, production: 11 values" in said
    assert "conversation (19 values, median 8 queries)" in said        # the alternative
    for slug in ("01-fit", "02-trajectory", "03-strata", "04-label-bias"):
        page = (tmp / "reports" / f"{slug}.html").read_text()
        assert "org_convdr" in page, slug                           # configs from input.<tag>.gz
        assert "ndcg@10 (linear gain g)" in page, slug               # the gain, named
    for skipped in ("05-ledger: skipped: no split ledger", "06-health: skipped: no corpus build",
                    "07-code-tasks: skipped: no code-task files"):
        assert skipped in said


def test_ndcg_at_10_is_trec_evals_ndcg_cut_10(made):
    from ragnb.metrics.score import score
    from ragnb.workspace import open_workspace

    tmp, qrels, _ = made
    ws = open_workspace(tmp / "ws")
    metric = ws.setting("strata", "metric")
    assert metric == "ndcg@10(gain=linear)"
    with open(qrels) as fh:
        qrel_dict = pytrec_eval.parse_qrel(fh)
    baseline, challenger = ws.pair("strata")
    means = {}
    for config in (baseline, challenger):
        ours = score(ws.test_set("production"), ws.runs("production", [config]), [metric],
                     **ws.score_options).values(config, metric)
        run = ws.manifest.test_sets["production"].runs[config]
        with gzip.open(run, "rt") as fh:
            run_dict = {q: d for q, d in pytrec_eval.parse_run(fh).items() if q in ours.index}
        theirs = pytrec_eval.RelevanceEvaluator(
            {q: qrel_dict[q] for q in ours.index}, {"ndcg_cut"}).evaluate(run_dict)
        assert set(theirs) == set(ours.index) and len(theirs) == 81
        for qid, value in ours.items():
            assert value == pytest.approx(theirs[qid]["ndcg_cut_10"], abs=1e-12), (config, qid)
        means[config] = sum(r["ndcg_cut_10"] for r in theirs.values()) / len(theirs)
    # the strata page's pooled difference is pytrec_eval's, in points
    page = (tmp / "reports" / "03-strata.html").read_text()
    pooled = re.search(r"Pooled:</strong> ([+−-]?[\d.]+) points", page)
    assert pooled and float(pooled.group(1).replace("−", "-")) == pytest.approx(
        (means[challenger] - means[baseline]) * 100, abs=0.05)   # shown at one decimal
