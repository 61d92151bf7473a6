"""The label-bias bounds and three-way verdict as :class:`~ragnb.result.Finding` (adapters)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.labelbias.bounds import Bounds
from ragnb.labelbias.verdict import ThreeWay
from ragnb.metrics.registry import metric_label
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    chart_or,
    checks_frame,
    display_labels,
    display_name,
    interval,
    points,
    register,
)


@register(Bounds)
def bounds_finding(b: Bounds, *, display_names: Mapping[str, str], chart: Any = None,
                   strata: pd.Series | None = None) -> Finding:
    """Headline: how far the missing labels could move each config's score, widest first."""
    t = b.summary()
    widest = t.loc[t["bound_width"].idxmax()] if len(t) else None
    shown = "; ".join(f"{display_name(r['config'], display_names)} "
                      f"{interval(r['bound_min'], r['bound_max'], digits=2)} "
                      f"(now {points(r['lower'], digits=2)})" for r in t.to_dict("records"))
    if widest is None or not widest["bound_width"] > 0:
        answer = (f"The missing labels cannot move {b.metric}: no config has an unjudged "
                  f"passage in its top k ({shown}).")
        verdict, next_step = "exact", "Compare the scores as they are: every label is known."
    else:
        answer = (f"The missing labels could move {b.metric} by up to "
                  f"{points(widest['bound_width'], digits=2)} points, for "
                  f"{display_name(widest['config'], display_names)} "
                  f"({widest['unjudged_share']:.1%} of its top k unjudged); exact bounds in "
                  f"points: {shown}.")
        verdict = f"up to {points(widest['bound_width'], digits=2)} points"
        next_step = ("Read the three-way verdict for which decisions these bounds could flip, "
                     "and label the pooled passages where the bounds are widest.")
    bad = b.policy_violations()
    checks = [(f"lower and upper policies lie within the exact bounds ({c})", n == 0,
               f"{n} queries outside" if n else "")
              for c, n in zip(display_labels(bad.index, display_names), bad.tolist())]
    return Finding(
        Headline("How much could the missing labels change each score?", answer, next_step,
                 verdict),
        b.display_table(strata, display_names=dict(display_names)),
        chart_or(chart, _bounds_chart, b, display_names),
        checks_frame(checks), b.description,
        caption=f"{metric_label(b.metric)} in {POINTS}: unjudged share of the top k, the three "
                "policies and "
                "the exact bounds (means over queries)",
        source=b,
    )


def _bounds_chart(b: Bounds, display_names: Mapping[str, str]) -> Any:
    from ragnb.labelbias.charts import bounds_chart

    return bounds_chart(b.summary(), display_names=display_names)


@register(ThreeWay)
def three_way_finding(tw: ThreeWay, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: how many decisions the missing labels could flip."""
    from ragnb.labelbias.verdict import ADOPT, REJECT, UNDECIDED

    v = tw.verdicts
    def names(kind: str) -> str:
        return ", ".join(display_name(c, display_names)
                         for c in v.loc[v["verdict"] == kind, "challenger"])

    base = display_name(str(v["baseline"].iloc[0]), display_names) if len(v) else "—"
    counts = {k: int((v["verdict"] == k).sum()) for k in (ADOPT, UNDECIDED, REJECT)}
    parts = [f"{counts[ADOPT]} win whatever the labels" + (f" ({names(ADOPT)})" if counts[ADOPT]
                                                          else ""),
             f"{counts[UNDECIDED]} depend on the missing labels"
             + (f" ({names(UNDECIDED)})" if counts[UNDECIDED] else ""),
             f"{counts[REJECT]} cannot win even if every unjudged passage goes their way"]
    answer = (f"Against {base} on {tw.metric}, of {len(v)} challengers: " + "; ".join(parts)
              + ".")
    next_step = ("Judge the pooled unjudged passages, in the judge-next order below, before "
                 f"deciding on {names(UNDECIDED)}." if counts[UNDECIDED] else
                 "Decide now: no verdict depends on the missing labels.")
    rows = []
    for (_, chal), g in tw.tests.groupby(["baseline", "challenger"], sort=False):
        row = {"challenger": display_name(chal, display_names)}
        for r in g.to_dict("records"):
            star = " *" if (r["ci_low"] > 0 or r["ci_high"] < 0) else ""
            row[r["test"]] = (f"{points(r['delta'], signed=True, digits=2)} "
                              f"{interval(r['ci_low'], r['ci_high'], signed=True, digits=2)}"
                              f"{star}")
            if r["test"] == "current":
                es = r.get("effect_size", np.nan)
                row["effect size"] = "—" if pd.isna(es) else f"{es:+.2f}"
        row["verdict"] = v.loc[v["challenger"] == chal, "verdict"].iloc[0]
        rows.append(row)
    table = pd.DataFrame(rows)
    return Finding(
        Headline("Is the answer key biased?", answer, next_step,
                 f"{counts[UNDECIDED]} undecided"),
        table, None if chart is False else (chart if chart is not None
                                          else _verdict_chart(tw, display_names)),
        checks_frame([]),
        tw.description,
        caption=f"{metric_label(tw.metric)} in {POINTS}: challenger − {base} per label policy, "
                "[95% interval]; * marks an interval that excludes zero; effect size: "
                "the current difference's mean / SD of per-query differences",
        source=tw,
    )


def _verdict_chart(tw: ThreeWay, display_names: Mapping[str, str]) -> Any:
    from ragnb.labelbias.charts import verdict_chart

    return verdict_chart(tw, display_names=display_names)
