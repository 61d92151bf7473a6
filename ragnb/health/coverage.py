"""Coverage: whether each query's answer still exists in the current corpus build.

A query is *covered* when at least one passage judged at the answering grade
(the top grade, 2 = "answers it", unless given) is in the build. A query
whose answer is nowhere in the index is a coverage failure, not a retrieval
failure: no ranking change can surface a passage that was never indexed, so
coverage is reported apart from retrieval scores (seed 004).

Per query, one status:

``covered``
    an answering passage resolves in the build;
``answer not in corpus``
    answering passages are judged, none is in the build;
``no answering passage judged``
    the query is not flagged unanswerable, yet nothing is judged at the
    answering grade (the answer is unknown: a labelling gap);
``unanswerable``
    flagged ``unanswerable`` in the test set: excluded from the denominator
    and counted apart.

Coverage = covered / (queries - unanswerable), with a Clopper–Pearson
interval (:func:`ragnb.health.shares.share_interval`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.health.shares import SHARE_METHOD, UNANSWERABLE_TARGET, share_interval
from ragnb.io.corpus_build import CorpusBuild, validate_corpus
from ragnb.io.testset import Note, TestSet
from ragnb.result import Analysis

STATUSES = ("covered", "answer not in corpus", "no answering passage judged", "unanswerable")


def unanswerable_flags(test_set: TestSet) -> tuple[pd.Series, tuple[Note, ...]]:
    """The ``unanswerable`` flag per query (False for all, with a note, when the file has none)."""
    q = test_set.queries
    ids = pd.Index(q["query_id"].astype("str"), name="query_id")
    if "unanswerable" not in q:
        return pd.Series(False, index=ids, name="unanswerable"), (
            Note("no_unanswerable_flag", len(q), "the test set has no 'unanswerable' field: "
                 "every query is counted as answerable"),)
    return pd.Series(q["unanswerable"].to_numpy(dtype=bool), index=ids, name="unanswerable"), ()


def as_corpus(corpus: CorpusBuild | pd.DataFrame) -> CorpusBuild:
    """A validated :class:`~ragnb.io.corpus_build.CorpusBuild` (tables go through the validator)."""
    if isinstance(corpus, CorpusBuild):
        return corpus
    if isinstance(corpus, pd.DataFrame):
        return validate_corpus(corpus, corpus.attrs.get("source", "corpus build"))
    raise InputError(f"expected a corpus build or a table, got {type(corpus).__name__}",
                     key="corpus")


@dataclass(frozen=True)
class Coverage(Analysis):
    """Coverage of a test set by a corpus build.

    Attributes
    ----------
    queries : DataFrame
        One row per query: ``query_id, answering, in_corpus, status`` (and
        ``query`` when the test set has texts). ``answering`` counts passages
        judged at ``answer_grade``, ``in_corpus`` those of them in the build.
    answer_grade : int
        The grade that counts as answering.
    notes : tuple of Note
    ci : float
        Level of the coverage interval (:meth:`summary`, the finding).
    """

    queries: pd.DataFrame
    answer_grade: int
    corpus: str
    notes: tuple[Note, ...] = ()
    ci: float = 0.95

    @property
    def counts(self) -> pd.Series:
        """Queries per status (every status listed, zeros included)."""
        return self.queries["status"].value_counts().reindex(list(STATUSES), fill_value=0)

    @property
    def n_answerable(self) -> int:
        """The denominator: queries not flagged unanswerable."""
        return int((self.queries["status"] != "unanswerable").sum())

    @property
    def n_covered(self) -> int:
        return int((self.queries["status"] == "covered").sum())

    @property
    def share(self) -> float:
        """Covered / answerable (NaN when no query is answerable)."""
        return self.n_covered / self.n_answerable if self.n_answerable else float("nan")

    def uncovered(self) -> pd.DataFrame:
        """Answerable queries that are not covered, with the reason."""
        q = self.queries
        return q[~q["status"].isin(["covered", "unanswerable"])].reset_index(drop=True)

    def summary(self, ci: float | None = None) -> pd.DataFrame:
        """One row, data: queries, unanswerable (apart), answerable, covered, coverage, interval."""
        low, high = share_interval(self.n_covered, self.n_answerable,
                                   self.ci if ci is None else ci)
        c = self.counts
        return pd.DataFrame([{
            "queries": len(self.queries), "unanswerable": int(c["unanswerable"]),
            "answerable": self.n_answerable, "covered": self.n_covered,
            "answer not in corpus": int(c["answer not in corpus"]),
            "no answering passage judged": int(c["no answering passage judged"]),
            "coverage": self.share, "ci_low": low, "ci_high": high,
        }])

    def display_table(self) -> pd.DataFrame:
        """Queries per status, as text, with the coverage and its interval in percent."""
        s = self.summary().iloc[0]
        shown = "—" if pd.isna(s["coverage"]) else (
            f"{s['coverage']:.1%} [{s['ci_low']:.1%}, {s['ci_high']:.1%}]")
        return pd.DataFrame({
            "": ["queries", "unanswerable (apart)", "answerable", "covered",
                 "answer not in corpus", "no answering passage judged",
                 f"coverage [{self.ci:.0%} interval]"],
            "value": [str(int(s[c])) for c in ("queries", "unanswerable", "answerable", "covered",
                                               "answer not in corpus",
                                               "no answering passage judged")] + [shown]})

    @property
    def description(self) -> str:
        """How coverage and its interval were made."""
        return (f"coverage = queries with a grade-{self.answer_grade} passage in the corpus "
                f"build {self.corpus!r} / queries not flagged unanswerable; {self.ci:.0%} "
                f"{SHARE_METHOD} of {self.n_covered} of {self.n_answerable}")


def coverage(test_set: TestSet, corpus: CorpusBuild | pd.DataFrame, *,
             answer_grade: int | None = None) -> Coverage:
    """Which queries have an answering passage in the corpus build.

    Parameters
    ----------
    test_set : TestSet
    corpus : CorpusBuild or DataFrame
        ``passage_id, doc_version`` of the current build (a table is validated).
    answer_grade : int, optional
        The grade that answers a query; default the test set's top grade
        (:attr:`ragnb.io.testset.TestSet.top_grade`, 2 on seed 004's scale).
        Passages judged at this grade or above count.

    Returns
    -------
    Coverage
    """
    build = as_corpus(corpus)
    grade = test_set.top_grade if answer_grade is None else int(answer_grade)
    if grade < 1:
        raise InputError(f"the answering grade must be at least 1, got {grade}",
                         key="answer_grade")
    flags, notes = unanswerable_flags(test_set)
    j = test_set.judgments
    answering = j.loc[j["grade"] >= grade, ["query_id", "passage_id"]]
    present = answering["passage_id"].isin(build.passages["passage_id"]).to_numpy()
    ids = flags.index
    n_answering = answering["query_id"].astype("str").value_counts().reindex(ids, fill_value=0)
    n_present = answering.loc[present, "query_id"].astype("str").value_counts().reindex(
        ids, fill_value=0)
    status = np.select(
        [flags.to_numpy(), n_present.to_numpy() > 0, n_answering.to_numpy() > 0],
        ["unanswerable", "covered", "answer not in corpus"], "no answering passage judged")
    table = pd.DataFrame({"query_id": ids.to_numpy()})
    if "query" in test_set.queries:
        table["query"] = test_set.queries["query"].to_numpy()
    table["answering"] = n_answering.to_numpy()
    table["in_corpus"] = n_present.to_numpy()
    table["status"] = status
    return Coverage(table, grade, build.name, notes)


def unanswerable_share(test_set: TestSet, *, target: float = UNANSWERABLE_TARGET,
                       ci: float = 0.95) -> pd.DataFrame:
    """One row: queries, unanswerable, share with interval, the target and whether it is inside."""
    flags, _ = unanswerable_flags(test_set)
    k, n = int(flags.sum()), len(flags)
    low, high = share_interval(k, n, ci)
    return pd.DataFrame([{"queries": n, "unanswerable": k, "share": k / n if n else math.nan,
                          "ci_low": low, "ci_high": high, "target": float(target),
                          "target_outside": bool(n) and not low <= target <= high}])
