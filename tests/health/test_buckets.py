"""Per-bucket means with intervals and the power warning, on hand-made scores."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.health import bucket_scores, bucket_sizes
from ragnb.metrics.score import Scores

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
    # half the queries differ, by 1: the share floor p* a - p*^2 mu^2 at p* = 0.5 is 1/4,
    # x 4/3 = 1/3 = s^2, so the floor does not bind
    assert t.loc["a", "sd_diff"] == pytest.approx(sd_a)
    t_z = stats.t.ppf(0.975, 3) + stats.t.ppf(0.8, 3)      # t quantiles at n = 4
    assert t.loc["a", "mde"] == pytest.approx(t_z * sd_a / 2)
    assert t.loc["a", "too_small"]
    # bucket b: no difference observed in 3 queries is not certainty: with |d| <= 1 and
    # an 80% upper share 1 - 0.2^(1/3), sd_diff = sqrt(share x 3/2), so b is too small
    share = 1 - 0.2 ** (1 / 3)
    assert t.loc["b", "sd_diff"] == pytest.approx(math.sqrt(share * 3 / 2))
    assert t.loc["b", "mde"] > 0 and t.loc["b", "too_small"]
    # the mean of three 0.5s is not known without error: the betting interval on [0, 1]
    from ragnb.stats.betting import betting_interval
    b = betting_interval([0.5] * 3, lower=0, upper=1, alpha=0.05)
    assert (t.loc["b", "ci_low"], t.loc["b", "ci_high"]) == (b.low, b.high)
    assert b.low < 0.5 < b.high


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
