"""The keep verdict of a code retriever as a :class:`~ragnb.result.Finding` (its adapter)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragnb.codetasks.keep import KeepVerdict
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    checks_frame,
    interval,
    points,
    register,
)


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
