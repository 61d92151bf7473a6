"""Altair charts for the analyses. Each function returns a chart and displays nothing.

Test them through ``chart.to_dict()``; notebooks display them, reports render
them as static SVG (:mod:`ragnb.report`).
"""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from ragnb.result import display_name

SPLIT_COLORS = alt.Scale(domain=["golden", "production"], range=["#c17d11", "#3465a4"])


def four_cell_chart(fc, display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Means with intervals in points (x100): baseline and champion on each split (a FourCell).

    ``display_names`` (config -> name, e.g. ``Workspace.display_names``) names
    the configs in the legend and tooltips (:func:`ragnb.result.display_name`).
    """
    base_name = display_name(fc.baseline, display_names)
    champ_name = display_name(fc.champion, display_names)
    cells = fc.cells.assign(
        **{c: fc.cells[c] * 100 for c in ("mean", "ci_low", "ci_high")}).assign(
        config_role=lambda d: d["config"].map({fc.baseline: "baseline", fc.champion: "champion"}),
        config=lambda d: [display_name(c, display_names) for c in d["config"]],
        label=lambda d: d["config"] + ", " + d["config_role"])
    base = alt.Chart(cells).encode(
        x=alt.X("split:N", title=None, sort=[fc.golden, fc.production],
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("label:N", sort=[f"{base_name}, baseline",
                                             f"{champ_name}, champion"]),
        color=alt.Color("label:N", title="config",
                        scale=alt.Scale(range=["#888888", "#cc0000"])),
    )
    bars = base.mark_errorbar(thickness=2).encode(
        y=alt.Y("ci_low:Q", title=f"mean {fc.metric} (points)", scale=alt.Scale(zero=False)),
        y2="ci_high:Q")
    points = base.mark_point(filled=True, size=80).encode(
        y="mean:Q", tooltip=["config:N", "split:N", alt.Tooltip("mean:Q", format=".1f"),
                             alt.Tooltip("ci_low:Q", format=".1f"),
                             alt.Tooltip("ci_high:Q", format=".1f"), "n:Q"])
    return (bars + points).properties(
        width=320, height=260,
        title=alt.TitleParams(
            f"{fc.metric}: baseline vs champion on {fc.golden} and {fc.production}",
            subtitle=f"{champ_name} vs {base_name}"))


def trajectory_chart(tr, display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Golden and production lines across rounds in points (x100): bands, inflation, divergence.

    The inflation label sits in the lower right corner and the divergence label
    at the top, beside its rule, so no line crosses either. ``display_names``
    names each round's champion in the tooltips.
    """
    pts = tr.points.assign(**{c: tr.points[c] * 100 for c in ("mean", "ci_low", "ci_high")})
    pts["config"] = [display_name(c, display_names) for c in pts["config"]]
    x = alt.X("round:Q", title="round of selection", scale=alt.Scale(nice=False))
    color = alt.Color("split:N", scale=alt.Scale(domain=[tr.golden, tr.production],
                                                 range=["#c17d11", "#3465a4"]))
    band = alt.Chart(pts).mark_area(opacity=0.18).encode(x=x, y="ci_low:Q", y2="ci_high:Q",
                                                          color=color)
    line = alt.Chart(pts).mark_line(point=True).encode(
        x=x, y=alt.Y("mean:Q", title="mean score (points)", scale=alt.Scale(zero=False)),
        color=color,
        tooltip=["round:Q", "config:N", "split:N", alt.Tooltip("mean:Q", format=".1f"),
                 alt.Tooltip("ci_low:Q", format=".1f"), alt.Tooltip("ci_high:Q", format=".1f")])
    inf = tr.inflation
    infl = pd.DataFrame([{"x0": pts["round"].min(), "x1": pts["round"].max(),
                          "y0": inf["band_low"] * 100, "y1": inf["band_high"] * 100,
                          "label": f"selection alone: +{inf['inflation'] * 100:.2f} points "
                                   f"after {inf['rounds']} rounds"}])
    inflation = alt.Chart(infl).mark_rect(color="#999999", opacity=0.25).encode(
        x="x0:Q", x2="x1:Q", y="y0:Q", y2="y1:Q", tooltip=["label:N"])
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
    return alt.LayerChart(layer=layers).properties(width=560, height=300,
                                          title="Champions rescored on both splits")


def selection_timeline_chart(counts: pd.DataFrame, budgets: dict[str, int] | None = None
                             ) -> alt.LayerChart:
    """Running selections_against per split over time; budget lines and demotion marks."""
    x = alt.X("ts:T", title=None)
    line = alt.Chart(counts).mark_line(interpolate="step-after", point=True).encode(
        x=x, y=alt.Y("selections_against:Q", title="selections against the split"),
        color=alt.Color("split:N"), tooltip=["split:N", "ts:T", "selections_against:Q", "event:N"])
    layers = [line]
    if budgets:
        b = pd.DataFrame([{"split": s, "budget": v} for s, v in budgets.items() if v])
        if len(b):
            layers.append(alt.Chart(b).mark_rule(strokeDash=[4, 3]).encode(
                y="budget:Q", color="split:N", tooltip=["split:N", "budget:Q"]))
    demoted = counts[counts["demoted"]]
    if len(demoted):
        layers.append(alt.Chart(demoted).mark_point(shape="triangle-down", size=140, filled=True,
                                                    color="#cc0000").encode(
            x=x, y="selections_against:Q", tooltip=["split:N", "ts:T"]))
        layers.append(alt.Chart(demoted.assign(label="demoted to regression guard")).mark_text(
            align="right", dx=-8, dy=-10, fontSize=10, color="#cc0000").encode(
            x=x, y="selections_against:Q", text="label:N"))
    return alt.LayerChart(layer=layers).properties(width=560, height=240,
                                          title="How often each split has been used to choose")


def inflation_chart(curve: pd.DataFrame, current: dict[str, int]) -> alt.LayerChart:
    """Inflation after N selections (points), with each split's current N marked."""
    c = curve.assign(points=curve["inflation"] * 100)
    line = alt.Chart(c).mark_line().encode(
        x=alt.X("selections:Q", title="selections against the split (N)"),
        y=alt.Y("points:Q", title="expected inflation (points)"),
        tooltip=["selections:Q", alt.Tooltip("expected_max:Q", format=".2f"),
                 alt.Tooltip("points:Q", format=".2f")])
    rows = [{"split": s, "selections": n,
             "points": float(c.loc[c["selections"] == n, "points"].iloc[0]) if n else 0.0}
            for s, n in current.items() if n <= c["selections"].max()]
    pts = alt.Chart(pd.DataFrame(rows)).mark_point(filled=True, size=90).encode(
        x="selections:Q", y="points:Q", color="split:N",
        tooltip=["split:N", "selections:Q", alt.Tooltip("points:Q", format=".2f")])
    return (line + pts).properties(width=420, height=220,
                                   title="Selection inflation: E[max of N normals] x SE / √2")

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
    x_title = f"Δ {bd.metric} (points), {bd.ci:.0%} interval"
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
