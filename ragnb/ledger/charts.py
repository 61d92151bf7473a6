"""Altair charts of the split ledger's views. Each function returns a chart and displays nothing.

Test them through ``chart.to_dict()``; notebooks display them, reports render
them as static SVG (:mod:`ragnb.report`).
"""
from __future__ import annotations

import altair as alt
import pandas as pd


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


def inflation_chart(curve: pd.DataFrame, current: dict[str, int],
                    figures: dict | None = None) -> alt.LayerChart:
    """Worst-case inflation after N selections (points), each split's own figure marked.

    ``figures`` maps a split to its one figure (:class:`ragnb.stats.SelectionInflation`):
    its mark sits at that figure, below the curve when its candidates are not all
    equal; a split without one is marked on the curve (its worst case).
    """
    c = curve.assign(points=curve["inflation"] * 100)
    figures = figures or {}
    line = alt.Chart(c).mark_line().encode(
        x=alt.X("selections:Q", title="selections against the split (N)"),
        y=alt.Y("points:Q", title="selection inflation (points)"),
        tooltip=["selections:Q", alt.Tooltip("expected_max:Q", format=".2f"),
                 alt.Tooltip("points:Q", format=".2f")])
    rows = [{"split": s, "selections": n,
             "points": (figures[s].points if figures.get(s) is not None
                        else float(c.loc[c["selections"] == n, "points"].iloc[0]) if n else 0.0),
             "method": (figures[s].method if figures.get(s) is not None
                        else "worst case: all candidates equal")}
            for s, n in current.items() if n <= c["selections"].max()]
    pts = alt.Chart(pd.DataFrame(rows)).mark_point(filled=True, size=90).encode(
        x="selections:Q", y="points:Q", color="split:N",
        tooltip=["split:N", "selections:Q", alt.Tooltip("points:Q", format=".2f"), "method:N"])
    return (line + pts).properties(
        width=420, height=220,
        title="Worst case (all candidates equal): E[max of N normals] x SE / √2")
