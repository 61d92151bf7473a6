"""Near-duplicate queries: groups of queries that ask the same thing in nearly the same words.

Raw extraction from tickets or logs repeats the popular questions many times
("reset password" forty ways); labelling all of them makes a test set about
those few questions. This module groups them deterministically, with no
embeddings and no network:

1. normalise: Unicode NFKC, lowercase, every run of characters that are not
   letters or digits becomes one space, trimmed (:func:`normalise_query`);
2. compare: Jaccard similarity of the sets of character ``n``-grams of
   ``" " + normalised + " "`` (the padding marks word edges),
   ``J(A, B) = |A ∩ B| / |A ∪ B|``; identical normalised texts always have
   similarity 1 (even when shorter than ``n``);
3. group: queries linked by a similarity ``>= threshold`` are joined
   (union-find, i.e. connected components: single linkage, so a chain
   A~B~C groups A with C; each group reports its lowest pairwise similarity).

Suggestion: keep one query per group — the shortest normalised phrasing, then
the first in the file (seed 004: keep the shortest and clearest phrasing, so a
human grades it consistently).

String similarity is not meaning: templated questions that differ in one topic
word ("change my *invoice*" / "change my *parcel*") score high, so the default
threshold (0.9) is set high enough not to join such siblings (the demo's templated questions
link across topics at 0.8), at the price of missing looser rephrasings. Read the groups
before dropping anything. Cost: the pairs that share an ``n``-gram, through a
sparse product (fine for thousands of queries).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from ragnb.errors import InputError
from ragnb.io.testset import TestSet
from ragnb.result import Analysis

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalise_query(text: str) -> str:
    """Lowercase, strip punctuation, collapse whitespace.

    Examples
    --------
    >>> normalise_query("  Reset   my PASSWORD?!  ")
    'reset my password'
    >>> normalise_query("<script>alert(1)</script>")
    'script alert 1 script'
    """
    text = unicodedata.normalize("NFKC", str(text)).lower()
    return _NON_WORD.sub(" ", text).strip()


def ngrams(normalised: str, n: int = 3) -> set[str]:
    """Character ``n``-grams of ``" " + normalised + " "``."""
    padded = f" {normalised} "
    return {padded[i:i + n] for i in range(len(padded) - n + 1)}


def jaccard(a: str, b: str, n: int = 3) -> float:
    """Similarity of two query texts as :func:`near_duplicate_groups` computes it."""
    return jaccard_normalised(normalise_query(a), normalise_query(b), n)


def jaccard_normalised(a: str, b: str, n: int = 3) -> float:
    """Jaccard similarity of two normalised texts' n-gram sets (1 when the texts are equal)."""
    if a == b:
        return 1.0
    ga, gb = ngrams(a, n), ngrams(b, n)
    return len(ga & gb) / len(ga | gb) if ga | gb else 0.0


@dataclass(frozen=True)
class DuplicateGroups(Analysis):
    """Near-duplicate groups of a test set's queries.

    Attributes
    ----------
    members : DataFrame
        One row per query in a group of two or more: ``group, size,
        min_similarity, query_id, query, normalised, keep``; groups numbered
        from 1 in order of their first member in the file.
    n_queries : int
    threshold : float
    n : int
        The character n-gram length.
    """

    members: pd.DataFrame
    n_queries: int
    threshold: float
    n: int

    @property
    def n_groups(self) -> int:
        return int(self.members["group"].nunique()) if len(self.members) else 0

    def groups(self) -> pd.DataFrame:
        """One row per group: ``group, size, min_similarity`` and the query suggested to keep."""
        m = self.members
        kept = m[m["keep"]].set_index("group")
        first = m.groupby("group", sort=True)[["size", "min_similarity"]].first()
        return first.assign(keep_query_id=kept["query_id"], keep_query=kept["query"]
                            ).reset_index()

    def summary(self) -> pd.DataFrame:
        """Data: queries, groups, queries in groups and how many the suggestion drops."""
        m = self.members
        return pd.DataFrame([{"queries": self.n_queries, "groups": self.n_groups,
                              "queries_in_groups": len(m),
                              "drop_if_one_kept": int((~m["keep"]).sum()) if len(m) else 0,
                              "largest_group": int(m["size"].max()) if len(m) else 0}])

    def display_table(self) -> pd.DataFrame:
        """One row per group, as text: its size, lowest similarity and the query kept."""
        if not len(self.members):
            return pd.DataFrame(columns=["group", "queries", "lowest similarity", "keep"])
        g = self.groups()
        return pd.DataFrame({"group": g["group"].astype(str), "queries": g["size"].astype(str),
                             "lowest similarity": [f"{v:.2f}" for v in g["min_similarity"]],
                             "keep": [f"{q} ({i})" for q, i in zip(g["keep_query"],
                                                                   g["keep_query_id"])]})

    @property
    def description(self) -> str:
        """The grouping rule and the suggestion of which query to keep."""
        return (f"{self.n_queries} queries; groups: character {self.n}-gram Jaccard >= "
                f"{self.threshold:g} on normalised text (lowercase, punctuation stripped), "
                "single linkage; keep = shortest normalised phrasing, then first in the file")


