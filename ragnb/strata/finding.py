"""A stratified breakdown as a :class:`~ragnb.result.Finding` (its adapter, registered by type)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragnb.metrics.registry import metric_label
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    chart_or,
    checks_frame,
    display_name,
    interval,
    points,
    register,
)
from ragnb.strata.breakdown import Breakdown

#: The body table of a stratified breakdown (the rest goes to the appendix).
BREAKDOWN_BODY = ["stratum", "n", "share", "baseline", "challenger", "Δ (points)"]



@register(Breakdown)
def breakdown_finding(bd: Breakdown, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: the pooled delta with its interval and the strata that carry it."""
    pooled = bd.pooled
    strata = bd.strata
    up = strata[strata["ci_low"] > 0]["stratum"].tolist()
    down = strata[strata["ci_high"] < 0]["stratum"].tolist()
    where = []
    if up:
        where.append("the gain lives in " + ", ".join(map(str, up)))
    if down:
        where.append("it is lost in " + ", ".join(map(str, down)))
    if not where:
        # the stratum that moved most, either way (a loss is as telling as a gain)
        top = strata.loc[strata["delta"].abs().idxmax()] if len(strata) else None
        where.append("no stratum's interval excludes zero" + (
            "" if top is None else f" (largest move: {top['stratum']} "
            f"{points(top['delta'], signed=True, digits=2)} "
            f"{interval(top['ci_low'], top['ci_high'], signed=True, digits=2)})"))
    r = bd.reconciliation
    if r is not None:
        where.append(f"the reported {r.reported:+g} "
                     + ("does not reconcile with the strata" if r.flagged
                        else "reconciles with the strata within rounding"))
    chal = display_name(bd.challenger, display_names)
    base = display_name(bd.baseline, display_names)
    answer = (f"{chal} vs {base}: pooled {points(pooled['delta'], signed=True, digits=2)} "
              f"{interval(pooled['ci_low'], pooled['ci_high'], signed=True, digits=2)} points "
              f"of {metric_label(bd.metric)} over {int(pooled['n'])} queries; {'; '.join(where)}.")
    if r is not None and r.flagged:
        next_step = ("Find the scoring pass behind the reported figure: it does not reconcile "
                     "with the strata.")
    elif up and len(up) < len(strata):
        next_step = (f"Report the gain per stratum, not pooled: it is carried by "
                     f"{', '.join(map(str, up))}.")
    elif not up and not down:
        next_step = ("Report the pooled figure with its interval and claim no per-stratum "
                     "effect: no stratum resolves one at this sample size.")
    else:
        next_step = "Report the pooled figure with its interval; the strata agree with it."
    display = bd.display_table()
    table = display[[c for c in BREAKDOWN_BODY if c in display]
                    + [c for c in display if c.endswith("interval")]]
    return Finding(
        Headline("Where does the gain come from?", answer, next_step,
                 "reconciles" if bd.ok else "check failed"),
        table, chart_or(chart, _own_chart, bd, display_names),
        checks_frame(bd.checks), bd.description,
        caption=f"{metric_label(bd.metric)}, {chal} − {base}, in {POINTS}; one row per "
                "stratum, then the pooled and equal-weight averages",
        source=bd,
    )


def _own_chart(result: Any, display_names: Mapping[str, str]) -> Any:
    """The analysis' own chart (altair loads with the first chart drawn)."""
    from ragnb.strata.charts import strata_chart

    return strata_chart(result, display_names=display_names)
