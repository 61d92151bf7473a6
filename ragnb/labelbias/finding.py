"""The three-way label-bias verdict as a :class:`~ragnb.result.Finding` (its adapter)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.labelbias.verdict import ThreeWay
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    checks_frame,
    display_name,
    interval,
    points,
    register,
)


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
        caption=f"{tw.metric} in {POINTS}: challenger − {base} per label policy, "
                "[95% interval]; * marks an interval that excludes zero; effect size: "
                "the current difference's mean / SD of per-query differences",
        source=tw,
    )


def _verdict_chart(tw: ThreeWay, display_names: Mapping[str, str]) -> Any:
    from ragnb.labelbias.charts import verdict_chart

    return verdict_chart(tw, display_names=display_names)
