"""The judge's Finding: the headline difference three ways, then the judge against people.

:func:`judge_finding` is what page ``08-judge``, ``ragnb judge``, ``ragnb compare --judge``
and ``ragnb.compare(..., judge=...)`` all show: a pure function of the test set (people's
labels with the judge's beside them) and the runs.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ragnb.io.judges import pair_keys, top_pairs
from ragnb.io.testset import Note, TestSet
from ragnb.judge.agreement import Agreement, agreement
from ragnb.judge.charts import confusion_chart, estimates_chart
from ragnb.judge.ppi import ESTIMATORS, JudgedEstimates, judged_estimates
from ragnb.metrics.registry import metric_label
from ragnb.result import (
    Finding,
    Headline,
    Section,
    checks_frame,
    display_name,
    interval,
    markdown_section,
    markdown_text,
    notes_sections,
    points,
    table_section,
)
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

#: The page's parts, each a heading over its sections.
ESTIMATES = "Each difference three ways"
JUDGE = "How good is the judge?"
LABEL_NEXT = "What people should judge next"
#: Landis & Koch (1977)'s names for bands of κ.
KAPPA_BANDS = ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial"),
               (1.01, "almost perfect"))


def band(kappa: float) -> str:
    """Landis & Koch's name for the agreement κ shows."""
    if not math.isfinite(kappa):
        return "undefined"
    return next(name for top, name in KAPPA_BANDS if kappa < top)


def _pt(row: pd.Series) -> str:
    low_high = interval(row["low"], row["high"], signed=True)
    return f"{points(row['estimate'], signed=True)} {low_high}"


def _side(row: pd.Series) -> int:
    return 1 if row["low"] > 0 else -1 if row["high"] < 0 else 0


def queries_to_decide(row: pd.Series, alpha: float = 0.05) -> float:
    """People-judged queries in all for the interval of a difference this size to exclude 0:
    the rectifier's variance ``(s_r² = se²·n`` when the judge-only term is small) over
    ``(|Δ| / z)²`` (normal quantile; an estimate, not a promise).
    """
    z = stats.norm.ppf(1 - alpha / 2)
    est, se, n = abs(row["estimate"]), row["se"], row["n"]
    if not (est > 0 and se > 0):
        return math.inf
    return math.ceil(n * (se * z / est) ** 2)


def _headline(baseline: str, challenger: str, a: Agreement, e: JudgedEstimates | None,
              names) -> Headline:
    trust = (f"{band(a.kappa)} agreement with people, κ {a.kappa:.2f} on "
             f"{a.counts['both']:,} pairs")
    if a.identical:
        return Headline("Can the judge's labels stand in for people's?",
                        f"Judge {a.judge}'s labels are the people's own, every grade the same "
                        f"on all {a.counts['both']:,} pairs: nothing is measured.",
                        "Check that the judge file is not a copy of the qrels.", "no judge")
    leaning = _leaning(a)
    leans = [f"The judge{leaning.removeprefix(' and')}."] if leaning else []
    if e is None or not challenger:
        word = ("its labels can stand in for people's" if a.kappa >= 0.8 else
                "use it only with its error carried (PPI)")
        return Headline("Can the judge's labels stand in for people's?",
                        f"Judge {a.judge} agrees exactly with people on {a.exact:.0%} of "
                        f"{a.counts['both']:,} pairs ({band(a.kappa)}, κ {a.kappa:.2f} "
                        f"{_kappa_interval(a)}): {word}.",
                        "Give the test set runs and a baseline to read differences with the "
                        "judge's error carried.", band(a.kappa), tuple(leans))
    c, b = display_name(challenger, names), display_name(baseline, names)
    judged = e.difference(challenger, ESTIMATORS[1])
    alone = (f"The judge alone says {points(judged['estimate'], signed=True)} points, a biased "
             f"figure ({trust}).")
    if e.refused:
        row = e.difference(challenger, ESTIMATORS[0])
        answer = (f"{c} vs {b}: {_pt(row)} points from people alone on {e.n_labelled} "
                  "queries; the judge's labels are not used.")
        why = [f"PPI is not given: {e.refused}.", alone, *leans]
    else:
        row = e.difference(challenger, ESTIMATORS[2])
        answer = (f"{c} vs {b}: {_pt(row)} points with the judge's error carried (PPI++, "
                  f"{e.n_labelled} people-judged queries).")
        why = [alone, *leans]
    side = _side(row)
    verdict = {1: "better", -1: "worse", 0: "inconclusive at this n"}[side]
    if side:
        step = ("Check that the gain carries over to queries nobody selected against "
                "(ragnb report 01-fit)." if side > 0 else f"Keep {b}.")
    elif e.refused:
        step = ("Have people judge whole queries drawn at random (the list under "
                f"'{LABEL_NEXT}'), or read the bounds (ragnb report 04-label-bias).")
    else:
        need = queries_to_decide(row)
        step = (f"About {need - e.n_labelled:,} more people-judged queries, drawn at random "
                f"(the list under '{LABEL_NEXT}'), would decide a difference of this size."
                if math.isfinite(need) and need > e.n_labelled else
                "More people-judged queries, drawn at random, would narrow it.")
    return Headline(f"Is {c} better than {b}, reading the judge's labels honestly?", answer,
                    step, verdict, tuple(why))


