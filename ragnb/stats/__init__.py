"""Statistics shared by every comparison in the workbook.

=========================  ==================================================
:func:`paired_bootstrap`   CI, SE, p-value and MDE of a mean paired difference
:func:`stratified_bootstrap`  the same within strata, pooled row, checks
:func:`compare`            several challengers vs one baseline, Holm p-values
:func:`holm`               Holm step-down adjusted p-values
:func:`sign_flip_test`     paired randomization test, many pairs at once
:func:`mde`, :func:`queries_needed`  power planning
:func:`delta_interval`     the calibrated interval, SE and MDE (small n)
:func:`split_inflation`    selection inflation: the one figure per split
:func:`align`              baseline and challenger scores paired by query id
:func:`child_seed`, :func:`comparison_seed`  the seeding convention of every resampling
:func:`tie_tolerance`      float slack for "at least as extreme" comparisons
=========================  ==================================================

Every function takes an integer ``seed`` and builds its own
``numpy.random.Generator``; nothing touches global random state.
"""

from ragnb.stats._inputs import align
from ragnb.stats._resample import child_seed, comparison_seed, tie_tolerance
from ragnb.stats.bootstrap import PairedBootstrap, paired_bootstrap
from ragnb.stats.inflation import (
    SelectionInflation,
    expected_max_normal,
    implied_se,
    paired_se,
    selection_bias_estimate,
    selection_inflation,
    split_inflation,
)
from ragnb.stats.interval import MIN_QUERIES, delta_interval
from ragnb.stats.multiple import compare, holm
from ragnb.stats.permutation import SignFlipTest, sign_flip_test
from ragnb.stats.power import mde, queries_needed, se_from_interval
from ragnb.stats.stratified import (
    Reconciliation,
    StratifiedBootstrap,
    reconcile_pooled,
    stratified_bootstrap,
)

__all__ = [
    "MIN_QUERIES",
    "PairedBootstrap",
    "Reconciliation",
    "SelectionInflation",
    "SignFlipTest",
    "StratifiedBootstrap",
    "align",
    "child_seed",
    "compare",
    "comparison_seed",
    "delta_interval",
    "expected_max_normal",
    "holm",
    "implied_se",
    "mde",
    "paired_bootstrap",
    "paired_se",
    "queries_needed",
    "reconcile_pooled",
    "se_from_interval",
    "selection_inflation",
    "selection_bias_estimate",
    "sign_flip_test",
    "split_inflation",
    "stratified_bootstrap",
    "tie_tolerance",
]
