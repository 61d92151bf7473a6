"""Ledger views: running counts, the inflation curve and the guard report (demo ledger)."""
import numpy as np
import pandas as pd
import pytest

from ragnb.ledger import Ledger
from ragnb.ledger.views import guard_report, inflation_curve, selection_counts
from ragnb.paths import DEMO_DIR


def test_running_counts_reach_the_budget_and_mark_the_demotion():
    counts = selection_counts(Ledger(DEMO_DIR / "ledger").history())
    golden = counts[counts["split"] == "golden"]
    assert golden["selections_against"].tolist() == list(range(41))
    assert golden["demoted"].tolist() == [False] * 40 + [True]
    assert str(golden["ts"].iloc[-1].date()) == "2026-07-02"


def test_inflation_curve_values():
    curve = inflation_curve(0.0069, n_max=40).set_index("selections")
    # 40 rounds at a paired SE of 0.0069 inflate by 2.16 x 0.69 / sqrt(2) = 1.05 points
    assert curve.loc[40, "inflation"] * 100 == pytest.approx(1.05, abs=0.01)
    assert curve.loc[1, "expected_max"] == pytest.approx(0.0, abs=1e-9)


def test_guard_refuses_close_ranking_and_alerts_on_a_big_drop():
    out = guard_report("golden", {"a": 0.600, "b": 0.603}, "b", 40, 0.0069, 0.16)
    assert out["outcome"].tolist() == ["refused", "fires"]
    # margin = 2.16 * SE / sqrt(2) + 1.96 * SE, bias = 2.16 * SE / sqrt(2) (in points)
    assert out["selection_bias_points"].iloc[0] == pytest.approx(1.05, abs=0.01)
    assert out["margin_points"].iloc[0] == pytest.approx(1.05 + 1.35, abs=0.01)
    clear = guard_report("golden", {"a": 0.50, "b": 0.60}, "b", 40, 0.0069, 0.05)
    assert clear["outcome"].tolist() == ["allowed", "silent"]
    assert isinstance(clear, pd.DataFrame)


def test_split_status_matches_by_content_and_admits_the_unknown():
    from ragnb.io import read_test_set
    from ragnb.ledger.views import split_status
    from ragnb.stats import expected_max_normal

    golden = read_test_set(DEMO_DIR / "golden.jsonl")
    other = read_test_set(DEMO_DIR / "labelbias" / "testset.jsonl")
    t = split_status(DEMO_DIR / "ledger", {"my-golden": golden, "rfp": other}, se=0.0069)
    g, o = t.iloc[0], t.iloc[1]
    assert g["split_id"].startswith("golden@sha256:")      # found under its ledger name
    assert g["selections_against"] == 40
    assert g["inflation"] == pytest.approx(expected_max_normal(40) * 0.0069 / np.sqrt(2))
    assert o["role"] == "not registered" and pd.isna(o["selections_against"])
    assert pd.isna(split_status("", {"rfp": other})["selections_against"].iloc[0])
