"""The health review of 06: each check's rule, its name and what its failure says.

:class:`HealthReview` collects checks as :class:`Check` entries;
:func:`health_review` applies the rules of 06 to its results. A check is named
by what it looks at ("coverage", "held-back 20%"), never by what passing
means, and carries the sentence that says what failed, so a headline never
lists "held-back 20% agrees" among the failures. A check computed on another
split than the page's (the held-back check runs on the split tuning selects
on) names that split.

======================  =================================  ===============================
check                   holds when                         failure says
======================  =================================  ===============================
coverage                every answerable query has its     "m of n answerable queries have
                        answer in the build                no answer in the build (s% covered
                                                           [lo, hi])"
judgment freshness      no query has a stale or removed    "k of n queries have stale or
                        judgment                           removed judgments"
unanswerable share      the target lies in the share's     "unanswerable share s% [lo, hi]
                        interval                           misses the target t%"
source mix              every declared share lies in its   "declared share outside its
                        observed interval                  interval: a, b"
bucket power            no bucket is too small for the     "k of n buckets are too small to
                        target difference (the row of all  see t points: a, b"
                        queries is not a bucket)
near-duplicates         no near-duplicate group            "g near-duplicate groups hold m
                                                           of n queries"
held-back 20%           the interval of held back minus    "held-back 20% disagrees with the
                        tuning includes zero               rest by d points [lo, hi] (on S)"
                                                           (urgency 1: fixed first)
======================  =================================  ===============================
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ragnb.health.buckets import ALL
from ragnb.result import Analysis


@dataclass(frozen=True)
class Check:
    """One health check: its name, whether it holds, detail, what failed, its split."""

    check: str
    holds: bool
    detail: str
    chart: Any = None
    failure: str = ""
    split: str = ""
    urgency: int = 100


@dataclass(frozen=True)
class HealthReview(Analysis):
    """The test-set health checks of one page (06), on the page's ``split``.

    ``urgency`` orders what to fix first (lower first; equal ones in the order added).
    """

    split: str
    entries: list[Check] = field(default_factory=list)
    description: str = ""

    def add(self, check: str, holds: bool, detail: str, chart: Any = None, *,
            failure: str = "", split: str = "", urgency: int = 100) -> None:
        """Add a check; ``failure`` (default: ``"<check> fails (<detail>)"``) says what
        failed, ``split`` (default: the review's) where it was computed.
        """
        if not failure:
            failure = f"{check} fails" + (f" ({detail})" if detail else "")
        self.entries.append(Check(check, bool(holds), detail, chart, failure,
                                  split or self.split, urgency))

    def failing(self) -> list[Check]:
        """The checks that fail, most urgent first (stable)."""
        return sorted((e for e in self.entries if not e.holds), key=lambda e: e.urgency)

    def said(self, entry: Check) -> str:
        """``entry``'s failure, naming its split when it is not the page's."""
        return entry.failure + (f" (on {entry.split})" if entry.split != self.split else "")


def health_review(split: str, *, coverage: Any, staleness_per_query: pd.DataFrame,
                  unanswerable: pd.DataFrame, mix: pd.DataFrame, buckets: pd.DataFrame,
                  target: float, duplicates: Any, holdout: Any = None, holdout_split: str = "",
                  description: str = "", charts: Mapping[str, Any] | None = None
                  ) -> HealthReview:
    """The seven checks of 06 by the rules in the module's table.

    Parameters
    ----------
    split : str
        The page's test set.
    coverage : Coverage
    staleness_per_query : DataFrame
        :meth:`ragnb.health.staleness.Staleness.per_query` (``needs_review``).
    unanswerable, mix : DataFrame
        :func:`ragnb.health.unanswerable_share` and :func:`ragnb.health.source_mix`.
    buckets : DataFrame
        :func:`ragnb.health.bucket_scores` (``bucket``, ``too_small``).
    target : float
        The difference each bucket should see (0-1).
    duplicates : DuplicateGroups
    holdout : HoldoutCheck, optional
        Run on ``holdout_split`` (default: ``split``).
    charts : mapping, optional
        Check name -> chart shown with it.
    """
    charts = dict(charts or {})
    review = HealthReview(split, description=description)
    cov = coverage
    lost = cov.n_answerable - cov.n_covered
    lo, hi = cov.summary()[["ci_low", "ci_high"]].iloc[0]
    covered = (f"{lost} of {cov.n_answerable} answerable queries have no answer in the build "
               f"({cov.share:.1%} covered [{lo:.1%}, {hi:.1%}])")
    review.add("coverage", lost == 0, covered, charts.get("coverage"), failure=covered)
    stale = int(staleness_per_query["needs_review"].sum())
    fresh = (f"{stale} of {len(staleness_per_query)} queries have stale or removed judgments")
    review.add("judgment freshness", stale == 0, fresh, charts.get("judgment freshness"),
               failure=fresh)
    u = unanswerable.iloc[0]
    share = f"{u['share']:.1%} [{u['ci_low']:.1%}, {u['ci_high']:.1%}]"
    review.add("unanswerable share", not u["target_outside"],
               f"{share} against a target of {u['target']:.0%}",
               charts.get("unanswerable share"),
               failure=f"unanswerable share {share} misses the target {u['target']:.0%}")
    outside = [str(s) for s in mix.loc[mix["outside"], "source"]]
    review.add("source mix", not outside,
               ("declared share outside its interval: " + ", ".join(outside)) if outside
               else "every declared share inside its interval", charts.get("source mix"),
               failure="declared source share outside its interval: " + ", ".join(outside))
    # the row of all queries together is not a bucket: "6 of 7 buckets" counted it
    own = buckets[buckets["bucket"] != ALL]
    small = [str(b) for b in own.loc[own["too_small"], "bucket"]]
    weak = (f"{len(small)} of {len(own)} buckets are too small to see {target * 100:g} "
            "points: " + ", ".join(small))
    review.add("bucket power", not small,
               weak if small else f"every bucket can see {target * 100:g} points",
               charts.get("bucket power"), failure=weak)
    dups = duplicates
    groups = (f"{dups.n_groups} near-duplicate groups hold {len(dups.members)} of "
              f"{dups.n_queries} queries")
    review.add("near-duplicates", dups.n_groups == 0, groups, charts.get("near-duplicates"),
               failure=groups)
    if holdout is not None:
        on = holdout_split or split
        r = holdout.result
        pts = (f"{r.delta * 100:+.1f} points [{r.ci_low * 100:+.1f}, "
               f"{r.ci_high * 100:+.1f}]")
        where = f" of {on}" if on != split else ""
        review.add("held-back 20%", not holdout.diverged,
                   f"held back minus tuning{where}: {pts}", charts.get("held-back 20%"),
                   failure=f"held-back 20% disagrees with the rest by {pts}",
                   split=on, urgency=1)  # tuning that stopped generalising outranks the rest
    return review
