"""The label-bias bounds and three-way verdict as :class:`~ragnb.result.Finding` (adapters)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.labelbias.bounds import Bounds
from ragnb.labelbias.verdict import ThreeWay
from ragnb.metrics.registry import metric_label
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    chart_or,
    checks_frame,
    display_labels,
    display_name,
    interval,
    points,
    register,
)
from ragnb.stats.power import queries_needed


@register(Bounds)
def bounds_finding(b: Bounds, *, display_names: Mapping[str, str], chart: Any = None,
                   strata: pd.Series | None = None) -> Finding:
    """Headline: how far the missing labels could move each config's score, widest first."""
    t = b.summary()
    widest = t.loc[t["bound_width"].idxmax()] if len(t) else None
    shown = "; ".join(f"{display_name(r['config'], display_names)} "
                      f"{interval(r['bound_min'], r['bound_max'], digits=2)} "
                      f"(now {points(r['lower'], digits=2)})" for r in t.to_dict("records"))
    if widest is None or not widest["bound_width"] > 0:
        answer = (f"The missing labels cannot move {b.metric}: no config has an unjudged "
                  f"passage in its top k ({shown}).")
        verdict, next_step = "exact", "Compare the scores as they are: every label is known."
    else:
        answer = (f"The missing labels could move {b.metric} by up to "
                  f"{points(widest['bound_width'], digits=2)} points, for "
                  f"{display_name(widest['config'], display_names)} "
                  f"({widest['unjudged_share']:.1%} of its top k unjudged); exact bounds in "
                  f"points: {shown}.")
        verdict = f"up to {points(widest['bound_width'], digits=2)} points"
        next_step = ("Read the three-way verdict for which decisions these bounds could flip, "
                     "and label the pooled passages where the bounds are widest.")
    bad = b.policy_violations()
    checks = [(f"lower and upper policies lie within the exact bounds ({c})", n == 0,
               f"{n} queries outside" if n else "")
              for c, n in zip(display_labels(bad.index, display_names), bad.tolist())]
    return Finding(
        Headline("How much could the missing labels change each score?", answer, next_step,
                 verdict),
        b.display_table(strata, display_names=dict(display_names)),
        chart_or(chart, _bounds_chart, b, display_names),
        checks_frame(checks), b.description,
        caption=f"{metric_label(b.metric)} in {POINTS}: unjudged share of the top k, the three "
                "policies and "
                "the exact bounds (means over queries)",
        source=b,
    )


def _bounds_chart(b: Bounds, display_names: Mapping[str, str]) -> Any:
    from ragnb.labelbias.charts import bounds_chart

    return bounds_chart(b.summary(), display_names=display_names)


#: How many runs of one verdict the headline names with their deciding interval.
NAMED_WITH_INTERVAL = 3


