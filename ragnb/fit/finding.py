"""The four-cell table as a :class:`~ragnb.result.Finding` (its adapter, registered by type)."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.fit.fourcell import REFUSED, FourCell
from ragnb.metrics.registry import metric_label, metric_short
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


def _family(reading: str) -> str:
    """The reading's gain part: carried, fit, inconclusive or refused."""
    if reading == REFUSED:
        return "refused"
    if reading.endswith("fit"):
        return "fit"
    if "carried over" in reading:
        return "carried"
    return "inconclusive"


def four_cell_headline(fc: FourCell, display_names: Mapping[str, str]) -> Headline:
    """The fit page's answer, next step and verdict: a pure function of the four-cell table.

    Rules (each reading is decided in :mod:`ragnb.fit.fourcell` from the intervals;
    the sentences only name it):

    =========================  ===========================================================
    sentence                   licensed when
    =========================  ===========================================================
    "Carried over" / Ship      production gain resolved above 0, gain gap not below 0 and
                               above minus the golden gain (a total collapse ruled out)
    "Fit" / quote production   gain gap's interval below 0 (the gain collapsed)
    "harder"/"easier"          level gap's interval below/above 0
    "no level difference ...   the level gap's interval holds 0 (a hedge, not a claim that
    resolved"                  the sets are equally hard)
    "Inconclusive at this n"   neither resolved; gives the queries per set that would
                               resolve the gap at its observed size (80% power)
    "No gain to carry over"    an inconclusive reading whose golden gain is not above 0:
                               there is nothing to carry; the production gain is the
                               answer ("worse" when its interval lies below 0)
    "No fit verdict"           production shares queries with golden and fewer than
                               10 are left once they are set aside
    share not carried over     a fit or inconclusive reading with a golden gain (a point
                               estimate, said so)
    =========================  ===========================================================
    """
    d = fc.deltas.set_index("split")
    g, p = d.loc[fc.golden], d.loc[fc.production]
    champ = display_name(fc.champion, display_names)
    base = display_name(fc.baseline, display_names)
    family = _family(fc.reading)
    metric, short = metric_label(fc.metric), metric_short(fc.metric)
    g_pts, p_pts = points(g["delta"], signed=True), points(p["delta"], signed=True)
    p_ci = interval(p["ci_low"], p["ci_high"], signed=True)
    gap = fc.carry
    why = [f"Gain on {fc.golden}: {g_pts} {interval(g['ci_low'], g['ci_high'], signed=True)} "
           f"points; on {fc.production}: {p_pts} {p_ci}.",
           f"Gain gap ({fc.production} minus {fc.golden}): {points(gap.delta, signed=True)} "
           f"{interval(gap.ci_low, gap.ci_high, signed=True)} points ("
           + ("resolved below 0: the gain did not carry over" if family == "fit" else
              "not below 0" if family == "carried" else "not resolved") + ")."]
    if family == "fit" and not pd.isna(fc.share_not_carried):
        why.append(f"{fc.share_not_carried:.0%} of the {fc.golden} gain did not carry over "
                   "(a point estimate).")
    dif = fc.difficulty
    moves = f"{points(dif.delta, signed=True)} {interval(dif.ci_low, dif.ci_high, signed=True)}"
    if fc.reading.startswith(("difficulty", "easier")):
        level = "harder" if fc.reading.startswith("difficulty") else "easier"
        confound = f", {fc.depth_clause}" if fc.depth_clause else ""
        why.append(f"{fc.production.capitalize()} is {level} for a fixed pipeline: the baseline "
                   f"moves {moves} points from {fc.golden} to {fc.production}{confound}.")
    elif family != "refused":
        why.append(f"No level difference between the sets is resolved: the baseline moves "
                   f"{moves} points from {fc.golden} to {fc.production}.")
    overlap = fc.overlap
    if overlap is not None and overlap.shared and family != "refused":
        why.append(f"Gains are read on the {overlap.disjoint} {fc.production} queries not "
                   f"shared with {fc.golden}.")
    if overlap is not None and overlap.same_text and family != "refused":
        why.append(f"{len(overlap.same_text)} {fc.production} queries repeat the text of a "
                   f"{fc.golden} query: counted, not set aside.")
    why.append(f"Metric: {metric}.")
    needed = ("" if pd.isna(fc.queries_needed) or np.isinf(fc.queries_needed)
              else f"about {int(math.ceil(fc.queries_needed)):,} queries per set")
    if family == "refused":
        answer = f"No fit verdict: {overlap.describe() if overlap else ''}"
        next_step = (f"Score a {fc.production} sample that shares no query with "
                     f"{fc.golden}, then read again.")
        verdict = "refused: test sets overlap"
        why = [f"Metric: {metric}."]
    elif family == "inconclusive" and not g["delta"] > 0:
        worse = p["ci_high"] < 0
        answer = (f"No gain to carry over: {champ} is {g_pts} points against {base} on "
                  f"{fc.golden} and {p_pts} {p_ci} on {fc.production} ({short})"
                  + (f", worse on {fc.production}." if worse else "."))
        next_step = (f"Keep {base}: {champ} does not beat it on {fc.golden}." if not worse
                     else f"Keep {base}: {champ} loses on {fc.production} too.")
        verdict = f"no gain on {fc.golden}" + (f", worse on {fc.production}" if worse else "")
    elif family == "inconclusive":
        answer = (f"Inconclusive at this n: {champ} vs {base} is {g_pts} points on "
                  f"{fc.golden} and {p_pts} {p_ci} on {fc.production} ({short}).")
        if needed:
            why.append(f"{needed[0].upper()}{needed[1:]} would resolve the gap at its "
                       "observed size (80% power).")
        next_step = (f"Collect {needed} before deciding." if needed else
                     "Collect more queries (or label more) before deciding.")
        verdict = "inconclusive at this n"
    elif family == "fit":
        answer = (f"Fit: {champ}'s {g_pts}-point gain over {base} on {fc.golden} is "
                  f"{p_pts} {p_ci} points of {short} on {fc.production}.")
        next_step = (f"Quote the {fc.production} gain, not the {fc.golden} one; stop "
                     f"selecting on {fc.golden}.")
        why.append("Label bias is not ruled out until both configurations' top k are pooled "
                   "and labelled (04-label-bias).")
        verdict = fc.reading
    else:
        answer = (f"Carried over: {champ} gains {p_pts} {p_ci} points of {short} over {base} "
                  f"on {fc.production}, queries nobody selected against.")
        next_step = (f"Ship {champ}; first rule out label bias if {fc.production} was "
                     "labelled shallowly.")
        verdict = fc.reading
    if fc.reading.startswith(("difficulty", "easier")):
        why.append(f"The baseline itself moves on {fc.production}: check its coverage "
                   "(test-set health).")
    return Headline("Is the gain real or fit?", answer, next_step, verdict, tuple(why))


