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
    assert [layer["mark"]["type"] for layer in layers] == ["rule", "rule", "point", "point",
                                                           "point", "point"]  # + clip arrows
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


def test_one_small_stratums_wide_interval_is_cut_not_stretching_the_axis():
    """Issue 33: one small stratum with a wide interval (on the demo, malformed's
    [-29.8, +29.3] before the skew-corrected interval) stretched the axis and squeezed
    the other strata into a fifth of the plot. Here: two strata of 60 and 40 queries
    whose moves are a few points, and one of 6 whose moves are +-60 points (its
    t-interval about +-70 points wide)."""
    import numpy as np

    rng = np.random.default_rng(5)
    rows = []
    for name, n, moves in (("web", 60, rng.normal(0.01, 0.05, 60)),
                           ("faq", 40, rng.normal(0.02, 0.05, 40)),
                           ("odd", 6, np.array([0.6, -0.6, 0.6, -0.6, 0.6, -0.5]))):
        for i, m in enumerate(moves[:n]):
            rows += [("b", f"{name}{i}", 0.4), ("c", f"{name}{i}", 0.4 + float(m))]
    scores = pd.DataFrame(rows, columns=["config", "query_id", "value"])
    labels = pd.Series({q: q.rstrip("0123456789") for _, q, _ in rows[::2]})
    bd = breakdown(scores, labels, "kind", baseline="b", challenger="c", resamples=200)
    spec, data = chart_data(strata_chart(bd))
    lo, hi = spec["layer"][1]["encoding"]["x"]["scale"]["domain"]
    rows_ = data.set_index("stratum")
    # odd and the equal-weight average (a third of odd's width) are over 3x the median
    cut = rows_.index[rows_["clip_low"] & rows_["clip_high"]].tolist()
    assert cut == ["odd", "equal-weight"]
    assert not rows_.drop(cut)[["clip_low", "clip_high"]].any().any()
    # every other interval inside; the axis well under the odd stratum's 140 points
    kept = rows_.drop(cut)
    assert lo <= kept["ci_low"].min() and hi >= kept["ci_high"].max()
    assert rows_.loc["odd", "ci_high"] - rows_.loc["odd", "ci_low"] > 100
    assert hi - lo < 30
    assert rows_.loc["odd", "ci_high_shown"] == hi      # the arrow sits at the edge
    assert spec["title"]["subtitle"][-1].startswith("cut at the edge (arrow): odd (n=6)")
