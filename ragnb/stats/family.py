"""Several metrics at once: one comparison table, one Holm family (metrics x challengers).

:func:`compare_metrics` runs :func:`ragnb.stats.compare` once per metric and
then applies Holm's step-down adjustment over every row with a p-value of the
whole table, so the family is metrics x challengers (x strata rows when
stratified), stated in ``holm_family`` and the description. Testing three
metrics on two challengers is six tests, not two: adjusting per metric would
understate the family-wise error.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from ragnb.errors import InputError
from ragnb.stats.classic import add_classic_columns
from ragnb.stats.multiple import compare, holm, score_table


def compare_metrics(
    scores: Any,
    *,
    baseline: str,
    metrics: Sequence[str],
    challengers: Sequence[str] | None = None,
    strata=None,
    tests: Iterable[str] = (),
    **options,
) -> pd.DataFrame:
    """Challengers vs a baseline on several metrics, Holm over metrics x challengers.

    Parameters
    ----------
    scores : Scores or DataFrame
        :func:`ragnb.score`'s result, or its score table (``config, query_id, metric,
        value``) holding every metric.
    metrics : sequence of str
        Canonical metric names as in the table (``ndcg@10``, ``ap``).
    tests : iterable of str
        Classic tests to add beside the headline one (:data:`ragnb.stats.classic.TESTS`);
        the effect size is always added.
    options
        Passed to :func:`ragnb.stats.compare` (resamples, seed, ci, method, ...).

    Returns
    -------
    DataFrame
        :func:`ragnb.stats.compare`'s rows for every metric, with ``p_holm`` and
        ``holm_family`` recomputed over the whole table, plus the classic columns.
    """
    scores, fixed = score_table(scores, options.pop("fixed", None))
    if fixed is not None:
        options["fixed"] = fixed
    metrics = list(dict.fromkeys(metrics))
    if not metrics:
        raise InputError("no metric given", key="metric")
    parts = [compare(scores, baseline=baseline, challengers=challengers, metric=m,
                     strata=strata, **options) for m in metrics]
    table = pd.concat(parts, ignore_index=True)
    table["p_holm"] = holm(table["p_value"].to_numpy())
    m = int(table["p_value"].notna().sum())
    n_chal = table["challenger"].nunique()
    rows_each = len(parts[0]) // n_chal
    family = (f"Holm over {m} tests: {len(metrics)} metric(s) x {n_chal} challenger(s) "
              f"vs {baseline}")
    if strata is not None:
        family += f" x {rows_each} rows ({rows_each - 1} strata + pooled)"
    old_family = parts[0]["holm_family"].iloc[0]
    table["holm_family"] = family
    checks = [{"metric": m, **c} for m, p in zip(metrics, parts) for c in p.attrs.get("checks", [])]
    table.attrs = {"checks": checks,
                   "description": parts[0].attrs["description"].replace(old_family, family)}
    return add_classic_columns(table, scores, strata=strata, tests=tests,
                               drop_mismatched=options.get("drop_mismatched", False))
