"""The split ledger's views as a :class:`~ragnb.result.Finding`.

The ledger views of 05 have no single result object of their own; they get
the small record :class:`SplitUse` here, with its adapter.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ragnb.result import (
    POINTS,
    Analysis,
    Finding,
    Headline,
    checks_frame,
    points,
    register,
)
from ragnb.stats.inflation import WORST_CASE, inflation_text


@dataclass(frozen=True)
class SplitUse(Analysis):
    """The ledger's view of one split used to rank two close candidates (05).

    Attributes
    ----------
    manifests : DataFrame
        :meth:`ragnb.ledger.Ledger.manifests` with ``se`` given.
    guard : DataFrame
        :func:`ragnb.ledger.views.guard_report` for the split.
    split : str
        The split the guard ran on.
    se : float
        SE of the close comparison (metric units).
    alert_is_illustration : bool
        The alert row tests a hypothetical drop, not a measured one.
    """

    manifests: pd.DataFrame
    guard: pd.DataFrame
    split: str
    se: float
    alert_is_illustration: bool = True

    @property
    def description(self) -> str:
        """How the view was made: the inflation rule, the guard's split and the paired SE."""
        return ("selection inflation: each split's one figure (ragnb.stats.split_inflation: "
                "an empirical-Bayes selection bootstrap over its candidates' per-query scores, "
                "or, with only the count known, the worst case of all candidates equal, "
                "E[max of N normals] x SE / √2; the method is named beside each figure); the "
                f"guard's checks run on {self.split}; SE of its pair: "
                f"{points(self.se, digits=2)} points"
                + ("; the alert row tests a hypothetical drop, not a measured one"
                   if self.alert_is_illustration else ""))


@register(SplitUse)
def split_use_finding(su: SplitUse, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: how often the split was used to choose and what the ledger allows on it."""
    m = su.manifests
    row = m[m["split"] == su.split].iloc[0] if (m["split"] == su.split).any() else m.iloc[0]
    n, budget = row["selections_against"], row.get("budget")
    ranking = su.guard.iloc[0]
    demoted = not pd.isna(row.get("retired_for_selection_at")) and bool(
        row.get("retired_for_selection_at"))
    inflation = row.get("inflation")
    method = row.get("inflation_method")
    span = _range(row)
    how = ("unknown (no candidates' scores, no SE)" if inflation is None or pd.isna(inflation)
           else f"between {points(span[0], digits=2)} and {points(span[1], digits=2)} points "
                f"({method}; one candidate leads by too uncertain a margin for one figure)"
           if span is not None
           else f"at most {points(inflation, digits=2)} points ({method})"
           if method == WORST_CASE else
           f"about {points(inflation, digits=2)} points" + (f" ({method})" if method else ""))
    budget = "no budget" if budget is None or pd.isna(budget) else f"budget {int(budget)}"
    outcome = ranking["outcome"]
    ranked = ("its two close candidates are not told apart on it (the lead is within the "
              "selection bias and noise)" if outcome == "not told apart" else
              f"ranking two close candidates on it is {outcome}")
    answer = (f"{su.split} has been used to choose {int(n)} time{'' if int(n) == 1 else 's'} "
              f"({budget}); {ranked}.")
    why = [f"Choosing on it inflates its best score by {how}."]
    if demoted:
        why.append(f"{su.split} was demoted to a regression guard: it no longer ranks "
                   "candidates.")
    sealed = m[m.get("sealed", pd.Series(False, index=m.index)).fillna(False).astype(bool)]
    if len(sealed):
        why.append(f"Sealed for confirmation: {', '.join(sealed['split'])}.")
    keep = f"; keep {', '.join(sealed['split'])} sealed for confirmation" if len(sealed) else ""
    if demoted or outcome == "refused":
        next_step = (f"Rank candidates on a fresh split{keep}; use {su.split} only as a "
                     "regression guard.")
    elif outcome == "not told apart":  # a working split: it still ranks clear leads
        next_step = (f"{su.split} may still rank candidates that lead clearly, but not these "
                     f"two: confirm them on a sealed split or more queries{keep}.")
    else:
        next_step = f"{su.split} may still rank candidates."
    table = m[[c for c in ("split", "role", "selections_against", "budget", "sealed")
               if c in m]].copy()
    if "inflation" in m:
        table["selection inflation (points)"] = [
            inflation_text(None if pd.isna(v) else float(v), None if pd.isna(k) else str(k),
                           *(_range(r) or (None, None)))
            for v, k, r in zip(m["inflation"], m.get("inflation_method", [None] * len(m)),
                               m.to_dict("records"))]
    checks = [(f"{r['check']}: {r['outcome']}", True, "") for r in su.guard.to_dict("records")]
    return Finding(
        Headline("How often has each split been used to choose?", answer, next_step,
                 outcome, tuple(why)),
        table, chart, checks_frame(checks), su.description,
        caption=f"Each split's use for selection; inflation in {POINTS}",
        source=su,
    )


def _range(row) -> tuple[float, float] | None:
    """A row's ``(inflation_low, inflation_high)`` where the range is the figure, else None."""
    low, high = row.get("inflation_low"), row.get("inflation_high")
    return None if low is None or pd.isna(low) else (float(low), float(high))
