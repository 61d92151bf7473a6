"""Altair chart of the four-cell table. The function returns a chart and displays nothing.

Test them through ``chart.to_dict()``; notebooks display them, reports render
them as static SVG (:mod:`ragnb.report`).
"""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt

from ragnb.metrics.registry import metric_label
from ragnb.result import display_name

#: Each role's colour on every page: the baseline grey, the champion (challenger) red.
ROLE_COLORS = {"baseline": "#888888", "champion": "#cc0000"}


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
    labels = [f"{base_name}, baseline", f"{champ_name}, champion"]
    base = alt.Chart(cells).encode(
        x=alt.X("split:N", title=None, sort=[fc.golden, fc.production],
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("label:N", sort=labels),
        # the role sets the colour, whatever the names' alphabetical order (issue 33 #10);
        # the legend sits below the plot, its labels whole
        color=alt.Color("label:N", title="config",
                        scale=alt.Scale(domain=labels, range=list(ROLE_COLORS.values())),
                        legend=alt.Legend(orient="bottom", direction="vertical",
                                          labelLimit=0)),
    )
    bars = base.mark_errorbar(thickness=2).encode(
        y=alt.Y("ci_low:Q", title=f"mean {metric_label(fc.metric)} (points)",
                scale=alt.Scale(zero=False)),
        y2="ci_high:Q")
    points = base.mark_point(filled=True, size=80).encode(
        y="mean:Q", tooltip=["config:N", "split:N", alt.Tooltip("mean:Q", format=".1f"),
                             alt.Tooltip("ci_low:Q", format=".1f"),
                             alt.Tooltip("ci_high:Q", format=".1f"), "n:Q"])
    return (bars + points).properties(
        width=320, height=260,
        title=alt.TitleParams(
            f"{metric_label(fc.metric)}: baseline vs champion on {fc.golden} and {fc.production}",
            subtitle=f"{champ_name} vs {base_name}"))
