"""Is the gain real or fit? The four-cell fit/difficulty analysis.

=====================  ======================================================
:mod:`~.fourcell`      the analysis: :func:`four_cell` -> :class:`FourCell`
:mod:`~.charts`        its chart (altair, imported when a chart is drawn)
:mod:`~.finding`       its :class:`~ragnb.result.Finding` adapter
=====================  ======================================================
"""
from ragnb.fit import finding as _finding  # noqa: F401  (registers the adapter)
from ragnb.fit.fourcell import (
    EFFECT_ROW,
    JOINT,
    LIMIT,
    READINGS,
    FourCell,
    four_cell,
    gain_reading,
    joint_level,
    level_reading,
)

__all__ = ["EFFECT_ROW", "JOINT", "LIMIT", "READINGS", "FourCell", "four_cell", "gain_reading",
           "joint_level", "level_reading"]