@register(ThreeWay)
def three_way_finding(tw: ThreeWay, *, display_names: Mapping[str, str],
                      chart: Any = None, judge_next: str = "below") -> Finding:
    """Headline: which challengers' decisions the missing labels could flip, run by run.

    ``judge_next``: where the reader finds the judge-next order the next step points
    to ("below" on the page; a command where the judge-next list is not printed).

    Each clause is exactly what :data:`ragnb.labelbias.verdict.RULE` established
    for the runs it names (clauses with no run are left out); with at most
    :data:`NAMED_WITH_INTERVAL` runs a clause gives each run's deciding interval
    in points.

    ==========================================================  ==========================
    sentence                                                    condition, per run
    ==========================================================  ==========================
    "A win(s) whatever the labels (conservative interval         conservative ``ci_low > 0``
    above zero ...)"                                            (verdict ``adopt``)
    "B depend(s) on the missing labels (optimistic interval     optimistic ``ci_low > 0``,
    above zero, conservative not ...)"                          conservative ``ci_low <= 0``
    "C cannot win even if every unjudged passage goes its/      optimistic ``ci_high < 0``
    their way (optimistic interval below zero ...)"             (verdict ``reject``)
    "D is/are not shown to win even if every unjudged passage   optimistic ``ci_low <= 0 <=
    goes its/their way, inconclusive at n queries (optimistic   ci_high`` (verdict
    interval includes zero ...; about N queries to resolve      ``reject``); N: queries
    it)"                                                        needed for the optimistic
                                                                mean at 80% power, when > 0
    Next: "Judge the pooled unjudged passages ... before        some run ``labelling
    deciding on B."                                             decides``
    Next: "No verdict depends on the missing labels; D ...      no run ``labelling decides``,
    more queries ..."                                           some run D
    Next: "Decide now: no verdict depends on the missing        otherwise
    labels."
    ==========================================================  ==========================

    A ``reject`` whose optimistic interval includes zero is a power limit, not
    a finding that the run cannot win: with a real gain of a few points and
    every label known it is the usual reading at small n (truth-table tests).

    The bounds named in the answer (``joint`` or ``separate``) are those the
    intervals used (:func:`ragnb.labelbias.verdict.three_way`).
    """
    from ragnb.labelbias.verdict import ADOPT, REJECT, UNDECIDED

    v = tw.verdicts
    t = tw.tests.set_index(["challenger", "test"])
    base = display_name(str(v["baseline"].iloc[0]), display_names) if len(v) else "—"
    kinds = ["joint" if b == "joint" else "separate"
             for b in tw.tests.loc[tw.tests["test"] != "current", "bounds"].unique()]
    bounds_kind = kinds[0] if len(kinds) == 1 else "joint"
    n = int(tw.tests["n"].iloc[0]) if len(tw.tests) else 0

    def shown(chal: str, test: str) -> str:
        r = t.loc[(chal, test)]
        return (f"{test} {points(r['delta'], signed=True, digits=2)} "
                f"{interval(r['ci_low'], r['ci_high'], signed=True, digits=2)}")

    def needed(chal: str) -> str:
        r = t.loc[(chal, "optimistic")]
        if not r["delta"] > 0:
            return ""
        more = queries_needed(float(r["se"]) * np.sqrt(float(r["n"])), float(r["delta"]))
        return f", about {more:,.0f} queries to resolve it" if np.isfinite(more) else ""

    def clause(chals: list[str], one: str, many: str, why: str, test: str,
               extra=lambda c: "") -> str | None:
        if not chals:
            return None
        if len(chals) <= NAMED_WITH_INTERVAL:
            names = ", ".join(f"{display_name(c, display_names)} ({shown(c, test)}{extra(c)})"
                              for c in chals)
            return f"{len(chals)} {one if len(chals) == 1 else many}: {names} ({why})"
        names = ", ".join(display_name(c, display_names) for c in chals)
        return (f"{len(chals)} {many}: {names} ({why}; each run's intervals in the table)")

    def runs_of(kind: str) -> list[str]:
        return list(v.loc[v["verdict"] == kind, "challenger"])

    rejected = runs_of(REJECT)
    below = [c for c in rejected if t.loc[(c, "optimistic"), "ci_high"] < 0]
    short = [c for c in rejected if c not in below]
    parts = [p for p in (
        clause(runs_of(ADOPT), "wins whatever the labels", "win whatever the labels",
               "conservative interval above zero", "conservative"),
        clause(runs_of(UNDECIDED), "depends on the missing labels",
               "depend on the missing labels",
               "optimistic interval above zero, conservative not", "optimistic"),
        clause(below, "cannot win even if every unjudged passage goes its way",
               "cannot win even if every unjudged passage goes their way",
               "optimistic interval below zero", "optimistic"),
        clause(short, "is not shown to win even if every unjudged passage goes its way, "
               f"inconclusive at {n} queries",
               "are not shown to win even if every unjudged passage goes their way, "
               f"inconclusive at {n} queries",
               "optimistic interval includes zero", "optimistic", needed),
    ) if p]
    answer = (f"Against {base} on {tw.metric} ({n} queries, {bounds_kind} bounds of the "
              f"difference, points), of {len(v)} challenger{'s' if len(v) != 1 else ''}: "
              + "; ".join(parts) + ".")
    undecided = [display_name(c, display_names) for c in runs_of(UNDECIDED)]
    if undecided:
        next_step = (f"Judge the pooled unjudged passages, in the judge-next order {judge_next}, "
                     f"before deciding on {', '.join(undecided)}.")
    elif short:
        next_step = ("No verdict depends on the missing labels; "
                     f"{', '.join(display_name(c, display_names) for c in short)} "
                     f"{'needs' if len(short) == 1 else 'need'} more queries to show a win or "
                     "rule one out.")
    else:
        next_step = "Decide now: no verdict depends on the missing labels."
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
        vr = v.loc[v["challenger"] == chal].iloc[0]
        row["verdict"] = (vr["verdict"] if vr["verdict"] != REJECT else
                          "reject: cannot win" if chal in below else
                          "reject: not shown to win")  # the headline's two readings
        if "joint_min" in v:
            row["joint bounds"] = interval(vr["joint_min"], vr["joint_max"], signed=True,
                                           digits=2)
            row["separate bounds"] = interval(vr["separate_min"], vr["separate_max"],
                                              signed=True, digits=2)
        rows.append(row)
    table = pd.DataFrame(rows)
    return Finding(
        Headline("Is the answer key biased?", answer, next_step,
                 f"{int((v['verdict'] == UNDECIDED).sum())} undecided"),
        table, None if chart is False else (chart if chart is not None
                                          else _verdict_chart(tw, display_names)),
        checks_frame([]),
        tw.description,
        caption=f"{metric_label(tw.metric)} in {POINTS}: challenger − {base} per label policy, "
                f"[95% interval] from {bounds_kind} per-query bounds of the difference; * marks "
                "an interval that excludes zero; effect size: the current difference's mean / "
                "SD of per-query differences; joint / separate bounds: the mean per-query "
                "bounds of the difference with one label per passage / with each config "
                "labelled apart (the looser pairing of its levels' bounds)",
        source=tw,
    )


