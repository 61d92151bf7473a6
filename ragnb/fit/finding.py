"""The four-cell table as a :class:`~ragnb.result.Finding` (its adapter, registered by type)."""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.fit.fourcell import REFUSED, FourCell
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
    gains = (f"{champ} gains {points(g['delta'], signed=True)} "
             f"{interval(g['ci_low'], g['ci_high'], signed=True)} points of "
             f"{metric_label(fc.metric)} over "
             f"{base} on {fc.golden} and {points(p['delta'], signed=True)} "
             f"{interval(p['ci_low'], p['ci_high'], signed=True)} on {fc.production}")
    overlap = fc.overlap
    if overlap is not None and overlap.shared and family != "refused":
        gains += f" (the {overlap.disjoint} {fc.production} queries not shared with {fc.golden})"
    if overlap is not None and overlap.same_text and family != "refused":
        gains += (f" ({len(overlap.same_text)} {fc.production} queries repeat the text of a "
                  f"{fc.golden} query: counted, not set aside)")
    needed = ("" if pd.isna(fc.queries_needed) or np.isinf(fc.queries_needed)
              else f"about {int(math.ceil(fc.queries_needed)):,} queries per set would "
                   "resolve it")
    if family == "refused":
        answer = f"No fit verdict: {overlap.describe() if overlap else ''}"
        next_step = (f"Score a {fc.production} sample that shares no query with {fc.golden} "
                     "(a fresh sample nobody selected against), then read the table again.")
        verdict = "refused: test sets overlap"
    elif family == "inconclusive":
        level_note = "" if fc.reading == "inconclusive" else f" ({fc.reading})"
        answer = (f"Inconclusive at this n{level_note}: {gains}"
                  + (f"; {needed}" if needed else "") + ".")
        next_step = ("Collect more queries (or label more) before deciding: "
                     + (needed if needed else "the sample does not resolve the question") + ".")
        verdict = "inconclusive at this n"
    else:
        share = ("" if family != "fit" or pd.isna(fc.share_not_carried) else
                 f"; {fc.share_not_carried:.0%} of the {fc.golden} gain did not carry over "
                 "(point estimate)")
        level = ""
        if not fc.reading.startswith(("difficulty", "easier")):
            dif = fc.difficulty
            moves = (f"{points(dif.delta, signed=True)} "
                     f"{interval(dif.ci_low, dif.ci_high, signed=True)}")
            level = (f"; no level difference between the sets is resolved (the baseline moves "
                     f"{moves} points from {fc.golden} to {fc.production})")
        answer = f"{fc.reading.capitalize()}: {gains}{share}{level}."
        verdict = fc.reading
        if family == "fit":
            next_step = (f"Quote the {fc.production} gain ({points(p['delta'], signed=True)} "
                         f"points), not the {fc.golden} one; stop selecting on {fc.golden}, and "
                         "pool and label both configurations' top k to rule out label bias.")
        else:
            next_step = (f"Ship {champ}: the gain holds on {fc.production} queries nobody "
                         "selected against (rule out label bias by pooled labelling first if "
                         f"{fc.production} was labelled shallowly).")
        if fc.reading.startswith(("difficulty", "easier")):
            next_step += (f" The baseline itself moves on {fc.production}: check its coverage "
                          "(test-set health).")
    return Headline("Is the gain real or fit?", answer, next_step, verdict)


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
