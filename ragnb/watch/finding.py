"""The watch as a :class:`~ragnb.result.Finding`: the stop decision first, the sequence's chart."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragnb.result import POINTS, Finding, Headline, checks_frame, register
from ragnb.watch.charts import sequence_chart
from ragnb.watch.stream import Watch


@register(Watch)
def watch_finding(w: Watch, *, display_names: Mapping[str, str] | None = None,
                  chart: Any = None) -> Finding:
    """Headline: the stop rule's answer at the latest batch, with the interval in points."""
    last = w.batches.iloc[-1]
    answer = (f"After {int(last['n'])} judged queries in {len(w.batches)} "
              f"batch{'' if len(w.batches) == 1 else 'es'} the gain is "
              f"{last['estimate'] * 100:+.1f} points [{last['low'] * 100:+.1f}, "
              f"{last['high'] * 100:+.1f}] ({1 - w.alpha:.0%} over every batch): "
              f"{w.decision}.")
    if w.stopped_at is not None:
        next_step = f"Stop labelling for this question: the answer held from batch {w.stopped_at}."
    else:
        next_step = ("Keep labelling and look again after the next batch: the interval stays "
                     "valid however often it is looked at.")
    table = pd.DataFrame({
        "batch": w.batches["batch"], "date": w.batches["date"],
        "queries": w.batches["n_batch"], "so far": w.batches["n"],
        "gain": [f"{v * 100:+.1f}" for v in w.batches["estimate"]],
        "interval": [f"[{lo * 100:+.1f}, {hi * 100:+.1f}]"
                     for lo, hi in zip(w.batches["low"], w.batches["high"], strict=True)],
        "status": w.batches["status"]})
    checks = [
        ("the interval only narrows (running intersection)",
         bool(w.batches["low"].is_monotonic_increasing
              and w.batches["high"].is_monotonic_decreasing), ""),
        ("every batch's interval holds its estimate",
         bool(((w.batches["low"] <= w.batches["estimate"])
               & (w.batches["estimate"] <= w.batches["high"])).all()), ""),
    ]
    return Finding(
        Headline("Is the champion's production gain established as judgments arrive?",
                 answer, next_step, w.decision.split(" (")[0]),
        table, chart if chart is not None else sequence_chart(w), checks_frame(checks),
        w.description, caption=f"The confidence sequence after every batch, in {POINTS}",
        source=w)
