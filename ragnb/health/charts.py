"""Charts of test-set health; each returns an ``alt.Chart`` and displays nothing.

:func:`coverage_chart`     queries per coverage status
:func:`staleness_chart`    judgments per freshness status, relevant ones apart
:func:`shares_chart`       observed shares with intervals beside declared / target shares
:func:`bucket_chart`       per-bucket means with intervals, too-small buckets marked
:func:`holdout_chart`      tuning vs held-back means with intervals
:func:`version_chart`      each config's mean on the old and the new version
"""
from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from ragnb.health.coverage import STATUSES as COVERAGE_STATUSES
from ragnb.health.staleness import STATUSES as FRESHNESS_STATUSES
from ragnb.metrics.registry import metric_label
from ragnb.result import POINTS_LABELS, display_name

_STATUS_COLORS = ["#3465a4", "#cc0000", "#c17d11", "#888888"]


def coverage_chart(cov) -> alt.Chart:
    """Queries per coverage status (a :class:`~ragnb.health.Coverage`)."""
    counts = cov.counts.rename_axis("status").reset_index(name="queries")
    return alt.Chart(counts).mark_bar().encode(
        y=alt.Y("status:N", sort=list(COVERAGE_STATUSES), title=None,
                axis=alt.Axis(labelLimit=240)),
        x=alt.X("queries:Q", title="queries"),
        color=alt.Color("status:N", legend=None, scale=alt.Scale(
            domain=list(COVERAGE_STATUSES), range=_STATUS_COLORS)),
        tooltip=["status:N", "queries:Q"],
    ).properties(width=420, height=120,
                 title=f"Coverage by corpus build {cov.corpus!r}: {cov.share:.1%} of "
                       f"{cov.n_answerable} answerable queries")


def staleness_chart(st) -> alt.Chart:
    """Judgments per freshness status, split into relevant (grade >= 1) and not."""
    c = st.counts()
    long = pd.concat([
        c.assign(kind="relevant (grade >= 1)", n=c["relevant"]),
        c.assign(kind="not relevant (grade 0)", n=c["judgments"] - c["relevant"]),
    ])[["status", "kind", "n"]]
    return alt.Chart(long).mark_bar().encode(
        y=alt.Y("status:N", sort=list(FRESHNESS_STATUSES), title=None),
        x=alt.X("n:Q", title="judgments", stack="zero"),
        color=alt.Color("kind:N", title=None, scale=alt.Scale(
            domain=["relevant (grade >= 1)", "not relevant (grade 0)"],
            range=["#cc0000", "#bbbbbb"]), legend=alt.Legend(orient="bottom")),
        tooltip=["status:N", "kind:N", "n:Q"],
    ).properties(width=420, height=120,
                 title=f"Judgments against corpus build {st.corpus!r}")


def shares_chart(mix: pd.DataFrame, unanswerable: pd.DataFrame | None = None, *,
                 title: str = "Observed shares (interval) vs declared shares (tick)"
                 ) -> alt.LayerChart:
    """Observed shares with intervals (rules) and the declared share (tick) of each source.

    ``mix`` is :func:`~ragnb.health.source_mix` output; with ``unanswerable``
    (:func:`~ragnb.health.unanswerable_share` output) a last row shows the
    unanswerable share against its target.
    """
    t = mix[["source", "declared", "n", "share", "ci_low", "ci_high", "outside"]]
    if unanswerable is not None:
        u = unanswerable.iloc[0]
        t = pd.concat([t, pd.DataFrame([{
            "source": "unanswerable (vs target)", "declared": u["target"], "n": u["unanswerable"],
            "share": u["share"], "ci_low": u["ci_low"], "ci_high": u["ci_high"],
            "outside": u["target_outside"]}])], ignore_index=True)
    t = t.assign(flag=t["outside"].map({True: "outside the interval",
                                        False: "inside the interval"}))
    y = alt.Y("source:N", sort=list(t["source"]), title=None, axis=alt.Axis(labelLimit=240))
    color = alt.Color("flag:N", title="declared share", scale=alt.Scale(
        domain=["inside the interval", "outside the interval"], range=["#3465a4", "#cc0000"]),
        legend=alt.Legend(orient="bottom"))
    interval = alt.Chart(t).mark_rule(strokeWidth=3).encode(
        y=y, x=alt.X("ci_low:Q", title="share of queries", axis=alt.Axis(format="%")),
        x2="ci_high:Q", color=color)
    observed = alt.Chart(t).mark_point(filled=True, size=80, color="#333333").encode(
        y=y, x="share:Q", tooltip=["source:N", alt.Tooltip("share:Q", format=".1%"),
                                   alt.Tooltip("ci_low:Q", format=".1%"),
                                   alt.Tooltip("ci_high:Q", format=".1%"),
                                   alt.Tooltip("declared:Q", format=".1%"), "n:Q"])
    declared = alt.Chart(t).mark_tick(thickness=3, size=22).encode(
        y=y, x="declared:Q", color=color)
    return (interval + observed + declared).properties(width=420, height=30 * len(t) + 20,
                                                       title=title)


