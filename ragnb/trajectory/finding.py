"""The trajectory as a :class:`~ragnb.result.Finding` (its adapter, registered by type)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from ragnb.metrics.registry import metric_label
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
from ragnb.trajectory.rounds import MIN_CHAMPIONS, Trajectory

if TYPE_CHECKING:
    from ragnb.fit.fourcell import FourCell


def _moved(row: Any, *, verb: bool = True) -> str:
    """``rose +9.0 [+7.2, +10.8]``: a line's total movement, its interval, and "(not
    resolved)" when the interval spans 0 (the same interval as the four-cell delta).
    """
    total, low, high = row["total"], row["ci_low"], row["ci_high"]
    word = ("rose " if total >= 0 else "fell ") if verb else ""
    return (f"{word}{points(total, signed=True)} {interval(low, high, signed=True)} points"
            + (" (not resolved)" if low <= 0 <= high else ""))


def _word(row: Any) -> str:
    return "rose" if row["total"] >= 0 else "fell"


@register(Trajectory)
def trajectory_finding(tr: Trajectory, *, display_names: Mapping[str, str],
                       four_cell: FourCell | None = None, chart: Any = None) -> Finding:
    """Headline: the divergence round and how far each line moved."""
    mv = tr.movement.set_index("split")
    inf = tr.inflation
    few = inf["rounds"] + 1 < MIN_CHAMPIONS  # the hinge needs a rise and a flat stretch
    gold, prod = mv.loc[tr.golden], mv.loc[tr.production]
    if tr.divergence_round is not None:
        answer = (f"Golden and production part after round {tr.divergence_round}: "
                  f"{tr.production} moved {_moved(prod, verb=False)} over {inf['rounds']} "
                  f"rounds while {tr.golden} {_word(gold)} {points(gold['total'], signed=True)}.")
        next_step = (f"Treat {tr.golden} gains after round {tr.divergence_round} as fit; rank "
                     "candidates on a fresh sample.")
        verdict = "diverged"
    elif few:
        answer = (f"Too few rounds to date a divergence: {inf['rounds'] + 1} champions "
                  f"(at least {MIN_CHAMPIONS} needed); {tr.production} moved "
                  f"{_moved(prod, verb=False)}.")
        next_step = (f"Rescore at least {MIN_CHAMPIONS} {tr.golden} champions on "
                     f"{tr.production}; until then read 01-fit.")
        verdict = "too few rounds"
    else:
        answer = (f"No divergence is resolved over {inf['rounds']} rounds: {tr.production} "
                  f"moved {_moved(prod, verb=False)} and {tr.golden} "
                  f"{points(gold['total'], signed=True)}.")
        next_step = f"Keep rescoring champions on {tr.production}; nothing dates a split yet."
        verdict = "no divergence"
    why = [f"{tr.golden.capitalize()} {_moved(gold)}, first to last champion; "
           f"{tr.production} {_moved(prod)}.",
           f"Selection alone explains {inf['label']} of the {tr.golden} "
           f"{'rise' if gold['total'] >= 0 else 'movement'}.",
           "Rounds are counted from 0 (the first champion is round 0)."]
    if tr.metric:
        why.append(f"Metric: {metric_label(tr.metric)}.")
    ov = tr.overlap
    if ov is not None and ov.refused:  # production is golden again: nothing to date
        answer = f"No divergence reading: {ov.describe()}"
        next_step = (f"Rescore the champions on a {tr.production} sample that shares no query "
                     f"with {tr.golden}.")
        verdict = "refused: test sets overlap"
        why = []
    elif ov is not None and ov.shared:
        why.append(f"{tr.production.capitalize()} is read on the {ov.disjoint} queries not "
                   f"shared with {tr.golden}.")
    table = tr.movement.drop(columns=["ci_low", "ci_high"])
    table["total"] = [f"{points(t, signed=True)} {interval(lo, hi, signed=True)}"
                      for t, lo, hi in tr.movement[["total", "ci_low", "ci_high"]].to_numpy()]
    for c in ("first", "last", "range_from_second"):
        table[c] = [points(v) for v in table[c]]
    if "effect_size" in table:
        table["effect_size"] = ["—" if pd.isna(v) else f"{v:+.2f}" for v in table["effect_size"]]
    table = table.rename(columns={"total": "total (points) [interval]",
                                  "effect_size": "effect size (mean diff / SD of diffs)",
                                  "range_from_second": "range from round 1 on (points)"})
    checks = []
    if four_cell is not None:
        ep = tr.endpoint_check(four_cell)
        for row in ep.to_dict("records"):
            what = f"{row['point']} {tr.production} point = four-cell cell ({row['config']})"
            checks.append((what, bool(row["equal"]),
                           f"|gap| {abs(row['trajectory'] - row['four_cell']):.1g}"))
        checks.append(("production movement = four-cell production delta",
                       bool(ep.attrs["movement_equals_delta"]), ""))
    if ov is not None:
        checks.append(("production shares no query with golden", not ov.shared, ov.describe()))
    return Finding(
        Headline("When did golden and production part?", answer, next_step, verdict,
                 tuple(why)),
        table, chart_or(chart, _own_chart, tr, display_names),
        checks_frame(checks), tr.description,
        caption=(f"{metric_label(tr.metric)}: total" if tr.metric else "Total")
        + f" movement per line in {POINTS}: last − first, with its effect size "
          "(last − first per query: mean / SD); range from round 1 on (rounds count from 0)",
        source=tr,
    )


def _own_chart(result: Any, display_names: Mapping[str, str]) -> Any:
    """The analysis' own chart (altair loads with the first chart drawn)."""
    from ragnb.trajectory.charts import trajectory_chart

    return trajectory_chart(result, display_names=display_names)
