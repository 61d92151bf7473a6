"""Altair chart of the trajectory. The function returns a chart and displays nothing.

Test them through ``chart.to_dict()``; notebooks display them, reports render
them as static SVG (:mod:`ragnb.report`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import altair as alt
import pandas as pd

from ragnb.metrics.registry import metric_label
from ragnb.result import display_name

#: Most round ticks on the x axis (whole rounds, evenly spaced).
MAX_TICKS = 12


def _round_x(field: str, rounds: pd.Series) -> alt.X:
    """The round axis: ticks at whole rounds only (every round up to :data:`MAX_TICKS`, else
    every k-th), given explicitly (``tickMinStep`` alone still drew 0, 1, 1, 2, 2 on three
    champions: ticks at half rounds, formatted as integers).
    """
    low, high = int(rounds.min()), int(rounds.max())
    step = max(1, -(-(high - low) // MAX_TICKS))
    return alt.X(f"{field}:Q", title="round of selection", scale=alt.Scale(nice=False),
                 axis=alt.Axis(values=list(range(low, high + 1, step)), format="d"))


def trajectory_chart(tr, display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Golden and production lines across rounds in points (x100): bands, inflation, divergence.

    The inflation label sits in the lower right corner and the divergence label
    at the top, beside its rule, so no line crosses either. ``display_names``
    names each round's champion in the tooltips, and the champions kept at the
    first round, the divergence round and the last round above their golden points.
    """
    pts = tr.points.assign(**{c: tr.points[c] * 100 for c in ("mean", "ci_low", "ci_high")})
    pts["config"] = [display_name(c, display_names) for c in pts["config"]]
    x = _round_x("round", pts["round"])
    color = alt.Color("split:N", scale=alt.Scale(domain=[tr.golden, tr.production],
                                                 range=["#c17d11", "#3465a4"]))
    band = alt.Chart(pts).mark_area(opacity=0.18).encode(x=x, y="ci_low:Q", y2="ci_high:Q",
                                                          color=color)
    line = alt.Chart(pts).mark_line(point=True).encode(
        x=x, y=alt.Y("mean:Q", title=f"mean {metric_label(tr.metric) if tr.metric else 'score'} "
                                     "(points)", scale=alt.Scale(zero=False)),
        color=color,
        tooltip=["round:Q", "config:N", "split:N", alt.Tooltip("mean:Q", format=".1f"),
                 alt.Tooltip("ci_low:Q", format=".1f"), alt.Tooltip("ci_high:Q", format=".1f")])
    inf = tr.inflation
    infl = pd.DataFrame([{"x0": pts["round"].min(), "x1": pts["round"].max(),
                          "y0": inf["band_low"] * 100, "y1": inf["band_high"] * 100,
                          "label": _band_label(inf)}])
    inflation = alt.Chart(infl).mark_rect(color="#999999", opacity=0.25).encode(
        # the first layer's axis is the chart's: the same whole-round ticks as the lines
        x=_round_x("x0", pts["round"]),
        x2="x1:Q", y="y0:Q", y2="y1:Q", tooltip=["label:N"])
    inflation_text = alt.Chart(infl).mark_text(align="right", dx=-4, baseline="bottom",
                                               fontSize=10, color="#555555").encode(
        x="x1:Q", y=alt.value(296), text="label:N")
    layers = [inflation, inflation_text, band, line]
    if tr.divergence_round is not None:
        rule_df = pd.DataFrame([{"round": tr.divergence_round,
                                 "label": f"after round {tr.divergence_round}: only golden moves"}])
        layers.append(alt.Chart(rule_df).mark_rule(strokeDash=[4, 3], color="#444444")
                      .encode(x="round:Q", tooltip=["label:N"]))
        layers.append(alt.Chart(rule_df).mark_text(align="left", dx=4, dy=8, fontSize=10,
                                                   baseline="top").encode(
            x="round:Q", y=alt.value(0), text="label:N"))
    layers.extend(_champion_labels(pts, tr, x))
    return alt.LayerChart(layer=layers).properties(width=560, height=300,
                                          title="Champions rescored on both splits")


def _champion_labels(pts: pd.DataFrame, tr, x: alt.X) -> list[alt.Chart]:
    """The champion kept at the first round, the divergence round and the last round, named
    (display name and config) above the golden line's point: one text layer each, the first
    aligned left and the last right so that neither leaves the plot.
    """
    golden = pts[pts["split"] == tr.golden].sort_values("round")
    first, last = golden["round"].iloc[0], golden["round"].iloc[-1]
    named: dict[int, tuple[Literal["left", "right"], int]] = {first: ("left", 0),
                                                              last: ("right", 0)}
    if tr.divergence_round is not None and tr.divergence_round not in named:
        named[tr.divergence_round] = ("right", -4)   # left of the divergence rule
    out = []
    for r, (align, dx) in named.items():
        row = golden[golden["round"] == r][["round", "mean", "config"]]
        out.append(alt.Chart(row).mark_text(align=align, dx=dx, dy=-20, baseline="bottom",
                                            fontSize=10, color="#444444")
                   .encode(x=x, y="mean:Q", text="config:N"))
    return out


def _band_label(inf: dict) -> str:
    """The inflation band's label: the split's one figure, short, with its method."""
    from ragnb.stats.inflation import DATA_DRIVEN, WORST_CASE

    worst = inf.get("method") == WORST_CASE
    how = {WORST_CASE: "worst case", DATA_DRIVEN: "empirical Bayes"}.get(str(inf.get("method")), "")
    if inf.get("inflation_low") is not None:
        return (f"selection alone: +{inf['inflation_low'] * 100:.2f} to "
                f"+{inf['inflation_high'] * 100:.2f} points "
                f"after {inf['rounds']} rounds ({how}; a range: one candidate leads)")
    return (f"selection alone: {'at most ' if worst else ''}+{inf['inflation'] * 100:.2f} points "
            f"after {inf['rounds']} rounds" + (f" ({how})" if how else ""))
