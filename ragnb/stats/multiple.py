"""Several challengers against one baseline, with Holm-adjusted p-values.

Holm's step-down procedure (Holm 1979) controls the family-wise error rate
under any dependence between the tests, which matters here: every challenger
is compared with the same baseline on the same queries, and the per-stratum
rows share queries with the pooled row. With the ``m`` p-values sorted,
``p_(1) <= ... <= p_(m)``::

    p_holm_(j) = min(1, max_{i <= j} (m - i + 1) p_(i))

References
----------
Holm, S. (1979). A simple sequentially rejective multiple test procedure.
Scandinavian Journal of Statistics 6(2), 65-70.
Boytsov, L., Belova, A. & Westfall, P. (2013). Deciding on an adjustment for
multiplicity in IR experiments. SIGIR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.stats._resample import comparison_seed
from ragnb.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    describe_method,
    method_label,
    paired_bootstrap,
)
from ragnb.stats.interval import MIN_QUERIES, P_TEXT, TOO_FEW
from ragnb.stats.stratified import POOLED, stratified_bootstrap

SCORE_COLUMNS = ("config", "query_id", "metric", "value")


def holm(p_values) -> np.ndarray | pd.Series:
    """Holm step-down adjusted p-values (monotone in the raw ones, capped at 1).

    NaN p-values are not tests: they stay NaN and do not count in the family.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    index = p_values.index if isinstance(p_values, pd.Series) else None
    p = np.asarray(p_values, dtype=float)
    if np.any((p < 0) | (p > 1)):
        raise InputError("p-values must lie in [0, 1]", source="p_values")
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    m = tested.size
    order = tested[np.argsort(p[tested], kind="stable")]
    out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    return pd.Series(out, index=index) if index is not None else out


def _all_fixed(base: pd.Series, chal: pd.Series, fixed) -> bool:
    """Every compared query is fixed at a zero difference by construction."""
    if fixed is None:
        return False
    ids = {str(q) for q in fixed}
    common = base.index.intersection(chal.index)
    return len(common) > 0 and all(str(q) in ids for q in common) and bool(
        (base.reindex(common) == chal.reindex(common)).all())


def score_table(scores: Any, fixed: Any = None) -> tuple[pd.DataFrame, Any]:
    """The tidy table of ``scores`` (a :class:`ragnb.metrics.score.Scores` or its ``table``)
    and the queries fixed at a zero difference (given, else the Scores' ``no_relevant``).
    """
    if isinstance(scores, pd.DataFrame):
        return scores, fixed
    table = getattr(scores, "table", None)
    if not isinstance(table, pd.DataFrame):
        raise InputError("scores must be a Scores (ragnb.score(...)) or its score table, "
                         f"not {type(scores).__name__}", source="scores")
    return table, getattr(scores, "no_relevant", None) if fixed is None else fixed