def _leaning(a: Agreement) -> str:
    """", and under-grades relevant passages (mean −0.9 a grade)" when the judge's mean error
    on the pairs people found relevant is a quarter grade or more; "" otherwise.
    """
    rel = a.pairs[a.pairs["people"] >= a.level]
    if rel.empty:
        return ""
    bias = float((rel["judge"] - rel["people"]).mean())
    if abs(bias) < 0.25:
        return ""
    return (f" and {'under' if bias < 0 else 'over'}-grades the passages people found "
            f"relevant (mean {bias:+.1f} a grade)")


def _kappa_interval(a: Agreement) -> str:
    lo, hi = a.kappa_interval
    return f"[{lo:.2f}, {hi:.2f}]"


def _estimate_table(e: JudgedEstimates, kind: str, names) -> pd.DataFrame:
    t = e.table[e.table["kind"] == kind]
    rows = []
    for r in t.to_dict("records"):
        rows.append({"config": display_name(r["quantity"], names), "reading": r["estimator"],
                     "estimate": points(r["estimate"], signed=kind == "difference"),
                     "95% interval": interval(r["low"], r["high"], signed=kind == "difference"),
                     "width": points(r["high"] - r["low"]),
                     "people's queries": int(r["n"]),
                     "judge-only queries": int(r["m"]) if r["estimator"] != ESTIMATORS[0] else 0,
                     "λ": f"{r['lam']:.2f}" if r["estimator"] == ESTIMATORS[2] else "—"})
    return pd.DataFrame(rows)


def _agreement_table(a: Agreement) -> pd.DataFrame:
    rows = [("pairs labelled by both", f"{a.counts['both']:,} on {a.counts['queries_both']} "
             "queries"),
            ("exact agreement", f"{a.exact:.1%}"),
            ("quadratic-weighted κ", f"{a.kappa:.3f} {_kappa_interval(a)} ({band(a.kappa)})"),
            (f"precision at grade ≥ {a.level}", f"{a.precision:.3f}"),
            (f"recall at grade ≥ {a.level}", f"{a.recall:.3f}"),
            ("mean judge − people grade", f"{(a.pairs['judge'] - a.pairs['people']).mean():+.2f}"),
            ("judge's labels people lack", f"{a.counts['judge_only']:,} pairs, "
             f"{a.counts['judge_only_queries']} queries with no people's label"),
            ("people's labels the judge lacks", f"{a.counts['people_only']:,}")]
    return pd.DataFrame(rows, columns=["measure", "value"])


def _shares(frame: pd.DataFrame, first: str) -> pd.DataFrame:
    out = frame.copy()
    for c in ("exact", "over", "under"):
        out[c] = [f"{v:.0%}" if pd.notna(v) else "—" for v in out[c]]
    out["bias"] = [f"{v:+.2f}" if pd.notna(v) else "—" for v in out["bias"]]
    if "judge mean" in out:
        out["judge mean"] = [f"{v:.2f}" for v in out["judge mean"]]
    return out.rename(columns={"exact": "exact agreement", "bias": "mean judge − people",
                               "over": "judge higher", "under": "judge lower"}).set_index(
        first).reset_index()


def _label_next(e: JudgedEstimates, rng_seed: int) -> pd.DataFrame:
    """The judge-only queries in a seeded random order: people judge them from the top, so
    the people-labelled set stays a random sample (choosing by score would break PPI).
    """
    unlabelled = e.values.loc[~e.values["labelled"], "query_id"].astype(str).unique()
    order = np.random.default_rng(rng_seed).permutation(len(unlabelled))
    return pd.DataFrame({"order": np.arange(1, len(unlabelled) + 1),
                         "query_id": unlabelled[order]})


