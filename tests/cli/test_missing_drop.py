"""``--missing drop`` in bounds, pool and tasks (a workspace with ``missing = "drop"`` used to be
refused there): the result equals the same command on files restricted by hand to the queries
every config ranks, and the dropped queries are counted."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from ragnb.cli import main
from ragnb.paths import DEMO_DIR

LB = DEMO_DIR / "labelbias"
CONFIGS = ("m0_r1", "m1_r1", "m2_r1")
TASKS = DEMO_DIR / "codetasks"


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def csv_of(*argv) -> tuple[pd.DataFrame, str]:
    code, out, err = cli(*argv, "--format", "csv")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out)), err


def _query_ids(path: Path) -> list[str]:
    return [json.loads(line)["query_id"] for line in path.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def restricted(tmp_path_factory):
    """m1_r1 loses 7 queries, m2_r1 loses 5 others: 12 queries lack a ranking in some config.
    Returns the run files given to --missing drop and, for comparison, the test set and runs
    cut by hand to the other queries."""
    tmp = tmp_path_factory.mktemp("drop")
    qids = _query_ids(LB / "testset.jsonl")
    gone = {"m1_r1": set(qids[3:10]), "m2_r1": set(qids[20:25])}
    dropped = set().union(*gone.values())
    runs, cut = {}, {}
    for c in CONFIGS:
        lines = (LB / "runs" / f"{c}.trec").read_text().splitlines()
        runs[c] = tmp / f"{c}.trec"
        runs[c].write_text("".join(f"{ln}\n" for ln in lines
                                   if ln.split()[0] not in gone.get(c, ())))
        cut[c] = tmp / f"{c}.cut.trec"
        cut[c].write_text("".join(f"{ln}\n" for ln in lines if ln.split()[0] not in dropped))
    test_set = tmp / "testset.cut.jsonl"
    test_set.write_text("".join(f"{ln}\n" for ln in (LB / "testset.jsonl").read_text().splitlines()
                                if ln and json.loads(ln)["query_id"] not in dropped))
    for name in ("pooled_labels.csv", "shards.csv"):
        table = pd.read_csv(LB / name, dtype=str)
        table[~table["query_id"].isin(dropped)].to_csv(tmp / f"cut.{name}", index=False)
    return runs, cut, test_set, len(dropped)


def _run_args(files):
    return [x for c in CONFIGS for x in ("--run", f"{c}={files[c]}")]


def test_bounds_drop_equals_the_hand_restricted_files(restricted, tmp_path):
    runs, cut, test_set, n_dropped = restricted
    common = ["--metric", "rr@10", "--order", "score"]
    code, _, err = cli("bounds", "--test-set", LB / "testset.jsonl", *_run_args(runs), *common)
    assert code == 2 and "--missing drop|empty" in err       # the default is still an error
    assert '[workspace] missing = "drop"' in err and "missing='" not in err   # a key
    got, err = csv_of("bounds", "--test-set", LB / "testset.jsonl", *_run_args(runs), *common,
                      "--missing", "drop")
    want, _ = csv_of("bounds", "--test-set", test_set, *_run_args(cut), *common)
    pd.testing.assert_frame_equal(got, want)
    assert set(got["n"]) == {len(_query_ids(LB / "testset.jsonl")) - n_dropped}
    assert f"dropped_missing: {n_dropped} — test-set queries some config has no ranking for" in err
    assert "dropped_missing: 7 — test-set queries with no ranking in run 'm1_r1'" in err
    # the three-way verdicts are paired on the same queries
    verdict = ["--baseline", "m0_r1", "--resamples", 300]
    assert cli("bounds", "--test-set", LB / "testset.jsonl", *_run_args(runs), *common, *verdict,
               "--missing", "drop", "--out", tmp_path / "got.csv")[0] == 0
    assert cli("bounds", "--test-set", test_set, *_run_args(cut), *common, *verdict,
               "--out", tmp_path / "want.csv")[0] == 0
    got_v = (tmp_path / "got.csv.verdict").read_text()
    assert got_v == (tmp_path / "want.csv.verdict").read_text()
    # --out x.csv: the verdicts are data too (x.csv.verdict, CSV), on the queries kept
    verdicts = pd.read_csv(tmp_path / "got.csv.verdict")
    assert set(verdicts["n"]) == {len(_query_ids(LB / 'testset.jsonl')) - n_dropped}


def test_pool_list_and_shard_drop_equal_the_hand_restricted_files(restricted):
    runs, cut, test_set, n_dropped = restricted
    common = ["--k", 10, "--metric", "rr@10", "--baseline", "m0_r1", "--order", "score",
              "--limit", 0]
    got, err = csv_of("pool", "list", "--test-set", LB / "testset.jsonl", *_run_args(runs),
                      *common, "--missing", "drop")
    want, _ = csv_of("pool", "list", "--test-set", test_set, *_run_args(cut), *common)
    pd.testing.assert_frame_equal(got.drop(columns="query"), want.drop(columns="query"))
    assert "dropped_missing" in err and len(got) > 0
    shard = ["--metric", "rr@10", "--shard", "shard1", "--baseline", "m0_r1", "--order", "score",
             "--resamples", 300]
    got, err = csv_of("pool", "shard", "--test-set", LB / "testset.jsonl", *_run_args(runs),
                      *shard, "--labels", LB / "pooled_labels.csv", "--shards", LB / "shards.csv",
                      "--missing", "drop")
    want, _ = csv_of("pool", "shard", "--test-set", test_set, *_run_args(cut), *shard,
                     "--labels", test_set.parent / "cut.pooled_labels.csv",
                     "--shards", test_set.parent / "cut.shards.csv")
    pd.testing.assert_frame_equal(got, want)
    assert set(got["n_total"]) == {len(_query_ids(LB / "testset.jsonl")) - n_dropped}
    assert f"dropped_missing: {n_dropped}" in err


def test_tasks_score_drop_leaves_the_unranked_tasks_out(tmp_path):
    run = {}   # one object a line: task id -> ranking
    for line in (TASKS / "run.jsonl").read_text().splitlines():
        run.update(json.loads(line) if line.strip() else {})
    kept = dict(list(run.items())[3:])
    (tmp_path / "run.jsonl").write_text("".join(json.dumps({q: r}) + "\n"
                                                for q, r in kept.items()))
    code, _, err = cli("tasks", "score", "--tasks", TASKS / "tasks.jsonl", "--run",
                       tmp_path / "run.jsonl", "--resamples", 200)
    assert code == 2 and "--missing drop" in err and '[codetasks] missing = "drop"' in err
    got, err = csv_of("tasks", "score", "--tasks", TASKS / "tasks.jsonl", "--run",
                      tmp_path / "run.jsonl", "--resamples", 200, "--missing", "drop")
    from ragnb.codetasks import read_tasks, task_recall

    mined = read_tasks(TASKS / "tasks.jsonl")
    ranked = mined.kept[mined.kept["task_id"].astype(str).isin(set(kept))]
    recall = task_recall(ranked, {q: list(r) for q, r in kept.items()}, 10, extra="drop")
    per_file = recall.table[recall.table["metric"] == "per_file"]["value"]
    row = got.set_index("metric").loc["per_file"]
    assert row["n"] == len(ranked) < len(mined.kept)
    assert row["mean"] == pytest.approx(per_file.mean())
    dropped = len(mined.kept) - len(ranked)
    assert f"dropped_missing: {dropped} — tasks with no ranking in the run, left out" in err
