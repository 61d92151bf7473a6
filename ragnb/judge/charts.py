"""The judge page's charts: the grade confusion matrix and the three readings of a difference."""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from ragnb.judge.agreement import Agreement
from ragnb.judge.ppi import ESTIMATORS, JudgedEstimates
from ragnb.metrics.registry import metric_label
from ragnb.result import POINTS_LABELS, display_name

ESTIMATOR_COLORS = alt.Scale(domain=list(ESTIMATORS), range=["#1565c0", "#c62828", "#2e7d32"])


def confusion_chart(a: Agreement, *, size: int = 52) -> alt.Chart:
    """Counts of pairs by people's grade (rows) and the judge's (columns); the diagonal is
    exact agreement, cells right of it the judge over-grading.
    """
    t = a.confusion.stack().rename("pairs").reset_index()
    t.columns = ["people grade", "judge grade", "pairs"]
    t["share of the row"] = t["pairs"] / t.groupby("people grade")["pairs"].transform("sum")
    k = len(a.confusion)
    title = alt.TitleParams(
        f"Judge {a.judge} vs people, {a.counts['both']:,} pairs",
        subtitle=[f"exact agreement {a.exact:.0%}; quadratic κ {a.kappa:.2f}; "
                  "right of the diagonal: the judge grades higher"])
    base = alt.Chart(t, title=title, width=size * k, height=size * k)
    cells = base.mark_rect().encode(
        x=alt.X("judge grade:O", title="judge's grade"),
        y=alt.Y("people grade:O", title="people's grade", sort="descending"),
        color=alt.Color("share of the row:Q", scale=alt.Scale(scheme="blues", domain=[0, 1]),
                        title="share of people's grade"),
        tooltip=["people grade:O", "judge grade:O", "pairs:Q",
                 alt.Tooltip("share of the row:Q", format=".0%")])
    text = base.mark_text(fontSize=11).encode(
        x="judge grade:O", y=alt.Y("people grade:O", sort="descending"),
        text=alt.Text("pairs:Q", format=","),
        color=alt.condition("datum['share of the row'] > 0.5", alt.value("white"),
                            alt.value("black")))
    return cells + text


def estimates_chart(e: JudgedEstimates, *, width: int = 520,
                    display_names: Mapping[str, str] | None = None) -> alt.Chart:
    """Each challenger's difference from the baseline, people only / judge only (biased) /
    PPI++, as intervals in points; the dashed rule is no difference.
    """
    t = e.table[e.table["kind"] == "difference"].copy()
    t["config"] = [display_name(c, display_names) for c in t["quantity"]]
    order = list(dict.fromkeys(t["config"]))
    title = alt.TitleParams(
        f"Δ {metric_label(e.metric)} vs {display_name(e.baseline, display_names)}, three ways",
        subtitle=[f"people only: {e.n_labelled} queries people judged; judge only (biased): "
                  f"all {e.n_labelled + e.n_judge_only}; PPI++: both, the judge's error "
                  "measured on the first"])
    y = alt.Y("config:N", sort=order, title=None)
    offset = alt.YOffset("estimator:N", sort=list(ESTIMATORS))
    x = alt.X("low:Q", title=f"Δ {metric_label(e.metric)} (points)",
              axis=alt.Axis(labelExpr=POINTS_LABELS))
    color = alt.Color("estimator:N", scale=ESTIMATOR_COLORS, title=None,
                      legend=alt.Legend(orient="bottom", labelLimit=0))
    base = alt.Chart(t, title=title, width=width)
    bars = base.mark_rule(strokeWidth=2).encode(x=x, x2="high:Q", y=y, yOffset=offset,
                                                color=color)
    dots = base.mark_point(filled=True, size=40).encode(
        x="estimate:Q", y=y, yOffset=offset, color=color,
        tooltip=["config:N", "estimator:N", alt.Tooltip("estimate:Q", format="+.3f"),
                 alt.Tooltip("low:Q", format="+.3f"), alt.Tooltip("high:Q", format="+.3f")])
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(strokeDash=[4, 4],
                                                          color="#616161").encode(x="x:Q")
    return bars + dots + zero
