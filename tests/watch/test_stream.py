"""The watch: stop rule truth table, batch bookkeeping, projection, coverage over looks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.stats.betting import betting_sequence
from ragnb.watch import batches_of, differences_table, sequence_chart, status, watch
from ragnb.watch.stream import projected_queries


def stream(d, size):
    ids = [f"q{i:04d}" for i in range(len(d))]
    labels = batches_of(ids, size)
    return pd.DataFrame({"batch": labels.to_numpy(), "date": "", "query_id": ids, "d": d})


@pytest.mark.parametrize("low, high, margin, expected", [
    (-0.05, -0.01, 0, "gain below zero established"),
    (0.01, 0.05, 0, "gain above zero established"),
    (0.01, 0.05, 2, "keep labelling"),             # above zero but not above 2 points
    (0.021, 0.05, 2, "gain of at least 2 points established"),
    (-0.01, 0.05, 0, "keep labelling"),
])
def test_stop_rule(low, high, margin, expected):
    assert status(low, high, margin) == expected


def test_rows_are_the_sequence_at_each_batch_end():
    rng = np.random.default_rng(1)
    d = np.clip(rng.normal(0.01, 0.2, 95), -1, 1)
    w = watch(stream(d, 20))
    cs = betting_sequence(d)
    assert w.batches["batch"].tolist() == ["b1", "b2", "b3", "b4", "b5"]
    assert w.batches["n_batch"].tolist() == [20, 20, 20, 20, 15]
    assert w.batches["n"].tolist() == [20, 40, 60, 80, 95]
    ends = cs.iloc[[19, 39, 59, 79, 94]]
    assert w.batches["low"].tolist() == ends["low"].tolist()
    assert w.batches["estimate"].to_numpy() == pytest.approx(ends["estimate"].to_numpy())


def test_stops_at_the_first_batch_a_rule_holds_and_says_so():
    w = watch(stream([0.3] * 100, 10))
    first = w.batches.index[w.batches["status"] != "keep labelling"][0]
    assert w.stopped_at == w.batches.loc[first, "batch"]
    assert w.decision == "gain above zero established" and math.isnan(w.more_queries)
    worse = watch(stream([-0.3] * 100, 10))
    assert worse.decision == "gain below zero established"


def test_keep_labelling_projects_the_queries_needed():
    rng = np.random.default_rng(2)
    d = np.clip(rng.normal(0.06, 0.25, 100), -1, 1)
    w = watch(stream(d, 25))
    assert w.decision.startswith("keep labelling (about ") and w.more_queries < 20 * 100
    last = w.batches.iloc[-1]
    # the projection: half-width scaled by sqrt(log(1+t)/t) reaches the estimate's distance to 0
    t = 100 + w.more_queries
    half = (last["high"] - last["low"]) / 2
    scaled = half * math.sqrt((math.log1p(t) / t) / (math.log1p(100) / 100))
    assert scaled <= abs(last["estimate"]) < half
    assert projected_queries(100, 0.0, -0.1, 0.1, 0) == math.inf


def test_simultaneous_coverage_over_30_looks():
    """Streams with no gain: the sequence excludes 0 at some batch in at most ~5%."""
    rng = np.random.default_rng(3)
    streams, misses = 40, 0
    for _ in range(streams):
        d = np.where(rng.random(150) < 0.5, 1, -1) * rng.uniform(0, 0.4, 150)
        w = watch(stream(d, 5))
        misses += bool((w.batches["status"] != "keep labelling").any())
    assert misses / streams <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / streams)


def test_differences_table_keeps_arrival_order():
    wide = pd.DataFrame({"a": [0.5, 0.2, 0.9], "b": [0.7, 0.2, 0.4]}, index=["x", "y", "z"])
    labels = pd.Series(["b1", "b1", "b2"], index=["z", "x", "y"])
    t = differences_table(wide, "a", "b", labels, {"b2": "2026-07-01"})
    assert t["query_id"].tolist() == ["z", "x", "y"]
    assert t["d"].tolist() == pytest.approx([-0.5, 0.2, 0.0])
    assert t["date"].tolist() == ["", "", "2026-07-01"]


def test_chart_and_errors():
    w = watch(stream([0.1] * 40, 10), margin=2)
    spec = sequence_chart(w).to_dict()
    assert spec["title"] == w.decision
    assert spec["layer"][0]["mark"]["type"] == "area"
    with pytest.raises(InputError, match="nothing to watch"):
        watch(stream([], 10))
    with pytest.raises(InputError, match="at least one query"):
        batches_of(["a"], 0)
    with pytest.raises(InputError, match="`margin` must be >= 0"):
        watch(stream([0.1] * 5, 5), margin=-1)


def test_a_gain_on_a_threshold_is_far_off_not_a_number():
    w = watch(stream([0.1, -0.1] * 50, 25))
    assert w.more_queries == math.inf
    assert w.decision.startswith("keep labelling (a decision is far off: over 20 times the 100")


def test_stopping_batches_are_the_sequences_own_on_each_simulated_stream():
    """Brute force: the same resampled streams through betting_sequence, batch by batch."""
    from ragnb.watch.stream import stopping
    rng = np.random.default_rng(4)
    d = np.clip(rng.normal(0.0, 0.15, 60), -1, 1)
    table = stopping(d, 10, margin=1.0, effects=(5.0, -5.0), streams=12, seed=7)
    draw = np.random.default_rng(7)
    pool = d - d.mean()
    for gain, row in zip((5.0, -5.0), table.itertuples(), strict=True):
        x = np.clip(draw.choice(pool, (12, row.batches * 10)) + gain / 100, -1, 1)
        stops, wrong = [], 0
        for s in x:
            cs = betting_sequence(s).iloc[np.arange(1, row.batches + 1) * 10 - 1]
            up = (cs["low"] > 0.01).to_numpy()
            down = (cs["high"] < 0).to_numpy()
            out = up | down
            stops.append(int(np.argmax(out)) + 1 if out.any() else math.inf)
            if out.any():
                k = int(np.argmax(out))
                wrong += bool(down[k] and not up[k]) if gain > 0 else bool(up[k])
        stops = np.sort(stops)
        assert row.stopped == pytest.approx(np.isfinite(stops).mean())
        assert row.median_batch == stops[5]          # the 6th of 12: half stopped by then
        assert row.median_queries == stops[5] * 10
        assert row.wrong_way == pytest.approx(wrong / 12)


def test_at_no_gain_few_simulated_streams_stop():
    """The stop rule is the sequence's: at a true gain of 0 at most alpha of streams stop."""
    from ragnb.watch.stream import stopping
    rng = np.random.default_rng(5)
    d = np.where(rng.random(200) < 0.7, 0.0, rng.normal(0.0, 0.3, 200)).clip(-1, 1)
    table = stopping(d, 10, effects=(0.0,), streams=300, seed=11)
    assert table.loc[0, "stopped"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 300)
    assert math.isnan(table.loc[0, "median_batch"])


def test_the_watch_reports_its_expected_stop_at_two_and_five_points():
    rng = np.random.default_rng(2)
    w = watch(stream(np.clip(rng.normal(0.02, 0.2, 120), -1, 1), 20))
    assert w.stopping["gain"].tolist() == [-5.0, -2.0, 2.0, 5.0]
    assert (w.stopping["batch_size"] == 20).all()
    five = w.stopping.set_index("gain").loc[5.0]
    two = w.stopping.set_index("gain").loc[2.0]
    assert five.median_batch < two.median_batch      # a larger gain is found sooner
    text = w.finding().to_text()
    assert f"batch {int(five.median_batch)} ({int(five.median_queries):,} queries)" in text
    assert "seed 20260729" in w.description
    # a different seed changes the simulation, not the sequence
    other = watch(stream(np.clip(np.random.default_rng(2).normal(0.02, 0.2, 120), -1, 1), 20),
                  seed=1)
    assert other.batches.equals(w.batches) and other.seed == 1
