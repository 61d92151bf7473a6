"""The keep verdict of a code retriever as a :class:`~ragnb.result.Finding` (its adapter)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragnb.codetasks.keep import KeepVerdict
from ragnb.codetasks.recall import TaskRecall
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    chart_or,
    checks_frame,
    interval,
    points,
    register,
)


@register(TaskRecall)
def recall_finding(tr: TaskRecall, *, display_names: Mapping[str, str],
                   chart: Any = None) -> Finding:
    """Headline: how many of the edited files the run finds, and in how many tasks all of them."""
    s = tr.summary().set_index("metric")

    def shown(metric: str) -> str:
        r = s.loc[metric]
        return f"{points(r['mean'])} {interval(r['ci_low'], r['ci_high'])} points"

    answer = (f"At k={tr.k}, {tr.run or 'the run'} retrieves {shown('per_file')} of the files a "
              f"change edits (per-file recall) but every edited file in only "
              f"{shown('all_files')} of the {int(s.loc['all_files', 'n'])} tasks (all-files "
              "recall)")
    others = [f"{s.loc[m, 'label'].split('@')[0]} {shown(m)} on {int(s.loc[m, 'n'])} tasks"
              for m in ("read_set", "caller") if s.loc[m, "n"] > 0]
    answer += ("; " + "; ".join(others) if others else "") + "."
    return Finding(
        Headline("Does the code retriever find the files a change needs?", answer,
                 "State a keep condition on these metrics and read its verdict against the "
                 "intervals.", f"all files {points(s.loc['all_files', 'mean'])} points"),
        tr.display_table(), chart_or(chart, _recall_chart, tr), checks_frame(tr.task_checks()),
        tr.description,
        caption=f"Recall at {tr.k} over the tasks each metric is defined on, in {POINTS}",
        source=tr,
    )


def _recall_chart(tr: TaskRecall) -> Any:
    from ragnb.codetasks.charts import recall_chart

    return recall_chart(tr.summary())


@register(KeepVerdict)
def keep_finding(kv: KeepVerdict, *, display_names: Mapping[str, str],
                 chart: Any = None) -> Finding:
    """Headline: keep or fix, with each clause's value and interval in points."""
    from ragnb.codetasks.keep import parse_keep

    c = kv.clauses
    stated = {cl.metric: cl.in_points() for cl in parse_keep(kv.condition, source="condition")}
    parts = [f"{r['metric']} {points(r['mean'])} {interval(r['ci_low'], r['ci_high'])} "
             f"against {stated.get(r['metric'], r['condition'])} ({r['status']})"
             for r in c.to_dict("records")]
    answer = (f"{kv.verdict.capitalize()} the retriever (recall in points): "
              + "; ".join(parts) + ".")
    next_step = {"keep": "Keep the retriever; re-check on the next batch of merged changes.",
                 "fix": "Fix the clause that fails (the gap is named above) before keeping the "
                        "retriever.",
                 }.get(kv.verdict, "Mine more tasks: the intervals straddle the thresholds.")
    table = pd.DataFrame({
        "clause (points)": [stated.get(m, str(x)) for m, x in zip(c["metric"], c["condition"])],
        "mean (points)": [points(v) for v in c["mean"]],
        "95% interval (points)": [interval(lo, hi) for lo, hi in zip(c["ci_low"], c["ci_high"])],
        "tasks": c["n"],
        "status": c["status"],
    })
    return Finding(
        Headline("Does the code retriever find every file a change needs?", answer, next_step,
                 kv.verdict),
        table, chart, checks_frame([]), kv.description,
        caption=f"Each keep clause against its interval, recall in {POINTS}",
        source=kv,
    )
