"""Per-query views of a comparison: which queries a challenger won or lost, and why.

=============================  ==================================================
:func:`query_deltas`           per-query values of two configs, delta, stratum
:func:`side_by_side`           the two configs' top k with grades, unjudged marked
:func:`query_scores`           every metric of one query, both configs
:func:`query_delta_chart`      sorted per-query delta chart (altair)
=============================  ==================================================

Everything reads plain data objects (test set, runs, score table, strata), so
any loader can feed it. The widget over them is
:class:`ragnb.widgets.inspector.QueryInspector`.
"""
from ragnb.perquery.charts import query_delta_chart
from ragnb.perquery.deltas import SORTS, query_deltas, query_scores, side_by_side

__all__ = ["SORTS", "query_delta_chart", "query_deltas", "query_scores", "side_by_side"]
