"""Test-set health (seed 004): whether the answer key is still a fair, current ruler.

One module per question, each a pure function from a test set (plus a corpus
build, scores or a second version) to tidy tables:

==========================================  ==========================================
:func:`coverage` (:mod:`.coverage`)          share of answerable queries whose answering
                                             passage is in the corpus build; uncovered list
:func:`staleness` (:mod:`.staleness`)        judgments older than the build's document
                                             version, or of removed passages: review queue
:func:`unanswerable_share`                   shares with Clopper-Pearson intervals against
(:mod:`.coverage`), :func:`source_mix`       seed 004's 15% and the declared source mix
(:mod:`.shares`)
:func:`bucket_scores` (:mod:`.buckets`)      intent bucket sizes, means with intervals, and
                                             buckets too small to see a 5-point difference
:func:`near_duplicate_groups`                near-duplicate query groups (character n-gram
(:mod:`.duplicates`)                         Jaccard, union-find), keep one per group
:func:`holdout_split`, :func:`holdout_check`  the deterministic held-back 20% and the check
(:mod:`.holdout`)                            that tuning and held-back scores agree
:func:`version_diff` (:mod:`.diff`)          old vs new version re-scored: added, removed,
                                             re-judged queries; are the new ones harder?
:func:`health_review` (:mod:`.review`)       the checks' rules, named by what they look
                                             at; a failure says what failed, on which split
==========================================  ==========================================

Charts are in :mod:`ragnb.health.charts`; the corpus reader is
:func:`ragnb.io.read_corpus`.
"""
from ragnb.health import finding as _finding  # noqa: F401  (registers the adapters)
from ragnb.health.buckets import bucket_scores, bucket_sizes, buckets_of
from ragnb.health.coverage import Coverage, coverage, unanswerable_flags, unanswerable_share
from ragnb.health.diff import VersionDiff, query_changes, version_diff
from ragnb.health.duplicates import DuplicateGroups, near_duplicate_groups, normalise_query
from ragnb.health.holdout import HoldoutCheck, HoldoutSplit, holdout_check, holdout_split
from ragnb.health.review import HealthReview, health_review
from ragnb.health.shares import SHARE_METHOD, share_interval, source_mix
from ragnb.health.staleness import Staleness, staleness

__all__ = [
    "HealthReview",
    "SHARE_METHOD",
    "Coverage",
    "DuplicateGroups",
    "HoldoutCheck",
    "HoldoutSplit",
    "Staleness",
    "VersionDiff",
    "bucket_scores",
    "bucket_sizes",
    "buckets_of",
    "coverage",
    "health_review",
    "holdout_check",
    "holdout_split",
    "near_duplicate_groups",
    "normalise_query",
    "query_changes",
    "share_interval",
    "source_mix",
    "staleness",
    "unanswerable_flags",
    "unanswerable_share",
    "version_diff",
]