def _verdict_chart(tw: ThreeWay, display_names: Mapping[str, str]) -> Any:
    from ragnb.labelbias.charts import verdict_chart

    return verdict_chart(tw, display_names=display_names)


def shard_lesson(projection: pd.DataFrame, metric: str, *,
                 display_names: Mapping[str, str] | None = None) -> str:
    """The shard's lesson in its own figures: the share of new positives beside the move.

    ``projection`` is :func:`ragnb.labelbias.shard.shard_projection`'s table (one
    metric); the sentence names the config (rows with ``target == config``)
    whose full-set mean moved most, ties to the first.

    ==========================================================  ==========================
    sentence                                                    condition
    ==========================================================  ==========================
    "N new relevant passages in M judgments (s%) moved C's      some config's
    metric by +e points over all T queries (+p projected ...):  ``effect_full != 0``; C the
    judge by the effect on the metric, not by the share ..."    largest ``abs(effect_full)``
    "N new relevant passages in M judgments (s%) moved no       every ``effect_full == 0``
    config's metric: ..."
    ==========================================================  ==========================
    """
    t = projection[projection["target"] == projection["config"]]
    if t.empty:
        return ""
    first = t.iloc[0]
    judged, rel = first["new_judgments"], first["new_relevant"]
    share = (f"{int(rel)} new relevant passage{'s' if rel != 1 else ''} in {int(judged)} "
             f"judgments ({rel / judged:.1%})" if judged else "no new judgment")
    shard_of = f"the shard's {int(first['n_shard'])} of {int(first['n_total'])} queries"
    moved = t.loc[t["effect_full"].abs().idxmax()]
    if moved["effect_full"] == 0:
        return (f"Labelling {shard_of}: {share} moved no config's {metric}; judge by the effect "
                "on the metric, not by the share of new positives.")
    return (f"Labelling {shard_of}: {share} moved "
            f"{display_name(str(moved['config']), display_names)}'s {metric} by "
            f"{points(moved['effect_full'], signed=True, digits=2)} points over all "
            f"{int(moved['n_total'])} queries ({points(moved['projected'], signed=True, digits=2)}"
            " projected once every query is labelled): judge by the effect on the metric, not "
            "by the share of new positives.")
