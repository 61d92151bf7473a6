"""Regression guard: alarms on large drops, refuses to rank close candidates."""
from __future__ import annotations

import pytest

from ragnb.errors import InputError, PolicyError
from ragnb.ledger.guard import alert, check_ranking, ranking_margin

NEEDS_STATS = "ragnb.stats.inflation is written in the statistics branch"


@pytest.mark.parametrize(("baseline", "new", "fired"), [
    (0.60, 0.45, True),    # exactly 15 points down
    (0.60, 0.30, True),
    (0.60, 0.4501, False),
    (0.60, 0.58, False),
    (0.45, 0.60, False),   # an improvement never alarms
])
def test_alert_fires_on_a_drop_of_the_threshold_or_more(baseline, new, fired):
    a = alert(baseline, new)
    assert a.fired is fired
    assert a.drop == pytest.approx(baseline - new)
    assert ("ALERT" in a.message) is fired


def test_alert_threshold_and_inputs():
    assert alert(0.5, 0.44, threshold=0.05).fired
    with pytest.raises(InputError, match="threshold.*positive"):
        alert(0.5, 0.4, threshold=0)
    with pytest.raises(InputError, match="new_score.*finite"):
        alert(0.5, float("nan"))


def test_fresh_guard_margin_is_noise_only():
    # no selections: no bias, only 1.96 SE_d of noise; needs no statistics module
    margin, inflation = ranking_margin(0, 0.01)
    assert inflation == 0.0 and margin == pytest.approx(0.0196)
    check_ranking("g", {"a": 0.50, "b": 0.53}, "b", 0, 0.01)
    with pytest.raises(PolicyError, match="will not rank 'b' over 'a'"):
        check_ranking("g", {"a": 0.50, "b": 0.51}, "b", 0, 0.01)


def test_seed_000_numbers():
    pytest.importorskip("ragnb.stats.inflation", reason=NEEDS_STATS)
    # E[max of 40 standard normals] = 2.16 (STATS-REFERENCES section 4); SE_d = 0.0069 (seed 000);
    # per-config noise SE_d / sqrt(2) (SPEC sec. 4: about 1.06 points, not 1.5)
    margin, inflation = ranking_margin(40, 0.0069)
    assert inflation == pytest.approx(2.16 * 0.0069 / 2**0.5, abs=1e-4)     # ~1.05 points
    assert margin == pytest.approx((2.16 / 2**0.5 + 1.96) * 0.0069, abs=1e-4)  # ~2.41 points
    # the bias is an order of magnitude below a 15-point alarm, so it cannot flip one
    assert inflation * 10 < 0.15


def test_close_ranking_refused_with_the_reason():
    pytest.importorskip("ragnb.stats.inflation", reason=NEEDS_STATS)
    with pytest.raises(PolicyError) as info:
        check_ranking("golden", {"a": 0.50, "b": 0.52, "c": 0.49}, "b", 40, 0.0069)
    msg = str(info.value)
    for part in ["lead is +2.00 points", "bias of about 1.05 points", "2.16 x SE_d / √2",
                 "under 2.41 points", "the bias is the size of the signal", "alerts on large"]:
        assert part in msg
    # a winner that trails on the guard is refused too
    with pytest.raises(PolicyError, match="lead is -5.00"):
        check_ranking("golden", {"a": 0.55, "b": 0.50}, "b", 40, 0.0069)
    assert check_ranking("golden", {"a": 0.50, "b": 0.53}, "b", 40, 0.0069) == pytest.approx(
        (2.16 / 2**0.5 + 1.96) * 0.0069, abs=1e-4)
