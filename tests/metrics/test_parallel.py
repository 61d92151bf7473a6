"""Runs scored in parallel processes give the serial table, notes and orders exactly."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.metrics.parallel import workers
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from tests.metrics._pages import RUNS, assert_same_page


def test_two_jobs_give_the_serial_scores_notes_and_orders(runs_folder):
    runs = [runs_folder / name for name in RUNS]
    kwargs = {"missing": "drop", "extra": "drop"}
    serial = score(runs_folder / "qrels.txt", runs, ["ndcg@10", "rr@10", "p@2"], **kwargs)
    parallel = score(runs_folder / "qrels.txt", runs, ["ndcg@10", "rr@10", "p@2"], jobs=2, **kwargs)
    pd.testing.assert_frame_equal(parallel.table, serial.table)
    assert parallel.notes == serial.notes and len(serial.notes) >= 3   # extra, dropped, order
    assert parallel.orders == serial.orders
    # b's dropped query is its own: c, scored after it, still has q3
    b = serial.table[serial.table["config"] == "b"]
    assert set(b["query_id"]) == {"q1", "q2"}


def test_runs_in_memory_and_on_disk_mix_in_their_order(runs_folder):
    frame = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "passage_id": ["p1", "p3", "p4"],
                          "rank": [1, 1, 1]})
    runs = {"mem": frame, "disk": runs_folder / "a.run"}
    serial = score(runs_folder / "qrels.txt", runs, "rr@10", extra="drop")
    parallel = score(runs_folder / "qrels.txt", runs, "rr@10", extra="drop", jobs=2)
    pd.testing.assert_frame_equal(parallel.table, serial.table)
    assert list(dict.fromkeys(parallel.table["config"])) == ["mem", "disk"]


def test_the_demo_sweep_of_41_rounds_is_the_serial_one():
    runs = sorted((Path(DEMO_DIR) / "runs" / "golden").glob("*.jsonl"))
    serial = score(Path(DEMO_DIR) / "golden.jsonl", runs, ["ndcg@10"])
    parallel = score(Path(DEMO_DIR) / "golden.jsonl", runs, ["ndcg@10"], jobs=2)
    assert len(runs) == 41
    pd.testing.assert_frame_equal(parallel.table, serial.table)


def test_a_bad_run_read_in_a_worker_is_the_serial_error(runs_folder):
    (runs_folder / "bad.run").write_text("q1 Q0 p1 one 0.9 x\n")
    runs = [runs_folder / "a.run", runs_folder / "bad.run"]
    with pytest.raises(InputError) as serial:
        score(runs_folder / "qrels.txt", runs, "rr@10", extra="drop")
    with pytest.raises(InputError) as parallel:
        score(runs_folder / "qrels.txt", runs, "rr@10", extra="drop", jobs=2)
    assert str(parallel.value) == str(serial.value) and "bad.run:1" in str(serial.value)


def test_workers_are_capped_by_the_runs_and_zero_means_every_core():
    assert workers(1, 10) == 1 and workers(4, 3) == 3
    assert workers(0, 1000) == (os.cpu_count() or 1)
    for bad in (-1, 1.5, True):
        with pytest.raises(InputError, match="jobs must be a whole number"):
            workers(bad, 3)


def test_the_command_line_output_is_the_same_with_jobs(runs_folder, capsys):
    from ragnb.cli import main

    argv = ["score", "--judgments", str(runs_folder / "qrels.txt"), "--metric", "rr@10",
            "--extra", "drop", "--missing", "drop", "--per-query", "--format", "csv",
            *(arg for name in RUNS for arg in ("--run", str(runs_folder / name)))]
    assert main(argv) == 0
    serial = capsys.readouterr()
    assert main([*argv, "--jobs", "2"]) == 0
    parallel = capsys.readouterr()
    assert parallel.out == serial.out and parallel.err == serial.err
    assert serial.out.count("\n") > 5


def test_a_workspace_jobs_key_gives_its_pages_the_serial_figures(tmp_path):
    import shutil

    from ragnb.pages import run_page
    from ragnb.workspace import open_workspace

    ws = tmp_path / "ws"
    shutil.copytree(DEMO_DIR, ws)
    here = run_page("02-trajectory", ws)
    with open(ws / "ragnb.toml", "a") as fh:
        fh.write("\n[cluster]\njobs = 2\n")
    assert open_workspace(ws / "ragnb.toml").spread == {"jobs": 2, "cluster": None}
    there = run_page("02-trajectory", ws)
    assert_same_page(there, here)
    (ws / "ragnb.toml").write_text((ws / "ragnb.toml").read_text()
                                   .replace("jobs = 2\n", "jobs = -1\n"))
    with pytest.raises(InputError, match="cluster.jobs.*must be a whole number >= 0"):
        open_workspace(ws / "ragnb.toml")