def judge_finding(test_set: TestSet, runs: Sequence[Any] = (), *, metric: str = "ndcg@10",
                  baseline: str = "", challenger: str = "", k: int = 10, level: int = 1,
                  strata: pd.DataFrame | None = None, by: str = "",
                  display_names: Mapping[str, str] | None = None,
                  resamples: int = DEFAULT_RESAMPLES,
                  seed: int = DEFAULT_SEED, missing: str = "error", extra: str = "error"
                  ) -> Finding:
    """The judge's Finding: the headline difference three ways, then the judge against
    people (confusion, κ, bias per grade, per stratum, on each config's own passages, per
    query), the random order people should judge the rest in, and the design.

    Parameters
    ----------
    test_set : TestSet
        People's labels with a judge's beside them (:func:`ragnb.judge.attach_judge`).
    runs : sequence of Run
        The configs compared (none: agreement only).
    baseline, challenger : str
        The pair the headline reads (no baseline: agreement only; no challenger: no
        headline difference).
    k, level : int
        Depth of each config's own passages; least relevant grade of precision and recall.
    strata, by : DataFrame and column, optional
        Agreement per stratum.
    resamples, seed : int
        κ's interval (resamples of whole queries) and the random order people judge in.
    missing, extra : str
        Queries a run lacks; run queries nobody labelled (:func:`ragnb.metrics.score`).

    Returns
    -------
    Finding
        ``objects``: ``test_set``, ``agreement`` (:class:`~ragnb.judge.Agreement`),
        ``estimates`` (:class:`~ragnb.judge.JudgedEstimates`, with runs), ``runs``,
        ``label_next``.
    """
    names = dict(display_names or {})
    runs = list(runs)
    configs = [r.name for r in runs]
    baseline = baseline if baseline in configs else ""
    challenger = challenger if challenger in configs and challenger != baseline else ""
    pair = [c for c in (baseline, challenger) if c]
    tops = {r.name: top_pairs(r, k) for r in runs if r.name in pair}
    a = agreement(test_set, level=level, strata=strata if by else None, by=by, topk=tops,
                  configs=pair, resamples=resamples, seed=seed)
    e = (judged_estimates(test_set, runs, metric, baseline=baseline, k=k, missing=missing,
                          extra=extra) if baseline and len(runs) >= 2 else None)
    headline = _headline(baseline, challenger, a, e, names)
    sections: list[Section] = []
    objects: dict[str, Any] = {"test_set": test_set, "agreement": a, "runs": runs}
    checks = [("judge's grades on the people's scale", True,
               f"0 to {test_set.top_grade}, checked on every judge label")]
    label = metric_label(metric)
    table = pd.DataFrame()
    if e is not None:
        objects["estimates"] = e
        table = _estimate_table(e, "difference", names)
        sections += [
            Section(ESTIMATES, "chart", estimates_chart(e, display_names=names)),
            table_section(table, f"Δ {label} vs {display_name(baseline, names)}, in points: "
                                 "people only (the queries people judged), judge only (biased: "
                                 "the judge's error is in it, unmeasured), PPI++ (valid "
                                 "whatever the judge's error, when people's queries are a "
                                 "random sample)"),
            table_section(_estimate_table(e, "mean", names),
                          f"Mean {label} of each config, in points, three ways",
                          appendix=True),
        ]
        narrower = [r for r in e.table.to_dict("records") if r["estimator"] == ESTIMATORS[2]]
        people = {(r["quantity"], r["kind"]): r for r in e.table.to_dict("records")
                  if r["estimator"] == ESTIMATORS[0]}
        wider = [r for r in narrower if r["high"] - r["low"] > 1.0001 * (
            people[r["quantity"], r["kind"]]["high"] - people[r["quantity"], r["kind"]]["low"])]
        checks += [
            ("people's queries look like a random sample", not (e.random_p < 0.01),
             "judge-scored baseline, labelled vs other queries: Mann–Whitney p = "
             + (f"{e.random_p:.2g}" if math.isfinite(e.random_p) else "not computed")),
            ("people judged whole queries", e.people_share >= 0.5,
             f"{e.people_share:.0%} of the judge's top-{k} pairs in people's queries"),
            ("PPI++ no wider than people only", not wider if narrower else True,
             f"{len(narrower) - len(wider)} of {len(narrower)} intervals"
             if narrower else "PPI not given"),
        ]
        next_up = _label_next(e, seed)
        objects["label_next"] = next_up
        sections.append(markdown_section(markdown_text(
            "People judge these queries in this order, from the top: a random permutation "
            "(numpy Generator, seed {seed}) of the {m} queries only the judge labelled, so "
            "the people-labelled queries stay a random sample and PPI stays valid. Choosing "
            "by score or by disagreement would not.", seed=seed, m=len(next_up)),
            LABEL_NEXT))
        sections.append(table_section(next_up, "Judge-only queries in random order",
                                      max_rows=15))
    sections += [
        markdown_section(markdown_text(
            "Judge **{judge}** against people on the pairs both labelled ({a}).",
            judge=a.judge, a=a.method), JUDGE),
        Section("The grade confusion matrix", "chart", confusion_chart(a)),
        table_section(_agreement_table(a), "Agreement"),
        table_section(_shares(a.by_grade, "people grade"),
                      "The judge's bias per people's grade (mean judge − people grade; "
                      "shares of pairs graded higher and lower)"),
    ]
    if a.by_config is not None:
        sections.append(table_section(
            _shares(a.by_config, "passages"),
            f"Does the judge favour one config's passages? Agreement on pairs in the top "
            f"{k} of only one of {display_name(baseline, names)} and "
            f"{display_name(challenger or baseline, names)}"))
    if a.by_stratum is not None:
        sections.append(table_section(_shares(a.by_stratum, by),
                                      f"Agreement per {by}"))
    worst = a.by_query.sort_values(["exact", "query_id"]).reset_index(drop=True)
    sections.append(table_section(_shares(worst, "query_id"),
                                  "Agreement per query, least first", appendix=True,
                                  max_rows=20))
    notes = list(test_set.judge.notes) if test_set.judge is not None else []
    if e is not None:
        sections.append(markdown_section(markdown_text(
            "Sampling design: {design}. People only: Student's t on the queries people "
            "judged; judge only: Student's t on every query (biased); PPI++: power-tuned "
            "prediction-powered inference (Angelopoulos et al. 2023), Welch–Satterthwaite "
            "degrees of freedom. {refused}", design=e.design,
            refused=f"PPI not given: {e.refused}." if e.refused else ""), "Design",
            appendix=True))
        notes += list(e.notes)
        stray = _stray(test_set, runs)
        if stray:
            notes.append(Note("judge_unused", stray, "judge labels of pairs no run retrieved "
                                                     "and no person judged: not used"))
    sections += notes_sections(tuple(notes))
    description = a.method + (f"; {e.design}; 95% intervals" if e is not None else "")
    return Finding(headline, table, None, checks_frame(checks), description,
                   "", e if e is not None else a, tuple(sections), objects)


