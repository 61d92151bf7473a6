"""The allowed values of the options that say how a run meets a test set, and the
recorded defaults of every resampled figure.

One definition for the readers, the scorer, the label-bias tools, the code-task
scorer, the workspace manifest and the command line. Plain constants that
import nothing, so the command line builds its parsers (and ``--help``) without
loading pandas or numpy.
"""
from __future__ import annotations

from typing import Literal

#: Ranking order of a run: ``score`` descending with ties by passage id descending
#: (trec_eval's order; the default where a run has scores), or the ``rank`` column.
ORDERS: tuple[Literal["score", "rank"], ...] = ("score", "rank")

#: Treatment of unjudged passages (:mod:`ragnb.metrics.judged`).
POLICIES: tuple[Literal["lower", "condensed", "upper"], ...] = ("lower", "condensed", "upper")

#: Test-set queries a run has no ranking for: an error, scored as an empty
#: ranking, or left out (counted).
MISSING = ("error", "empty", "drop")

#: Run queries the test set lacks: an error, or left out (counted).
EXTRA = ("error", "drop")

#: File formats the readers understand; ``auto`` sniffs (:func:`ragnb.io.source.sniff_format`).
FORMATS = ("auto", "trec", "jsonl", "csv", "tsv", "parquet")

#: Queries with no relevant passage: scored (counted) or left out (counted).
NO_RELEVANT = ("keep", "drop")

#: The largest grade accepted. The exponential gain 2**grade - 1 of nDCG stays
#: below 2**100 (about 1.3e30), so a DCG sum cannot overflow a float64 for any
#: number of passages a ranking can hold, and no grade scale in use comes near it.
MAX_GRADE = 100

#: The largest rank cut-off a metric or a pool accepts.
MAX_CUTOFF = 100_000

#: The largest number of bootstrap/permutation resamples accepted anywhere: 10 x the
#: default; memory and time grow linearly with it (resamples x queries).
MAX_RESAMPLES = 100_000

#: Rows a notebook lists (judge-next and review queues).
MAX_ROWS = 10_000

#: One set of bounds for every surface that takes these values (command-line
#: options, notebook parameters through ``ragnb report -p`` or papermill, the
#: workspace manifest): name -> (lowest, highest, what the value is). Bounds are
#: inclusive; a float bound admits any float between, never NaN.
RANGES: dict[str, tuple[int | float, int | float, str]] = {
    "resamples": (1, MAX_RESAMPLES, "bootstrap resamples"),
    "seed": (0, 2**63 - 1, "a seed"),
    "jobs": (0, 1024, "processes, 0 = one per core"),
    "k": (1, MAX_CUTOFF, "a rank cut-off"),
    "upper_grade": (0, MAX_GRADE, "a grade"),
    "top_grade": (0, MAX_GRADE, "a grade"),
    "relevance_level": (1, MAX_GRADE, "the least relevant grade"),
    "answer_grade": (0, MAX_GRADE, "a grade"),
    "judge_next_rows": (0, MAX_ROWS, "rows shown"),
    "review_rows": (0, MAX_ROWS, "rows shown"),
    "unanswerable_target": (0.0, 1.0, "a share"),
    "holdout_share": (0.0, 1.0, "a share"),
    "duplicate_threshold": (0.0, 1.0, "a similarity"),
    "target": (0.0, 1.0, "a difference in metric units"),
    "alert_drop": (0.0, 1.0, "a drop in metric units"),
}


def out_of_range(name: str, value: object) -> str | None:
    """Why ``value`` is outside :data:`RANGES` ``[name]``, or None when it is inside
    (or ``name`` has no bound).
    """
    if name not in RANGES or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    lo, hi, what = RANGES[name]
    if value != value or not lo <= value <= hi:  # NaN fails both comparisons
        shown = f"[{lo:,}, {hi:,}]" if isinstance(lo, int) else f"[{lo:g}, {hi:g}]"
        return f"must be in {shown} ({what}), got {value!r}"
    return None

#: The recorded seed of every resampled figure (bootstrap, permutation, simulation) unless
#: one is given, and the resamples of every bootstrap interval.
DEFAULT_SEED = 20260729
DEFAULT_RESAMPLES = 10_000
