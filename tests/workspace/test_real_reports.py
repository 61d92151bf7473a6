"""End to end on public data: ``ragnb init`` then ``ragnb report --all`` (slow, real data).

CODEC (qrels, 8 document runs, topics.json domains) and TREC CAsT 2021 (qrels,
5 baseline runs over 239 turns of which 158 are judged, and a header-less turn
annotation TSV covering all 239) each become a workspace with ``ragnb init``.
``report --all`` must produce the strata and label-bias reports from that data
only (provenance lists only workspace files, no demo text, path or ledger),
skip the others with their reasons, and show the figures ``ragnb score
--order score`` gives on the same files.
"""
from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import nbformat
import pytest

from ragnb.cli import main
from ragnb.io import read_run
from ragnb.paths import DEMO_DIR, REAL_DATA_DIR

pytestmark = [pytest.mark.slow, pytest.mark.realdata]

SKIPPED = {"01-fit": "needs two test sets", "02-trajectory": "no rounds of champions",
           "05-ledger": "no split ledger", "06-health": "no corpus build",
           "07-code-tasks": "no code-task files"}
PRODUCED = ("03-strata", "04-label-bias")


def cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def codec_workspace(root: Path, tmp: Path) -> tuple[Path, list]:
    runs = sorted((root / "system_runs" / "runs").glob("document_*.run.gz"))
    code, out, err = cli("init", tmp / "codec", "--test-set", root / "qrels/document_ndcg.qrels",
                         "--runs", *runs, "--strata", root / "topics/topics.json")
    assert code == 0, err
    assert "stratum column: Domain" in out
    return tmp / "codec", [root / "qrels/document_ndcg.qrels"]


def cast_workspace(root: Path, tmp: Path) -> tuple[Path, list]:
    base = root / "2021"
    runs = sorted((base / "baselines" / "document_runs").glob("*.run.gz"))
    turns = sorted(set().union(*(set(read_run(r).query_ids) for r in runs)))
    annotations = tmp / "cast-turns.tsv"     # header-less: query id, turn number
    annotations.write_text("".join(f"{q}\t{int(q.rsplit('_', 1)[1]):02d}\n" for q in turns))
    code, out, err = cli("init", tmp / "cast", "--test-set",
                         base / "trec-cast-qrels-docs.2021.qrel", "--runs",
                         str(base / "baselines" / "document_runs" / "*.run.gz"),
                         "--strata", annotations, "--strata-columns", "query_id,turn",
                         "--by", "turn")
    assert code == 0, err
    assert "81 not in the test set (counted in a note)" in out     # 239 turns, 158 judged
    assert ('extra = "drop"' in out
            or "extra = \"drop\"" in (tmp / "cast" / "ragnb.toml").read_text())
    return tmp / "cast", [base / "trec-cast-qrels-docs.2021.qrel"]


@pytest.fixture(scope="module", params=["codec", "cast"])
def built(request, tmp_path_factory):
    if not REAL_DATA_DIR.is_dir():
        pytest.skip(f"real benchmark data not found at {REAL_DATA_DIR}")
    from ragnb.report.runner import build_reports

    tmp = tmp_path_factory.mktemp(request.param)
    make = codec_workspace if request.param == "codec" else cast_workspace
    ws, _ = make(REAL_DATA_DIR / ("codec" if request.param == "codec" else "trec-cast-2021"), tmp)
    results = build_reports(None, {"resamples": 200}, workspace=ws, out_dir=tmp / "reports")
    return request.param, ws, {r.name: r for r in results}


def scores_by_cli(ws: Path, metric: str) -> dict[str, float]:
    """Means from `ragnb score --order score` on the workspace's own files."""
    from ragnb.workspace import open_workspace

    w = open_workspace(ws)
    split = w.test_set_names[0]
    entry = w.manifest.test_sets[split]
    args = ["score", "--judgments", entry.path, "--metric", metric, "--order", "score",
            "--extra", w.manifest.extra, "--format", "json"]
    for config, path in entry.runs.items():
        args += ["--run", f"{config}={path}"]
    code, out, err = cli(*args)
    assert code == 0, err
    return {r["config"]: r["mean"] for r in json.loads(out)}


def test_applicable_reports_are_produced_and_the_others_skipped_with_reasons(built):
    _, _, results = built
    for name, reason in SKIPPED.items():
        assert results[name].skipped and reason in results[name].message, results[name]
    for name in PRODUCED:
        r = results[name]
        assert r.ok and not r.skipped and r.html_path.is_file(), r.message


def test_provenance_lists_only_workspace_files_and_no_demo_appears(built):
    _, ws, results = built
    allowed = (str(REAL_DATA_DIR.resolve()), str(ws.resolve()), str(ws.parent.resolve()))
    for name in PRODUCED:
        executed = nbformat.read(results[name].notebook_path, as_version=4)
        prov = executed.metadata["ragnb"]["provenance"]
        paths = [d["resolved"] for d in prov["data"]]
        listed = [f.get("file") or f.get("folder") for f in
                  prov["contributed"].get("Workspace files", [])]
        assert listed and str(ws / "ragnb.toml") in listed
        for p in paths + listed:
            assert p.startswith(allowed), (name, p)
        page = results[name].html_path.read_text()
        for demo in (str(DEMO_DIR), "data/demo", "round-00", "round-40", "m0_r1", "+1.1 points",
                     "January", "production_query_type"):
            assert demo not in page, (name, demo)
        assert "ledger" not in json.dumps(paths + listed)


def _points(value: float) -> str:
    from ragnb.result import points  # the one precision rule: one decimal, more near 0

    return points(value, signed=True)


def test_report_figures_equal_ragnb_score_order_score(built):
    from ragnb.workspace import open_workspace

    _, ws, results = built
    w = open_workspace(ws)
    means = scores_by_cli(ws, "ndcg_cut_10")   # init on TREC qrels writes gain = "linear"
    baseline, challenger = w.setting("strata", "baseline"), w.setting("strata", "challenger")
    strata_page = results["03-strata"].html_path.read_text()
    pooled = re.search(r"Pooled:</strong> ([+−-]?[\d.]+) points", strata_page)
    assert pooled, "no pooled line in the strata report"
    assert pooled.group(1).replace("−", "-") == _points(means[challenger] - means[baseline])
    bias_page = results["04-label-bias"].html_path.read_text()
    for config, mean in means.items():       # the `lower` policy column is the plain score
        assert f"{mean:.4f}" in bias_page, (config, mean)


def test_notes_reach_the_reports(built):
    dataset, _, results = built
    page = results["03-strata"].html_path.read_text()
    if dataset == "cast":
        assert "strata_outside_test_set: 81" in page            # the wider annotation file
        assert "dropped_run_queries: 81" in page                # unjudged turns counted
    else:
        assert "rank_disagrees" in page                         # ranks vs scores, counted


def test_a_real_data_report_opens_offline_in_chromium(built, open_report):
    dataset, _, results = built
    if dataset != "codec":
        pytest.skip("one real-data page is enough for the browser check")
    check = open_report(results["03-strata"].html_path, screenshot="report-codec-03-strata.png")
    assert check.blocked_requests == []
    assert check.console_errors == [] and check.page_errors == []
    assert check.scripts == 0 and check.charts_drawn >= 1
