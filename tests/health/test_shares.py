"""Unanswerable share and source mix against declared shares, intervals from beta quantiles."""
import pandas as pd
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.health import share_interval, source_mix, unanswerable_share

from ._data import make_test_set, q


def clopper_pearson(k, n, ci=0.95):
    """The exact interval from its beta-quantile form (an independent reference)."""
    a = 1 - ci
    low = 0.0 if k == 0 else stats.beta.ppf(a / 2, k, n - k + 1)
    high = 1.0 if k == n else stats.beta.ppf(1 - a / 2, k + 1, n - k)
    return low, high


@pytest.mark.parametrize("k, n", [(0, 10), (3, 20), (16, 20), (20, 20), (27, 200)])
def test_share_interval_is_clopper_pearson(k, n):
    assert share_interval(k, n) == pytest.approx(clopper_pearson(k, n), rel=1e-6)


def test_share_interval_of_nothing_is_undefined():
    low, high = share_interval(0, 0)
    assert pd.isna(low) and pd.isna(high)


def queries(sources):
    return pd.DataFrame({"query_id": [f"q{i}" for i in range(len(sources))], "source": sources})


def test_a_declared_share_outside_the_interval_is_flagged():
    mix = source_mix(queries(["ticket"] * 16 + ["search"] * 2 + ["sales"] * 2),
                     {"ticket": 0.5, "search": 0.3, "sales": 0.2}).set_index("source")
    assert mix["n"].to_dict() == {"ticket": 16, "search": 2, "sales": 2}
    assert mix["share"].to_dict() == {"ticket": 0.8, "search": 0.1, "sales": 0.1}
    # 16/20: [0.563, 0.943] excludes 0.5; 2/20: [0.012, 0.317] holds 0.3 and 0.2
    assert clopper_pearson(16, 20)[0] > 0.5 and clopper_pearson(2, 20)[1] > 0.3
    assert mix["outside"].to_dict() == {"ticket": True, "search": False, "sales": False}
    assert (mix["ci_low"].to_numpy() == pytest.approx(
        [clopper_pearson(k, 20)[0] for k in (16, 2, 2)], rel=1e-6))


def test_undeclared_and_missing_sources_are_listed_and_flag():
    mix = source_mix(queries(["ticket"] * 8 + ["email", None]), {"ticket": 1.0})
    assert list(mix["source"]) == ["ticket", "email", "(missing)"]
    assert mix.set_index("source")["outside"].to_dict() == {
        "ticket": True, "email": True, "(missing)": True}   # 1 of 10 excludes a declared 0


@pytest.mark.parametrize("declared, message", [
    ({"ticket": 0.5, "search": 0.3}, "add up to 0.8"),
    ({"ticket": 1.2, "search": -0.2}, "must be a number >= 0"),
    ({}, "non-empty mapping"),
])
def test_declared_shares_are_checked(declared, message):
    with pytest.raises(InputError, match=message):
        source_mix(queries(["ticket"]), declared)


def test_no_source_field_is_an_error():
    with pytest.raises(InputError, match="no 'channel' field"):
        source_mix(queries(["ticket"]), {"ticket": 1.0}, column="channel")


def test_unanswerable_share_against_the_target(tmp_path):
    ts = make_test_set(tmp_path, [q(f"q{i}", [("p", 0)], unanswerable=i < 3) for i in range(20)])
    row = unanswerable_share(ts, target=0.15).iloc[0]
    assert (row["unanswerable"], row["queries"], row["share"]) == (3, 20, 0.15)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(clopper_pearson(3, 20), rel=1e-6)
    assert not row["target_outside"]
    assert unanswerable_share(ts, target=0.6).iloc[0]["target_outside"]   # 3/20 CI tops at 0.38
