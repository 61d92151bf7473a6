"""Charts, tested through their Vega-Lite dict: the strata chart (Breakdown)."""
from __future__ import annotations

import pandas as pd

from ragnb.strata import StrataSpec, breakdown
from ragnb.strata.charts import strata_chart


def small_breakdown(spec):
    rows = []
    for i in range(12):
        rows += [("b", f"a{i}", 0.5), ("c", f"a{i}", 0.5 + (0.05 if i % 3 else -0.02))]
    for i in range(5):
        rows += [("b", f"z{i}", 0.0), ("c", f"z{i}", 0.0)]
    for i in range(4):
        rows += [("b", f"x{i}", 0.3), ("c", f"x{i}", 0.2)]
    scores = pd.DataFrame(rows, columns=["config", "query_id", "value"])
    labels = pd.Series({q: q[0] for _, q, _ in rows[::2]})
    return breakdown(scores, labels, spec, baseline="b", challenger="c", resamples=200)


def chart_data(chart):
    spec = chart.to_dict()
    (values,) = spec["datasets"].values()
    return spec, pd.DataFrame(values)


def test_rows_in_table_order_pooled_marked_sizes_in_labels():
    bd = small_breakdown("kind")
    spec, data = chart_data(strata_chart(bd))
    assert data["row"].tolist() == ["a  (n=12)", "z  (n=5)", "x  (n=4)",
                                    "pooled, size-weighted (n=21)", "equal-weight average"]
    # deltas in points: a = (8 * 5 - 4 * 2) / 12 = 2.667, z = 0, x = -10
    assert data["delta"].round(3).tolist()[:3] == [2.667, 0.0, -10.0]
    assert data.loc[3, "delta"] == bd.pooled["delta"] * 100
    layers = spec["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["rule", "rule", "point", "point"]
    assert layers[2]["encoding"]["size"]["field"] == "n"          # dot area shows the size
    assert layers[3]["encoding"]["shape"]["scale"]["range"] == ["circle", "diamond", "square"]
    assert layers[1]["encoding"]["y"]["sort"] == data["row"].tolist()
    assert "strata of 'kind'" in spec["title"]["subtitle"][0]


def test_excluded_strata_are_named_not_drawn():
    bd = small_breakdown(StrataSpec("kind", exclude=("x",)))
    spec, data = chart_data(strata_chart(bd))
    assert "x  (n=4)" not in data["row"].tolist()
    assert spec["title"]["subtitle"][1] == "excluded: x (n=4)"


def altair_dict(chart) -> dict:
    """``chart.to_dict()`` with its one named dataset inlined, as :func:`strata_spec` writes."""
    spec = chart.to_dict()
    (values,) = spec.pop("datasets").values()
    spec["data"] = {"values": values}
    return spec


def test_the_widget_spec_is_the_altair_chart():
    from ragnb.strata.charts import strata_spec

    names = {"c": "challenger C"}
    for spec in ("kind", StrataSpec("kind", exclude=("x",)), StrataSpec("kind", exclude=("z",))):
        bd = small_breakdown(spec)
        assert strata_spec(bd) == altair_dict(strata_chart(bd))
        assert strata_spec(bd, display_names=names) == altair_dict(
            strata_chart(bd, display_names=names))
