"""The keep verdict of a code retriever as a :class:`~ragnb.result.Finding` (its adapter)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragnb.codetasks.keep import INCONCLUSIVE, OUT_OF_REACH, KeepVerdict, capped
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
    """Headline: keep or fix, said by the clause that decides it; every clause is a Why.

    ==================================================================  ====================
    answer                                                              verdict
    ==================================================================  ====================
    "Fix the retriever: M is x [lo, hi] points against C; k of m        some clause fails
    clauses fail."  (M: the failed clause missing its threshold most)
    "Out of reach at k=K: N of n tasks have more than K files, so even  none fails, one is
    a perfect ranking scores at most c points of M against C."          above its ceiling
    "Not decided: M is x [lo, hi] points, an interval that straddles    none fails, one is
    C."                                                                 open
    "Keep the retriever: all m clauses hold; the closest, M, is         every clause holds
    x [lo, hi] points against C."
    ==================================================================  ====================
    """
    from ragnb.codetasks.keep import parse_keep

    c = kv.clauses
    clauses = {cl.metric: cl for cl in parse_keep(kv.condition, source="condition")}
    stated = {m: cl.in_points() for m, cl in clauses.items()}
    rows = c.to_dict("records")
    said = {r["metric"]: f"{r['metric']} recall is {points(r['mean'])} "
                         f"{interval(r['ci_low'], r['ci_high'])} points" for r in rows}
    margin = {r["metric"]: min(abs(r["ci_low"] - clauses[r["metric"]].threshold),
                               abs(r["ci_high"] - clauses[r["metric"]].threshold))
              for r in rows}
    status = dict(zip(c["metric"], c["status"]))
    m = len(c)
    failed = [x for x in c["metric"] if status[x] == "failed"]
    open_ = [x for x in c["metric"] if status[x] not in ("failed", "met")]
    reach = [x for x in c["metric"] if status[x] == OUT_OF_REACH]
    by = c.set_index("metric")
    if failed:
        lead = max(failed, key=lambda x: margin[x])
        answer = (f"Fix the retriever: {said[lead]} against {stated[lead]}; "
                  f"{len(failed)} of {m} clauses fail.")
        next_step = f"Close the {lead} gap before keeping the retriever."
    elif reach:
        lead = reach[0]
        r = by.loc[lead]
        k = int(r["k"])
        answer = (f"Out of reach at k={k}: {int(r['over_k'])} of {int(r['n'])} tasks have more "
                  f"than {k} files, so even a perfect ranking scores at most "
                  f"{points(r['ceiling'])} points of {lead} recall against {stated[lead]}.")
        next_step = (f"Score at a k above the largest set, or restate the {lead} clause; this "
                     "clause says nothing about the retriever.")
    elif open_:
        lead = open_[0]
        answer = (f"Not decided: {said[lead]}, an interval that straddles {stated[lead]}.")
        next_step = "Mine more tasks: the interval straddles the threshold."
    else:
        lead = min(c["metric"], key=lambda x: margin[x]) if m else ""
        answer = (f"Keep the retriever: all {m} clauses hold; the closest, "
                  f"{said[lead]} against {stated[lead]}." if m else
                  "Keep the retriever: the condition has no clause.")
        next_step = "Keep the retriever; re-check on the next batch of merged changes."
    why = [f"{said[x]} against {stated[x]}: {status[x]}." for x in c["metric"] if x != lead]
    tight = [x for x in c["metric"] if status[x] != OUT_OF_REACH and capped(
        clauses[x], float(by.loc[x, "edit_first"]), int(by.loc[x, "crowded"]))]
    why[:0] = [f"At k={int(by.loc[x, 'k'])}, a ranking that holds every edited file first "
               f"reaches at most {points(by.loc[x, 'edit_first'])} points of {x} recall "
               f"({int(by.loc[x, 'crowded'])} of {int(by.loc[x, 'n'])} tasks have more edited "
               f"and {x} files than k): {stated[x]} needs {x} files ranked above edited ones, "
               "or a larger k." for x in tight]
    if lead in tight and status[lead] == INCONCLUSIVE:
        next_step = ("Score at a larger k: at this k even a retriever that finds every edited "
                     f"file first cannot meet {stated[lead]}.")
    why.append("Recall in points (recall x 100); a clause holds when its whole interval meets "
               "the threshold and fails when its whole interval misses it.")
    table = pd.DataFrame({
        "clause (points)": [stated.get(m, str(x)) for m, x in zip(c["metric"], c["condition"])],
        "mean (points)": [points(v) for v in c["mean"]],
        "95% interval (points)": [interval(lo, hi) for lo, hi in zip(c["ci_low"], c["ci_high"])],
        "tasks": c["n"],
        f"perfect ranking at k={int(c['k'].max()) if m else ''} (points)":
            [points(v) for v in c["ceiling"]],
        "edited files first (points)": [points(v) for v in c["edit_first"]],
        "status": c["status"],
    })
    return Finding(
        Headline("Does the code retriever find every file a change needs?", answer, next_step,
                 kv.verdict, tuple(why)),
        table, chart, checks_frame([]), kv.description,
        caption=f"Each keep clause against its interval, recall in {POINTS}",
        source=kv,
    )
