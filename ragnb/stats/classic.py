"""The familiar paired tests, shown beside the headline test, and the effect size.

Reviewers ask for them, so every comparison table can carry them as secondary
columns; the headline p-value and interval stay those of :func:`ragnb.stats.compare`.
With ``d_i = challenger_i - baseline_i`` over the n shared queries:

effect size (Cohen's d_z)
    ``d_z = mean(d) / sd(d)``, ``sd`` with ``n - 1`` (the standardized mean
    difference of paired data; NaN when every difference is equal, sd = 0).
paired t-test (``scipy.stats.ttest_rel``)
    ``t = mean(d) / (sd(d) / sqrt(n))`` on ``n - 1`` degrees of freedom, two-sided.
Wilcoxon signed-rank (``scipy.stats.wilcoxon``, ``zero_method="wilcox"``)
    zero differences are dropped (Wilcoxon's original rule; their count is the
    ``n_zero`` column), the remaining ``|d_i|`` are ranked with mid-ranks for
    ties, ``W`` = the smaller rank sum; exact null distribution when at most 50
    non-zero differences without ties, else the normal approximation with tie
    correction (scipy's ``method="auto"``). Two-sided.

Per-query IR differences are often tied and bounded, so t and Wilcoxon can
disagree with a randomization test; that is why they are shown beside it and
not instead of it (Smucker, Allan & Carterette 2007).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.stats._inputs import align, stratum_labels
from ragnb.stats._resample import tie_tolerance
from ragnb.stats.stratified import POOLED

#: Optional tests by name: the CLI's ``--also`` choices and the column each adds.
TESTS = {"ttest": "p_ttest", "wilcoxon": "p_wilcoxon"}
COLUMNS = ["effect_size", "p_ttest", "p_wilcoxon", "n_zero"]
DESCRIPTION = {
    "effect_size": "effect_size: mean difference / SD of differences (Cohen's d_z, SD with n-1)",
    "ttest": "p_ttest: paired t-test, two-sided (scipy.stats.ttest_rel)",
    "wilcoxon": "p_wilcoxon: Wilcoxon signed-rank, two-sided, zero differences dropped "
                "(n_zero counts them; scipy.stats.wilcoxon, exact for n <= 50 without ties, "
                "else normal approximation)",
}


@dataclass(frozen=True)
class ClassicTests:
    """Effect size and the classic paired tests of one comparison."""

    n: int
    mean_diff: float
    sd_diff: float
    effect_size: float
    t_stat: float
    p_ttest: float
    w_stat: float
    p_wilcoxon: float
    n_zero: int


def effect_size(d) -> float:
    """Cohen's d_z = mean(d) / sd(d, ddof=1); NaN for fewer than 2 values or sd = 0.

    An sd within floating-point noise of 0 (at most :func:`tie_tolerance` of
    ``d``, e.g. ``0.5 - 0.2`` against ``0.7 - 0.4``) counts as 0: dividing by it
    would print a meaningless huge number.
    """
    d = np.asarray(d, dtype=float)
    if d.size < 2:
        return float("nan")
    sd = d.std(ddof=1)
    return float(d.mean() / sd) if sd > tie_tolerance(d) else float("nan")


def classic_tests(d, tests: Iterable[str] = tuple(TESTS)) -> ClassicTests:
    """Effect size, paired t-test and Wilcoxon signed-rank on paired differences ``d``.

    A test that is undefined (fewer than 2 differences, all differences equal
    for t, no non-zero difference for Wilcoxon) gives NaN, never a made-up p; so
    does a test not named in ``tests`` (scipy.stats loads only when one is).
    """
    tests = set(tests)
    d = np.asarray(d, dtype=float)
    n = int(d.size)
    if n and not np.isfinite(d).all():
        raise InputError("paired differences must be finite numbers", source="differences")
    nan = float("nan")
    mean = float(d.mean()) if n else nan
    sd = float(d.std(ddof=1)) if n > 1 else nan
    t_stat = p_t = nan
    # equal up to float noise: t is undefined
    if "ttest" in tests and n > 1 and sd > tie_tolerance(d):
        from scipy import stats as st

        res = st.ttest_1samp(d, 0.0)
        t_stat, p_t = float(res.statistic), float(res.pvalue)
    nonzero = d[d != 0]
    w_stat = p_w = nan
    if "wilcoxon" in tests and nonzero.size:
        from scipy import stats as st

        res = st.wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided")
        w_stat, p_w = float(res.statistic), float(res.pvalue)
    return ClassicTests(n, mean, sd, effect_size(d), t_stat, p_t, w_stat, p_w,
                        int(n - nonzero.size))


def add_classic_columns(table: pd.DataFrame, scores: pd.DataFrame, *, strata=None,
                        tests: Iterable[str] = (), drop_mismatched: bool = False
                        ) -> pd.DataFrame:
    """Append ``effect_size`` (always), ``n_zero`` and the chosen tests' p-values to a
    comparison table (one row per metric x challenger x stratum, as
    :func:`ragnb.stats.compare` returns).

    ``tests`` are names from :data:`TESTS`. The differences of each row are
    recomputed from the score table, on the row's stratum (every
    query for the ``pooled`` row); a row under
    :data:`ragnb.stats.interval.MIN_QUERIES` queries gets NaN, as its headline
    reads "too few queries to say". ``attrs["classic"]`` describes the added columns.
    """
    from ragnb.metrics.score import per_query
    from ragnb.stats.interval import MIN_QUERIES

    tests = list(dict.fromkeys(tests))
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise InputError(f"unknown test(s) {listed(unknown)}; choose from "
                         f"{listed(sorted(TESTS), most=20)}", key="tests")
    out = table.copy()
    rows = []
    pairs: dict[tuple, tuple] = {}  # (metric, baseline, challenger) -> differences, labels
    for row in out[["metric", "baseline", "challenger", "stratum"]].itertuples(index=False):
        key = (row.metric, row.baseline, row.challenger)
        if key not in pairs:  # once per pair, not once per stratum row
            base, chal = (per_query(scores, c, row.metric) for c in key[1:])
            pair = align(base, chal, drop_mismatched=drop_mismatched)
            labels = (None if strata is None
                      else stratum_labels(strata, pair.query_ids)[0].astype(str))
            pairs[key] = (pair.challenger - pair.baseline, labels)
        d, labels = pairs[key]
        if labels is not None and str(row.stratum) != POOLED:
            d = d[labels == str(row.stratum)]
        # below the headline's minimum the row reads "too few queries to say": no test either
        rows.append(classic_tests(d if d.size >= MIN_QUERIES else d[:0], tests))
    out["effect_size"] = [r.effect_size for r in rows]
    for name in tests:
        out[TESTS[name]] = [getattr(r, TESTS[name]) for r in rows]
    if "wilcoxon" in tests:
        out["n_zero"] = [r.n_zero for r in rows]
    out.attrs = dict(table.attrs)
    out.attrs["classic"] = "; ".join(
        [DESCRIPTION["effect_size"], *(DESCRIPTION[t] for t in tests)])
    return out
