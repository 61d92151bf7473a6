"""Charts of the label-bias analysis; each returns an ``alt.Chart`` and displays nothing.

:func:`bounds_chart`
    per config: the exact bounds as an interval (a bar from ``bound_min`` to
    ``bound_max``) and the three label policies as marks on it.
:func:`verdict_chart`
    per challenger: the current, conservative and optimistic intervals against
    zero, coloured by the verdict.
:func:`shard_chart`
    per config: a shard's effect on the full-set mean and its projection.
"""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from ragnb.labelbias.verdict import RULE, ThreeWay
from ragnb.metrics.registry import metric_label
from ragnb.result import POINTS_LABELS, display_name

POLICY_SHAPES = {"lower": "triangle-down", "condensed": "diamond", "upper": "triangle-up"}


def _named(frame: pd.DataFrame, columns: tuple[str, ...],
           display_names: Mapping[str, str] | None) -> pd.DataFrame:
    """``frame`` with each config in ``columns`` shown by :func:`ragnb.result.display_name`."""
    if not display_names:
        return frame
    return frame.assign(**{c: [display_name(v, display_names) for v in frame[c]]
                           for c in columns if c in frame})


def bounds_chart(table: pd.DataFrame, *, stratum: str = "all", title: str | None = None,
                 display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Bounds (interval) and policies (marks) per config, from :func:`bounds_table`.

    Parameters
    ----------
    table : DataFrame
        :func:`ragnb.labelbias.bounds_table` output.
    stratum : str
        Which stratum's rows to draw (``"all"``: the whole set).
    display_names : mapping, optional
        config -> name shown on the axis (``Workspace.display_names``).
    """
    t = _named(table[table["stratum"] == stratum], ("config",), display_names)
    metric = t["metric"].iloc[0] if len(t) else ""
    configs = list(pd.unique(t["config"]))
    y = alt.Y("config:N", sort=configs, title=None)
    interval = alt.Chart(t).mark_bar(height=12, opacity=0.35).encode(
        y=y,
        x=alt.X("bound_min:Q", title=f"{metric_label(metric)} (mean over queries, points)",
                axis=alt.Axis(labelExpr=POINTS_LABELS), scale=alt.Scale(zero=False)),
        x2="bound_max:Q",
        tooltip=["config", alt.Tooltip("bound_min:Q", format=".4f", title="bound min"),
                 alt.Tooltip("bound_max:Q", format=".4f", title="bound max"),
                 alt.Tooltip("unjudged_share:Q", format=".1%", title="unjudged in top k")],
    )
    long = t.melt(id_vars=["config", "unjudged_share"], value_vars=list(POLICY_SHAPES),
                  var_name="policy", value_name="value")
    marks = alt.Chart(long).mark_point(filled=True, size=70).encode(
        y=y,
        x="value:Q",
        shape=alt.Shape("policy:N", scale=alt.Scale(domain=list(POLICY_SHAPES),
                                                      range=list(POLICY_SHAPES.values())),
                        title="label policy"),
        color=alt.Color("policy:N", title="label policy",
                        scale=alt.Scale(domain=list(POLICY_SHAPES))),
        tooltip=["config", "policy", alt.Tooltip("value:Q", format=".4f")],
    )
    return (interval + marks).properties(
        title=title or (f"{metric_label(metric)}: exact bounds over labellings (bar) and "
                        "label policies (marks)"),
        width=420)


def verdict_chart(result: ThreeWay, *, title: str | None = None,
                  display_names: Mapping[str, str] | None = None) -> alt.FacetChart:
    """The three intervals per challenger against zero, coloured by verdict.

    ``display_names`` (config -> name) names the challengers and the baseline.
    """
    from ragnb.labelbias.verdict import READINGS, readings

    t = result.tests.merge(result.verdicts, on=["baseline", "challenger"])
    t["verdict"] = t["challenger"].map(readings(result))  # the headline's and table's words
    t = _named(t, ("baseline", "challenger"), display_names)
    challengers = list(pd.unique(t["challenger"]))
    y = alt.Y("test:N", sort=["current", "conservative", "optimistic"], title=None)
    base = alt.Chart()
    bars = base.mark_rule(strokeWidth=3).encode(
        y=y,
        x=alt.X("ci_low:Q", axis=alt.Axis(labelExpr=POINTS_LABELS),
                title=f"difference in mean {metric_label(result.metric)} "
                      "(challenger - baseline, points)"),
        x2="ci_high:Q",
        color=alt.Color("verdict:N", title="verdict",
                        scale=alt.Scale(domain=list(READINGS),
                                        range=["#1a9850", "#fdae61", "#74add1", "#999999",
                                               "#d73027"]),
                        legend=alt.Legend(labelLimit=300)),
        tooltip=["challenger", "test", alt.Tooltip("delta:Q", format="+.4f"),
                 alt.Tooltip("ci_low:Q", format="+.4f"), alt.Tooltip("ci_high:Q", format="+.4f"),
                 "verdict"],
    )
    points = base.mark_point(filled=True, color="black").encode(y=y, x="delta:Q")
    zero = base.mark_rule(strokeDash=[4, 4], color="gray").encode(x=alt.datum(0.0))
    return alt.layer(bars, points, zero, data=t).facet(
        # challenger names above each panel, horizontal: long run names stay readable
        row=alt.Row("challenger:N", sort=challengers, title=None,
                    header=alt.Header(labelAngle=0, labelOrient="top", labelAnchor="start",
                                      labelAlign="left", labelFontWeight="bold",
                                      labelLimit=600))
    ).properties(title=alt.TitleParams(
        title or f"Three-way verdict against {t['baseline'].iloc[0]}",
        subtitle=[result.description, RULE]))


def shard_chart(table: pd.DataFrame, *, title: str | None = None,
                display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """A shard's effect on the full mean (bar) and the projection with its interval (rule).

    ``display_names`` (config -> name) names the configs on the axis.
    """
    t = _named(table[table["target"] == table["config"]], ("config",), display_names)
    y = alt.Y("config:N", sort=list(pd.unique(t["config"])), title=None)
    effect = alt.Chart(t).mark_bar(opacity=0.5).encode(
        y=y, x=alt.X("effect_full:Q", title="change of the full-set mean (points)",
                     axis=alt.Axis(labelExpr=POINTS_LABELS)),
        tooltip=["config", alt.Tooltip("effect_full:Q", format="+.4f"),
                 alt.Tooltip("projected:Q", format="+.4f")])
    rule = alt.Chart(t).mark_rule(strokeWidth=2).encode(y=y, x="ci_low:Q", x2="ci_high:Q")
    point = alt.Chart(t).mark_point(filled=True, shape="diamond", size=80).encode(
        y=y, x="projected:Q")
    return (effect + rule + point).properties(
        title=title or "Shard: effect on the full mean (bar) and projection with interval",
        width=420)
