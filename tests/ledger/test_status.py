"""The split-status table and the trajectory band: a figure shown as its range reads as one."""
from __future__ import annotations

import pandas as pd

from ragnb.ledger.status import split_status_table
from ragnb.stats.inflation import DATA_DRIVEN, SelectionInflation, range_columns
from ragnb.trajectory.charts import _band_label

RANGED = SelectionInflation("golden", 6, 0.0001, DATA_DRIVEN, 0.01, "pairs", 6, 100, 2_000,
                            50, 1, low=0.0004, high=0.0132, spread=2.0)
POINT = SelectionInflation("prod", 3, 0.0023, DATA_DRIVEN, 0.01, "pairs", 4, 100, 2_000, 50, 1,
                           low=0.0001, high=0.0150, spread=0.1)


def _row(figure):
    return {"split": figure.split, "role": "working", "selections_against": figure.selections,
            "budget": None, "sealed": False, "retired_for_selection_at": None,
            "inflation": figure.inflation, "inflation_method": figure.method,
            **range_columns(figure)}


def test_the_ranged_row_shows_its_range_and_the_other_its_point():
    """0.0004-0.0132 is 0.04-1.32 points; the point row's range columns are empty (NaN in a
    float column, NA once typed), so it shows 0.23. The point row's low/high stay unset:
    its spread 0.1 is under SPREAD_LIMIT."""
    frame = pd.DataFrame([_row(RANGED), _row(POINT)])
    expected = ["0.04–1.32 (empirical-Bayes selection bootstrap; a range: one candidate leads)",
                "0.23 (empirical-Bayes selection bootstrap)"]
    assert list(split_status_table(frame)["selection inflation (points)"]) == expected
    typed = frame.astype({"inflation_low": "Float64", "inflation_high": "Float64"})
    assert list(split_status_table(typed)["selection inflation (points)"]) == expected


def test_the_trajectory_band_says_the_range():
    band = {"method": DATA_DRIVEN, "rounds": 6, "inflation": RANGED.inflation,
            **range_columns(RANGED)}
    assert _band_label(band) == ("selection alone: +0.04 to +1.32 points after 6 rounds "
                                 "(empirical Bayes; a range: one candidate leads)")
    band = {"method": DATA_DRIVEN, "rounds": 3, "inflation": POINT.inflation,
            **range_columns(POINT)}
    assert _band_label(band) == "selection alone: +0.23 points after 3 rounds (empirical Bayes)"
