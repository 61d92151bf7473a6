"""The four-cell table as a :class:`~ragnb.result.Finding` (its adapter, registered by type)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.fit.fourcell import FourCell
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


@register(FourCell)
def four_cell_finding(fc: FourCell, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: the reading, the gain on each split with its paired interval."""
    d = fc.deltas.set_index("split")
    g, p = d.loc[fc.golden], d.loc[fc.production]
    champ = display_name(fc.champion, display_names)
    base = display_name(fc.baseline, display_names)
    carried = ("" if pd.isna(fc.share_not_carried) else
               f"; {fc.share_not_carried:.0%} of the {fc.golden} gain did not carry over")
    answer = (f"{fc.reading.capitalize()}: {champ} gains {points(g['delta'], signed=True)} "
              f"{interval(g['ci_low'], g['ci_high'], signed=True)} points of "
              f"{metric_label(fc.metric)} over "
              f"{base} on {fc.golden} but {points(p['delta'], signed=True)} "
              f"{interval(p['ci_low'], p['ci_high'], signed=True)} on {fc.production}{carried}.")
    next_step = {
        "fit": (f"Quote the {fc.production} gain ({points(p['delta'], signed=True)} points), not "
                f"the {fc.golden} one; stop selecting on {fc.golden}, and pool and label both "
                "configurations' top k to rule out label bias."),
        "difficulty": (f"Check coverage of {fc.production} (test-set health) before changing "
                       "the method: the baseline itself drops there."),
        "carried over": f"Ship {champ}: the gain holds on queries nobody selected against.",
    }.get(fc.reading, "Collect more queries or label more before deciding: the sample does "
                      "not resolve the question.")
    table = fc.display_table().rename(
        index=lambda c: c if "−" in c else display_name(c, display_names))
    table = table.reset_index().rename(columns={"index": "configuration"})
    checks = []
    for s in (fc.golden, fc.production):
        diff = fc.cell(fc.champion, s) - fc.cell(fc.baseline, s)
        checks.append((f"{s}: delta = champion − baseline means", bool(np.isclose(
            diff, fc.delta(s), rtol=0, atol=1e-12)), f"|gap| {abs(diff - fc.delta(s)):.1g}"))
    return Finding(
        Headline("Is the gain real or fit?", answer, next_step, fc.reading),
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