def compare(
    scores: Any,
    *,
    baseline: str,
    challengers: Sequence[str] | None = None,
    metric: str,
    strata=None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
    method: Literal["t", "percentile", "bca"] = "t",
    drop_mismatched: bool = False,
    min_stratum: int = 10,
    fixed=None,
) -> pd.DataFrame:
    """Compare challengers with one baseline on one metric: a tidy table with Holm p-values.

    Parameters
    ----------
    scores : Scores or DataFrame
        :func:`ragnb.score`'s result, or its score table with columns ``config``,
        ``query_id``, ``metric``, ``value`` (one row per config and query for ``metric``).
    baseline : str
        The reference config.
    challengers : sequence of str, optional
        Configs to compare with it; default every other config in ``scores``.
    metric : str
        Which metric to compare (e.g. ``"ndcg@10"``).
    strata : Series, optional
        ``query_id -> stratum``; then each challenger gets one row per stratum
        plus a pooled row (:func:`ragnb.stats.stratified_bootstrap`),
        otherwise one row (:func:`ragnb.stats.paired_bootstrap`).
    resamples, seed, ci, method, drop_mismatched, min_stratum
        As for the bootstrap functions.
    fixed : collection of query ids, optional
        Queries whose difference is 0 by construction
        (see :func:`ragnb.stats.stratified_bootstrap`); for a Scores, default its
        ``no_relevant`` queries (as ``ragnb compare`` does).

    Returns
    -------
    DataFrame
        One row per challenger x stratum (+ pooled): ``delta``, ``ci_low``,
        ``ci_high``, ``se``, ``mde``, ``queries_needed``, ``p_value`` (the
        test the interval inverts) and ``p_holm`` (Holm over every row with a
        p-value, the family named in ``holm_family``), the secondary
        ``p_bootstrap`` (shift method), a ``statement`` when a row has no
        interval or an all-zero sample, with ``method``, ``ci``,
        ``resamples``, ``seed`` and ``n`` on every row. ``attrs["description"]``
        is a one-line statement of method, resamples, seeds and family; with
        strata, ``attrs["checks"]`` lists each challenger's stratified checks as plain records
        (``challenger, check, holds, detail``; plain data, so that pandas can
        compare attrs when tables are concatenated).

    Notes
    -----
    Challenger ``c`` is compared with ``seed = comparison_seed(seed, base, c)``,
    derived from the two score vectors (not the names), shown in the ``seed``
    column: it does not depend on which other challengers are in the family
    or what the configs are called, ``paired_bootstrap(..., seed=row.seed)`` reproduces the row, and
    :func:`ragnb.strata.breakdown` and the what-if widget derive the same seed,
    so the same comparison prints the same p-value everywhere.
    """
    scores, fixed = score_table(scores, fixed)
    missing = set(SCORE_COLUMNS) - set(scores.columns)
    if missing:
        raise InputError(
            f"a score table needs columns {', '.join(SCORE_COLUMNS)}; missing "
            f"{listed(sorted(missing), most=20)}",
            source="scores",
        )
    available = list(pd.unique(scores["metric"]))
    if metric not in available:   # another spelling of one in the table (ndcg_cut_10)
        from ragnb.metrics.registry import find_metric

        metric = find_metric(metric, [str(a) for a in available]) or metric
    if metric not in available:
        raise InputError(
            f"metric {metric!r} is not in the score table (has {', '.join(map(str, available))})",
            source="scores",
            key=metric,
        )
    scores = scores[scores["metric"] == metric]
    configs = list(pd.unique(scores["config"]))
    if challengers is None:
        challengers = [c for c in configs if c != baseline]
    unknown = [c for c in [baseline, *challengers] if c not in configs]
    if unknown:
        raise InputError(
            f"config(s) {', '.join(map(repr, unknown))} have no {metric} scores "
            f"(configs: {', '.join(map(str, configs))})",
            source="scores",
            key=str(unknown[0]),
        )
    if not challengers or baseline in challengers:
        raise InputError(
            "need at least one challenger other than the baseline", source="challengers"
        )

    from ragnb.metrics.score import per_query

    base = per_query(scores, baseline, metric)
    frames, checks = [], []
    for name in challengers:
        chal = per_query(scores, name, metric)
        c_seed = comparison_seed(seed, base, chal)
        if strata is None:
            r = paired_bootstrap(base, chal, fixed=_all_fixed(base, chal, fixed),
                                 resamples=resamples, seed=c_seed, ci=ci, method=method,
                                 drop_mismatched=drop_mismatched)
            row = {k: getattr(r, k) for k in (
                "n", "baseline_mean", "challenger_mean", "delta", "ci_low", "ci_high",
                "se", "mde", "p_value", "p_method", "seed", "path")}  # fmt: skip
            row["queries_needed"] = r.queries_needed(r.delta)
            row["p_bootstrap"] = r.p_value_bootstrap
            row["se_bootstrap"] = r.se_bootstrap
            row["statement"] = r.note
            frame = pd.DataFrame([{"stratum": POOLED, **row}])
        else:
            s = stratified_bootstrap(base, chal, strata, min_stratum=min_stratum, fixed=fixed,
                                     resamples=resamples, seed=c_seed, ci=ci, method=method,
                                     drop_mismatched=drop_mismatched)
            frame = s.table.copy()
            checks += [{"challenger": name, **row} for row in s.checks.to_dict("records")]
        frame.insert(0, "challenger", name)
        frames.append(frame)

    table = pd.concat(frames, ignore_index=True)
    table["p_holm"] = holm(table["p_value"].to_numpy())
    m = int(table["p_value"].notna().sum())
    rows_each = len(frames[0]) if strata is not None else 1
    family = f"Holm over {m} tests: {len(challengers)} challenger(s) vs {baseline}"
    if strata is not None:
        family += f" x {rows_each} rows ({rows_each - 1} strata + pooled)"
    table["holm_family"] = family
    table.insert(0, "metric", metric)
    table.insert(1, "baseline", baseline)
    table["method"] = method_label(method)
    table["ci"] = ci
    table["resamples"] = resamples
    first = ["metric", "baseline", "challenger", "stratum", "n", "baseline_mean",
             "challenger_mean", "delta", "ci_low", "ci_high", "se", "mde", "queries_needed",
             "p_value", "p_holm", "p_bootstrap", "statement", "holm_family", "method", "ci",
             "resamples", "seed", "path"]  # fmt: skip
    table = table[first + [c for c in table.columns if c not in first]]
    table.attrs["checks"] = checks
    table.attrs["description"] = (
        f"{ci:.0%} {describe_method(method, resamples)} intervals; {P_TEXT}; challenger "
        f"seeds derived from seed {seed}; rows whose differences are too skewed for a "
        f"t-interval (Cochran's rule) take the skew-corrected or betting interval, each said "
        f"in a note; {family}; p_bootstrap: "
        f"secondary paired-bootstrap shift p ({resamples:,} resamples), liberal at small n; "
        f"rows under {MIN_QUERIES} queries: {TOO_FEW}"
    )
    return table
