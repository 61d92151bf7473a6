"""Issue 27, item 1: every command that scores a split asks the ledger first (bounds, pool
list with a judge-next order, pool shard), as score and compare do: a sealed confirmation
split is refused with one line and nothing recorded, and scored inside an unseal run only
for its declared candidates, once, each scoring recorded."""
from __future__ import annotations

import contextlib
import io
import shutil

import pytest

from ragnb.cli import main
from ragnb.io import read_run, read_test_set
from ragnb.ledger import Ledger
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR

CONFIGS = ("round-00", "round-40")
SEALED = "production is sealed and can be scored only through its unseal policy"


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def sealed(tmp_path):
    """A workspace whose production split is registered sealed in its own ledger."""
    shutil.copy(DEMO_DIR / "production.jsonl", tmp_path)
    shutil.copy(DEMO_DIR / "production_strata.csv", tmp_path)
    (tmp_path / "runs").mkdir()
    for c in CONFIGS:
        shutil.copy(DEMO_DIR / "runs" / "production" / f"{c}.jsonl", tmp_path / "runs")
    (tmp_path / "ragnb.toml").write_text(
        '[workspace]\nname = "w"\nledger = "ledger"\n[test_sets.production]\n'
        'path = "production.jsonl"\nrole = "production"\nruns = "runs/*.jsonl"\n')
    ts = read_test_set(tmp_path / "production.jsonl")
    ledger = Ledger(tmp_path / "ledger")
    ledger.register("production", ts.judgments.drop(columns="line"), ts.query_ids,
                    role="confirmation")
    return tmp_path, ledger


def commands(folder):
    ws = ["--workspace", folder, "--split", "production", "--config", CONFIGS[0],
          "--config", CONFIGS[1]]
    files = ["--judgments", folder / "production.jsonl", "--ledger", folder / "ledger",
             *(x for c in CONFIGS for x in ("--run", f"{c}={folder / 'runs' / c}.jsonl"))]
    return {
        "bounds (workspace)": ["bounds", *ws, "--baseline", CONFIGS[0], "--metric", "ndcg@10",
                               "--resamples", 200],
        "bounds (--ledger)": ["bounds", *files, "--metric", "ndcg@10"],
        "pool list --baseline": ["pool", "list", *ws, "--baseline", CONFIGS[0],
                                 "--metric", "ndcg@10"],
        "pool shard": ["pool", "shard", *ws, "--labels", folder / "production.jsonl",
                       "--metric", "ndcg@10", "--shards", folder / "production_strata.csv",
                       "--by", "query_type", "--shard", "follow_up", "--resamples", 200],
    }


def test_27_1_every_scoring_command_refuses_a_sealed_split(sealed):
    folder, ledger = sealed
    for name, argv in commands(folder).items():
        code, out, err = cli(*argv)
        assert (code, out) == (2, ""), name
        assert len(err.strip().splitlines()) == 1 and SEALED in err, (name, err)
    assert [e.event for e in ledger.events()] == ["registered"]  # nothing scored, nothing kept
    # a pool list without a metric scores nothing: it is a labelling list, and allowed
    code, out, _ = cli("pool", "list", *commands(folder)["pool list --baseline"][2:10])
    assert code == 0 and "role confirmation, selections_against 0, sealed" in " ".join(
        out.split())   # the ledger line, wrapped under the tables


def test_27_1_bounds_inside_an_unseal_run_records_each_config_once(sealed):
    folder, ledger = sealed
    ledger.unseal("production", list(CONFIGS), reason="confirm the champion")
    code, _, err = cli(*commands(folder)["bounds (workspace)"], "--format", "csv")
    assert code == 0, err
    scored = [e.payload for e in ledger.events() if e.event == "scored"]
    # the value recorded is each config's mean under the lower policy: the score's mean
    ts = read_test_set(folder / "production.jsonl")
    runs = [read_run(folder / "runs" / f"{c}.jsonl", name=c) for c in CONFIGS]
    means = score(ts, runs, "ndcg@10").means().set_index("config")["mean"]
    assert [(p["config"], p["metric"], p["under_unseal_run"]) for p in scored] == [
        (c, "ndcg@10", 1) for c in CONFIGS]
    assert [p["value"] for p in scored] == pytest.approx([means[c] for c in CONFIGS], abs=1e-12)
    assert all(p["note"] == "ragnb bounds (lower policy)" for p in scored)
    code, out, err = cli(*commands(folder)["pool list --baseline"])  # a second look: refused
    assert (code, out) == (2, "") and "'round-00' has already been scored in run 1" in err
    assert len(ledger.events()) == 4
