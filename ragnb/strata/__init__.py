"""Stratified breakdowns (seed 000): strata fixed in advance, one row per stratum.

=============================  ==================================================
:func:`breakdown`              per-stratum paired bootstrap, pooled and
                               equal-weight rows, completeness, reconciliation
:class:`StrataSpec`            a stratification: column, merges, exclusions,
                               written when and by whom
:func:`read_spec`,             the spec file (TOML), checked on read;
:func:`write_spec`             written by the what-if widget's export
:func:`apply_spec`             the one path from a strata table and a spec to
                               each compared query's stratum
:func:`spec_timing`            was the spec written before the scores?
:func:`strata_table`,          where strata come from: query metadata, strata
:func:`turn_depth`             files (a workspace's), conversational turn depth
                               (inputs, in :mod:`ragnb.io.strata_table`)
=============================  ==================================================

The chart is :func:`ragnb.strata.charts.strata_chart`; the what-if widget is
:class:`ragnb.widgets.whatif.WhatIf` (its state: :class:`ragnb.strata.whatif.WhatIfState`).
"""
from ragnb.io.strata_table import (
    Comparison,
    join_strata,
    strata_table,
    stratum_columns,
    turn_depth,
)
from ragnb.strata import finding as _finding  # noqa: F401  (registers the adapter)
from ragnb.strata.breakdown import Breakdown, breakdown
from ragnb.strata.spec import Applied, StrataSpec, apply_spec, read_spec, write_spec
from ragnb.strata.timing import SpecTiming, spec_timing

__all__ = [
    "Applied",
    "Breakdown",
    "Comparison",
    "SpecTiming",
    "StrataSpec",
    "apply_spec",
    "breakdown",
    "join_strata",
    "read_spec",
    "spec_timing",
    "strata_table",
    "stratum_columns",
    "turn_depth",
    "write_spec",
]
