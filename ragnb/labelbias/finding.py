"""The label-bias bounds and three-way verdict as :class:`~ragnb.result.Finding` (adapters)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ragnb.labelbias.bounds import Bounds
from ragnb.labelbias.verdict import (
    CANNOT,
    LABELS,
    NOT_SHOWN,
    QUERIES,
    READINGS,
    WINS,
    ThreeWay,
    readings,
)
from ragnb.metrics.registry import metric_label, metric_short
from ragnb.result import (
    ANSWER_WORDS,
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
    words,
)
from ragnb.stats.power import queries_needed


@register(Bounds)
def bounds_finding(b: Bounds, *, display_names: Mapping[str, str], chart: Any = None,
                   strata: pd.Series | None = None) -> Finding:
    """Headline: how far the missing labels could move each config's score, widest first."""
    t = b.summary()
    widest = t.loc[t["bound_width"].idxmax()] if len(t) else None
    shown = "; ".join(f"{display_name(r['config'], display_names)} "
                      f"{interval(r['bound_min'], r['bound_max'])} "
                      f"(now {points(r['lower'])})" for r in t.to_dict("records"))
    why = (f"Exact bounds in points: {shown}.", f"Metric: {metric_label(b.metric)}.")
    if widest is None or not widest["bound_width"] > 0:
        answer = (f"The missing labels cannot move {metric_short(b.metric)}: no config has an "
                  "unjudged passage in its top k.")
        verdict, next_step = "exact", "Compare the scores as they are: every label is known."
    else:
        answer = (f"The missing labels could move {metric_short(b.metric)} by up to "
                  f"{points(widest['bound_width'])} points, for "
                  f"{display_name(widest['config'], display_names)} "
                  f"({widest['unjudged_share']:.1%} of its top k unjudged).")
        verdict = f"up to {points(widest['bound_width'])} points"
        next_step = ("Read the three-way verdict, and label the pooled passages where the "
                     "bounds are widest.")
    bad = b.policy_violations()
    checks = [(f"lower and upper policies lie within the exact bounds ({c})", n == 0,
               f"{n} queries outside" if n else "")
              for c, n in zip(display_labels(bad.index, display_names), bad.tolist())]
    return Finding(
        Headline("How much could the missing labels change each score?", answer, next_step,
                 verdict, why),
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

    Every run gets one reading (:func:`ragnb.labelbias.verdict.readings`), and the
    headline, the table's verdict column and the chart's legend say it in the same words.
    The answer names the first reading that holds for some run, in the order of
    :data:`~ragnb.labelbias.verdict.READINGS`, with that reading's best run and the
    interval that shows it. Each reading gets a Why bullet that names its runs with their
    intervals:

    ========================  ==================================  ===========================
    reading                   condition, per run                  interval in the answer
    ========================  ==================================  ===========================
    wins whatever the labels  conservative ``ci_low > 0``         conservative
    labels decide             optimistic ``ci_low > 0``,          optimistic
                              conservative ``ci_low <= 0`` and
                              conservative mean ``<= 0``
    more queries decide       as above, conservative mean ``> 0`` conservative
    not shown to win          optimistic ``ci_low <= 0 <=         optimistic
                              ci_high``
    cannot win                optimistic ``ci_high < 0``          optimistic
    ========================  ==================================  ===========================

    The next step depends on the readings present:

    - some run reads "labels decide": judge the pooled passages;
    - some run reads "more queries decide" or "not shown to win": collect more queries,
      with the fewest any of them needs at 80% power;
    - otherwise: decide now.

    A ``reject`` whose optimistic interval includes zero is a power limit, not
    a finding that the run cannot win: with a real gain of a few points and
    every label known it is the usual reading at small n (truth-table tests).

    The bounds named in the answer (``joint`` or ``separate``) are those the
    intervals used (:func:`ragnb.labelbias.verdict.three_way`).
    """
    v = tw.verdicts
    t = tw.tests.set_index(["challenger", "test"])
    base = display_name(str(v["baseline"].iloc[0]), display_names) if len(v) else "—"
    kinds = ["joint" if b == "joint" else "separate"
             for b in tw.tests.loc[tw.tests["test"] != "current", "bounds"].unique()]
    bounds_kind = kinds[0] if len(kinds) == 1 else "joint"
    n = int(tw.tests["n"].iloc[0]) if len(tw.tests) else 0
    reading = readings(tw)
    metric = metric_short(tw.metric)

    def shown(chal: str, test: str) -> str:
        r = t.loc[(chal, test)]
        return (f"{points(r['delta'], signed=True)} "
                f"{interval(r['ci_low'], r['ci_high'], signed=True)}")

    def needed(chal: str, test: str) -> float:
        r = t.loc[(chal, test)]
        if not r["delta"] > 0:
            return np.inf
        return queries_needed(float(r["se"]) * np.sqrt(float(r["n"])), float(r["delta"]))

    def of(kind: str) -> list[str]:
        return [c for c in reading.index if reading[c] == kind]

    def best(chals: list[str], test: str) -> str:
        return max(chals, key=lambda c: t.loc[(c, test), "delta"])

    #: reading -> the test whose interval shows it, the clause its Why bullet says, and how
    #: the answer names its best run ({name}, {figure}) and under which labelling
    goes_its_way = "if every unjudged passage goes its way"
    said = {WINS: ("conservative", "conservative interval above zero", "{name} gains {figure}",
                   "even if every unjudged passage goes against it"),
            LABELS: ("optimistic", "optimistic interval above zero, conservative not",
                     "{name} gains {figure}", goes_its_way),
            QUERIES: ("conservative", "ahead under every labelling, but the conservative "
                                      "interval includes zero: sampling noise, not the labels, "
                                      "leaves it open", "{name} gains {figure}",
                      "with every unjudged passage against it"),
            NOT_SHOWN: ("optimistic", f"optimistic interval includes zero at {n} queries",
                        "the best, {name}, is {figure}", goes_its_way),
            CANNOT: ("optimistic", "optimistic interval below zero",
                     "the best, {name}, is {figure}", goes_its_way)}
    why = []
    for kind in READINGS:
        chals = of(kind)
        if chals:
            test, because = said[kind][:2]
            why.append(f"{kind.capitalize()} ({because}): "
                       + ", ".join(f"{display_name(c, display_names)} {test} {shown(c, test)}"
                                   for c in chals) + ".")
    why.append(f"{n} queries; {bounds_kind} bounds of the difference; metric: "
               f"{metric_label(tw.metric)}.")
    m = len(v)
    lead = next((k for k in READINGS if of(k)), None)
    if lead is None:
        answer = f"No challenger to compare with {base}."
    else:
        test, _, named, cond = said[lead]
        top = best(of(lead), test)
        k = len(of(lead))
        who = f"{k} of {m} challenger{'s' if m != 1 else ''}"
        opening = (f"{who} win{'s' if k == 1 else ''} whatever the labels" if lead == WINS
                   else f"{lead.capitalize()} for {who}")
        runner = named.format(name=display_name(top, display_names), figure=shown(top, test))
        answer = f"{opening}: {runner} {metric} points over {base} {cond}."
    if words(answer) > ANSWER_WORDS:
        answer = answer.replace(f" over {base}", " over the baseline")
    if of(LABELS):
        next_step = (f"Judge the pooled unjudged passages, in the judge-next order {judge_next}, "
                     "before deciding.")
    elif of(QUERIES) or of(NOT_SHOWN):
        more = min((needed(c, said[reading[c]][0]) for c in of(QUERIES) + of(NOT_SHOWN)),
                   default=np.inf)
        # the total that would resolve it, beside what this set has (issue 33 #4)
        next_step = ("Collect more queries" + (f" (about {more:,.0f} in all resolve the "
                                               f"closest; this set has {n:,})"
                                               if np.isfinite(more) else "")
                     + "; labelling alone cannot decide.")
    else:
        next_step = "Decide now: no verdict depends on the missing labels."
    rows = []
    for (_, chal), g in tw.tests.groupby(["baseline", "challenger"], sort=False):
        row = {"challenger": display_name(chal, display_names)}
        for r in g.to_dict("records"):
            star = " *" if (r["ci_low"] > 0 or r["ci_high"] < 0) else ""
            row[r["test"]] = (f"{points(r['delta'], signed=True)} "
                              f"{interval(r['ci_low'], r['ci_high'], signed=True)}{star}")
            if r["test"] == "current":
                es = r.get("effect_size", np.nan)
                row["effect size"] = "—" if pd.isna(es) else f"{es:+.2f}"
        vr = v.loc[v["challenger"] == chal].iloc[0]
        row["verdict"] = reading[chal]  # the headline's and the chart legend's words
        if "joint_min" in v:
            row["joint bounds"] = interval(vr["joint_min"], vr["joint_max"], signed=True)
            row["separate bounds"] = interval(vr["separate_min"], vr["separate_max"],
                                              signed=True)
        rows.append(row)
    table = pd.DataFrame(rows)
    return Finding(
        Headline("Is the answer key biased?", answer, next_step,
                 _verdict_word(reading), tuple(why)),
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


def _verdict_word(reading: pd.Series) -> str:
    """The page's verdict: the count of its leading reading, in the table's words
    (``labels decide: 2 of 5``, ``not shown to win: 3 of 3``).
    """
    counts = reading.value_counts()
    for kind in READINGS:
        if counts.get(kind, 0):
            return f"{kind}: {counts[kind]} of {len(reading)}"
    return "no challenger"


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
            f"{points(moved['effect_full'], signed=True)} points over all "
            f"{int(moved['n_total'])} queries ({points(moved['projected'], signed=True)}"
            " projected once every query is labelled): judge by the effect on the metric, not "
            "by the share of new positives.")
