"""Altair chart of a stratified breakdown. The function returns a chart and displays nothing.

Test them through ``chart.to_dict()``; notebooks display them, reports render
them as static SVG (:mod:`ragnb.report`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import altair as alt

from ragnb.metrics.registry import metric_label
from ragnb.result import display_name, interval

KINDS = ("stratum", "pooled", "macro")
COLORS = ("#3465a4", "#cc0000", "#c17d11")
SHAPES = ("circle", "diamond", "square")
LEGEND_LABELS = "datum.label == 'macro' ? 'equal-weight average' : datum.label"
STRATUM_KINDS = alt.Scale(domain=list(KINDS), range=list(COLORS))


def _parts(bd, scale: float, display_names: Mapping[str, str] | None) -> dict:
    """What changes from one breakdown to the next: rows, their order, titles, height."""
    t = bd.table.loc[bd.table["kind"] != "excluded", ["stratum", "kind", "n", "delta", "ci_low",
                                                      "ci_high"]].copy()
    for col in ("delta", "ci_low", "ci_high"):
        t[col] = t[col] * scale
    t["stratum"] = t["stratum"].astype(str)
    t["row"] = [f"{s}  (n={n})" if k == "stratum" else
                (f"pooled, size-weighted (n={n})" if k == "pooled" else "equal-weight average")
                for s, k, n in zip(t["stratum"], t["kind"], t["n"])]
    t["zero"] = 0.0
    domain, t = _clipped(t)
    excluded = bd.table[bd.table["kind"] == "excluded"]
    pair = (f"{display_name(bd.challenger, display_names)} − "
            f"{display_name(bd.baseline, display_names)}")
    subtitle = [f"{pair}, strata of {bd.spec.column!r}"]
    if len(excluded):
        subtitle.append("excluded: " + ", ".join(
            f"{s} (n={n})" for s, n in zip(excluded["stratum"], excluded["n"])))
    cut = t[t["clip_low"] | t["clip_high"]]
    if len(cut):
        subtitle.append("cut at the edge (arrow): " + ", ".join(
            f"{s} (n={n}) {interval(lo / scale, hi / scale, signed=True)}"
            for s, n, lo, hi in zip(cut["stratum"], cut["n"], cut["ci_low"], cut["ci_high"])))
    return {"data": t, "sort": list(t["row"]), "height": max(120, 28 * len(t)),
            "domain": domain,
            "x_title": f"Δ {metric_label(bd.metric)} (points), {bd.ci:.0%} interval",
            "subtitle": subtitle}


#: An interval wider than this many times the median width is cut at the chart's edge.
WIDE = 3.0


def _clipped(t):
    """The x range and each row's interval as drawn: every estimate and the pooled interval
    are inside; an interval over :data:`WIDE` × the median nonzero width (one small
    stratum's [-29.8, +29.3] beside widths of 4-13 points) is cut at the edge and flagged
    (``clip_low`` / ``clip_high``), so it cannot flatten the others (issue 33, item 3).
    """
    width = t["ci_high"] - t["ci_low"]
    finite = width[(width > 0) & width.notna()]
    limit = WIDE * float(finite.median()) if len(finite) else math.inf
    kept = t[(width <= limit) | width.isna()]
    values = [*t["delta"].dropna(), *kept["ci_low"].dropna(), *kept["ci_high"].dropna(), 0.0]
    lo, hi = min(values), max(values)
    pad = 0.05 * (hi - lo) if hi > lo else 1.0
    lo, hi = round(lo - pad, 6), round(hi + pad, 6)
    shown = t.assign(clip_low=t["ci_low"] < lo, clip_high=t["ci_high"] > hi,
                     ci_low_shown=t["ci_low"].clip(lower=lo),
                     ci_high_shown=t["ci_high"].clip(upper=hi))
    return [lo, hi], shown


def strata_chart(bd, scale: float = 100.0,
                 display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Per-stratum deltas with intervals, the pooled row marked, sizes visible (a Breakdown).

    One row per stratum (labelled with its size; dot area proportional to it),
    then the pooled row (red diamond: the size-weighted average) and the
    equal-weight average (orange square), a dashed rule at zero. Excluded
    strata are named in the subtitle, not drawn. Channels are given as objects,
    not shorthand strings, which keeps building the chart cheap. ``display_names``
    names the two configs in the subtitle. :func:`strata_spec` is the same chart
    as a Vega-Lite dict, built without Altair (the what-if widget's redraw).
    """
    parts = _parts(bd, scale, display_names)
    t, x_title = parts["data"], parts["x_title"]
    y = alt.Y("row", type="nominal", sort=parts["sort"], title=None,
              axis=alt.Axis(labelLimit=320))
    color = alt.Color("kind", type="nominal", scale=STRATUM_KINDS, title=None,
                      legend=alt.Legend(orient="bottom", labelExpr=LEGEND_LABELS))
    shape = alt.Shape("kind", type="nominal", legend=None, scale=alt.Scale(
        domain=list(KINDS), range=list(SHAPES)))
    domain = alt.Scale(domain=parts["domain"], nice=False)
    x = alt.X("delta", type="quantitative", title=x_title, scale=domain)
    tooltip = [alt.Tooltip("stratum", type="nominal"), alt.Tooltip("n", type="quantitative"),
               alt.Tooltip("delta", type="quantitative", format="+.2f", title="Δ (points)"),
               alt.Tooltip("ci_low", type="quantitative", format="+.2f"),
               alt.Tooltip("ci_high", type="quantitative", format="+.2f")]
    base = alt.Chart()
    zero = base.mark_rule(color="#888888", strokeDash=[4, 3]).encode(
        x=alt.X("zero", type="quantitative"))
    bars = base.mark_rule(strokeWidth=2).encode(
        y=y, x=alt.X("ci_low_shown", type="quantitative", title=x_title, scale=domain),
        x2=alt.X2("ci_high_shown"), color=color)
    arrows = [base.transform_filter(f"datum.clip_{end}").mark_point(
        shape=f"triangle-{side}", filled=True, opacity=1, size=90).encode(
        y=y, x=alt.X(f"ci_{end}_shown", type="quantitative", scale=domain), color=color)
        for end, side in (("low", "left"), ("high", "right"))]
    dots = base.transform_filter("datum.kind == 'stratum'").mark_point(
        filled=True, opacity=1).encode(
        y=y, x=x, color=color, tooltip=tooltip, shape=shape,
        size=alt.Size("n", type="quantitative", scale=alt.Scale(range=[30, 400]), legend=None))
    summary = base.transform_filter("datum.kind != 'stratum'").mark_point(
        filled=True, opacity=1, size=160).encode(y=y, x=x, color=color, tooltip=tooltip,
                                                 shape=shape)
    return alt.LayerChart(layer=[zero, bars, dots, summary, *arrows], data=t).properties(
        width=420, height=parts["height"],
        title=alt.TitleParams("Δ per stratum", subtitle=parts["subtitle"]))


def _plain(value):
    """A JSON value as Altair writes it: numpy scalars as Python ones, NaN as null."""
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and math.isnan(value) else value


def strata_spec(bd, scale: float = 100.0,
                display_names: Mapping[str, str] | None = None) -> dict:
    """:func:`strata_chart` as a Vega-Lite dict, its data inline, built without Altair.

    The what-if widget redraws the chart on every change; Altair's ``to_dict``
    costs it 0.05-0.15 s a time, this a millisecond. The tests hold the two equal.
    """
    parts = _parts(bd, scale, display_names)
    t = parts["data"]
    values = [{k: _plain(v) for k, v in row.items()} for row in t.to_dict("records")]
    y = {"axis": {"labelLimit": 320}, "field": "row", "sort": parts["sort"], "title": None,
         "type": "nominal"}
    color = {"field": "kind", "legend": {"labelExpr": LEGEND_LABELS, "orient": "bottom"},
             "scale": {"domain": list(KINDS), "range": list(COLORS)}, "title": None,
             "type": "nominal"}
    shape = {"field": "kind", "legend": None,
             "scale": {"domain": list(KINDS), "range": list(SHAPES)}, "type": "nominal"}
    domain = {"domain": parts["domain"], "nice": False}
    x = {"field": "delta", "scale": domain, "title": parts["x_title"], "type": "quantitative"}
    tooltip = [{"field": "stratum", "type": "nominal"}, {"field": "n", "type": "quantitative"},
               {"field": "delta", "format": "+.2f", "title": "Δ (points)",
                "type": "quantitative"},
               {"field": "ci_low", "format": "+.2f", "type": "quantitative"},
               {"field": "ci_high", "format": "+.2f", "type": "quantitative"}]
    layer = [
        {"mark": {"type": "rule", "color": "#888888", "strokeDash": [4, 3]},
         "encoding": {"x": {"field": "zero", "type": "quantitative"}}},
        {"mark": {"type": "rule", "strokeWidth": 2},
         "encoding": {"color": color, "x": {"field": "ci_low_shown", "scale": domain,
                                            "title": parts["x_title"],
                                            "type": "quantitative"},
                      "x2": {"field": "ci_high_shown"}, "y": y}},
        {"mark": {"type": "point", "filled": True, "opacity": 1},
         "encoding": {"color": color, "shape": shape,
                      "size": {"field": "n", "legend": None, "scale": {"range": [30, 400]},
                               "type": "quantitative"},
                      "tooltip": tooltip, "x": x, "y": y},
         "transform": [{"filter": "datum.kind == 'stratum'"}]},
        {"mark": {"type": "point", "filled": True, "opacity": 1, "size": 160},
         "encoding": {"color": color, "shape": shape, "tooltip": tooltip, "x": x, "y": y},
         "transform": [{"filter": "datum.kind != 'stratum'"}]},
        *({"mark": {"type": "point", "filled": True, "opacity": 1, "shape": f"triangle-{side}",
                    "size": 90},
           "encoding": {"color": color, "x": {"field": f"ci_{end}_shown", "scale": domain,
                                              "type": "quantitative"}, "y": y},
           "transform": [{"filter": f"datum.clip_{end}"}]}
          for end, side in (("low", "left"), ("high", "right"))),
    ]
    return {"$schema": alt.SCHEMA_URL,
            "config": {"view": {"continuousWidth": 300, "continuousHeight": 300}},
            "layer": layer, "data": {"values": values}, "height": parts["height"],
            "title": {"text": "Δ per stratum", "subtitle": parts["subtitle"]}, "width": 420}
