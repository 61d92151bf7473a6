"""Joint bounds of a difference against brute force, and never looser than separate ones."""

import numpy as np
import pytest

from ragnb.labelbias import joint_bounds, label_bounds
from ragnb.metrics import parse_metric
from ragnb.metrics.gains import register_gain_map

from ._brute import brute, make_run, make_test_set, random_case


def pair(grades, rankings, metric):
    ts = make_test_set({"q": grades})
    runs = [make_run({"q": r}, n) for n, r in rankings.items()]
    return label_bounds(ts, runs, metric)


def test_shared_passage_cancels_hand_worked():
    """Both configs rank the same unjudged passage u first, then a(1): RR@2 is 1/2 for
    both under lower and 1 for both if u is relevant. Separately, the difference ranges
    over [1/2 - 1, 1 - 1/2] = [-1/2, 1/2]; jointly it is exactly 0."""
    b = pair({"a": 1}, {"b": ["u", "a"], "c": ["u", "a"]}, "rr@2")
    j = joint_bounds(b, "b", "c").iloc[0]
    assert (j["separate_min"], j["separate_max"]) == (-0.5, 0.5)
    assert (j["joint_min"], j["joint_max"]) == (0.0, 0.0)


METRICS = ["rr@5", "p@5", "recall@5", "ndcg@5", "ndcg_linear@4", "rbp@5(p=0.8)",
           "answer_recall@5", "success@5", "success@4(rel=2)", "ndcg@5(gain=steep_joint)"]

# a gain map steeper than 2^g - 1, for the brute-force check of gain maps
register_gain_map("steep_joint", {0: 0, 1: 1, 2: 5, 3: 20})


@pytest.mark.parametrize("metric", METRICS)
def test_joint_equals_brute_force_and_is_never_looser(metric):
    rng = np.random.default_rng(abs(hash("joint" + metric)) % 2**32)
    for _ in range(10):
        top = int(rng.integers(2, 4))
        grades, rankings = random_case(rng, configs=int(rng.integers(2, 4)), k=5, top=top,
                                       judged=int(rng.integers(3, 8)), unjudged=4)
        _, pairs = brute(grades, rankings, metric, top, parse_metric(metric).k)
        b = pair(grades, rankings, metric)
        for (base, chal), (lo, hi) in pairs.items():
            j = joint_bounds(b, base, chal).iloc[0]
            assert j["joint_min"] == pytest.approx(lo, abs=1e-12), (base, chal, grades, rankings)
            assert j["joint_max"] == pytest.approx(hi, abs=1e-12), (base, chal, grades, rankings)
            assert j["separate_min"] <= j["joint_min"] + 1e-12
            assert j["joint_max"] <= j["separate_max"] + 1e-12
            assert j["joint_min"] - 1e-12 <= j["delta_lower"] <= j["joint_max"] + 1e-12
