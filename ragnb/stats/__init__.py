"""Statistics shared by every comparison in the workbook.

=========================  ==================================================
:func:`paired_bootstrap`   CI, SE, p-value and MDE of a mean paired difference
:func:`stratified_bootstrap`  the same within strata, pooled row, checks
:func:`compare`            several challengers vs one baseline, Holm p-values
:func:`holm`               Holm step-down adjusted p-values
:func:`sign_flip_test`     paired randomization test, many pairs at once
:func:`mde`, :func:`queries_needed`  power planning
:func:`expected_max_normal`, :func:`selection_inflation`  selection bias
=========================  ==================================================

Every function takes an integer ``seed`` and builds its own
``numpy.random.Generator``; nothing touches global random state.
"""

from ragnb.stats.bootstrap import PairedBootstrap, paired_bootstrap
from ragnb.stats.inflation import expected_max_normal, implied_se, selection_inflation
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
    "PairedBootstrap",
    "Reconciliation",
    "SignFlipTest",
    "StratifiedBootstrap",
    "compare",
    "expected_max_normal",
    "holm",
    "implied_se",
    "mde",
    "paired_bootstrap",
    "queries_needed",
    "reconcile_pooled",
    "se_from_interval",
    "selection_inflation",
    "sign_flip_test",
    "stratified_bootstrap",
]
