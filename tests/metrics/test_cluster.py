"""Runs scored on a dask.distributed cluster (a 2-worker LocalCluster on localhost) give
the serial table, notes and orders bit for bit, and its failures read as the serial ones."""
from __future__ import annotations

import contextlib
from pathlib import Path

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from tests.metrics._pages import QRELS, RUNS, assert_same_page

distributed = pytest.importorskip("distributed", reason="the ragnb[dask] extra is not installed")

@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", host="127.0.0.1") as local:
        yield local


def test_the_demo_sweep_on_two_workers_is_the_serial_one_bit_for_bit(cluster):
    runs = sorted((Path(DEMO_DIR) / "runs" / "golden").glob("*.jsonl"))
    metrics = ["ndcg@10", "rr@10", "recall@100"]
    serial = score(Path(DEMO_DIR) / "golden.jsonl", runs, metrics)
    remote = score(Path(DEMO_DIR) / "golden.jsonl", runs, metrics,
                   cluster=cluster.scheduler_address)
    pd.testing.assert_frame_equal(remote.table, serial.table, check_exact=True)
    assert remote.notes == serial.notes and remote.orders == serial.orders
    with distributed.Client(cluster) as given:   # a client is used, and left open
        again = score(Path(DEMO_DIR) / "golden.jsonl", runs, metrics, cluster=given)
        assert given.status == "running"
    pd.testing.assert_frame_equal(again.table, serial.table, check_exact=True)
    # both workers scored: the sweep is spread, not sent to one process
    with distributed.Client(cluster) as look:
        assert len(look.scheduler_info()["workers"]) == 2


def test_notes_drops_and_runs_in_memory_travel_as_in_the_serial_path(runs_folder, cluster):
    frame = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "passage_id": ["p1", "p3", "p4"],
                          "rank": [1, 1, 1]})
    runs = {"mem": frame, **{name[0]: runs_folder / name for name in RUNS}}
    kwargs = {"missing": "drop", "extra": "drop"}
    serial = score(runs_folder / "qrels.txt", runs, ["ndcg@10", "p@2"], **kwargs)
    remote = score(runs_folder / "qrels.txt", runs, ["ndcg@10", "p@2"],
                   cluster=cluster.scheduler_address, **kwargs)
    pd.testing.assert_frame_equal(remote.table, serial.table, check_exact=True)
    assert remote.notes == serial.notes and len(serial.notes) >= 3
    assert list(dict.fromkeys(remote.table["config"])) == ["mem", "a", "b", "c"]


def test_a_bad_run_read_on_a_worker_is_the_serial_error(runs_folder, cluster):
    (runs_folder / "bad.run").write_text("q1 Q0 p1 one 0.9 x\n")
    runs = [runs_folder / "a.run", runs_folder / "bad.run"]
    with pytest.raises(InputError) as serial:
        score(runs_folder / "qrels.txt", runs, "rr@10", extra="drop")
    with pytest.raises(InputError) as remote:
        score(runs_folder / "qrels.txt", runs, "rr@10", extra="drop",
              cluster=cluster.scheduler_address)
    assert str(remote.value) == str(serial.value) and "bad.run:1" in str(serial.value)


def test_an_address_where_no_scheduler_answers_is_named(runs_folder, monkeypatch):
    from ragnb.metrics import parallel

    monkeypatch.setattr(parallel, "CONNECT_SECONDS", 1)
    with pytest.raises(InputError, match="no dask scheduler answered at tcp://127.0.0.1:9"):
        score(runs_folder / "qrels.txt", [runs_folder / "a.run"], "rr@10", extra="drop",
              cluster="tcp://127.0.0.1:9")
    with pytest.raises(InputError, match="cluster must be a scheduler address"):
        score(runs_folder / "qrels.txt", [runs_folder / "a.run"], "rr@10", extra="drop",
              cluster=8786)


@contextlib.contextmanager
def _tasks(cluster):
    """The keys of ragnb's scoring tasks the cluster runs while in the block."""
    keys: list[str] = []
    with distributed.Client(cluster) as look, distributed.get_task_stream(look) as stream:
        yield keys
    keys += [t["key"] for t in stream.data if str(t["key"]).startswith("ragnb-score-")]


def test_the_command_line_with_cluster_prints_the_serial_output(runs_folder, cluster, capsys):
    from ragnb.cli import main

    argv = ["score", "--judgments", str(runs_folder / "qrels.txt"), "--metric", "rr@10",
            "--extra", "drop", "--missing", "drop", "--per-query", "--format", "csv",
            *(arg for name in RUNS for arg in ("--run", str(runs_folder / name)))]
    assert main(argv) == 0
    serial = capsys.readouterr()
    with _tasks(cluster) as keys:
        assert main([*argv, "--cluster", cluster.scheduler_address]) == 0
    remote = capsys.readouterr()
    assert remote.out == serial.out and remote.err == serial.err
    assert serial.out.count("\n") > 5
    assert len(keys) == len(RUNS)   # one task a run, run on the cluster


def test_a_workspace_cluster_key_scores_its_pages_there(tmp_path, cluster):
    import shutil

    from ragnb.pages import run_page

    ws = tmp_path / "ws"
    shutil.copytree(DEMO_DIR, ws)
    here = run_page("02-trajectory", ws)
    with open(ws / "ragnb.toml", "a") as fh:
        fh.write(f'\n[cluster]\naddress = "{cluster.scheduler_address}"\n')
    with _tasks(cluster) as keys:
        there = run_page("02-trajectory", ws)
    assert len(keys) >= 41          # the 41 rounds, at least once
    assert_same_page(there, here)


def test_the_cluster_key_is_checked_where_the_manifest_is_read(tmp_path):
    from ragnb.workspace import open_workspace

    (tmp_path / "q.txt").write_text(QRELS)
    for body, why in (('[cluster]\nadress = "tcp://h:1"\n',
                       "unknown key; known keys: jobs, address"),
                      ('[cluster]\naddress = "h:8786"\n', "must be a scheduler address")):
        (tmp_path / "ragnb.toml").write_text(f'[test_sets.g]\npath = "q.txt"\n{body}')
        with pytest.raises(InputError, match=why) as e:
            open_workspace(tmp_path / "ragnb.toml")
        assert "ragnb.toml" in str(e.value) and "cluster." in str(e.value)
