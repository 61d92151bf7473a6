"""Adapters from each analysis' result object to a :class:`~ragnb.result.Finding`.

One adapter per analysis, registered by result type with
:func:`ragnb.result.register`; call them through :func:`ragnb.result.finding`.
Every number in a headline comes from the result object; metric values and
differences are in points (metric x 100), shares of queries in percent.

Two analyses have no single result object of their own; they get a small
record here: :class:`SplitUse` (the ledger views of 05) and
:class:`HealthReview` (the test-set checks of 06).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ragnb.codetasks.keep import KeepVerdict
from ragnb.fit import FourCell
from ragnb.labelbias.verdict import ThreeWay
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    checks_frame,
    display_name,
    interval,
    points,
    register,
)
from ragnb.strata.breakdown import Breakdown
from ragnb.trajectory import Trajectory

#: The body table of a stratified breakdown (the rest goes to the appendix).
BREAKDOWN_BODY = ["stratum", "n", "share", "baseline", "challenger", "Δ (points)"]


def _chart(given: Any, make: str, *args: Any,
           display_names: Mapping[str, str] | None = None) -> Any:
    """The chart given (``False``: none), else the analysis' own chart from :mod:`ragnb.charts`,
    its configs named by ``display_names``.
    """
    if given is False:
        return None
    if given is not None:
        return given
    from ragnb import charts

    return getattr(charts, make)(*args, display_names=display_names)


@register(FourCell)
def four_cell_finding(fc: FourCell, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: the reading, the gain on each split with its paired interval."""
    d = fc.deltas.set_index("split")
    g, p = d.loc[fc.golden], d.loc[fc.production]
    champ = display_name(fc.champion, display_names)
    base = display_name(fc.baseline, display_names)
    carried = ("" if pd.isna(fc.share_not_carried) else
               f"; {fc.share_not_carried:.0%} of the {fc.golden} gain did not carry over")
    answer = (f"{fc.reading.capitalize()}: {champ} gains {points(g['delta'], signed=True)} "
              f"{interval(g['ci_low'], g['ci_high'], signed=True)} points of {fc.metric} over "
              f"{base} on {fc.golden} but {points(p['delta'], signed=True)} "
              f"{interval(p['ci_low'], p['ci_high'], signed=True)} on {fc.production}{carried}.")
    next_step = {
        "fit": (f"Quote the {fc.production} gain ({points(p['delta'], signed=True)} points), not "
                f"the {fc.golden} one; stop selecting on {fc.golden}, and pool and label both "
                "configurations' top k to rule out label bias."),
        "difficulty": (f"Check coverage of {fc.production} (test-set health) before changing "
                       "the method: the baseline itself drops there."),
        "carried over": f"Ship {champ}: the gain holds on queries nobody selected against.",
    }.get(fc.reading, "Collect more queries or label more before deciding: the sample does "
                      "not resolve the question.")
    table = fc.table().rename(index=lambda c: c if "−" in c else display_name(c, display_names))
    table = table.reset_index().rename(columns={"index": "configuration"})
    checks = []
    for s in (fc.golden, fc.production):
        diff = fc.cell(fc.champion, s) - fc.cell(fc.baseline, s)
        checks.append((f"{s}: delta = champion − baseline means", bool(np.isclose(
            diff, fc.delta(s), rtol=0, atol=1e-12)), f"|gap| {abs(diff - fc.delta(s)):.1g}"))
    return Finding(
        Headline("Is the gain real or fit?", answer, next_step, fc.reading),
        table, _chart(chart, "four_cell_chart", fc, display_names=display_names),
        checks_frame(checks), fc.method,
        caption=f"{fc.metric} in {POINTS}, mean [95% interval]; then the paired difference and its "
                f"effect size (mean difference / SD of differences)",
        source=fc,
    )


