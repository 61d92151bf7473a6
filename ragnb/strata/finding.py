"""A stratified breakdown as a :class:`~ragnb.result.Finding` (its adapter, registered by type)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ragnb.metrics.registry import metric_label, metric_short
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    chart_or,
    checks_frame,
    display_name,
    interval,
    points,
    register,
)
from ragnb.stats.interval import MIN_QUERIES
from ragnb.strata.breakdown import Breakdown

#: The body table of a stratified breakdown (the rest goes to the appendix).
BREAKDOWN_BODY = ["stratum", "n", "share", "baseline", "challenger", "Δ (points)", "p (Holm)"]


def _labels(rows: pd.DataFrame, column: str) -> str:
    """Strata named with their column: ``conversation = 129, 131`` (never a bare ``129``)."""
    return f"{column} = " + ", ".join(str(x) for x in rows["stratum"])


def _resolved(bd: Breakdown, sign: int) -> pd.DataFrame:
    """Strata whose own test survives Holm (family: strata + heterogeneity) and whose
    interval lies on the ``sign`` side of 0: both must hold for a confident sentence.
    """
    st = bd.strata
    side = st["ci_low"] > 0 if sign > 0 else st["ci_high"] < 0
    return st[side & (st["p_holm"] <= bd.alpha)]


@dataclass(frozen=True)
class StrataClaims:
    """What the strata headline may claim, decided by the rules of :func:`strata_headline`.

    ``gains`` and ``losses`` are the strata resolved each way; ``differ`` is the
    heterogeneity test's Holm decision; ``pooled`` is +1 / -1 / 0 as the pooled
    interval lies above / below / around 0.
    """

    gains: tuple[str, ...]
    losses: tuple[str, ...]
    differ: bool
    pooled: int
    strata: int

    @property
    def agree(self) -> bool:
        """Every stratum resolves the same sign and no test shows them to differ."""
        return not self.differ and self.strata > 0 and self.strata in (
            len(self.gains), len(self.losses))


def strata_claims(bd: Breakdown) -> StrataClaims:
    """The claims the breakdown licenses (see :func:`strata_headline`)."""
    pooled = bd.pooled
    return StrataClaims(
        gains=tuple(str(x) for x in _resolved(bd, +1)["stratum"]),
        losses=tuple(str(x) for x in _resolved(bd, -1)["stratum"]),
        differ=bd.heterogeneity is not None and bd.p_heterogeneity_holm <= bd.alpha,
        pooled=1 if pooled["ci_low"] > 0 else -1 if pooled["ci_high"] < 0 else 0,
        strata=len(bd.strata))


def _needed(value: float) -> str:
    return "—" if pd.isna(value) or np.isinf(value) else f"about {int(value):,}"


def strata_headline(bd: Breakdown, display_names: Mapping[str, str]) -> Headline:
    """The strata page's answer, next step and verdict: a pure function of the breakdown.

    Rules (``alpha = 1 - ci``; "resolved" = Holm p <= alpha in the family of every
    stratum's test plus the test that the strata differ, *and* the stratum's own
    interval on that side of 0):

    ==========================================  ==============================================
    sentence                                    licensed when
    ==========================================  ==============================================
    pooled "+x [lo, hi]" (always)               the pooled row's interval (calibrated, or the
                                                betting guard, as its row says)
    "the strata differ (...)"                   heterogeneity Holm p <= alpha
    "the gain is concentrated in C = s"         strata differ and s resolves a gain
    "the loss is concentrated in C = s"         strata differ and s resolves a loss
    "no test shows the strata differ"           heterogeneity Holm p > alpha
    "it holds in every stratum"                 strata do not differ, every stratum resolves
                                                the same sign
    "C = s resolves it on its own"              strata do not differ, some (not all) resolve
    "no stratum resolves an effect on its own"  nothing resolved
    verdict "strata differ"/"strata agree"/     heterogeneity resolved / every stratum resolved
    "inconclusive at this n"                    alike / otherwise
    Next: report per stratum                    strata differ only
    Next: report pooled                         otherwise, with the queries needed when the
                                                pooled interval holds 0
    ==========================================  ==============================================

    "Significant here and not there" is never read as a difference (Gelman & Stern
    2006): only the heterogeneity test says the strata differ.
    """
    pooled = bd.pooled
    strata = bd.strata
    col = bd.column
    chal = display_name(bd.challenger, display_names)
    base = display_name(bd.baseline, display_names)
    ups, downs = _resolved(bd, +1), _resolved(bd, -1)
    het = bd.heterogeneity
    claims = strata_claims(bd)
    differ, pooled_side = claims.differ, claims.pooled
    where = []
    if differ:
        where.append(f"the strata differ (test of the difference between strata, Holm p = "
                     f"{bd.p_heterogeneity_holm:.2g})")
        if len(ups):
            where.append("the gain is concentrated in " + _labels(ups, col))
        if len(downs):
            where.append("the loss is concentrated in " + _labels(downs, col))
        if not len(ups) and not len(downs):
            where.append("but no single stratum resolves its own effect after Holm")
    else:
        if het is not None:
            where.append("no test shows the strata differ"
                         + ("" if pd.isna(bd.p_heterogeneity_holm) else
                            f" (Holm p = {bd.p_heterogeneity_holm:.2g})"))
        for rows, word in ((ups, "gain"), (downs, "loss")):
            if not len(rows):
                continue
            if len(rows) == len(strata):
                where.append(f"the {word} holds in every stratum ({col})")
            else:
                where.append(f"{_labels(rows, col)} resolve{'s' if len(rows) == 1 else ''} "
                             f"the {word} on {'its' if len(rows) == 1 else 'their'} own, which "
                             "is no evidence that the other strata differ")
        if not len(ups) and not len(downs):
            movable = strata[strata["ci_low"].notna()]
            top = movable.loc[movable["delta"].abs().idxmax()] if len(movable) else None
            small = int(strata["n"].max()) if len(strata) else 0
            where.append(
                f"every stratum is too small to test on its own (the largest has {small} "
                f"quer{'y' if small == 1 else 'ies'}; a test needs {MIN_QUERIES})"
                if not len(movable) and small < MIN_QUERIES else
                "no stratum resolves an effect on its own after Holm" + (
                "" if top is None else
                f" (largest move: {col} = {top['stratum']} "
                f"{points(top['delta'], signed=True)} "
                f"{interval(top['ci_low'], top['ci_high'], signed=True)} points, "
                f"n = {int(top['n'])})"))
    r = bd.reconciliation
    if r is not None:
        where.append(f"the reported {r.reported:+g} "
                     + ("does not reconcile with the strata" if r.flagged
                        else "reconciles with the strata within rounding"))
    figure = (f"{points(pooled['delta'], signed=True)} "
              f"{interval(pooled['ci_low'], pooled['ci_high'], signed=True)} points of "
              f"{metric_short(bd.metric)} over {int(pooled['n'])} queries")
    if differ:
        where_gain = (f"; the gain is in {_labels(ups, col)}" if len(ups) else
                      f"; the loss is in {_labels(downs, col)}" if len(downs) else "")
        answer = f"The strata differ: {chal} vs {base} is {figure} pooled{where_gain}."
    elif claims.agree:
        answer = (f"{chal} vs {base}: {figure}, and the "
                  f"{'gain' if len(ups) else 'loss'} holds in every stratum ({col}).")
    else:
        answer = f"{chal} vs {base}: {figure}; no stratum is shown to differ."
    why = [(w[0].upper() + w[1:] if w.startswith(("the ", "no ", "but ", "every ")) else w) + "."
           for w in where]
    why.append(f"Metric: {metric_label(bd.metric)}.")
    needed = _needed(pooled["queries_needed"])
    if r is not None and r.flagged:
        next_step = ("Find the scoring pass behind the reported figure: it does not reconcile "
                     "with the strata.")
    elif differ:
        next_step = f"Report the gain per stratum ({col}), not pooled."
    elif pooled_side == 0:
        next_step = ("Report the pooled figure; "
                     + (f"{needed} queries in all would resolve a gain this size; this set "
                        f"has {int(pooled['n']):,}." if needed != "—"
                        else "this sample does not resolve it."))
    else:
        next_step = "Report the pooled figure with its interval, not a per-stratum story."
    if r is not None and r.flagged:
        verdict = "check failed"
    elif differ:
        verdict = "strata differ"
    elif claims.agree:
        verdict = "strata agree"
    else:
        verdict = "inconclusive at this n"
    return Headline("Where does the gain come from?", answer, next_step, verdict, tuple(why))


@register(Breakdown)
def breakdown_finding(bd: Breakdown, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """The breakdown's :func:`strata_headline`, its table, chart and checks."""
    chal = display_name(bd.challenger, display_names)
    base = display_name(bd.baseline, display_names)
    display = bd.display_table()
    table = display[[c for c in BREAKDOWN_BODY if c in display]
                    + [c for c in display if c.endswith("interval")]]
    return Finding(
        strata_headline(bd, display_names),
        table, chart_or(chart, _own_chart, bd, display_names),
        checks_frame(bd.checks), bd.description,
        caption=f"{metric_label(bd.metric)}, {chal} − {base}, in {POINTS}; one row per "
                f"stratum ({bd.column}), then the pooled and equal-weight averages",
        source=bd,
    )


def _own_chart(result: Any, display_names: Mapping[str, str]) -> Any:
    """The analysis' own chart (altair loads with the first chart drawn)."""
    from ragnb.strata.charts import strata_chart

    return strata_chart(result, display_names=display_names)
