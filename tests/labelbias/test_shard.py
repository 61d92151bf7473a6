"""Shard extrapolation: a hand-worked case and seed 003's shard 1 on the demo."""
import math

import pandas as pd
import pytest

from ragnb.io import read_strata, read_test_set
from ragnb.labelbias import merge_judgments, shard_effect, shard_lesson, shard_projection
from ragnb.metrics.score import score

from .demo_data import demo_dir, loaded


def tidy(values: dict) -> pd.DataFrame:
    return pd.DataFrame([(c, q, v) for c, per in values.items() for q, v in per.items()],
                        columns=["config", "query_id", "value"])


def test_hand_worked_projection():
    """N = 8 queries, shard {q1..q4} with changes 0.5, 0, 0, 0 for config k:
    effect on the full mean 0.5 / 8 = 0.0625; projected = shard mean 0.125 = 0.0625 x 8/4;
    finite population correction 1 - 4/8 = 0.5."""
    before = {"k": {f"q{i}": 0.5 for i in range(1, 9)}, "b": {f"q{i}": 0.5 for i in range(1, 9)}}
    after = {"k": {**before["k"], "q1": 1.0}, "b": dict(before["b"])}
    t = shard_effect(tidy(before), tidy(after), ["q1", "q2", "q3", "q4"], baseline="b",
                     new_judgments=40, new_relevant=1).set_index("target")
    k = t.loc["k"]
    assert k["effect_full"] == pytest.approx(0.0625)
    assert k["projected"] == pytest.approx(0.125)
    assert k["fpc"] == pytest.approx(0.5)
    assert (k["n_shard"], k["n_total"], k["queries_changed"]) == (4, 8, 1)
    assert k["share_relevant"] == pytest.approx(1 / 40)
    # bootstrap of the mean of (0.5, 0, 0, 0): its interval spans [0, 0.5 * m/4] for m hits;
    # scaled by sqrt(0.5) around 0.125
    assert k["ci_low"] == pytest.approx(0.125 - math.sqrt(0.5) * 0.125)
    assert k["ci_high"] == pytest.approx(0.125 + math.sqrt(0.5) * (0.375 - 0.125))
    assert t.loc["k - b", "projected"] == pytest.approx(0.125)
    assert t.loc["b", "projected"] == 0.0


def test_seed_003_shard_1_on_the_demo():
    """Shard 1 (43 of 164 queries, 530 judgments, 7 new positives = 1.3%) moves KURE+R1 by
    about +0.0078 and e5+R1 by 0; projected x 164/43: about +0.0297. The projection's
    interval holds KURE's actual rise once every shard is merged."""
    ts, runs = loaded()
    d = demo_dir()
    labels = read_test_set(d / "pooled_labels.csv")
    shards = read_strata(d / "shards.csv")
    shard1 = shards.loc[shards["shard"] == "shard1", "query_id"]
    assert len(shard1) == 43
    t = shard_projection(ts, labels, runs, "rr@10", shard1, baseline="m0_r1").set_index("target")
    k = t.loc["m2_r1"]
    assert (k["new_judgments"], k["new_relevant"]) == (530, 7)
    assert k["share_relevant"] == pytest.approx(7 / 530)
    assert k["effect_full"] == pytest.approx(0.0078, abs=0.001)
    assert k["projected"] == pytest.approx(k["effect_full"] * 164 / 43)
    assert k["projected"] == pytest.approx(0.0297, abs=0.004)
    assert t.loc["m0_r1", "effect_full"] == 0.0
    full, _ = merge_judgments(ts, labels)
    rise = (score(full, runs, "rr@10").values("m2_r1", "rr@10").mean()
            - score(ts, runs, "rr@10").values("m2_r1", "rr@10").mean())
    assert k["ci_low"] <= rise <= k["ci_high"]
    # the lesson speaks of this table: KURE+R1 moved most (its +0.78 points, +2.97 projected)
    lesson = shard_lesson(t.reset_index(), "rr@10", display_names={"m2_r1": "KURE"})
    effect, projected = (f"{v * 100:+.1f}" for v in (k["effect_full"], k["projected"]))
    assert lesson == (
        "Labelling the shard's 43 of 164 queries: 7 new relevant passages in 530 judgments "
        f"(1.3%) moved KURE (m2_r1)'s rr@10 by {effect} points over all 164 queries "
        f"({projected} projected once every query is labelled): judge by the effect on the "
        "metric, not by the share of new positives.")


def test_shard_lesson_when_no_config_moved():
    t = pd.DataFrame({"config": ["a", "b"], "target": ["a", "b"], "n_shard": 2, "n_total": 10,
                      "new_judgments": 4, "new_relevant": 0, "effect_full": 0.0,
                      "projected": 0.0})
    assert shard_lesson(t, "ndcg@10") == (
        "Labelling the shard's 2 of 10 queries: 0 new relevant passages in 4 judgments (0.0%) "
        "moved no config's ndcg@10; judge by the effect on the metric, not by the share of new "
        "positives.")
