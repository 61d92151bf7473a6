"""Interactive surfaces built from ipywidgets (imported when a widget is made).

==========================================  ==========================================
:class:`~ragnb.widgets.whatif.WhatIf`        what-if stratification of a breakdown
                                             (its state: :mod:`ragnb.strata.whatif`)
:class:`~ragnb.widgets.inspector.QueryInspector`  per-query deltas, one query's top k
==========================================  ==========================================
"""