def near_duplicate_groups(test_set: TestSet | pd.DataFrame, *, threshold: float = 0.9,
                          n: int = 3, column: str = "query") -> DuplicateGroups:
    """Group near-duplicate queries (see the module docstring for the rule).

    Parameters
    ----------
    test_set : TestSet or DataFrame
        The test set, or a table with ``query_id`` and ``column``.
    threshold : float
        Link two queries when their similarity is at least this (0 < t <= 1).
    n : int
        Character n-gram length (>= 1).
    column : str
        The field holding the query text.
    """
    if not 0 < threshold <= 1:
        raise InputError(f"`threshold` must be in (0, 1], got {threshold!r}", key="threshold")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"`n` must be a positive integer, got {n!r}", key="n")
    queries = test_set.queries if isinstance(test_set, TestSet) else test_set
    if column not in queries:
        raise InputError(f"the queries have no {column!r} field (no query texts to compare)",
                         key=column)
    ids = queries["query_id"].astype("str").to_numpy()
    texts = queries[column].astype("object").where(queries[column].notna(), "").astype(
        "str").to_numpy()
    normal = np.array([normalise_query(t) for t in texts], dtype=object)
    size = len(ids)
    links = _similar_pairs(normal, threshold, n)
    graph = sparse.coo_matrix((np.ones(len(links[0])), links), shape=(size, size))
    _, component = connected_components(graph, directed=False)
    rows = []
    order = pd.unique(component)  # numbered by first member in file order
    number = {c: i for i, c in enumerate(order)}
    counts = np.bincount(component, minlength=len(order))
    for c in order:
        members = np.flatnonzero(component == c)
        if counts[c] < 2:
            continue
        keep = min(members, key=lambda i: (len(normal[i]), i))
        low = min(jaccard_normalised(normal[a], normal[b], n)
                  for k, a in enumerate(members) for b in members[k + 1:])
        for i in members:
            rows.append({"group": number[c], "size": int(counts[c]), "min_similarity": low,
                         "query_id": ids[i], "query": texts[i], "normalised": normal[i],
                         "keep": bool(i == keep)})
    members = pd.DataFrame(rows, columns=["group", "size", "min_similarity", "query_id", "query",
                                          "normalised", "keep"])
    if len(members):  # renumber 1..G over the groups shown
        members["group"] = pd.factorize(members["group"])[0] + 1
    return DuplicateGroups(members, size, float(threshold), n)


def _similar_pairs(normal: np.ndarray, threshold: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(i, j)``, ``i < j``, with similarity >= threshold (identical texts too)."""
    vocab: dict[str, int] = {}
    indptr = [0]
    indices: list[int] = []
    for text in normal:
        grams = sorted(ngrams(text, n))
        indices.extend(vocab.setdefault(g, len(vocab)) for g in grams)
        indptr.append(len(indices))
    x = sparse.csr_matrix((np.ones(len(indices), dtype=np.int32), indices, indptr),
                          shape=(len(normal), max(len(vocab), 1)))
    inter = sparse.triu(x @ x.T, k=1).tocoo()
    sizes = np.diff(x.indptr)
    union = sizes[inter.row] + sizes[inter.col] - inter.data
    keep = inter.data >= threshold * union
    rows, cols = [inter.row[keep]], [inter.col[keep]]
    # identical normalised texts (also those too short for any n-gram) are always linked
    codes, _ = pd.factorize(pd.Series(normal, dtype=object))
    first: dict[int, int] = {}
    same_r: list[int] = []
    same_c: list[int] = []
    for i, code in enumerate(codes):
        if code in first:
            same_r.append(first[code])
            same_c.append(i)
        else:
            first[code] = i
    rows.append(np.array(same_r, dtype=np.int64))
    cols.append(np.array(same_c, dtype=np.int64))
    return np.concatenate(rows).astype(np.int64), np.concatenate(cols).astype(np.int64)
