"""Production watched as judged batches arrive: an anytime-valid confidence sequence for
the champion-minus-baseline gain and a stop rule (:mod:`ragnb.watch.stream`).

=========================  ==================================================
:func:`watch`              differences in arrival order -> :class:`Watch` (an Analysis)
:func:`watch_scores`       the same from a tidy score table, N queries a batch
:func:`differences_table`  a wide per-query table and batch labels -> differences
:func:`batches_of`         batch labels of N queries each, in arrival order
:func:`sequence_chart`     the sequence after every batch (``alt.Chart``)
=========================  ==================================================
"""
from ragnb.watch import finding as _finding  # noqa: F401  (registers the adapter)
from ragnb.watch.charts import sequence_chart
from ragnb.watch.stream import Watch, batches_of, differences_table, status, watch, watch_scores

__all__ = ["Watch", "batches_of", "differences_table", "sequence_chart", "status", "watch",
           "watch_scores"]
