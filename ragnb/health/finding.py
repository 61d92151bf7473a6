"""The test-set health checks as :class:`~ragnb.result.Finding` (adapters).

The checks of 06 as a whole are the record :class:`~ragnb.health.review.HealthReview`
(their rules: :func:`~ragnb.health.review.health_review`), with its adapter here. The
sub-results with an answer of their own (coverage, near-duplicate groups, the
held-back check) have theirs too.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ragnb.health.coverage import Coverage
from ragnb.health.diff import VersionDiff
from ragnb.health.duplicates import DuplicateGroups
from ragnb.health.holdout import HoldoutCheck
from ragnb.health.review import HealthReview
from ragnb.health.staleness import QUEUED, Staleness
from ragnb.metrics.registry import metric_label
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    checks_frame,
    register,
)


@register(HealthReview)
def health_finding(hr: HealthReview, *, display_names: Mapping[str, str],
                   chart: Any = None) -> Finding:
    """Headline: how many health checks hold and the most urgent failure; the rest are Why.

    ======================================================  ================================
    sentence                                                condition
    ======================================================  ================================
    "k of n health checks hold for S; most urgent: F1."     some check fails; ``Fi`` each
                                                            failure as the check words it
                                                            (:mod:`ragnb.health.review`),
                                                            "(on T)" when computed on T != S
    Why: "Also failing: Fi." each further failure; "Holding: C, ...." the checks that hold
    Next: "Fix the C1 check first; its chart is below."     the most urgent failure's check
    "All n health checks hold for S." (+ "; C ran on T")    every check holds (C: the checks
                                                            computed on another split T)
    Next: "Keep using the test set; ..."                    every check holds
    ======================================================  ================================
    """
    checks = checks_frame([(e.check, e.holds, e.detail) for e in hr.entries])
    first = hr.failing()
    n = len(hr.entries)
    holding = [e.check for e in hr.entries if e.holds]
    why = [f"Also failing: {hr.said(e)}." for e in first[1:]]
    if first:
        answer = (f"{n - len(first)} of {n} health checks hold for {hr.split}; most urgent: "
                  f"{hr.said(first[0])}.")
        if holding:
            why.append("Holding: " + ", ".join(holding) + ".")
        next_step = f"Fix the {first[0].check} check first; its chart is below."
        shown = chart if chart is not None else first[0].chart
    else:
        elsewhere = [e for e in hr.entries if e.split != hr.split]
        answer = (f"All {n} health checks hold for {hr.split}"
                  + "".join(f"; the {e.check} check ran on {e.split}" for e in elsewhere) + ".")
        why.append("Holding: " + ", ".join(holding) + ".")
        next_step = "Keep using the test set; re-run this check with every new corpus build."
        shown = chart if chart is not None else (hr.entries[0].chart if hr.entries else None)
    table = checks.assign(holds=checks["holds"].map({True: "holds", False: "fails"}),
                          split=[e.split for e in hr.entries])
    return Finding(
        Headline("Is the test set still a fair ruler?", answer, next_step,
                 f"{n - len(first)} of {n} hold", tuple(why)),
        table, shown, checks, hr.description,
        caption="Each health check and the split it ran on; metric differences in points "
                "(metric × 100), shares in %",
        source=hr,
    )


@register(Coverage)
def coverage_finding(cov: Coverage, *, display_names: Mapping[str, str],
                     chart: Any = None) -> Finding:
    """Headline: the covered share of answerable queries, its interval, and why the rest are not."""
    s = cov.summary().iloc[0]
    c = cov.counts
    missing = cov.n_answerable - cov.n_covered
    if cov.n_answerable == 0:
        answer = f"No query is answerable, so coverage by {cov.corpus!r} is undefined."
        verdict = "undefined"
    else:
        answer = (f"{cov.share:.1%} of the {cov.n_answerable} answerable queries "
                  f"({cov.n_covered}) have a grade-{cov.answer_grade} passage in the corpus "
                  f"build {cov.corpus!r} ({cov.ci:.0%} interval [{s['ci_low']:.1%}, "
                  f"{s['ci_high']:.1%}])")
        answer += (f"; {missing} are not: {int(c['answer not in corpus'])} answer not in corpus, "
                   f"{int(c['no answering passage judged'])} no answering passage judged."
                   if missing else ".")
        verdict = f"{cov.share:.1%} covered"
    next_step = ("Re-judge the uncovered queries listed below against the current build, or "
                 "flag them unanswerable." if missing else
                 "Coverage is complete; re-check with every new corpus build.")
    adds_up = int(c.sum()) == len(cov.queries)
    checks = [("every query has exactly one status", adds_up,
               "" if adds_up else f"{int(c.sum())} statuses for {len(cov.queries)} queries")]
    return Finding(
        Headline("Does the corpus build still hold each query's answer?", answer, next_step,
                 verdict),
        cov.display_table(), None if chart is False else chart, checks_frame(checks),
        cov.description, caption="Queries by coverage status; coverage in %", source=cov,
    )


@register(DuplicateGroups)
def duplicates_finding(dg: DuplicateGroups, *, display_names: Mapping[str, str],
                       chart: Any = None) -> Finding:
    """Headline: how many queries repeat another, in how many groups."""
    s = dg.summary().iloc[0]
    drop, n = int(s["drop_if_one_kept"]), dg.n_queries
    if dg.n_groups:
        answer = (f"{drop} of the {n} queries ({drop / n:.1%}) repeat another: "
                  f"{int(s['queries_in_groups'])} queries fall in {dg.n_groups} near-duplicate "
                  f"groups (the largest has {int(s['largest_group'])}); keeping one per group "
                  f"leaves {n - drop}.")
        next_step = "Keep one query per group (suggested below) so no intent counts twice."
    else:
        answer = f"No two of the {n} queries are near-duplicates."
        next_step = "Nothing to merge; re-check when queries are added."
    m = dg.members
    per_group = m.groupby("group")["keep"].sum() if len(m) else pd.Series(dtype=int)
    bad = int((per_group != 1).sum())
    checks = [("each group keeps exactly one query", bad == 0,
               f"{bad} groups keep none or several" if bad else "")]
    return Finding(
        Headline("Do some queries ask the same thing twice?", answer, next_step,
                 f"{dg.n_groups} groups"),
        dg.display_table(), None if chart is False else chart, checks_frame(checks),
        dg.description, caption="Near-duplicate groups and the query suggested to keep",
        source=dg,
    )


@register(HoldoutCheck)
def holdout_finding(hc: HoldoutCheck, *, display_names: Mapping[str, str],
                    chart: Any = None) -> Finding:
    """Headline: whether held-back and tuning scores agree (the check's reading)."""
    r = hc.result
    covers = bool(r.ci_low <= r.delta <= r.ci_high)
    return Finding(
        Headline("Do the tuning choices generalise to the held-back queries?", hc.reading(),
                 "Do not ship on the tuning score; re-tune against the whole set."
                 if hc.diverged and r.delta < 0 else
                 "Keep the held-back queries untouched for the next check.",
                 "diverged" if hc.diverged else "agrees"),
        hc.display_table(), None if chart is False else chart,
        checks_frame([("the difference lies within its interval", covers, "")]),
        hc.description,
        caption=f"{metric_label(hc.metric)} on each side and held back − tuning, in {POINTS}",
        source=hc,
    )


@register(Staleness)
def staleness_finding(st: Staleness, *, display_names: Mapping[str, str],
                      chart: Any = None) -> Finding:
    """Headline: how many judgments are stale or removed, how many of them relevant."""
    c = st.counts().set_index("status")
    j = st.judgments
    queued = j["status"].isin(QUEUED)
    n, k = len(j), int(queued.sum())
    relevant = int((queued & (j["grade"] >= 1)).sum())
    queries = int(j.loc[queued, "query_id"].nunique())
    if k:
        answer = (f"{k} of the {n} judgments ({k / n:.1%}) are stale or removed against "
                  f"{st.corpus!r} ({int(c.loc['stale', 'judgments'])} stale, "
                  f"{int(c.loc['removed', 'judgments'])} removed), {relevant} of them relevant, "
                  f"on {queries} queries.")
        next_step = "Review the queue below, answering grades first."
    else:
        answer = f"None of the {n} judgments is stale or removed against {st.corpus!r}."
        next_step = "Nothing to review; re-check with every new corpus build."
    adds_up = int(c["judgments"].sum()) == n
    return Finding(
        Headline("Are the judgments still about the current documents?", answer, next_step,
                 f"{k} to review"),
        st.display_table(), None if chart is False else chart,
        checks_frame([("every judgment has exactly one status", adds_up,
                       "" if adds_up else f"{int(c['judgments'].sum())} statuses for {n}")]),
        st.description, caption="Judgments by freshness (relevant = grade >= 1; shares in %)",
        source=st,
    )


@register(VersionDiff)
def version_diff_finding(vd: VersionDiff, *, display_names: Mapping[str, str],
                         chart: Any = None) -> Finding:
    """Headline: what moved each config's score between the versions."""
    counts = vd.counts()
    readings = [vd.reading(c).rstrip(".") for c in vd.table["config"]]
    answer = (f"From {vd.old_name} to {vd.new_name} ({counts['added']} queries added, "
              f"{counts['removed']} removed, {counts['rejudged']} re-judged), {vd.metric}: "
              + "; ".join(readings) + ".")
    harder = [c for c, h in zip(vd.table["config"], vd.table["harder"]) if h is True]
    next_step = ("Compare scores within one version only: the added queries are harder for "
                 + ", ".join(harder) + "." if harder else
                 "Compare scores within one version only; re-score the old results on the new "
                 "version before comparing them.")
    total = sum(counts.values()) == len(vd.changes)
    return Finding(
        Headline("What changed between the two versions of the test set?", answer, next_step,
                 f"{counts['rejudged']} re-judged, {counts['added']} added"),
        vd.display_table(), None if chart is False else chart,
        checks_frame([("every query has exactly one change", total, "")]),
        vd.description, caption=f"{metric_label(vd.metric)} on each version, in {POINTS}",
        source=vd,
    )
