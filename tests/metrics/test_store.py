"""A score table written as partitioned Parquet reads back as the same Scores, bit for bit,
and a table that is not whole or not as written is an error naming the file."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.metrics.score import score
from ragnb.metrics.store import SIDECAR, read_scores, write_scores
from ragnb.paths import DEMO_DIR

QRELS = "q1 0 p1 2\nq1 0 p2 0\nq2 0 p3 1\nq3 0 p4 1\nq4 0 p5 0\n"
RUNS = {  # a query qrels lack, one missing, ranks and scores that disagree, odd names
    "a/b c": "q1 Q0 p1 1 0.9 a\nq2 Q0 p3 1 0.8 a\nq3 Q0 p4 1 0.3 a\nq4 Q0 p5 1 0.3 a\n"
             "q9 Q0 p1 1 0.1 a\n",
    "ünï=1": "q1 Q0 p2 1 0.2 b\nq1 Q0 p1 2 0.5 b\nq2 Q0 p3 1 0.8 b\nq4 Q0 p5 1 0.3 b\n",
}


@pytest.fixture
def scores(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = {}
    for i, (name, text) in enumerate(RUNS.items()):
        (tmp_path / f"{i}.run").write_text(text)
        runs[name] = tmp_path / f"{i}.run"
    return score(tmp_path / "qrels.txt", runs, ["ndcg@10", "rr@10"], missing="drop",
                 extra="drop")


def test_a_table_reads_back_as_the_scores_written(scores, tmp_path):
    assert len(scores.notes) >= 3 and len(scores.no_relevant) == 1   # q4: nothing relevant
    folder = write_scores(scores, tmp_path / "sweep")
    back = read_scores(folder)
    pd.testing.assert_frame_equal(back.table, scores.table, check_exact=True)
    assert back.notes == scores.notes and back.orders == scores.orders
    assert back.policy == scores.policy and list(back.no_relevant) == list(scores.no_relevant)


def test_other_readers_see_one_table_partitioned_by_config(scores, tmp_path):
    import pyarrow.dataset as ds

    write_scores(scores, tmp_path / "sweep")
    seen = ds.dataset(tmp_path / "sweep", partitioning="hive").to_table().to_pandas()
    assert sorted(seen["config"].astype(str).unique()) == sorted(RUNS)  # names decoded
    assert len(seen) == len(scores.table)


def test_the_demo_sweep_round_trips_exactly(tmp_path):
    runs = sorted((Path(DEMO_DIR) / "runs" / "golden").glob("*.jsonl"))
    made = score(Path(DEMO_DIR) / "golden.jsonl", runs, ["ndcg@10", "recall@100"])
    back = read_scores(write_scores(made, tmp_path / "t"))
    pd.testing.assert_frame_equal(back.table, made.table, check_exact=True)
    assert back.configs == [p.name.split(".")[0] for p in runs]


def test_a_partition_edited_lost_or_added_is_named(scores, tmp_path):
    folder = write_scores(scores, tmp_path / "sweep")
    parts = json.loads((folder / SIDECAR).read_text())["parts"]
    first = folder / parts[0]["path"]
    original = first.read_bytes()
    first.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
    with pytest.raises(InputError, match="bytes are not those written") as e:
        read_scores(folder)
    assert str(first) in str(e.value)
    first.unlink()
    with pytest.raises(InputError, match="missing: the table is not whole"):
        read_scores(folder)
    first.write_bytes(original)
    extra = folder / "config=stray" / "part-0.parquet"
    extra.parent.mkdir()
    extra.write_bytes(original)
    with pytest.raises(InputError, match="partitions not written with the table: "
                                         "config=stray/part-0.parquet"):
        read_scores(folder)


def test_only_a_score_table_is_ever_replaced(scores, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match="is not a score table written by ragnb"):
        write_scores(scores, mine)
    assert (mine / "notes.txt").read_text() == "keep me"
    with pytest.raises(InputError, match="no _scores.json"):
        read_scores(mine)
    folder = write_scores(scores, tmp_path / "sweep")
    one = type(scores)(scores.table[scores.table["metric"] == "rr@10"], scores.policy,
                       scores.notes, scores.no_relevant, scores.orders)
    write_scores(one, folder)                        # an earlier table: replaced whole
    assert set(read_scores(folder).table["metric"]) == {"rr@10"}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_score_writes_a_folder_given_with_a_trailing_slash(scores, tmp_path, capsys):
    from ragnb.cli import main

    argv = ["score", "--judgments", str(tmp_path / "qrels.txt"), "--metric", "rr@10",
            "--extra", "drop", "--missing", "drop",
            *(arg for i in range(len(RUNS)) for arg in ("--run", f"r{i}={tmp_path / f'{i}.run'}"))]
    assert main([*argv, "--per-query", "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert main([*argv, "--per-query", "--out", f"{tmp_path / 'sweep'}/"]) == 0
    # a ranks the 4 test-set queries, b 3 of them (q3 dropped as missing): 7 rows
    assert "wrote 7 per-query scores of 2 configs" in capsys.readouterr().err
    back = read_scores(tmp_path / "sweep").table
    assert list(back["config"]) == list(printed["config"])
    assert back["value"].tolist() == printed["value"].tolist()
    assert main([*argv, "--out", f"{tmp_path / 'means'}/"]) == 2
    assert "a folder holds the per-query score table: give --per-query" in capsys.readouterr().err
    assert not (tmp_path / "means").exists()


def test_scoring_into_a_table_equals_scoring_then_writing(scores, tmp_path):
    from ragnb.metrics.store import score_into

    runs = {name: tmp_path / f"{i}.run" for i, name in enumerate(RUNS)}
    options = {"missing": "drop", "extra": "drop"}
    for jobs in (1, 2):
        written = score_into(tmp_path / f"t{jobs}", tmp_path / "qrels.txt", runs,
                             ["ndcg@10", "rr@10"], jobs=jobs, **options)
        back = read_scores(written.path)
        pd.testing.assert_frame_equal(back.table, scores.table, check_exact=True)
        assert back.notes == scores.notes and back.orders == scores.orders
        pd.testing.assert_frame_equal(written.means, scores.means(), check_exact=True)


def test_a_check_that_refuses_leaves_nothing_behind(tmp_path, scores):
    from ragnb.metrics.store import score_into

    seen = []

    def refuse(means):
        seen.append(means)
        raise InputError("sealed")

    runs = {name: tmp_path / f"{i}.run" for i, name in enumerate(RUNS)}
    with pytest.raises(InputError, match="sealed"):
        score_into(tmp_path / "t", tmp_path / "qrels.txt", runs, "rr@10", missing="drop",
                   extra="drop", check=refuse)
    assert not (tmp_path / "t").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".t.")]
    assert list(seen[0]["config"]) == list(RUNS)   # the check saw every config's mean


def test_a_few_configs_of_a_sweep_are_read_alone(scores, tmp_path):
    folder = write_scores(scores, tmp_path / "sweep")
    name = list(RUNS)[1]
    two = read_scores(folder, configs=[name])
    want = scores.table[scores.table["config"] == name].reset_index(drop=True)
    pd.testing.assert_frame_equal(two.table, want, check_exact=True)
    assert list(two.orders) == [name]
    with pytest.raises(InputError, match="no config 'nope' in the table"):
        read_scores(folder, configs=["nope"])
