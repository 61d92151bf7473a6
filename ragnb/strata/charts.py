"""Altair chart of a stratified breakdown. The function returns a chart and displays nothing.

Test them through ``chart.to_dict()``; notebooks display them, reports render
them as static SVG (:mod:`ragnb.report`).
"""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt

from ragnb.metrics.registry import metric_label
from ragnb.result import display_name

STRATUM_KINDS = alt.Scale(domain=["stratum", "pooled", "macro"],
                          range=["#3465a4", "#cc0000", "#c17d11"])


def strata_chart(bd, scale: float = 100.0,
                 display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Per-stratum deltas with intervals, the pooled row marked, sizes visible (a Breakdown).

    One row per stratum (labelled with its size; dot area proportional to it),
    then the pooled row (red diamond: the size-weighted average) and the
    equal-weight average (orange square), a dashed rule at zero. Excluded
    strata are named in the subtitle, not drawn. Channels are given as objects,
    not shorthand strings, which keeps building the chart cheap enough for the
    what-if widget to redraw it on every change. ``display_names`` names the
    two configs in the subtitle.
    """
    t = bd.table.loc[bd.table["kind"] != "excluded", ["stratum", "kind", "n", "delta", "ci_low",
                                                      "ci_high"]].copy()
    for col in ("delta", "ci_low", "ci_high"):
        t[col] = t[col] * scale
    t["stratum"] = t["stratum"].astype(str)
    t["row"] = [f"{s}  (n={n})" if k == "stratum" else
                (f"pooled, size-weighted (n={n})" if k == "pooled" else "equal-weight average")
                for s, k, n in zip(t["stratum"], t["kind"], t["n"])]
    t["zero"] = 0.0
    y = alt.Y("row", type="nominal", sort=list(t["row"]), title=None,
              axis=alt.Axis(labelLimit=320))
    color = alt.Color("kind", type="nominal", scale=STRATUM_KINDS, title=None,
                      legend=alt.Legend(orient="bottom", labelExpr=(
                          "datum.label == 'macro' ? 'equal-weight average' : datum.label")))
    shape = alt.Shape("kind", type="nominal", legend=None, scale=alt.Scale(
        domain=["stratum", "pooled", "macro"], range=["circle", "diamond", "square"]))
    x_title = f"Δ {metric_label(bd.metric)} (points), {bd.ci:.0%} interval"
    x = alt.X("delta", type="quantitative", title=x_title)
    tooltip = [alt.Tooltip("stratum", type="nominal"), alt.Tooltip("n", type="quantitative"),
               alt.Tooltip("delta", type="quantitative", format="+.2f", title="Δ (points)"),
               alt.Tooltip("ci_low", type="quantitative", format="+.2f"),
               alt.Tooltip("ci_high", type="quantitative", format="+.2f")]
    base = alt.Chart()
    zero = base.mark_rule(color="#888888", strokeDash=[4, 3]).encode(
        x=alt.X("zero", type="quantitative"))
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y, x=alt.X("ci_low", type="quantitative", title=x_title), x2=alt.X2("ci_high"),
        color=color)
    dots = base.transform_filter("datum.kind == 'stratum'").mark_point(
        filled=True, opacity=1).encode(
        y=y, x=x, color=color, tooltip=tooltip, shape=shape,
        size=alt.Size("n", type="quantitative", scale=alt.Scale(range=[30, 400]), legend=None))
    summary = base.transform_filter("datum.kind != 'stratum'").mark_point(
        filled=True, opacity=1, size=160).encode(y=y, x=x, color=color, tooltip=tooltip,
                                                 shape=shape)
    excluded = bd.table[bd.table["kind"] == "excluded"]
    pair = (f"{display_name(bd.challenger, display_names)} − "
            f"{display_name(bd.baseline, display_names)}")
    subtitle = [f"{pair}, strata of {bd.spec.column!r}"]
    if len(excluded):
        subtitle.append("excluded: " + ", ".join(
            f"{s} (n={n})" for s, n in zip(excluded["stratum"], excluded["n"])))
    return alt.LayerChart(layer=[zero, bars, dots, summary], data=t).properties(
        width=420, height=max(120, 28 * len(t)),
        title=alt.TitleParams("Δ per stratum", subtitle=subtitle))
