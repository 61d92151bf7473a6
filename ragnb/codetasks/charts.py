"""Charts of the code-task analysis. Each function returns a chart and displays nothing."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from ragnb.codetasks.keep import KeepVerdict, condition_in_points
from ragnb.codetasks.recall import TaskRecall
from ragnb.result import POINTS_LABELS, points


def recall_chart(summary: pd.DataFrame, verdict: KeepVerdict | None = None,
                 expected_all_files: float | None = None) -> alt.LayerChart:
    """Each metric's mean and interval; the keep thresholds as ticks; the independent-miss figure.

    Parameters
    ----------
    summary : DataFrame
        :func:`ragnb.codetasks.recall.recall_summary`.
    verdict : KeepVerdict, optional
        Draws each clause's threshold on its metric's row.
    expected_all_files : float, optional
        All-files recall under independent misses, drawn as a hollow diamond.
    """
    data = summary.assign(label=summary["label"] + " (n=" + summary["n"].astype(str) + ")")
    order = data["label"].tolist()
    y = alt.Y("label:N", title=None, sort=order)
    x_scale = alt.Scale(domain=[0, 1])
    bars = alt.Chart(data).mark_rule(strokeWidth=2).encode(
        y=y, x=alt.X("ci_low:Q", title="recall (mean over tasks, 95% interval, points)",
                      scale=x_scale, axis=alt.Axis(labelExpr=POINTS_LABELS)),
        x2="ci_high:Q")
    points = alt.Chart(data).mark_point(filled=True, size=80, color="#1f4e79").encode(
        y=y, x="mean:Q",
        tooltip=["label:N", alt.Tooltip("mean:Q", format=".3f"),
                 alt.Tooltip("ci_low:Q", format=".3f"), alt.Tooltip("ci_high:Q", format=".3f"),
                 "n:Q"])
    layers = [bars, points]
    if verdict is not None and len(verdict.clauses):
        labels = dict(zip(data["metric"], data["label"]))
        ticks = verdict.clauses.assign(label=verdict.clauses["metric"].map(labels),
                                       threshold=[float(c.split()[-1]) for c in
                                                  verdict.clauses["condition"]])
        layers.append(alt.Chart(ticks).mark_tick(color="#cc0000", thickness=2, size=22).encode(
            y=y, x="threshold:Q", tooltip=["condition:N", "status:N"]))
    if expected_all_files is not None:
        row = data[data["metric"] == "all_files"]
        exp = pd.DataFrame({"label": row["label"].tolist(),
                            "expected": [float(expected_all_files)] * len(row),
                            "what": ["independent misses"] * len(row)})
        layers.append(alt.Chart(exp).mark_point(shape="diamond", size=90, color="#888888",
                                                filled=False).encode(
            y=y, x="expected:Q", tooltip=["what:N", alt.Tooltip("expected:Q", format=".3f")]))
    title = "Recall at k on merged-commit labels"
    if verdict is not None:
        title += f": {verdict.verdict} ({condition_in_points(verdict.condition)}, points)"
    return alt.LayerChart(layer=layers).properties(width=420, height=40 * len(data), title=title)


def all_files_by_size_chart(recall: TaskRecall) -> alt.LayerChart:
    """Observed all-files recall by edit-set size, beside the independent-miss curve ``p ** n``."""
    t = recall.table
    per = t[t["metric"] == "per_file"].set_index("task_id")
    allf = t[t["metric"] == "all_files"].set_index("task_id")["value"]
    df = pd.DataFrame({"files": per["files"], "all_files": allf.reindex(per.index)})
    grouped = df.groupby("files").agg(observed=("all_files", "mean"),
                                      tasks=("all_files", "size")).reset_index()
    p = float(per["value"].mean())
    sizes = np.arange(1, int(grouped["files"].max()) + 1)
    curve = pd.DataFrame({"files": sizes, "expected": p ** sizes})
    x = alt.X("files:Q", title="edit-set files in the task", scale=alt.Scale(nice=False),
              axis=alt.Axis(tickMinStep=1))
    line = alt.Chart(curve).mark_line(color="#888888", strokeDash=[4, 3]).encode(
        x=x, y=alt.Y("expected:Q", title=f"all-files recall@{recall.k} (points)",
                     axis=alt.Axis(labelExpr=POINTS_LABELS), scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip("expected:Q", format=".3f")])
    dots = alt.Chart(grouped).mark_circle(color="#1f4e79").encode(
        x=x, y="observed:Q", size=alt.Size("tasks:Q", title="tasks"),
        tooltip=["files:Q", "tasks:Q", alt.Tooltip("observed:Q", format=".3f")])
    return (line + dots).properties(
        width=420, height=220,
        title=(f"All-files recall by task size (dashed: independent misses at a per-file "
               f"recall of {points(p)} points, p ** n)"))
