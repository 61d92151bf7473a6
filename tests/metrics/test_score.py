"""score(): run files are read one at a time, and score as the same runs read up front."""
from __future__ import annotations

import weakref

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io import RunFile, read_run
from ragnb.metrics.score import score

QRELS = "q1 0 p1 2\nq1 0 p2 0\nq2 0 p3 1\n"
RUN_A = "q1 Q0 p1 1 0.9 a\nq1 Q0 p2 2 0.5 a\nq2 Q0 p9 1 0.8 a\nq2 Q0 p3 2 0.7 a\n"
RUN_B = "q1 Q0 p2 1 0.9 b\nq1 Q0 p1 2 0.5 b\nq2 Q0 p3 1 0.8 b\n"


@pytest.fixture
def files(tmp_path):
    for name, text in (("qrels.txt", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)):
        (tmp_path / name).write_text(text)
    return tmp_path


def test_run_files_are_read_one_at_a_time(files, monkeypatch):
    live: list[weakref.ref] = []
    alive_at_read: list[int] = []
    original = RunFile.read

    def read(self):
        alive_at_read.append(sum(ref() is not None for ref in live))
        run = original(self)
        live.append(weakref.ref(run))
        return run

    monkeypatch.setattr(RunFile, "read", read)
    runs = [RunFile.of(files / "a.run"), RunFile.of(files / "b.run", name="champ")]
    scores = score(files / "qrels.txt", runs, ["rr@10"])
    # when b is read, a has been scored and freed (no reference left to it)
    assert alive_at_read == [0, 0]
    assert all(ref() is None for ref in live)
    assert scores.configs == ["a", "champ"]
    # rr@10 by hand: a finds p1 at 1 (q1) and p3 at 2 (q2); champ finds p1 at 2, p3 at 1
    got = scores.table.set_index(["config", "query_id"])["value"].to_dict()
    assert got == {("a", "q1"): 1.0, ("a", "q2"): 0.5, ("champ", "q1"): 0.5,
                   ("champ", "q2"): 1.0}
    assert dict(scores.orders) == {"a": "score", "champ": "score"}


def test_paths_and_run_files_score_as_runs_read_up_front(files):
    metrics = ["ndcg@10", "rr@10", "p@1"]
    read = score(files / "qrels.txt", [read_run(files / "a.run"), read_run(files / "b.run")],
                 metrics)
    by_path = score(files / "qrels.txt", [str(files / "a.run"), files / "b.run"], metrics)
    by_name = score(files / "qrels.txt", {"a": RunFile.of(files / "a.run", name="x"),
                                          "b": files / "b.run"}, metrics)
    pd.testing.assert_frame_equal(read.table, by_path.table)
    pd.testing.assert_frame_equal(read.table, by_name.table)


def test_two_run_files_with_one_name_are_refused_before_either_is_read(files, monkeypatch):
    def fail(self):
        raise AssertionError("read before the names were checked")

    monkeypatch.setattr(RunFile, "read", fail)
    with pytest.raises(InputError, match="two runs share a config name"):
        score(files / "qrels.txt", [RunFile.of(files / "a.run"),
                                    RunFile.of(files / "b.run", name="a")], ["rr@10"])


def test_a_run_files_default_name_is_its_file_name_without_extensions(files):
    assert RunFile.of(files / "a.run").name == "a"
    assert RunFile.of("-").name == "<stdin>"
    assert RunFile.of(files / "a.run").read().name == read_run(files / "a.run").name == "a"


def test_a_trec_qrels_path_implies_linear_gain_and_every_spelling_finds_it(tmp_path):
    """Issue 36 #1/#2: score() given a TREC qrels path reads ndcg@10 as trec_eval does
    (gain g); Scores.values/wide and compare_configs take any spelling of that metric
    (ndcg_cut_10, NDCG@10) and refuse another gain; the repr is one line."""
    import math

    from ragnb import compare_configs

    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 p1 2\nq{i} 0 p2 1\n" for i in range(8)))
    (tmp_path / "a.run").write_text("".join(f"q{i} Q0 p2 1 2 a\nq{i} Q0 p1 2 1 a\n"
                                            for i in range(8)))
    (tmp_path / "b.run").write_text("".join(f"q{i} Q0 p1 1 2 b\nq{i} Q0 p2 2 1 b\n"
                                            for i in range(8)))
    s = score(tmp_path / "q.txt", [tmp_path / "a.run", tmp_path / "b.run"], "ndcg@10")
    assert s.metrics == ["ndcg@10(gain=linear)"]
    linear = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))   # p2 (g=1) then p1 (g=2)
    for spelling in ("ndcg@10", "NDCG@10", "ndcg_cut_10", "ndcg_linear@10"):
        assert s.values("a", spelling).tolist() == pytest.approx([linear] * 8, abs=1e-15)
        row = compare_configs(s, metric=spelling, baseline="a", resamples=100).iloc[0]
        assert row["delta"] == pytest.approx(1 - linear, abs=1e-15)
    with pytest.raises(InputError, match=r"'ndcg@10\(gain=exp\)' is not in the score table "
                                         r"\(has ndcg@10\(gain=linear\)\)"):
        compare_configs(s, metric="ndcg@10(gain=exp)", baseline="a")
    assert repr(s) == ("Scores(2 configs (a, b) x 1 metric (ndcg@10(gain=linear)) x 8 queries, "
                       "policy lower, 0 notes; .means(), .wide(metric), .table)")
    assert "\n" not in repr(s.means)