def _stray(test_set: Any, runs: list) -> int:
    """Judge labels of pairs no run retrieved (at any depth) and no person judged."""
    keys = pair_keys(test_set.judge.judgments, test_set.judgments, *(r.table for r in runs))
    seen = np.isin(keys[0], np.concatenate(keys[1:]))
    return int((~seen).sum())


#: Who decides a difference, in the label-bias page's judge-filled reading.
DECIDERS = ("people's labels", "the judge (PPI++)", "neither")


def judge_reading(verdicts: pd.DataFrame, estimates: JudgedEstimates,
                  display_names: Mapping[str, str] | None = None) -> tuple[str, pd.DataFrame]:
    """The label-bias verdicts beside the judge-filled reading: for each challenger the exact
    bounds of its difference (``joint_min``/``joint_max``), the PPI++ interval, whether it
    sits inside the bounds, and who decides: people's labels (the three-way verdict is
    adopt or reject), the judge (labelling decides, but the PPI++ interval excludes 0), or
    neither (with the people-judged queries that would). Returns the one-sentence reading
    and the table (text, points).
    """
    names = dict(display_names or {})
    rows: list[dict] = []
    tally: dict[str, list[str]] = {d: [] for d in DECIDERS}
    for v in verdicts.to_dict("records"):
        chal = str(v["challenger"])
        shown = display_name(chal, names)
        people = v["verdict"] != "labelling decides"
        ppi = None if estimates.refused else estimates.difference(chal, ESTIMATORS[2])
        if people:
            who, more = DECIDERS[0], ""
        elif ppi is not None and _side(ppi):
            who, more = DECIDERS[1], ""
        else:
            who = DECIDERS[2]
            need = queries_to_decide(ppi) if ppi is not None else math.inf
            more = (f"about {need - estimates.n_labelled:,} more" if math.isfinite(need)
                    and need > estimates.n_labelled else "more")
            if math.isfinite(need) and need - estimates.n_labelled > estimates.n_judge_only:
                more += f" (only {estimates.n_judge_only:,} are left: new queries too)"
        tally[who].append(shown)
        inside = ("—" if ppi is None else "yes" if v["joint_min"] - 1e-12 <= ppi["estimate"]
                  <= v["joint_max"] + 1e-12 else "no")
        rows.append({"challenger": shown, "three-way verdict": v["verdict"],
                     "exact bounds": interval(v["joint_min"], v["joint_max"], signed=True),
                     "PPI++": "—" if ppi is None else _pt(ppi),
                     "PPI++ estimate inside the bounds": inside, "decides": who,
                     "people-judged queries to decide": more or "—"})
    parts = [f"{DECIDERS[0]} decide {', '.join(tally[DECIDERS[0]]) or 'none'}"]
    if not estimates.refused:
        parts.append(f"the judge with its error carried decides "
                     f"{', '.join(tally[DECIDERS[1]]) or 'none'}")
    if tally[DECIDERS[2]]:
        parts.append(f"neither decides {', '.join(tally[DECIDERS[2]])}")
    sentence = "; ".join(parts) + (f" (PPI not given: {estimates.refused})"
                                   if estimates.refused else "") + "."
    return sentence[0].upper() + sentence[1:], pd.DataFrame(rows)