def bucket_chart(table: pd.DataFrame, *, metric: str, config: str,
                 target: float = 0.05,
                 display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Per-bucket means with intervals (:func:`~ragnb.health.bucket_scores`), too-small marked.

    ``display_names`` (config -> name) names ``config`` in the axis title.
    """
    config = display_name(config, display_names)
    t = table.assign(row=[f"{b}  (n={n})" for b, n in zip(table["bucket"], table["n"])],
                     power=table["too_small"].map({True: f"too small for {target * 100:g} points",
                                                   False: f"can see {target * 100:g} points"}))
    y = alt.Y("row:N", sort=list(t["row"]), title=None, axis=alt.Axis(labelLimit=240))
    color = alt.Color("power:N", title=None, legend=alt.Legend(orient="bottom"), scale=alt.Scale(
        domain=[f"can see {target * 100:g} points", f"too small for {target * 100:g} points"],
        range=["#3465a4", "#cc0000"]))
    bars = alt.Chart(t).mark_rule(strokeWidth=2).encode(
        y=y, x=alt.X("ci_low:Q", title=f"mean {metric_label(metric)} of {config} (points)",
                     axis=alt.Axis(labelExpr=POINTS_LABELS), scale=alt.Scale(zero=False)),
        x2="ci_high:Q", color=color)
    dots = alt.Chart(t).mark_point(filled=True, size=70).encode(
        y=y, x="mean:Q", color=color,
        tooltip=["bucket:N", "n:Q", alt.Tooltip("mean:Q", format=".3f"),
                 alt.Tooltip("ci_low:Q", format=".3f"), alt.Tooltip("ci_high:Q", format=".3f"),
                 alt.Tooltip("mde:Q", format=".3f"), "needed:Q"])
    return (bars + dots).properties(width=420, height=26 * len(t) + 20,
                                    title=f"{metric_label(metric)} per bucket, with the "
                                          "bucket's power")


def holdout_chart(check, split: str = "") -> alt.LayerChart:
    """Each side's mean with its interval (a :class:`~ragnb.health.HoldoutCheck`);
    ``split`` (the test set the check ran on) is named in the title.
    """
    t = check.sides().assign(row=lambda d: [f"{s}  (n={n})" for s, n in zip(d["side"], d["n"])])
    y = alt.Y("row:N", sort=list(t["row"]), title=None)
    color = alt.Color("side:N", legend=None, scale=alt.Scale(
        domain=["tuning", "held back"], range=["#c17d11", "#3465a4"]))
    bars = alt.Chart(t).mark_rule(strokeWidth=3).encode(
        y=y, x=alt.X("ci_low:Q",
                     title=f"mean {check.quantity} ({metric_label(check.metric)}, points)",
                     axis=alt.Axis(labelExpr=POINTS_LABELS)),
        x2="ci_high:Q", color=color)
    dots = alt.Chart(t).mark_point(filled=True, size=90).encode(
        y=y, x="mean:Q", color=color,
        tooltip=["side:N", "n:Q", alt.Tooltip("mean:Q", format=".4f"),
                 alt.Tooltip("ci_low:Q", format=".4f"), alt.Tooltip("ci_high:Q", format=".4f")])
    verdict = "diverged" if check.diverged else "no divergence"
    return (bars + dots).properties(width=420, height=90,
                                    title=f"Tuning vs held-back queries"
                                          f"{f' of {split}' if split else ''}: {verdict}")


def version_chart(diff, display_names: Mapping[str, str] | None = None) -> alt.LayerChart:
    """Each config's mean on the old and the new version (a :class:`~ragnb.health.VersionDiff`).

    ``display_names`` (config -> name) names the configs in the legend.
    """
    t = diff.table.assign(config=[display_name(c, display_names) for c in diff.table["config"]])
    long = pd.concat([
        pd.DataFrame({"config": t["config"], "version": diff.old_name, "mean": t["old"],
                      "n": t["n_old"]}),
        pd.DataFrame({"config": t["config"], "version": diff.new_name, "mean": t["new"],
                      "n": t["n_new"]}),
    ], ignore_index=True)
    x = alt.X("version:N", sort=[diff.old_name, diff.new_name], title=None,
              axis=alt.Axis(labelAngle=0))
    base = alt.Chart(long).encode(
        x=x, y=alt.Y("mean:Q", title=f"mean {metric_label(diff.metric)} (points)",
                     axis=alt.Axis(labelExpr=POINTS_LABELS), scale=alt.Scale(zero=False)),
        color=alt.Color("config:N", title="config"),
        tooltip=["config:N", "version:N", alt.Tooltip("mean:Q", format=".4f"), "n:Q"])
    return (base.mark_line() + base.mark_point(filled=True, size=70)).properties(
        width=260, height=240, title=f"Old vs new version: {diff.old_name} → {diff.new_name}")
