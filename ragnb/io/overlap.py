"""Two test sets that share queries: counted before any fit verdict (SPEC, "Headlines").

A production sample is evidence about fit only where nobody selected against
it. When it shares queries with the golden set (the same query ids: a re-judged
copy of golden queries), those queries were selected against too.
:func:`split_overlap` counts them; the four-cell and trajectory pages read the
fit on the disjoint part of the production sample, or refuse when too little of
it is left (:data:`MIN_DISJOINT`). Where both sets carry query texts, production
queries whose text equals a golden query's under another id are counted and
named on the page too, but not set aside: independently drawn queries repeat
short texts ("reset password") without being the same judged query (the demo's
templated texts do, 92 of 200), so the reader is told how many there are and
decides.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

#: Fewest production queries not shared with golden for a fit reading.
MIN_DISJOINT = 10


def _norm(text: object) -> str:
    """Query text as compared: case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


@dataclass(frozen=True)
class SplitOverlap:
    """Queries of ``other`` (production) that ``first`` (golden) also holds.

    Attributes
    ----------
    first, other : str
        Split names.
    n_other : int
        Queries in ``other``.
    same_id : tuple of str
        Query ids of ``other`` that ``first`` has too.
    same_text : tuple of str
        Query ids of ``other`` whose text equals a text of ``first`` under another id.
    """

    first: str
    other: str
    n_other: int
    same_id: tuple[str, ...] = ()
    same_text: tuple[str, ...] = ()
    texts_compared: bool = False

    @property
    def shared(self) -> tuple[str, ...]:
        """The ``other`` query ids set aside: those ``first`` holds too (same id)."""
        return self.same_id

    @property
    def disjoint(self) -> int:
        return self.n_other - len(self.shared)

    @property
    def refused(self) -> bool:
        """Too few unshared queries for a fit reading."""
        return bool(self.shared) and self.disjoint < MIN_DISJOINT

    def describe(self) -> str:
        """One sentence: what is shared, what the fit reading uses, what only repeats a text."""
        texts = (f" {len(self.same_text)} {self.other} queries have the text of a {self.first} "
                 "query under another id (counted, not set aside: if they are the same "
                 "questions, they were selected against too)." if self.same_text else "")
        if not self.shared:
            return (f"{self.other} shares no query id with {self.first}"
                    f"{' (query texts compared too)' if self.texts_compared else ''}.{texts}")
        text = (f"{self.other} shares {len(self.shared)} of its {self.n_other} queries with "
                f"{self.first} ({len(self.same_id)} by query id): they were selected against too")
        if self.refused:
            return (text + f"; only {self.disjoint} are left (a fit reading needs at least "
                    f"{MIN_DISJOINT}), so no fit verdict is given.{texts}")
        return (text + f"; the fit is read on the {self.disjoint} {self.other} queries not "
                f"shared.{texts}")


def _ids(frame: pd.DataFrame) -> pd.Series:
    return frame["query_id"].astype(str)


def split_overlap(first, other, *, first_name: str | None = None,
                  other_name: str | None = None) -> SplitOverlap:
    """Queries of ``other`` shared with ``first``, by id and by identical query text.

    Parameters
    ----------
    first, other : TestSet or DataFrame
        Test sets (:class:`ragnb.io.testset.TestSet`, whose ``queries`` are used), or
        query tables with ``query_id`` and optionally ``query`` (the text).

    Examples
    --------
    >>> import pandas as pd
    >>> g = pd.DataFrame({"query_id": ["a", "b"], "query": ["What is X?", "Y"]})
    >>> p = pd.DataFrame({"query_id": ["b", "c", "d"], "query": ["Y", "what is  x?", "Z"]})
    >>> o = split_overlap(g, p)
    >>> o.same_id, o.same_text, o.disjoint
    (('b',), ('c',), 2)
    """
    a = getattr(first, "queries", first)
    b = getattr(other, "queries", other)
    first_name = first_name or getattr(first, "name", None) or "golden"
    other_name = other_name or getattr(other, "name", None) or "production"
    ids_a, ids_b = _ids(a), _ids(b)
    same_id = tuple(q for q in dict.fromkeys(ids_b) if q in set(ids_a))
    same_text: tuple[str, ...] = ()
    texts = "query" in a and "query" in b
    if texts:
        texts_a = {_norm(t) for t in a["query"].dropna()}
        shared_ids = set(same_id)
        same_text = tuple(q for q, t in zip(ids_b, b["query"])
                          if q not in shared_ids and pd.notna(t) and _norm(t) in texts_a)
    return SplitOverlap(first_name, other_name, int(ids_b.nunique()), same_id, same_text, texts)
