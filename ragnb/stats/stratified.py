"""Stratified paired bootstrap: per-stratum intervals and the pooled one they add up to.

Queries are grouped into strata ``h = 1..H`` (defined before looking at any
per-stratum score) of sizes ``n_h``, ``N = sum(n_h)``. The pooled difference
is exactly the size-weighted average of the stratum differences::

    delta = mean(d) = sum_h (n_h / N) * delta_h

A stratified replicate resamples ``n_h`` queries with replacement *within*
each stratum, stratum sizes fixed, so the identity holds in every replicate
too (under plain iid resampling the stratum shares drift and it does not).
Each stratum is bootstrapped on its own seeded stream (see
:func:`ragnb.stats._resample.child_seed`), so a stratum row is reproduced by
:func:`ragnb.stats.paired_bootstrap` on that stratum's queries with the row's
``seed``. The pooled BCa acceleration uses the jackknife of the weighted
estimator, closed-form: leaving query ``i`` of stratum ``h`` out gives
``u_i = (n_h / N) (d_i - delta_h) / (n_h - 1)``.

Headline figures per row (stratum or pooled): the calibrated interval, SE,
MDE and queries needed of :mod:`ragnb.stats.interval` (``method="t"``, the
default; the pooled row applies it to all ``N`` differences, so it equals the
unstratified comparison's), and the p-value of the test that interval
inverts (:mod:`ragnb.stats.interval`, "The p-value"). The bootstrap shift
p-value and SE are kept as ``p_bootstrap`` and ``se_bootstrap``, secondary.
A stratum under :data:`ragnb.stats.interval.MIN_QUERIES` queries has no
interval, MDE or queries needed ("too few queries to say", column
``statement``); only a stratum fixed by construction has zero width.

Very small strata are flagged: the bootstrap variance of a mean of ``n_h``
values is biased low by ``(n_h - 1) / n_h`` and needs proper scaling to be
consistent (Bickel & Freedman 1984).

References
----------
Bickel, P. J. & Freedman, D. A. (1984). Asymptotic normality and the bootstrap
in stratified sampling. Annals of Statistics 12(2), 470-482.
Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 14.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.io.strata import UNCLASSIFIED
from ragnb.stats import _inputs
from ragnb.stats._resample import child_seed, seeded_sums, tie_tolerance
from ragnb.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_options,
    describe_method,
    interval,
    jackknife_acceleration,
    shift_p_value,
)
from ragnb.stats.interval import P_TEXT

POOLED = "pooled"
#: Largest |pooled - weighted| tolerated, relative to max|d|, before it is a bug.
IDENTITY_TOLERANCE = 1e-12
TABLE_COLUMNS = [
    "stratum", "n", "baseline_mean", "challenger_mean", "delta", "ci_low", "ci_high",
    "p_value", "p_method", "se", "mde", "queries_needed", "small", "zero_width", "statement",
    "p_bootstrap", "se_bootstrap", "seed", "path", "guard",
]  # fmt: skip


def printed_decimals(x) -> int:
    """Decimal places a figure was printed with: from its text, or a float's shortest repr.

    ``"1.10"`` -> 2, ``1.4`` -> 1, ``0.011`` -> 3, ``3`` -> 0. Pass strings when
    trailing zeros matter (a float cannot remember them).
    """
    text = x.strip() if isinstance(x, str) else repr(float(x))
    try:
        exponent = decimal.Decimal(text.lstrip("+")).as_tuple().exponent
    except decimal.InvalidOperation:
        raise InputError(f"not a number: {x!r}", source="reconciliation") from None
    return max(0, -int(exponent))


@dataclass(frozen=True)
class Reconciliation:
    """A pooled figure reported elsewhere against the size-weighted stratum deltas.

    ``tolerance`` is the most that rounding of the printed inputs can explain:
    half a unit in the last printed place of the reported figure, plus the
    size-weighted half-units of the stratum deltas (zero for unrounded ones).
    A residual beyond it is flagged.
    """

    weighted: float
    reported: float
    n: int
    tolerance: float

    @property
    def residual(self) -> float:
        return self.reported - self.weighted

    @property
    def flagged(self) -> bool:
        return abs(self.residual) > self.tolerance

    @property
    def line(self) -> str:
        verdict = (
            "FLAGGED: more than rounding can explain; the two figures were probably "
            "not produced by the same scoring pass"
            if self.flagged
            else "within rounding"
        )
        return (
            f"size-weighted stratum deltas give {self.weighted:+.4g} over n={self.n} queries "
            f"against a reported {self.reported:+.4g}: residual {self.residual:+.3g}, rounding "
            f"of the printed figures explains at most ±{self.tolerance:.3g}; {verdict}"
        )


def reconcile_pooled(deltas: Sequence, sizes: Sequence[int], reported) -> Reconciliation:
    """Reconcile printed stratum deltas with a printed pooled delta.

    Parameters
    ----------
    deltas : sequence of float or str
        Stratum deltas as printed; precision is read from each figure
        (see :func:`printed_decimals`).
    sizes : sequence of int
        Stratum sizes ``n_h``.
    reported : float or str
        The pooled figure reported elsewhere, same units.

    Notes
    -----
    ``weighted = sum(n_h d_h) / N``; rounding each ``d_h`` to ``k_h`` places moves
    it by at most ``0.5 * 10**-k_h``, so the weighted average moves by at most
    ``sum(n_h / N * 0.5 * 10**-k_h)``; the reported figure adds its own half-unit.

    Examples
    --------
    Seed 000: +1.4 on 118, +0.6 on 41, 0.0 on 27, -0.3 on 14 against +1.1 points.

    >>> r = reconcile_pooled([1.4, 0.6, 0.0, -0.3], [118, 41, 27, 14], 1.1)
    >>> round(r.weighted, 3), round(r.tolerance, 3), r.flagged
    (0.928, 0.1, True)
    """
    if len(deltas) != len(sizes) or not len(sizes):
        raise InputError("need one size per stratum delta", source="reconciliation")
    n_h = np.asarray(sizes, dtype=float)
    if np.any(n_h <= 0):
        raise InputError("stratum sizes must be positive", source="reconciliation")
    values = np.array([float(d) for d in deltas])
    half = np.array([0.5 * 10.0 ** -printed_decimals(d) for d in deltas])
    w = n_h / n_h.sum()
    return Reconciliation(
        weighted=float(w @ values),
        reported=float(reported),
        n=int(n_h.sum()),
        tolerance=float(w @ half + 0.5 * 10.0 ** -printed_decimals(reported)),
    )


@dataclass(frozen=True)
class StratifiedBootstrap:
    """Result of :func:`stratified_bootstrap`.

    Attributes
    ----------
    table : DataFrame
        One row per stratum, then the pooled row (columns :data:`TABLE_COLUMNS`).
    checks : DataFrame
        Columns ``check``, ``holds``, ``detail``: sizes add up, unclassified
        queries, pooled = weighted (point and every replicate), small strata,
        dropped ids, and the reconciliation when a reported figure was given.
    reconciliation : Reconciliation or None
    """

    table: pd.DataFrame
    checks: pd.DataFrame
    reconciliation: Reconciliation | None
    n: int
    resamples: int
    seed: int
    method: str
    ci: float
    min_stratum: int

    @property
    def pooled(self) -> pd.Series:
        return self.table.iloc[-1]

    def describe(self) -> str:
        strata = len(self.table) - 1
        return (
            f"{self.ci:.0%} {describe_method(self.method, self.resamples)} intervals in each of "
            f"{strata} strata and pooled, n={self.n} queries; {P_TEXT}; "
            f"bootstrap ({self.resamples:,} resamples within strata, sizes fixed) for the "
            f"secondary p_bootstrap and se_bootstrap; seed {self.seed} (one derived seed per "
            f"stratum, in the table)"
        )


def _snap(mean: float, tol: float) -> float:
    """A mean within the tie tolerance of zero is zero: differences that cancel on
    paper (p@5's +-0.2) leave float noise of ~1e-18, which is not an effect.
    """
    return 0.0 if abs(mean) <= tol else mean


def _order(labels: np.ndarray, strata) -> list:
    present = pd.unique(labels)
    if isinstance(strata, pd.Series) and isinstance(strata.dtype, pd.CategoricalDtype):
        order = [c for c in strata.cat.categories if c in set(present)]
    else:
        counts = pd.Series(labels).value_counts(sort=False)
        order = sorted(
            (c for c in present if c != UNCLASSIFIED), key=lambda c: (-counts[c], str(c))
        )
    rest = [c for c in present if c not in order]
    return order + rest


def _fixed_mask(fixed, query_ids: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Queries whose difference is 0 by construction (and observed 0)."""
    if fixed is None:
        return np.zeros(query_ids.size, dtype=bool)
    ids = {str(q) for q in fixed}
    return np.array([str(q) in ids for q in query_ids]) & (d == 0)


def row_figures(d: np.ndarray, *, reps: np.ndarray, delta: float, tol: float, ci: float,
                method: str, accel: float, fixed: bool, resamples: int) -> dict:
    """Interval, p-values, SE, MDE and queries needed of one row (stratum or pooled)."""
    from ragnb.stats.interval import MIN_QUERIES, delta_interval

    n = d.size
    cal = delta_interval(d, ci, fixed=fixed)
    if method == "t" or fixed:  # the headline interval (with its guard)
        low, high = cal.low, cal.high
    else:
        low, high = interval(reps, delta, ci=ci, method=method, accel=accel, tol=tol)
        if low == high:  # every resample alike, but not by construction: not certainty
            low, high = cal.low, cal.high
    # the interval's own test; a row fixed by construction is not a test
    p, p_method = (math.nan, "") if fixed else (cal.p, cal.p_method)
    return {
        "ci_low": low, "ci_high": high, "p_value": p, "p_method": p_method,
        "se": cal.se, "mde": cal.mde, "queries_needed": cal.queries_needed,
        "zero_width": cal.note if fixed else "", "statement": "" if fixed else cal.note,
        "p_bootstrap": shift_p_value(reps, delta, tol) if n >= MIN_QUERIES else math.nan,
        "guard": cal.guard,
        "se_bootstrap": float(reps.std(ddof=1)) if resamples > 1 else 0.0,
    }  # fmt: skip


#: Strata of one query beyond which a stratification is refused when they are also
#: most of its strata (an id column, not a grouping).
MAX_SINGLE_QUERY_STRATA = 20


def _refuse_id_like(labels: np.ndarray) -> None:
    """Refuse labels that make most strata a single query (e.g. one stratum per query id).

    A stratum of one query has no variance to resample: its row would be refused
    anyway, and thousands of them cost seconds each thousand for nothing.
    """
    _, sizes = np.unique(labels.astype(str), return_counts=True)
    single = int((sizes == 1).sum())
    if single > MAX_SINGLE_QUERY_STRATA and 2 * single > len(sizes):
        raise InputError(
            f"{single:,} of the {len(sizes):,} strata hold one query: strata of one query "
            "cannot be bootstrapped; choose a coarser column or group its values in a spec",
            source="strata")


def stratified_bootstrap(
    baseline,
    challenger,
    strata,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
    method: Literal["t", "percentile", "bca"] = "t",
    reported_pooled=None,
    min_stratum: int = 10,
    drop_mismatched: bool = False,
    path: Literal["auto", "index", "counts"] = "auto",
    fixed=None,
) -> StratifiedBootstrap:
    """Paired bootstrap within strata, with the pooled row and the checks that tie them.

    Parameters
    ----------
    baseline, challenger : Series, DataFrame or 1-D array
        Per-query scores, as for :func:`ragnb.stats.paired_bootstrap`.
    strata : Series
        ``query_id -> stratum label`` (or a DataFrame with columns ``query_id``
        and ``stratum``). Queries with no label or a NaN label form the
        ``"unclassified"`` stratum, which is shown. A categorical Series keeps
        its category order; otherwise strata are ordered by size.
    resamples, seed, ci, method, drop_mismatched, path
        As for :func:`ragnb.stats.paired_bootstrap`; each stratum gets the
        seed ``child_seed(seed, label)`` (shown in the table).
    reported_pooled : float or str, optional
        A pooled delta reported elsewhere (same units as the scores) to
        reconcile with the weighted stratum deltas; see :class:`Reconciliation`.
    min_stratum : int
        Strata with fewer queries are flagged ``small``.
    fixed : collection of query ids, optional
        Queries whose difference is 0 by construction (e.g.
        :attr:`ragnb.metrics.score.Scores.no_relevant`: nothing to retrieve). A stratum
        made only of them has an interval of exactly zero width, said in
        ``zero_width``; any other all-zero stratum gets a non-zero interval.

    Returns
    -------
    StratifiedBootstrap
    """
    resamples, seed, ci = check_options(resamples, seed, ci, method, path)
    min_stratum = _inputs.check_positive_int(min_stratum, "min_stratum")
    pair = _inputs.align(baseline, challenger, drop_mismatched=drop_mismatched)
    labels, extra = _inputs.stratum_labels(strata, pair.query_ids)
    if any(str(label) == POOLED for label in labels):
        raise InputError(f"a stratum may not be called {POOLED!r}", source="strata")
    _refuse_id_like(labels)
    d_all = pair.challenger - pair.baseline
    big_n = d_all.size
    fixed_q = _fixed_mask(fixed, pair.query_ids, d_all)

    rows, pooled_sums, weighted_reps = [], np.zeros(resamples), np.zeros(resamples)
    u = np.zeros(big_n)  # jackknife influences of the weighted estimator
    for label in _order(labels, strata):
        mask = labels == label
        d, n_h = d_all[mask], int(mask.sum())
        tol = tie_tolerance(d)
        delta_h = _snap(float(d.mean()), tol)
        s_seed = child_seed(seed, label)
        sums, used, _ = seeded_sums(d, resamples, s_seed, path)
        reps = sums / n_h
        pooled_sums += sums
        weighted_reps += (n_h / big_n) * reps
        if n_h > 1:
            u[mask] = (n_h / big_n) * (d - delta_h) / (n_h - 1)
        accel = jackknife_acceleration((d - delta_h) / (n_h - 1)) if n_h > 1 else 0.0
        rows.append({
            "stratum": label, "n": n_h,
            "baseline_mean": float(pair.baseline[mask].mean()),
            "challenger_mean": float(pair.challenger[mask].mean()),
            "delta": delta_h,
            **row_figures(d, reps=reps, delta=delta_h, tol=tol, ci=ci, method=method,
                          accel=accel, fixed=bool(fixed_q[mask].all()), resamples=resamples),
            "small": n_h < min_stratum, "seed": s_seed, "path": used,
        })  # fmt: skip

    tol = tie_tolerance(d_all)
    delta = _snap(float(d_all.mean()), tol)
    pooled_reps = pooled_sums / big_n
    rows.append({
        "stratum": POOLED, "n": big_n,
        "baseline_mean": float(pair.baseline.mean()),
        "challenger_mean": float(pair.challenger.mean()),
        "delta": delta,
        **row_figures(d_all, reps=pooled_reps, delta=delta, tol=tol, ci=ci, method=method,
                      accel=jackknife_acceleration(u), fixed=bool(fixed_q.all()),
                      resamples=resamples),
        "small": False, "seed": seed, "path": "stratified",
    })  # fmt: skip
    table = pd.DataFrame(rows, columns=TABLE_COLUMNS)

    strata_rows = table.iloc[:-1]
    weighted_point = float((strata_rows["n"] / big_n) @ strata_rows["delta"])
    point_gap = abs(weighted_point - delta)
    replicate_gap = float(np.max(np.abs(pooled_reps - weighted_reps)))
    scale = max(1.0, float(np.max(np.abs(d_all))))
    if max(point_gap, replicate_gap) > IDENTITY_TOLERANCE * scale:
        raise RuntimeError(  # an internal invariant, not an input problem
            "pooled delta differs from the weighted stratum deltas by "
            f"{max(point_gap, replicate_gap):.3g}"
        )
    n_unclassified = int(np.sum(labels == UNCLASSIFIED))
    small = strata_rows[strata_rows["small"]]
    checks = [
        ("stratum sizes add up", int(strata_rows["n"].sum()) == big_n,
         " + ".join(str(n) for n in strata_rows["n"]) + f" = {strata_rows['n'].sum()} "
         f"of {big_n} queries compared"),
        ("unclassified queries", n_unclassified == 0,
         f"{n_unclassified} queries have no stratum and form the {UNCLASSIFIED!r} stratum"
         if n_unclassified else "every query compared has a stratum"),
        ("labels for other queries", extra == 0,
         f"{extra} labelled query ids are not among the compared queries (ignored)"
         if extra else "none"),
        ("pooled = size-weighted strata (point)", True,
         f"{delta:+.6g} vs {weighted_point:+.6g}, |gap| = {point_gap:.1e}"),
        (f"pooled = size-weighted strata (all {resamples:,} replicates)", True,
         f"max |gap| = {replicate_gap:.1e}"),
        (f"strata under {min_stratum} queries", small.empty,
         ", ".join(f"{s} (n={n})" for s, n in small[["stratum", "n"]].itertuples(index=False))
         or "none"),
        ("unmatched query ids", pair.dropped == 0,
         f"{pair.dropped} dropped (present on one side only)" if pair.dropped else "none"),
    ]  # fmt: skip
    reconciliation = None
    if reported_pooled is not None:
        reconciliation = Reconciliation(
            weighted=weighted_point,
            reported=float(reported_pooled),
            n=big_n,
            tolerance=0.5 * 10.0 ** -printed_decimals(reported_pooled),
        )
        checks.append(("reconciles with reported pooled", not reconciliation.flagged,
                       reconciliation.line))  # fmt: skip
    return StratifiedBootstrap(
        table=table,
        checks=pd.DataFrame(checks, columns=["check", "holds", "detail"]),
        reconciliation=reconciliation,
        n=big_n,
        resamples=resamples,
        seed=seed,
        method=method,
        ci=ci,
        min_stratum=min_stratum,
    )
