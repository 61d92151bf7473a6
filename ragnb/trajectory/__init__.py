"""Golden vs production scores across rounds of selection: the trajectory analysis.

=====================  ======================================================
:mod:`~.rounds`        the analysis: :func:`trajectory` -> :class:`Trajectory`
:mod:`~.charts`        its chart (altair, imported when a chart is drawn)
:mod:`~.finding`       its :class:`~ragnb.result.Finding` adapter
=====================  ======================================================

``ragnb.trajectory`` is the function :func:`trajectory` (the package object
stays in ``sys.modules``, so ``from ragnb.trajectory import Trajectory`` works).
"""
from ragnb.trajectory import finding as _finding  # noqa: F401  (registers the adapter)
from ragnb.trajectory.rounds import Trajectory, trajectory

__all__ = ["Trajectory", "trajectory"]
