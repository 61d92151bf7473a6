"""Per-bucket means with intervals and the power warning, on hand-made scores."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.health import bucket_scores, bucket_sizes
from ragnb.score import Scores

Z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)   # 2.80: 80% power, two-sided alpha 0.05


def scores(values: dict[str, list[float]], ids) -> Scores:
    rows = [{"config": c, "query_id": qid, "metric": "ndcg@10", "value": v}
            for c, vs in values.items() for qid, v in zip(ids, vs)]
    return Scores(pd.DataFrame(rows), "lower", (), pd.Index([]))


IDS = [f"q{i}" for i in range(7)]
BUCKETS = pd.Series(["a"] * 4 + ["b"] * 3, index=IDS)


def test_sizes_means_and_power_with_a_baseline():
    s = scores({"new": [1, 0, 1, 0, 0.5, 0.5, 0.5], "old": [0, 0, 0, 0, 0.5, 0.5, 0.5]}, IDS)
    t = bucket_scores(s, BUCKETS, config="new", metric="ndcg@10", baseline="old",
                      resamples=500).set_index("bucket")
    assert t["n"].to_dict() == {"a": 4, "b": 3, "all queries": 7}
    assert t.loc["a", "mean"] == 0.5 and t.loc["b", "mean"] == 0.5
    sd_a = np.std([1, 0, 1, 0], ddof=1)                   # differences new - old in bucket a
    assert t.loc["a", "sd_diff"] == pytest.approx(sd_a)
    assert t.loc["a", "mde"] == pytest.approx(Z * sd_a / 2)
    assert t.loc["a", "too_small"]                          # 0.81 of MDE with 4 queries
    # bucket b: no difference at all -> nothing to resolve, never too small, zero-width interval
    assert t.loc["b", "sd_diff"] == 0 and not t.loc["b", "too_small"]
    assert (t.loc["b", "ci_low"], t.loc["b", "ci_high"]) == (0.5, 0.5)


def test_without_a_baseline_sd_is_sqrt2_times_the_score_sd():
    s = scores({"new": [1, 0, 1, 0, 0.2, 0.4, 0.6]}, IDS)
    t = bucket_scores(s, BUCKETS, config="new", metric="ndcg@10", resamples=200).set_index("bucket")
    assert t.loc["b", "sd_diff"] == pytest.approx(math.sqrt(2) * np.std([0.2, 0.4, 0.6], ddof=1))


def test_a_large_bucket_can_see_five_points():
    rng = np.random.default_rng(1)
    ids = [f"q{i}" for i in range(400)]
    old = rng.uniform(size=400)
    new = old + rng.normal(0.0, 0.1, size=400)   # sd of differences 0.1: needs (2.8 * 2)^2 ~ 32
    t = bucket_scores(scores({"new": new, "old": old}, ids), pd.Series("x", index=ids),
                      config="new", metric="ndcg@10", baseline="old", resamples=200)
    assert not t["too_small"].iloc[0] and t["needed"].iloc[0] < 40


def test_queries_without_a_bucket_are_an_error():
    s = scores({"new": [1] * 7}, IDS)
    with pytest.raises(InputError, match="no bucket"):
        bucket_scores(s, BUCKETS.iloc[:5], config="new", metric="ndcg@10")


def test_bucket_sizes_largest_first():
    sizes = bucket_sizes(pd.Series(["b", "a", "b", "c", "a", "b"]))
    assert list(sizes["bucket"]) == ["b", "a", "c"] and list(sizes["n"]) == [3, 2, 1]
    assert sizes["share"].sum() == pytest.approx(1.0)