@register(FourCell)
def four_cell_finding(fc: FourCell, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """The four-cell :func:`four_cell_headline`, its table, chart and checks."""
    table = fc.display_table().rename(
        index=lambda c: c if "−" in c else display_name(c, display_names))
    table = table.reset_index().rename(columns={"index": "configuration"})
    checks = []
    for s in (fc.golden, fc.production):
        diff = fc.cell(fc.champion, s) - fc.cell(fc.baseline, s)
        checks.append((f"{s}: delta = champion − baseline means", bool(np.isclose(
            diff, fc.delta(s), rtol=0, atol=1e-12)), f"|gap| {abs(diff - fc.delta(s)):.1g}"))
    if fc.overlap is not None:
        checks.append(("production shares no query with golden", not fc.overlap.shared,
                       fc.overlap.describe()))
    return Finding(
        four_cell_headline(fc, display_names),
        table, chart_or(chart, _own_chart, fc, display_names),
        checks_frame(checks), fc.description,
        caption=f"{metric_label(fc.metric)} in {POINTS}, mean [95% interval]; then the paired "
                "difference and its "
                f"effect size (mean difference / SD of differences)",
        source=fc,
    )


def _own_chart(result: Any, display_names: Mapping[str, str]) -> Any:
    """The analysis' own chart (altair loads with the first chart drawn)."""
    from ragnb.fit.charts import four_cell_chart

    return four_cell_chart(result, display_names=display_names)
