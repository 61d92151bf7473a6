"""Altair chart of a watched stream. The function returns a chart and displays nothing."""
from __future__ import annotations

import altair as alt
import pandas as pd


def sequence_chart(w) -> alt.LayerChart:
    """The confidence sequence after every batch in points (x100): band, estimate, 0 and margin.

    ``w`` is a :class:`ragnb.watch.Watch`; the band narrows as queries arrive and
    the chart's title is the stop decision.
    """
    pts = w.batches.assign(**{c: w.batches[c] * 100 for c in ("estimate", "low", "high")})
    x = alt.X("n:Q", title="judged queries so far")
    band = alt.Chart(pts).mark_area(opacity=0.25, color="#3465a4").encode(
        x=x, y=alt.Y("low:Q", title="champion − baseline (points)"), y2="high:Q")
    line = alt.Chart(pts).mark_line(point=True, color="#3465a4").encode(
        x=x, y="estimate:Q",
        tooltip=["batch:N", "date:N", "n:Q", alt.Tooltip("estimate:Q", format="+.1f"),
                 alt.Tooltip("low:Q", format="+.1f"), alt.Tooltip("high:Q", format="+.1f"),
                 "status:N"])
    marks = pd.DataFrame({"y": sorted({0.0, w.margin})})
    rules = alt.Chart(marks).mark_rule(strokeDash=[4, 3], color="#555555").encode(y="y:Q")
    return alt.LayerChart(layer=[band, line, rules], title=w.decision, width=520, height=260)
