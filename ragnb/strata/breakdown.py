"""The stratified breakdown: one paired comparison, stratum by stratum (seed 000).

:func:`breakdown` is a pure function from per-query scores, a strata table and
a stratification spec to a tidy table with one row per stratum, then the
pooled row and the equal-weight (macro) row, and the lines a reader needs
before the headline:

completeness
    the stratum sizes add up to the queries scored; queries with no stratum
    are the ``unclassified`` stratum, shown; queries a spec excludes are
    counted, not dropped silently.
zero-width strata
    an interval of exactly zero width only for a stratum that cannot move by
    construction: every query has nothing to retrieve
    (:attr:`ragnb.metrics.score.Scores.no_relevant`, scored 0 under both configs);
    the row says so. A stratum whose differences merely happen to be all 0
    gets a non-zero interval and a statement of how many queries could differ.
pooled = size-weighted
    ``delta = sum_h (n_h / N) delta_h`` exactly, checked on the point
    estimate and on every stratified replicate
    (:func:`ragnb.stats.stratified_bootstrap`). Strata that cannot move
    dilute the pooled figure by their share.
macro (equal-weight) average
    ``delta_macro = (1/H) sum_h delta_h`` shown apart from the pooled figure:
    when the two disagree in sign, the pooled sign is set by the stratum sizes
    (Simpson's paradox), which is flagged. Its interval is the normal
    approximation ``delta_macro +- z sqrt(sum_h se_h^2) / H`` (strata are
    resampled independently, so their replicate variances add).
reconciliation
    a pooled figure reported elsewhere, against the size-weighted stratum
    deltas: a residual beyond half a unit of its last printed digit is more
    than rounding and is flagged (seed 000: +0.93 against +1.1 points).

Per stratum: n, both means, delta with its calibrated interval
(:mod:`ragnb.stats.interval`), the p-value of the test that interval inverts,
the Holm-adjusted p over the strata shown (Holm 1979;
the pooled and macro rows are summaries of the same queries, not further
tests), the minimum detectable effect ``(t_.975 + t_.8) x SE`` and the queries
needed to resolve the observed delta at 80% power (Bloom 1995; Sakai 2016).
Strata under :data:`ragnb.stats.interval.MIN_QUERIES` queries read "too few
queries to say" instead of an interval and MDE. The seed is the comparison's
own, derived from its score vectors (:func:`ragnb.stats.comparison_seed`),
as in ``ragnb compare``, so the pooled row there and here print the same
numbers whatever the configs are called.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

import numpy as np
import pandas as pd
from scipy import special

from ragnb.errors import InputError, listed
from ragnb.io.strata import UNCLASSIFIED
from ragnb.metrics import parse_metric
from ragnb.metrics.score import Scores, per_query
from ragnb.result import Analysis
from ragnb.stats import child_seed, comparison_seed, holm, stratified_bootstrap
from ragnb.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, method_label
from ragnb.stats.classic import effect_size
from ragnb.stats.heterogeneity import Heterogeneity, strata_heterogeneity
from ragnb.stats.interval import MIN_QUERIES, P_TEXT, TOO_FEW
from ragnb.stats.stratified import POOLED, Reconciliation, printed_decimals
from ragnb.strata.spec import Applied, StrataSpec, apply_spec

MACRO = "equal-weight"
EXCLUDED = "excluded"
#: Columns of :attr:`Breakdown.table`.
COLUMNS = [
    "stratum", "kind", "n", "share", "baseline_mean", "challenger_mean", "delta", "ci_low",
    "ci_high", "p_value", "p_holm", "se", "effect_size", "mde", "queries_needed", "small", "note",
    "seed", "p_bootstrap",
]  # fmt: skip


@dataclass(frozen=True)
class Breakdown(Analysis):
    """A stratified comparison with its checks; see the module docstring.

    Attributes
    ----------
    table : DataFrame
        Tidy, one row per stratum (``kind="stratum"``), then ``pooled``, then
        the equal-weight average (``kind="macro"``) when there are two strata
        or more, then one row per excluded stratum (``kind="excluded"``, size
        only). Deltas and means in metric units (0-1).
    checks : DataFrame
        ``check, holds, detail``: the statistics' checks plus completeness,
        pooled vs equal-weight sign and the reconciliation.
    completeness : str
    reconciliation : Reconciliation or None
        In points (x100), like the reported figure.
    applied : Applied
        The strata after the spec (merges, exclusions), with its steps.
    """

    table: pd.DataFrame
    checks: pd.DataFrame
    completeness: str
    reconciliation: Reconciliation | None
    applied: Applied
    metric: str
    baseline: str
    challenger: str
    policy: str | None
    method: str
    resamples: int
    seed: int
    ci: float
    heterogeneity: Heterogeneity | None = None
    p_heterogeneity_holm: float = float("nan")

    @property
    def column(self) -> str:
        """The stratum column (the spec's), as a headline names it."""
        return str(self.spec.column)

    @property
    def alpha(self) -> float:
        return 1 - self.ci

    @property
    def spec(self) -> StrataSpec:
        return self.applied.spec

    @property
    def strata(self) -> pd.DataFrame:
        return self.table[self.table["kind"] == "stratum"]

    @property
    def pooled(self) -> pd.Series:
        return self.table.set_index("stratum").loc[POOLED]

    @property
    def ok(self) -> bool:
        return bool(self.checks["holds"].all())

    @property
    def description(self) -> str:
        """How the intervals and p-values were made, in one line."""
        h = len(self.strata)
        policy = f" ({self.policy} policy)" if self.policy else ""
        return (f"{self.metric}{policy}, {self.challenger} − "
                f"{self.baseline}: {self.ci:.0%} {self.method} intervals in each of {h} strata; "
                f"{P_TEXT}; bootstrap seed {self.seed} (derived from the "
                f"comparison as in ragnb compare; one derived seed per stratum, column seed); "
                f"Holm over the {int(self.strata['p_value'].notna().sum())} strata shown"
                + (" and the test that the strata differ (among the "
                   f"{self.heterogeneity.strata} strata with {MIN_QUERIES} queries or more that "
                   "can move)" if self.heterogeneity is not None
                   and self.heterogeneity.strata >= 2 else "") + "; "
                + (f"strata differ: {self.heterogeneity.method}; "
                   if self.heterogeneity is not None and self.heterogeneity.strata >= 2 else "")
                + "rows the t-interval cannot be trusted for (Cochran's rule) use the "
                "skew-corrected t, or the betting interval where fewer than 3 queries "
                "differ (each named in the row's note); "
                f"MDE at 80% power, alpha 0.05; strata under {MIN_QUERIES} queries: "
                f"{TOO_FEW}")

    @property
    def reconciliation_line(self) -> str:
        """The reported-figure line in points ("" when no figure was given)."""
        r = self.reconciliation
        if r is None:
            return ""
        verdict = ("FLAGGED: more than rounding explains; the two figures were probably not "
                   "produced by the same scoring pass" if r.flagged else "within rounding")
        text = (f"Reconciliation: the size-weighted stratum deltas give {r.weighted:+.2f} points "
                f"over {r.n} queries against a reported {r.reported:+g}; residual "
                f"{r.residual:+.2f} points, where rounding of the reported figure explains at "
                f"most ±{r.tolerance:.2g}: {verdict}.")
        n_out = len(self.applied.excluded)
        if n_out:
            text += (f" {n_out} excluded queries are not in the weighted figure; a figure "
                     "reported over all queries includes them.")
        return text

    def display_table(self, scale: float = 100.0, digits: int | None = None) -> pd.DataFrame:
        """The table as shown: deltas, intervals and MDE in points (x ``scale``), to one
        precision (default: :func:`ragnb.result.table_decimals`).
        """
        t = self.table
        if digits is None:
            from ragnb.result import table_decimals

            cols = ["baseline_mean", "challenger_mean", "delta", "ci_low", "ci_high"]
            digits = table_decimals(t[cols], dict.fromkeys(cols, "points"))

        def f(v, signed=True):
            if pd.isna(v):
                return "—"
            return f"{v * scale:+.{digits}f}" if signed else f"{v * scale:.{digits}f}"

        rows = []
        for r in t.to_dict("records"):
            shown = r["kind"] != EXCLUDED
            rows.append({
                "stratum": r["stratum"],
                "n": r["n"],
                "share": f"{r['share']:.0%}",
                "baseline": f(r["baseline_mean"], False) if shown else "—",
                "challenger": f(r["challenger_mean"], False) if shown else "—",
                "Δ (points)": f(r["delta"]) if shown else "—",
                f"{self.ci:.0%} interval": (
                    f"[{f(r['ci_low'])},\u00a0{f(r['ci_high'])}]"
                    if shown and not pd.isna(r["ci_low"])
                    else (TOO_FEW if shown and r["kind"] == "stratum" else "—")),
                "p": "—" if pd.isna(r["p_value"]) else f"{r['p_value']:.3g}",
                "p (Holm)": "—" if pd.isna(r["p_holm"]) else f"{r['p_holm']:.3g}",
                "effect size": "—" if pd.isna(r["effect_size"]) else f"{r['effect_size']:+.2f}",
                "MDE": f(r["mde"], False) if shown else "—",
                "queries needed": _needed(r["queries_needed"]),
                "note": r["note"],
            })
        return pd.DataFrame(rows)


def _needed(v) -> str:
    if pd.isna(v):
        return "—"
    if math.isinf(v):
        return "∞ (Δ = 0)"
    return f"{int(v):,}"


def _per_query(scores, config: str, metric: str | None) -> tuple[pd.Series, str, str | None]:
    if isinstance(scores, Scores):
        metric = metric or (scores.metrics[0] if len(scores.metrics) == 1 else None)
        if metric is None:
            raise InputError(f"several metrics scored ("
                             f"{listed(scores.metrics, most=20)}); choose one",
                             key="metric")
        return scores.values(config, metric), str(parse_metric(metric)), scores.policy
    if not isinstance(scores, pd.DataFrame) or not {"config", "query_id", "value"} <= set(scores):
        raise InputError("scores must be a Scores or a table with config, query_id, value",
                         source="scores")
    t = scores
    if "metric" in t:
        metrics = list(pd.unique(t["metric"]))
        if metric is None:
            if len(metrics) != 1:
                raise InputError(f"several metrics in the table ("
                                 f"{listed(metrics, most=20)}); choose one",
                                 key="metric")
            metric = str(metrics[0])
        if metric not in metrics:
            raise InputError(f"metric {metric!r} is not in the table ("
                             f"{listed(metrics, most=20)})", key="metric")
        t = t[t["metric"] == metric]
    values = per_query(t, config)
    return values.set_axis(values.index.astype("str").to_numpy()), metric or "value", None


def _reported_units(reported) -> str:
    """A figure in points as printed, re-expressed in metric units with its precision."""
    try:
        return str(Decimal(str(reported).strip().lstrip("+")).scaleb(-2))
    except InvalidOperation:
        raise InputError(f"not a number: {reported!r}", key="reported") from None


def breakdown(
    scores,
    strata: pd.DataFrame | pd.Series,
    spec: StrataSpec | str,
    *,
    baseline: str,
    challenger: str,
    metric: str | None = None,
    reported_points=None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
    method: Literal["t", "percentile", "bca"] = "t",
    min_stratum: int = 10,
) -> Breakdown:
    """Per-stratum paired bootstrap of ``challenger - baseline`` under a stratification spec.

    Parameters
    ----------
    scores : Scores or DataFrame
        Per-query scores (:func:`ragnb.metrics.score.score`, or a tidy table with
        ``config, query_id, value`` and optionally ``metric``).
    strata : DataFrame or Series
        Strata table (``query_id`` + columns) or ``query_id -> label``.
    spec : StrataSpec or str
        The stratification (or a column name: its values as they are).
    baseline, challenger : str
        Config names.
    metric : str, optional
        Needed when the scores hold several metrics.
    reported_points : float or str, optional
        A pooled delta reported elsewhere, in points as printed (``"+1.1"``);
        its precision is read from the text (pass a string to keep trailing
        zeros) and sets the rounding tolerance.
    resamples, seed, ci, method, min_stratum
        As for :func:`ragnb.stats.stratified_bootstrap`.

    Returns
    -------
    Breakdown
    """
    base, metric_name, policy = _per_query(scores, baseline, metric)
    chal, _, _ = _per_query(scores, challenger, metric_name)
    scored = base.index.union(chal.index, sort=False)
    applied = apply_spec(strata, spec, scored)
    keep = applied.labels.index
    labels = applied.labels
    reported_units = None if reported_points is None or str(reported_points).strip() == "" \
        else _reported_units(reported_points)
    fixed = scores.no_relevant if isinstance(scores, Scores) else None
    sb = stratified_bootstrap(base.reindex(keep), chal.reindex(keep), labels,
                              resamples=resamples, seed=comparison_seed(seed, base.reindex(keep),
                                                                        chal.reindex(keep)),
                              ci=ci, method=method, reported_pooled=reported_units,
                              min_stratum=min_stratum, fixed=fixed)
    big_n = len(scored)
    t = sb.table.copy()
    strata_rows = t["stratum"] != POOLED
    t["kind"] = np.where(strata_rows, "stratum", "pooled")
    t["share"] = t["n"] / big_n
    diff = chal.reindex(keep) - base.reindex(keep)
    comp_seed = comparison_seed(seed, base.reindex(keep), chal.reindex(keep))
    # the strata differ? tested among the strata the page can speak of: those with an
    # interval (n >= MIN_QUERIES) that can move (not fixed by construction)
    testable = t.loc[strata_rows & (t["n"] >= MIN_QUERIES) & (t["zero_width"] == ""),
                     "stratum"].astype(str)
    het = None
    if len(testable) >= 2:
        label_text = labels.astype(str)
        inside = label_text.isin(set(testable)).to_numpy()
        het = strata_heterogeneity(diff.to_numpy()[inside], label_text.to_numpy()[inside],
                                   permutations=resamples,
                                   seed=child_seed(comp_seed, "heterogeneity"))
    # one Holm family: every stratum's test and the test that the strata differ
    family = t.loc[strata_rows, "p_value"].to_numpy()
    if het is not None:
        family = np.append(family, het.p_value)
    adjusted = holm(family)
    t["p_holm"] = np.nan
    t.loc[strata_rows, "p_holm"] = adjusted[:int(strata_rows.sum())]
    p_het_holm = float(adjusted[-1]) if het is not None else math.nan
    t["effect_size"] = [
        np.nan if n < MIN_QUERIES else
        effect_size(diff if r == POOLED else diff[labels.astype(str) == str(r)])
        for r, n in zip(t["stratum"], t["n"])]
    notes = []
    for r in t.to_dict("records"):
        parts = []
        if r["kind"] == "pooled":
            parts.append("size-weighted average of the strata above")
        if r["zero_width"]:
            parts.append(f"zero-width interval: {r['zero_width']}")
        if r["statement"]:
            parts.append(r["statement"])
        if r["stratum"] == UNCLASSIFIED and r["kind"] == "stratum":
            parts.append("queries with no stratum value")
        if r["kind"] == "stratum" and r["small"] and r["n"] >= MIN_QUERIES:
            parts.append(f"small stratum (n < {min_stratum}): read its interval with care")
        notes.append("; ".join(parts))
    t["note"] = notes
    rows = [t]

    h_rows = t[strata_rows]
    h = len(h_rows)
    macro = None
    if h >= 2:
        macro_delta = float(h_rows["delta"].mean())
        # a stratum with no SE (too few queries) refuses the row: never counted as variance 0
        no_se = h_rows[h_rows["se"].isna()]
        macro_se = math.nan if len(no_se) else float(np.sqrt((h_rows["se"] ** 2).sum()) / h)
        z = float(special.ndtri(0.5 + ci / 2))
        macro_note = (f"each of the {h} strata counts equally; normal-approximation interval "
                      "from the stratum SEs")
        if len(no_se):
            macro_note = ("no interval: " + ", ".join(
                f"{s} (n = {n})" for s, n in zip(no_se["stratum"], no_se["n"]))
                + f" has too few queries for a variance (under {MIN_QUERIES}), and an "
                "equal-weight average gives it a full share")
        macro = {
            "stratum": MACRO, "kind": "macro", "n": int(h_rows["n"].sum()),
            "share": h_rows["n"].sum() / big_n,
            "baseline_mean": float(h_rows["baseline_mean"].mean()),
            "challenger_mean": float(h_rows["challenger_mean"].mean()),
            "delta": macro_delta, "ci_low": macro_delta - z * macro_se,
            "ci_high": macro_delta + z * macro_se, "p_value": np.nan, "p_holm": np.nan,
            "se": macro_se, "effect_size": np.nan, "mde": np.nan, "queries_needed": np.nan,
            "small": False,
            "note": macro_note, "seed": np.nan,
        }  # fmt: skip
        rows.append(pd.DataFrame([macro]))
    out_counts = applied.excluded.astype(str).value_counts(sort=False)
    if len(out_counts):
        rows.append(pd.DataFrame([{
            "stratum": label, "kind": EXCLUDED, "n": int(n), "share": n / big_n,
            "note": "excluded by the spec: not in any row above", "small": False,
        } for label, n in out_counts.items()]))
    table = pd.concat(rows, ignore_index=True)[COLUMNS]

    checks = sb.checks.copy()
    completeness, adds_up = _completeness(applied, h_rows, big_n)
    extra_checks = [("completeness", adds_up, completeness)]
    if macro is not None:
        pooled = t.loc[~strata_rows].iloc[0]
        extra_checks.append(_simpson_check(pooled, macro))
    checks = pd.concat([pd.DataFrame(extra_checks, columns=checks.columns), checks],
                       ignore_index=True)
    reconciliation = None
    if sb.reconciliation is not None:
        r = sb.reconciliation
        reported = float(str(reported_points).strip().lstrip("+"))
        reconciliation = Reconciliation(
            weighted=r.weighted * 100, reported=reported, n=r.n,
            tolerance=0.5 * 10.0 ** -printed_decimals(str(reported_points).strip()))
        checks.loc[checks["check"] == "reconciles with reported pooled", "detail"] = (
            f"size-weighted stratum deltas {reconciliation.weighted:+.2f} points against a "
            f"reported {reported:+g}: residual {reconciliation.residual:+.2f} points, rounding "
            f"explains at most ±{reconciliation.tolerance:.2g}")  # in points, as the line above
    return Breakdown(table=table, checks=checks, completeness=completeness,
                     reconciliation=reconciliation, applied=applied, metric=metric_name,
                     baseline=baseline, challenger=challenger, policy=policy,
                     method=method_label(method), resamples=sb.resamples, seed=sb.seed, ci=ci,
                     heterogeneity=het, p_heterogeneity_holm=p_het_holm)


def _side(low: float, high: float) -> int:
    """+1 / -1 when an interval lies above / below 0, 0 when it holds 0 or is missing."""
    if pd.isna(low) or pd.isna(high):
        return 0
    return 1 if low > 0 else -1 if high < 0 else 0


def _simpson_check(pooled, macro: dict) -> tuple[str, bool, str]:
    """Simpson's paradox only when both intervals resolve opposite signs, never on noise."""
    p_side = _side(pooled["ci_low"], pooled["ci_high"])
    m_side = _side(macro["ci_low"], macro["ci_high"])
    paradox = p_side * m_side < 0
    text = (f"pooled {pooled['delta'] * 100:+.2f} points, equal-weight "
            f"{macro['delta'] * 100:+.2f}")
    if paradox:
        text += ("; both intervals exclude 0 with opposite signs: the pooled sign is set by "
                 "the stratum sizes (Simpson's paradox)")
    elif pooled["delta"] * macro["delta"] < 0:
        text += "; the signs differ but neither interval resolves its sign, so no paradox shown"
    return ("pooled and equal-weight averages do not resolve opposite signs", not paradox, text)


#: A mean difference within this share of max|d| of zero is rounding error (as the
#: bootstrap's tie tolerance, :func:`ragnb.stats.tie_tolerance`).
def _completeness(applied: Applied, h_rows: pd.DataFrame, big_n: int) -> tuple[str, bool]:
    parts = [f"{s}: {n}" for s, n in zip(h_rows["stratum"], h_rows["n"])]
    compared = int(h_rows["n"].sum())
    out = applied.excluded.astype(str).value_counts(sort=False)
    total = compared + int(out.sum())
    text = f"Completeness: {big_n} queries scored = " + " + ".join(parts)
    if len(out):
        text += (f" compared ({compared} in {len(h_rows)} strata) + "
                 + " + ".join(f"{s}: {n}" for s, n in out.items()) + " excluded by the spec")
    else:
        text += f" in {len(h_rows)} strata"
    text += f" ({total} in all). "
    n_unc = int((applied.original == UNCLASSIFIED).sum())
    text += (f"{n_unc} queries have no {applied.spec.column!r} value and are the "
             f"{UNCLASSIFIED!r} stratum, shown. " if n_unc else "No query is unclassified. ")
    if applied.labelled_elsewhere:
        text += (f"{applied.labelled_elsewhere} rows of the strata table are for queries that "
                 "were not scored (not counted). ")
    adds_up = total == big_n
    text += "The sizes add up." if adds_up else f"The sizes do NOT add up to {big_n}."
    return text, adds_up
