"""The allowed values of the options that say how a run meets a test set.

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

#: Queries with no relevant passage: scored (counted) or left out (counted).
NO_RELEVANT = ("keep", "drop")

#: The largest grade accepted. The exponential gain 2**grade - 1 of nDCG stays
#: below 2**100 (about 1.3e30), so a DCG sum cannot overflow a float64 for any
#: number of passages a ranking can hold, and no grade scale in use comes near it.
MAX_GRADE = 100

#: The largest rank cut-off a metric or a pool accepts.
MAX_CUTOFF = 100_000
