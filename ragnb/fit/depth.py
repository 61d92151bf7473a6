"""Were the two sets judged alike? Judging depth beside the four-cell level gap.

A level gap between golden and production ("production is easier for a fixed
pipeline") is read as difficulty, but shallow judging predicts it too: where a
set's queries have few judgments, the baseline's relevant passages are more
often unjudged and scored as not relevant (seed 000's limit; issue 33 #2: golden
had 17 of 30 topics with fewer than 20 judgments, median 7.5, production median
190.5, and the baseline scored 13.0 on golden's shallow topics and 36.9 on its
deep ones). Two figures per set:

``median_judgments``
    the median number of judged passages a query (0 for a query with none);
``judged_at_k``
    the mean share of the baseline's top ``k`` that is judged (``judged@k``),
    when the baseline's scores are given.

The sets are *judged differently* when the larger median is at least
:data:`DEPTH_RATIO` times the smaller, or the two ``judged@k`` shares are
:data:`SHARE_GAP` or more apart. Both are stated thresholds, not tests: they
flag a confound for the reader, and they never change a figure.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ragnb.io.testset import TestSet
from ragnb.result import Section, table_section

#: Medians of judgments per query this many times apart are judged differently.
DEPTH_RATIO = 2.0
#: Shares of the baseline's top k judged this far apart (0-1) are judged differently.
SHARE_GAP = 0.10


@dataclass(frozen=True)
class JudgingDepth:
    """Judging depth per set (``table``: ``split, queries, median_judgments, judged_at_k``)."""

    table: pd.DataFrame
    k: int | None
    differs: bool
    reason: str

    def display_table(self) -> pd.DataFrame:
        """The table as a page shows it: judged share in percent, one row per set."""
        t = self.table.rename(columns={"median_judgments": "median judgments a query",
                                       "judged_at_k": f"baseline's top {self.k} judged"})
        col = f"baseline's top {self.k} judged"
        t[col] = [("—" if math.isnan(x) else f"{x:.0%}") for x in self.table["judged_at_k"]]
        return t

    def section(self) -> Section:
        """An appendix table section with the rule in its note."""
        verdict = (f"judged differently: {self.reason}" if self.differs else
                   "judged alike by this rule")
        return table_section(
            self.display_table(), "Judging depth", appendix=True,
            note=(f"The sets count as judged differently when one median is {DEPTH_RATIO:g}x "
                  f"the other or the judged shares are {SHARE_GAP:.0%} apart; here "
                  f"{verdict}."))

    def clause(self) -> str:
        """The clause a level reading carries when the sets were judged differently."""
        if not self.differs:
            return ""
        return (f"but the two sets were judged differently ({self.reason}), so judging depth "
                "may explain the level gap as well as difficulty")


def _median_judgments(test_set: TestSet) -> float:
    counts = test_set.judgments.groupby("query_id").size()
    ids = test_set.queries["query_id"].astype(str)
    counts.index = counts.index.astype(str)
    return float(counts.reindex(ids, fill_value=0).median())


def judging_depth(test_sets: Mapping[str, TestSet], first: str, other: str, *,
                  judged: Mapping[str, float] | None = None, k: int | None = None
                  ) -> JudgingDepth:
    """Judging depth of sets ``first`` and ``other`` and whether it differs (module doc).

    ``judged`` maps a split to the baseline's mean ``judged@k`` (0-1) there.
    """
    rows = [{"split": s, "queries": len(test_sets[s].queries),
             "median_judgments": _median_judgments(test_sets[s]),
             "judged_at_k": (judged or {}).get(s, math.nan)} for s in (first, other)]
    table = pd.DataFrame(rows)
    reasons = []
    m = table["median_judgments"].to_numpy()
    low, high = sorted(m)
    if high > 0 and (low == 0 or high / low >= DEPTH_RATIO):
        reasons.append(f"median {m[0]:g} judgments a {first} query, {m[1]:g} a {other} one")
    j = table["judged_at_k"].to_numpy()
    if not any(math.isnan(x) for x in j) and abs(j[0] - j[1]) >= SHARE_GAP:
        reasons.append(f"{j[0]:.0%} of the baseline's top {k} judged on {first}, {j[1]:.0%} "
                       f"on {other}")
    return JudgingDepth(table, k, bool(reasons), "; ".join(reasons))