@register(Trajectory)
def trajectory_finding(tr: Trajectory, *, display_names: Mapping[str, str],
                       four_cell: FourCell | None = None, chart: Any = None) -> Finding:
    """Headline: the divergence round and how far each line moved."""
    mv = tr.movement.set_index("split")
    g, p = mv.loc[tr.golden, "total"], mv.loc[tr.production, "total"]
    inf = tr.inflation
    when = (f"the lines part after round {tr.divergence_round}"
            if tr.divergence_round is not None else "no divergence round is resolved")
    answer = (f"Across {inf['rounds']} rounds {when}: {tr.golden} rose "
              f"{points(g, signed=True)} points and {tr.production} {points(p, signed=True)}, "
              f"while selection alone explains about {points(inf['inflation'])} points of the "
              f"{tr.golden} rise.")
    next_step = (f"Treat gains on {tr.golden} after round {tr.divergence_round} as fit; rank "
                 f"candidates on a fresh sample." if tr.divergence_round is not None else
                 f"Keep rescoring champions on {tr.production}; nothing dates a split yet.")
    table = tr.movement.copy()
    for c in ("first", "last", "total", "range_from_second"):
        if c in table:
            table[c] = [points(v, signed=c == "total") for v in table[c]]
    if "effect_size" in table:
        table["effect_size"] = ["—" if pd.isna(v) else f"{v:+.2f}" for v in table["effect_size"]]
    table = table.rename(columns={"total": "total (points)",
                                  "effect_size": "effect size (mean diff / SD of diffs)",
                                  "range_from_second": "range from round 2 (points)"})
    checks = []
    if four_cell is not None:
        ep = tr.endpoint_check(four_cell)
        for row in ep.to_dict("records"):
            what = f"{row['point']} {tr.production} point = four-cell cell ({row['config']})"
            checks.append((what, bool(row["equal"]),
                           f"|gap| {abs(row['trajectory'] - row['four_cell']):.1g}"))
        checks.append(("production movement = four-cell production delta",
                       bool(ep.attrs["movement_equals_delta"]), ""))
    return Finding(
        Headline("When did golden and production part?", answer, next_step,
                 "diverged" if tr.divergence_round is not None else "no divergence"),
        table, _chart(chart, "trajectory_chart", tr, display_names=display_names),
        checks_frame(checks), tr.method,
        caption=f"Total movement per line in {POINTS}: last − first, with its effect size "
                "(last − first per query: mean / SD); range from round 2 on",
        source=tr,
    )


