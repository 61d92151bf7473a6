"""The sorted per-query delta chart."""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from ragnb.metrics.registry import metric_label
from ragnb.result import POINTS_LABELS, display_name, points

SIGN_COLORS = alt.Scale(domain=["challenger better", "tie", "baseline better"],
                        range=["#2e7d32", "#9e9e9e", "#c62828"])


def query_delta_chart(deltas: pd.DataFrame, *, width: int = 640, height: int = 220,
                      display_names: Mapping[str, str] | None = None) -> alt.Chart:
    """One bar per query, sorted by delta (challenger - baseline), coloured by sign.

    ``deltas`` is :func:`ragnb.perquery.query_deltas`'s table; the title
    counts wins, ties and losses, so the share of queries behind a mean is visible.
    The axis and the mean are in points (metric x 100); ``display_names``
    (config -> name) names the challenger and the baseline in the subtitle.
    """
    t = deltas[["query_id", "stratum", "baseline", "challenger", "delta"]].copy()
    t = t.sort_values(["delta", "query_id"], kind="stable").reset_index(drop=True)
    t["order"] = range(len(t))
    t["outcome"] = ["challenger better" if d > 0 else ("baseline better" if d < 0 else "tie")
                    for d in t["delta"]]
    wins, losses = int((t["delta"] > 0).sum()), int((t["delta"] < 0).sum())
    ties = len(t) - wins - losses
    metric = deltas.attrs.get("metric", "metric")
    subtitle = [f"challenger better on {wins}, tie on {ties}, baseline better on {losses}; "
                f"mean Δ {points(t['delta'].mean(), signed=True, digits=2)} points"
                if len(t) else "no queries"]
    if "challenger" in deltas.attrs and "baseline" in deltas.attrs:
        subtitle.append(f"challenger: {display_name(deltas.attrs['challenger'], display_names)}; "
                        f"baseline: {display_name(deltas.attrs['baseline'], display_names)}")
    title = alt.TitleParams(f"Per-query Δ {metric_label(metric)}, sorted ({len(t)} queries)",
                            subtitle=subtitle)
    return alt.Chart(t, title=title, width=width, height=height).mark_bar().encode(
        x=alt.X("order", type="ordinal", title="queries, sorted by Δ",
                axis=alt.Axis(labels=False, ticks=False)),
        y=alt.Y("delta", type="quantitative",
                title=f"Δ {metric_label(metric)} (challenger − baseline, points)",
                axis=alt.Axis(labelExpr=POINTS_LABELS)),
        color=alt.Color("outcome", type="nominal", scale=SIGN_COLORS, title=None,
                        legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("query_id", type="nominal"),
                 alt.Tooltip("stratum", type="nominal"),
                 alt.Tooltip("baseline", type="quantitative", format=".3f"),
                 alt.Tooltip("challenger", type="quantitative", format=".3f"),
                 alt.Tooltip("delta", type="quantitative", format="+.3f")],
    )
