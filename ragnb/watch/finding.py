"""The watch as a :class:`~ragnb.result.Finding`: the stop decision first, the sequence's chart."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    Section,
    checks_frame,
    register,
    table_section,
)
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
    caption = f"The confidence sequence after every batch, in {POINTS}"
    chart = chart if chart is not None else sequence_chart(w)
    return Finding(
        Headline("Is the champion's production gain established as judgments arrive?",
                 answer, next_step, w.decision.split(" (")[0]),
        table, chart, checks_frame(checks), w.description, caption=caption, source=w,
        sections=(Section(caption, "chart", chart), table_section(table, caption),
                  table_section(stopping_table(w.stopping), stopping_caption(w))))


def stopping_table(stopping: pd.DataFrame) -> pd.DataFrame:
    """:attr:`Watch.stopping` as text: one row per true gain."""
    def by(r) -> str:
        if pd.isna(r.median_batch):
            return f"not within {int(r.batches)} batches"
        return f"batch {int(r.median_batch)} ({int(r.median_queries):,} queries)"
    return pd.DataFrame({
        "true gain": [f"{g:+g}" for g in stopping["gain"]],
        "half the streams stopped by": [by(r) for r in stopping.itertuples()],
        **{_followed(stopping): [f"{s:.0%}" for s in stopping["stopped"]]},
        "stopped the wrong way": [f"{v:.1%}" for v in stopping["wrong_way"]]})


def _followed(stopping: pd.DataFrame) -> str:
    """The "stopped by" column's name: the batches every stream was followed for."""
    return f"stopped by batch {int(stopping['batches'].max())}"


def stopping_caption(w: Watch) -> str:
    """What the stopping table is, its units and how it was simulated."""
    size = int(w.stopping["batch_size"].iloc[0])
    return (f"When this watch would stop at each true gain, in {POINTS}: streams of "
            f"{size}-query batches resampled from these differences with their mean removed "
            f"and shifted to the gain; seed {w.seed}")
