"""The held-back split: deterministic, stable when queries are added, and the divergence check."""
import hashlib
import math

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.health import holdout_check, holdout_split
from ragnb.health.holdout import HoldoutSplit
from ragnb.metrics.score import Scores

IDS = [f"q{i:04d}" for i in range(200)]


def test_ids_already_held_back_stay_held_back_when_queries_are_added():
    before = holdout_split(IDS)
    after = holdout_split([f"n{i}" for i in range(150)] + IDS[::-1] + [f"q{i:04d}" for i in
                                                                       range(200, 400)])
    assert set(before.held_back) <= set(after.held_back)
    assert set(before.tuning) <= set(after.tuning)          # no old query changes side


def test_the_rule_is_the_hash_of_salt_and_id():
    split = holdout_split(IDS, salt="s1")
    for qid in IDS[:20]:
        u = int.from_bytes(hashlib.sha256(f"s1\x00{qid}".encode()).digest()[:8], "big") / 2**64
        assert (qid in split.held_back) == (u < 0.2)
    assert set(holdout_split(IDS, salt="s2").held_back) != set(split.held_back)


def test_raising_the_share_only_adds_queries():
    smaller = set(holdout_split(IDS, share=0.2).held_back)
    assert smaller <= set(holdout_split(IDS, share=0.3).held_back)


def test_share_is_binomial_around_the_target():
    n = 10_000
    held = len(holdout_split([f"id-{i}" for i in range(n)]).held_back)
    assert abs(held / n - 0.2) < 4 * math.sqrt(0.2 * 0.8 / n)   # 4 binomial SDs


@pytest.mark.parametrize("kwargs, message", [({"share": 0}, "share"), ({"share": 1}, "share")])
def test_bad_share(kwargs, message):
    with pytest.raises(InputError, match=message):
        holdout_split(IDS, **kwargs)


def test_repeated_ids_are_an_error():
    with pytest.raises(InputError, match="repeat"):
        holdout_split(["a", "b", "a"])


def scores(values: dict[str, np.ndarray], ids) -> Scores:
    rows = [{"config": c, "query_id": q, "metric": "ndcg@10", "value": float(v)}
            for c, vs in values.items() for q, v in zip(ids, vs)]
    return Scores(pd.DataFrame(rows), "lower", (), pd.Index([]))


def make_split(n_tuning, n_held):
    ids = [f"t{i}" for i in range(n_tuning)] + [f"h{i}" for i in range(n_held)]
    return ids, HoldoutSplit(pd.Index(ids[:n_tuning]), pd.Index(ids[n_tuning:]), 0.2, "x")


def test_a_gain_that_stays_on_the_tuning_queries_diverges():
    ids, split = make_split(80, 20)
    rng = np.random.default_rng(3)
    base = rng.uniform(0.3, 0.7, size=100)
    gain = np.r_[np.full(80, 0.10), np.full(20, 0.0)] + rng.normal(0, 0.02, size=100)
    check = holdout_check(scores({"tuned": base + gain, "base": base}, ids), split,
                          config="tuned", metric="ndcg@10", baseline="base", resamples=2000)
    assert check.tuning_mean == pytest.approx(gain[:80].mean())
    assert check.held_back_mean == pytest.approx(gain[80:].mean())
    assert check.diverged and check.result.ci_high < 0
    assert "stopped generalising" in check.reading()
    assert check.sides()["n"].tolist() == [80, 20]


def test_the_same_gain_on_both_sides_does_not_diverge():
    ids, split = make_split(80, 20)
    base = np.linspace(0.2, 0.8, 100)
    check = holdout_check(scores({"tuned": base + 0.05, "base": base}, ids), split,
                          config="tuned", metric="ndcg@10", baseline="base", resamples=500)
    assert check.result.delta == pytest.approx(0.0, abs=1e-12) and not check.diverged


def test_scored_queries_outside_the_split_are_an_error():
    ids, split = make_split(3, 2)
    with pytest.raises(InputError, match="neither side"):
        holdout_check(scores({"c": np.ones(6)}, ids + ["zz"]), split, config="c",
                      metric="ndcg@10")


def test_a_constant_gain_on_ten_queries_is_not_read_as_a_known_divergence():
    """The gain is 0.10 on each of 8 tuning queries and 0 on 2 held back. Resampling
    equal values gives [-10.0, -10.0], which claimed a divergence known without error
    from 2 queries; the guard (equal values have no spread to resample) gives two
    97.5% betting intervals instead, and the finding says no divergence is shown."""
    from ragnb.stats.betting import betting_interval

    ids, split = make_split(8, 2)
    base = np.full(10, 0.5)
    tuned = base + np.r_[np.full(8, 0.10), np.zeros(2)]
    check = holdout_check(scores({"tuned": tuned, "base": base}, ids), split,
                          config="tuned", metric="ndcg@10", baseline="base", resamples=200)
    f = check.finding()
    assert f.headline.verdict == "agrees"
    tuning = betting_interval(np.full(8, 0.10), lower=0, upper=1, alpha=0.025)
    held = betting_interval(np.zeros(2), lower=0, upper=1, alpha=0.025)
    r = check.result
    assert (r.ci_low, r.ci_high) == pytest.approx((held.low - tuning.high,
                                                   held.high - tuning.low))
    assert "two betting intervals" in check.description
    assert not check.summary()["diverged"].iloc[0]