@register(Breakdown)
def breakdown_finding(bd: Breakdown, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: the pooled delta with its interval and the strata that carry it."""
    pooled = bd.pooled
    strata = bd.strata
    up = strata[strata["ci_low"] > 0]["stratum"].tolist()
    down = strata[strata["ci_high"] < 0]["stratum"].tolist()
    where = []
    if up:
        where.append("the gain lives in " + ", ".join(map(str, up)))
    if down:
        where.append("it is lost in " + ", ".join(map(str, down)))
    if not where:
        # the stratum that moved most, either way (a loss is as telling as a gain)
        top = strata.loc[strata["delta"].abs().idxmax()] if len(strata) else None
        where.append("no stratum's interval excludes zero" + (
            "" if top is None else f" (largest move: {top['stratum']} "
            f"{points(top['delta'], signed=True, digits=2)} "
            f"{interval(top['ci_low'], top['ci_high'], signed=True, digits=2)})"))
    r = bd.reconciliation
    if r is not None:
        where.append(f"the reported {r.reported:+g} "
                     + ("does not reconcile with the strata" if r.flagged
                        else "reconciles with the strata within rounding"))
    chal = display_name(bd.challenger, display_names)
    base = display_name(bd.baseline, display_names)
    answer = (f"{chal} vs {base}: pooled {points(pooled['delta'], signed=True, digits=2)} "
              f"{interval(pooled['ci_low'], pooled['ci_high'], signed=True, digits=2)} points "
              f"of {bd.metric} over {int(pooled['n'])} queries; {'; '.join(where)}.")
    if r is not None and r.flagged:
        next_step = ("Find the scoring pass behind the reported figure: it does not reconcile "
                     "with the strata.")
    elif up and len(up) < len(strata):
        next_step = (f"Report the gain per stratum, not pooled: it is carried by "
                     f"{', '.join(map(str, up))}.")
    elif not up and not down:
        next_step = ("Report the pooled figure with its interval and claim no per-stratum "
                     "effect: no stratum resolves one at this sample size.")
    else:
        next_step = "Report the pooled figure with its interval; the strata agree with it."
    display = bd.display()
    table = display[[c for c in BREAKDOWN_BODY if c in display]
                    + [c for c in display if c.endswith("interval")]]
    return Finding(
        Headline("Where does the gain come from?", answer, next_step,
                 "reconciles" if bd.ok else "check failed"),
        table, _chart(chart, "strata_chart", bd, display_names=display_names),
        checks_frame(bd.checks), bd.describe(),
        caption=f"{bd.metric}, {chal} − {base}, in {POINTS}; one row per "
                "stratum, then the pooled and equal-weight averages",
        source=bd,
    )


@register(ThreeWay)
def three_way_finding(tw: ThreeWay, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: how many decisions the missing labels could flip."""
    from ragnb.labelbias.verdict import ADOPT, REJECT, UNDECIDED

    v = tw.verdicts
    def names(kind: str) -> str:
        return ", ".join(display_name(c, display_names)
                         for c in v.loc[v["verdict"] == kind, "challenger"])

    base = display_name(str(v["baseline"].iloc[0]), display_names) if len(v) else "—"
    counts = {k: int((v["verdict"] == k).sum()) for k in (ADOPT, UNDECIDED, REJECT)}
    parts = [f"{counts[ADOPT]} win whatever the labels" + (f" ({names(ADOPT)})" if counts[ADOPT]
                                                          else ""),
             f"{counts[UNDECIDED]} depend on the missing labels"
             + (f" ({names(UNDECIDED)})" if counts[UNDECIDED] else ""),
             f"{counts[REJECT]} cannot win even if every unjudged passage goes their way"]
    answer = (f"Against {base} on {tw.metric}, of {len(v)} challengers: " + "; ".join(parts)
              + ".")
    next_step = ("Judge the pooled unjudged passages, in the judge-next order below, before "
                 f"deciding on {names(UNDECIDED)}." if counts[UNDECIDED] else
                 "Decide now: no verdict depends on the missing labels.")
    rows = []
    for (_, chal), g in tw.tests.groupby(["baseline", "challenger"], sort=False):
        row = {"challenger": display_name(chal, display_names)}
        for r in g.to_dict("records"):
            star = " *" if (r["ci_low"] > 0 or r["ci_high"] < 0) else ""
            row[r["test"]] = (f"{points(r['delta'], signed=True, digits=2)} "
                              f"{interval(r['ci_low'], r['ci_high'], signed=True, digits=2)}"
                              f"{star}")
            if r["test"] == "current":
                es = r.get("effect_size", np.nan)
                row["effect size"] = "—" if pd.isna(es) else f"{es:+.2f}"
        row["verdict"] = v.loc[v["challenger"] == chal, "verdict"].iloc[0]
        rows.append(row)
    table = pd.DataFrame(rows)
    return Finding(
        Headline("Is the answer key biased?", answer, next_step,
                 f"{counts[UNDECIDED]} undecided"),
        table, None if chart is False else (chart if chart is not None
                                          else _verdict_chart(tw, display_names)),
        checks_frame([]),
        tw.description,
        caption=f"{tw.metric} in {POINTS}: challenger − {base} per label policy, "
                "[95% interval]; * marks an interval that excludes zero; effect size: "
                "the current difference's mean / SD of per-query differences",
        source=tw,
    )


def _verdict_chart(tw: ThreeWay, display_names: Mapping[str, str]) -> Any:
    from ragnb.labelbias.charts import verdict_chart

    return verdict_chart(tw, display_names=display_names)


@dataclass(frozen=True)
class SplitUse:
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
    answer = (f"{su.split} has been used to choose {int(n)} times (budget {budget}), which "
              f"inflates its best score by about {points(inflation, digits=2)} points; ranking "
              f"two close candidates on it is {ranking['outcome']}.")
    sealed = m[m.get("sealed", pd.Series(False, index=m.index)).fillna(False).astype(bool)]
    if demoted or ranking["outcome"] == "refused":
        keep = f"; keep {', '.join(sealed['split'])} sealed for confirmation" if len(sealed) else ""
        next_step = (f"Rank candidates on a fresh split{keep}; use {su.split} only as a "
                     "regression guard.")
    else:
        next_step = f"{su.split} may still rank candidates."
    table = m[[c for c in ("split", "role", "selections_against", "budget", "sealed")
               if c in m]].copy()
    if "inflation" in m:
        table["implied inflation (points)"] = [points(v, digits=2) for v in m["inflation"]]
    checks = [(f"{r['check']}: {r['outcome']}", True, "") for r in su.guard.to_dict("records")]
    return Finding(
        Headline("How often has each split been used to choose?", answer, next_step,
                 ranking["outcome"]),
        table, chart, checks_frame(checks),
        "implied inflation as the split ledger computes it (expected maximum of N standard "
        f"normals times the split's noise); paired SE given: {points(su.se, digits=2)} points",
        caption=f"Each split's use for selection; inflation in {POINTS}",
        source=su,
    )


@dataclass(frozen=True)
class HealthReview:
    """The test-set health checks of 06, as ``(check, holds, detail, chart)`` entries.

    ``urgency`` orders what to fix first (lower first; equal ones in the order added).
    """

    split: str
    entries: list[tuple[str, bool, str, Any]] = field(default_factory=list)
    description: str = ""
    urgency: dict[str, int] = field(default_factory=dict)

    def add(self, check: str, holds: bool, detail: str, chart: Any = None, *,
            urgency: int = 100) -> None:
        self.entries.append((check, bool(holds), detail, chart))
        self.urgency[check] = urgency


@register(HealthReview)
def health_finding(hr: HealthReview, *, display_names: Mapping[str, str],
                   chart: Any = None) -> Finding:
    """Headline: how many health checks hold; the failing ones first."""
    checks = checks_frame([(c, h, d) for c, h, d, _ in hr.entries])
    failing = [e for e in hr.entries if not e[1]]
    first = sorted(failing, key=lambda e: hr.urgency.get(e[0], 100))
    n = len(hr.entries)
    if failing:
        answer = (f"{n - len(failing)} of {n} health checks hold for {hr.split}; failing: "
                  + ", ".join(c for c, _, _, _ in first) + ".")
        next_step = f"Fix first: {first[0][0]} ({first[0][2]}) — its chart is below."
        shown = chart if chart is not None else first[0][3]
    else:
        answer = f"All {n} health checks hold for {hr.split}."
        next_step = "Keep using the test set; re-run this check with every new corpus build."
        shown = chart if chart is not None else (hr.entries[0][3] if hr.entries else None)
    table = checks.assign(holds=checks["holds"].map({True: "holds", False: "fails"}))
    return Finding(
        Headline("Is the test set still a fair ruler?", answer, next_step,
                 f"{n - len(failing)} of {n} hold"),
        table, shown, checks, hr.description,
        caption="Each health check; metric differences in points (metric × 100), shares in %",
        source=hr,
    )


@register(KeepVerdict)
def keep_finding(kv: KeepVerdict, *, display_names: Mapping[str, str],
                 chart: Any = None) -> Finding:
    """Headline: keep or fix, with each clause's value and interval in points."""
    from ragnb.codetasks.keep import parse_keep

    c = kv.clauses
    stated = {cl.metric: cl.in_points() for cl in parse_keep(kv.condition, source="condition")}
    parts = [f"{r['metric']} {points(r['mean'])} {interval(r['ci_low'], r['ci_high'])} "
             f"against {stated.get(r['metric'], r['condition'])} ({r['status']})"
             for r in c.to_dict("records")]
    answer = (f"{kv.verdict.capitalize()} the retriever (recall in points): "
              + "; ".join(parts) + ".")
    next_step = {"keep": "Keep the retriever; re-check on the next batch of merged changes.",
                 "fix": "Fix the clause that fails (the gap is named above) before keeping the "
                        "retriever.",
                 }.get(kv.verdict, "Mine more tasks: the intervals straddle the thresholds.")
    table = pd.DataFrame({
        "clause (points)": [stated.get(m, str(x)) for m, x in zip(c["metric"], c["condition"])],
        "mean (points)": [points(v) for v in c["mean"]],
        "95% interval (points)": [interval(lo, hi) for lo, hi in zip(c["ci_low"], c["ci_high"])],
        "tasks": c["n"],
        "status": c["status"],
    })
    return Finding(
        Headline("Does the code retriever find every file a change needs?", answer, next_step,
                 kv.verdict),
        table, chart, checks_frame([]), "",
        caption=f"Each keep clause against its interval, recall in {POINTS}",
        source=kv,
    )
