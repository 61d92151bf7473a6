"""A notebook run on a workspace whose production split is sealed: refused until an unseal
run is open, then recorded, once (slow: executes 01-fit with papermill)."""
from __future__ import annotations

import shutil

import pytest

from ragnb.io import read_test_set
from ragnb.ledger import Ledger
from ragnb.paths import DEMO_DIR

pytestmark = pytest.mark.slow
CONFIGS = ("round-00", "round-40")


@pytest.fixture
def sealed_workspace(tmp_path):
    for split in ("golden", "production"):
        shutil.copy(DEMO_DIR / f"{split}.jsonl", tmp_path / f"{split}.jsonl")
        (tmp_path / "runs" / split).mkdir(parents=True)
        for c in CONFIGS:
            shutil.copy(DEMO_DIR / "runs" / split / f"{c}.jsonl", tmp_path / "runs" / split)
    (tmp_path / "ragnb.toml").write_text(
        '[workspace]\nname = "sealed"\nledger = "ledger"\n'
        '[test_sets.golden]\npath = "golden.jsonl"\nrole = "golden"\n'
        'runs = "runs/golden/*.jsonl"\n'
        '[test_sets.production]\npath = "production.jsonl"\nrole = "production"\n'
        'runs = "runs/production/*.jsonl"\n'
        '[report]\nmetric = "ndcg@10"\nbaseline = "round-00"\nchallenger = "round-40"\n')
    ledger = Ledger(tmp_path / "ledger")
    production = read_test_set(tmp_path / "production.jsonl")
    ledger.register("production", production.judgments.drop(columns="line"),
                    production.query_ids, role="confirmation")
    return tmp_path, ledger


def fit_report(folder, out):
    from ragnb.report.runner import build_reports

    [result] = build_reports(["fit"], {"resamples": 200}, workspace=folder / "ragnb.toml",
                             out_dir=out)
    return result


def test_a_notebook_scores_a_sealed_split_only_through_its_unseal_run(sealed_workspace, tmp_path):
    folder, ledger = sealed_workspace
    refused = fit_report(folder, tmp_path / "1")
    assert not refused.ok
    assert "PolicyError" in refused.message and "production is sealed" in refused.message
    assert [e.event for e in ledger.events()] == ["registered"]     # nothing scored, nothing kept

    ledger.unseal("production", list(CONFIGS), reason="confirm the champion")
    allowed = fit_report(folder, tmp_path / "2")
    assert allowed.ok, allowed.message
    scored = [e.payload for e in ledger.events() if e.event == "scored"]
    assert [(p["config"], p["under_unseal_run"]) for p in scored] == [(c, 1) for c in CONFIGS]
    assert all("workspace 'sealed'" in p["note"] for p in scored)
    assert "Honest gain" in allowed.html_path.read_text()

    again = fit_report(folder, tmp_path / "3")       # a second look is a second scoring
    assert not again.ok and "'round-00' has already been scored in run 1" in again.message
    assert len(ledger.events()) == 4
