"""Test sets: queries with their metadata and judgments.

A test set (split) is the answer key: a table of queries (``query_id``,
``query``, ``source``, ``intent``, ``answer``, ``unanswerable`` and any other
metadata) and a table of judgments (``query_id``, ``passage_id``, ``grade``,
``doc_version``). Grades are non-negative integers; 0/1/2 by default
(2 = answers it, 1 = supports it, 0 = not relevant).

:func:`validate_judgments` is the one place where judgments are checked,
whatever file format they came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io._columns import id_column, line_numbers, missing_strings, text_column
from ragnb.io.keys import block_codes, duplicated_pairs
from ragnb.vocab import MAX_GRADE

JUDGMENT_COLUMNS = ("query_id", "passage_id", "grade", "doc_version")
QUERY_COLUMNS = ("query_id", "query", "source", "intent", "answer", "unanswerable")


@dataclass(frozen=True)
class Note:
    """Something the reader or scorer did that a user must see (never silent)."""

    kind: str
    count: int
    detail: str
    #: Of how many (``0``: not stated), and what the note is about (a run's name).
    total: int = 0
    subject: str = ""

    def __str__(self) -> str:
        of = f" of {self.total}" if self.total else ""
        return f"{self.kind}: {self.count}{of} — {self.detail}"


@dataclass(frozen=True)
class TestSet:
    """Queries and judgments of one split.

    Attributes
    ----------
    queries : DataFrame
        One row per query: ``query_id`` plus metadata columns (may be only the id
        when the source is plain TREC qrels).
    judgments : DataFrame
        ``query_id, passage_id, grade, doc_version, line``; ``line`` is where the
        judgment was read (for error messages).
    name : str
        The split name (file stem unless given).
    source : str
        Where it was read from.
    notes : tuple of Note
        What was dropped or repaired while reading, with counts.
    pooled : DataFrame, optional
        ``query_id, passage_id``: passages in the judging pool but not judged
        (grade -1 in trec_eval's qrels). They are unjudged for every metric and
        label policy; only infAP's sampling reads them (:mod:`ragnb.metrics.incomplete`).
    judge : TestSet, optional
        Labels a model judge gave (its ``name`` is the judge's): kept beside the
        people's, never merged into ``judgments``, so every grade keeps its labeller
        (:meth:`labelled_by`). Read by :mod:`ragnb.judge`; part of the ledger's content hash.
    """

    __test__ = False  # not a pytest test class

    queries: pd.DataFrame
    judgments: pd.DataFrame
    name: str = "test set"
    source: str = ""
    notes: tuple[Note, ...] = field(default=())
    pooled: pd.DataFrame | None = None
    judge: TestSet | None = None

    @property
    def query_ids(self) -> pd.Index:
        return pd.Index(self.queries["query_id"], name="query_id")

    @property
    def top_grade(self) -> int:
        """The highest grade on the scale (the largest grade judged)."""
        return int(self.judgments["grade"].max()) if len(self.judgments) else 0

    def relevant_counts(self, rel: int = 1) -> pd.Series:
        """Judged passages with ``grade >= rel`` per query (0 for queries without)."""
        j = self.judgments
        counts = j.loc[j["grade"] >= rel, "query_id"].value_counts()
        return counts.reindex(self.query_ids, fill_value=0).rename("relevant")

    def restricted(self, query_ids, *, listed_in: str = "a query list") -> TestSet:
        """The test set cut to ``query_ids`` (a split or fold of one qrels file).

        Listed queries the test set lacks (not judged at all) are left out and counted
        in a note; none of them in the test set is an error naming ``listed_in``.
        """
        wanted = pd.Index([str(q) for q in query_ids])
        have = self.query_ids
        absent = wanted[~wanted.isin(have)]
        if len(absent) == len(wanted):
            raise InputError(f"none of the {len(wanted)} listed queries is in the test set "
                             f"{self.source!r}, e.g. "
                             f"{listed(list(wanted[:3]), most=20)}", source=listed_in)
        queries = self.queries[have.isin(wanted)].reset_index(drop=True)
        judgments = self.judgments[self.judgments["query_id"].isin(wanted).to_numpy()]
        pooled = self.pooled
        if pooled is not None:
            pooled = pooled[pooled["query_id"].isin(wanted).to_numpy()].reset_index(drop=True)
        notes = self.notes
        judge = self.judge
        if judge is not None:  # the judge's labels of the listed queries only
            keep = judge.judgments["query_id"].isin(wanted).to_numpy()
            judge = replace(judge, judgments=judge.judgments[keep].reset_index(drop=True),
                            queries=judge.queries[judge.queries["query_id"].isin(wanted)]
                            .reset_index(drop=True))
        if len(absent):
            notes += (Note("listed_unjudged", len(absent),
                           f"{listed_in}: listed queries with no judgment in {self.source}, "
                           f"left out, e.g. {listed(absent[:3])}"),)
        return replace(self, queries=queries, judgments=judgments.reset_index(drop=True),
                       pooled=pooled, notes=notes, judge=judge)

    def labelled_by(self) -> pd.DataFrame:
        """Every grade with its labeller: ``query_id, passage_id, grade, labeller, line``
        (``labeller`` is ``"people"`` or the judge's name); a pair both labelled has two rows.
        """
        cols = ["query_id", "passage_id", "grade", "line"]
        parts = [self.judgments[cols].assign(labeller="people")]
        if self.judge is not None:
            parts.append(self.judge.judgments[cols].assign(labeller=self.judge.name))
        return pd.concat(parts, ignore_index=True)[
            ["query_id", "passage_id", "grade", "labeller", "line"]]

    def with_judgments(self, judgments: pd.DataFrame, *, name: str | None = None,
                       notes: tuple[Note, ...] = ()) -> TestSet:
        """A new test set with ``judgments`` (validated) and the same queries."""
        judgments = validate_judgments(judgments, self.source)
        return replace(self, judgments=judgments, name=name or self.name,
                       notes=self.notes + notes)


def _safe_integers(values: pd.Series) -> bool:
    """Integer dtype without missing values that converts to int64 exactly."""
    if not pd.api.types.is_integer_dtype(values.dtype) or values.hasnans:
        return False
    if pd.api.types.is_unsigned_integer_dtype(values.dtype) and len(values):
        return int(values.max()) < 2**63
    return True




def _grades(raw: pd.Series, line: np.ndarray, query, passage, source) -> np.ndarray:
    """Grades as int64; non-integer, negative or too-large grades are errors naming the line.

    A grade above :data:`MAX_GRADE` is refused: with exponential gain it would
    make DCG overflow to infinity and every nDCG 0 or NaN.
    """
    booleans = (np.ones(len(raw), dtype=bool) if pd.api.types.is_bool_dtype(raw.dtype)
                else raw.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(bool)
                if raw.dtype == object else np.zeros(len(raw), dtype=bool))
    if booleans.any():
        i = int(np.argmax(booleans))
        raise InputError(f"grade {raw.iloc[i]!r} is a boolean, not an integer", source=source,
                         line=int(line[i]))
    if _safe_integers(raw):
        grade = raw.to_numpy(dtype=np.int64)
    else:
        num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~np.isfinite(num) | (num != np.floor(num)) | (np.abs(num) > 2.0**62)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"grade {raw.iloc[i]!r} is not an integer", source=source,
                             line=int(line[i]))
        grade = num.astype(np.int64)
    if len(grade) and grade.min() < 0:
        i = int(np.argmax(grade < 0))
        raise InputError(f"negative grade {int(grade[i])} "
                         f"(query {query.iloc[i]}, passage {passage.iloc[i]})",
                         source=source, line=int(line[i]))
    if len(grade) and grade.max() > MAX_GRADE:
        i = int(np.argmax(grade > MAX_GRADE))
        raise InputError(f"grade {int(grade[i])} is above the maximum grade {MAX_GRADE} "
                         f"(query {query.iloc[i]}, passage {passage.iloc[i]}): its exponential "
                         "gain 2**grade - 1 would overflow", source=source, line=int(line[i]))
    return grade


def validate_judgments(raw: pd.DataFrame, source: str | Path) -> pd.DataFrame:
    """Check and normalise a judgments table; the one place judgments are validated.

    Rules: ``query_id`` and ``passage_id`` are non-empty; ``grade`` is an
    integer from 0 to :data:`MAX_GRADE`; a (query, passage) pair judged twice with different
    grades is an error listing the lines; an exact repeat is an error too,
    because the reader cannot know which line the labeller meant to keep.

    Returns a new table with columns ``query_id, passage_id, grade (int64),
    doc_version (may be missing), line (int32; int64 past 2**31)``; text columns
    are arrow strings (``string[pyarrow]``, see :data:`ragnb.io.keys.ID_DTYPE`).
    The input is not modified.
    """
    missing = [c for c in ("query_id", "passage_id", "grade") if c not in raw]
    if missing:
        raise InputError(f"judgments lack column(s) {listed(missing, most=20)}; expected "
                         f"{listed(list(JUDGMENT_COLUMNS), most=20)}",
                         source=source)
    n = len(raw)
    line = line_numbers(raw, n)
    query = id_column(raw["query_id"], "query_id", line, source)
    passage = id_column(raw["passage_id"], "passage_id", line, source)
    grade = _grades(raw["grade"], line, query, passage, source)
    doc_version = (text_column(raw["doc_version"]) if "doc_version" in raw
                   else missing_strings(n))
    df = pd.DataFrame({"query_id": query, "passage_id": passage, "grade": grade,
                       "doc_version": doc_version,
                       "line": line}, copy=False)
    qcodes, _ = block_codes(query)
    later = duplicated_pairs(qcodes, passage)
    if later.any():
        _raise_duplicates(df, later, source)
    return df


def _raise_duplicates(df: pd.DataFrame, later: np.ndarray, source) -> None:
    repeated = df.loc[later, ["query_id", "passage_id"]].drop_duplicates()
    dup = df.set_index(["query_id", "passage_id"]).index.isin(
        repeated.set_index(["query_id", "passage_id"]).index)
    groups = df.loc[dup].groupby(["query_id", "passage_id"], sort=False)
    conflicting = groups["grade"].nunique()
    kind = "conflicting grades" if (conflicting > 1).any() else "repeated judgments"
    listing = "; ".join(
        f"({q}, {p}) grades {listed(g['grade'])} at lines {listed(g['line'])}"
        for (q, p), g in list(groups)[:5]
    )
    raise InputError(
        f"{kind} for {groups.ngroups} (query, passage) pair(s): {listing}", source=source,
        line=int(df.loc[dup, "line"].iloc[0]),
    )


def validate_queries(raw: pd.DataFrame, source: str | Path) -> pd.DataFrame:
    """Check a query table: unique non-empty ids; ``unanswerable`` boolean."""
    df = raw.copy()
    if "line" not in df:
        df["line"] = np.arange(1, len(df) + 1)
    if "query_id" not in df:
        raise InputError("queries lack a query_id column", source=source)
    df["query_id"] = df["query_id"].astype("str")
    dup = df["query_id"].duplicated()
    if dup.any():
        q = df.loc[dup, "query_id"].iloc[0]
        lines = list(df.loc[df["query_id"] == q, "line"])
        raise InputError(f"query {q!r} appears more than once (lines {listed(lines)})",
                         source=source, line=int(lines[-1]))
    if "unanswerable" in df:
        # a query without the key (or null) is not flagged
        df["unanswerable"] = df["unanswerable"].astype("object").where(
            df["unanswerable"].notna(), False)
        ok = df["unanswerable"].map(lambda v: isinstance(v, (bool, np.bool_)))
        if not ok.all():
            first = df.loc[~ok].iloc[0]
            raise InputError(f"'unanswerable' must be true or false, got {first['unanswerable']!r}",
                             source=source, line=int(first["line"]))
        df["unanswerable"] = df["unanswerable"].astype(bool)
    return df.reset_index(drop=True)


def check_unanswerable(queries: pd.DataFrame, judgments: pd.DataFrame, source) -> None:
    """A query marked unanswerable must have no passage judged relevant."""
    if "unanswerable" not in queries:
        return
    flagged = set(queries.loc[queries["unanswerable"], "query_id"])
    rel = judgments[(judgments["grade"] > 0) & judgments["query_id"].isin(flagged)]
    if len(rel):
        first = rel.iloc[0]
        raise InputError(
            f"query {first['query_id']!r} is marked unanswerable but passage "
            f"{first['passage_id']!r} is judged grade {first['grade']}",
            source=source, line=int(first["line"]),
        )
