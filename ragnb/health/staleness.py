"""Staleness: judgments made against an older version of a document than the build holds.

Each judgment carries the ``doc_version`` it was made against; the corpus
build says at which version each passage's document now is
(:mod:`ragnb.io.corpus_build`). Joining the two gives each judgment one status:

``current``
    judged at the build's version or later (the text has not changed since);
``stale``
    judged at an older version: the document changed after the judgment, so
    the grade may no longer hold — review it;
``removed``
    the passage is not in the build at all: the judgment can never be
    retrieved again (if it answered the query, coverage drops too);
``unversioned``
    the judgment has no ``doc_version``: its freshness cannot be told
    (counted and shown, not queued).

The review queue holds the stale and removed judgments, answering grades
first; per query, the counts say which queries to send back to labellers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.health.coverage import as_corpus
from ragnb.io.corpus_build import CorpusBuild, version_key
from ragnb.io.testset import TestSet
from ragnb.result import Analysis

STATUSES = ("current", "stale", "removed", "unversioned")
QUEUED = ("stale", "removed")


@dataclass(frozen=True)
class Staleness(Analysis):
    """Every judgment's freshness against a corpus build.

    Attributes
    ----------
    judgments : DataFrame
        ``query_id, passage_id, grade, judged_version, corpus_version, status``
        (and ``query`` when the test set has texts), in test-set order.
    corpus : str
        The build's name.
    """

    judgments: pd.DataFrame
    corpus: str

    def counts(self) -> pd.DataFrame:
        """Judgments per status, overall and among relevant ones (grade >= 1), with shares."""
        j = self.judgments
        rows = []
        for status in STATUSES:
            sel = j["status"] == status
            rows.append({"status": status, "judgments": int(sel.sum()),
                         "share": float(sel.mean()) if len(j) else np.nan,
                         "relevant": int((sel & (j["grade"] >= 1)).sum()),
                         "queries": int(j.loc[sel, "query_id"].nunique())})
        return pd.DataFrame(rows)

    def display_table(self) -> pd.DataFrame:
        """:meth:`counts` as text, shares in percent."""
        c = self.counts()
        return pd.DataFrame({
            "status": c["status"], "judgments": c["judgments"].astype(str),
            "share": ["—" if pd.isna(v) else f"{v:.1%}" for v in c["share"]],
            "relevant": c["relevant"].astype(str), "queries": c["queries"].astype(str)})

    @property
    def description(self) -> str:
        """The freshness rule."""
        return (f"{len(self.judgments)} judgments against the corpus build {self.corpus!r}: "
                "stale when the judged document version is older than the build's, removed "
                "when the passage is not in the build, unversioned when the judgment has no "
                "version; relevant = grade >= 1")

    def per_query(self) -> pd.DataFrame:
        """One row per query with judgments: counts per status and ``needs_review``."""
        j = self.judgments
        keys = ["query_id", "query"] if "query" in j else ["query_id"]
        table = pd.crosstab(j["query_id"], j["status"]).reindex(columns=list(STATUSES),
                                                                fill_value=0)
        queued = j["status"].isin(QUEUED)
        table["relevant_to_review"] = (queued & (j["grade"] >= 1)).groupby(
            j["query_id"]).sum().reindex(table.index, fill_value=0)
        table["judgments"] = table[list(STATUSES)].sum(axis=1)
        table["needs_review"] = (table["stale"] + table["removed"]) > 0
        order = pd.unique(j["query_id"])
        table = table.reindex(order).reset_index()
        if "query" in j:
            text = j.drop_duplicates("query_id").set_index("query_id")["query"]
            table.insert(1, "query", text.reindex(table["query_id"]).to_numpy())
        return table[keys + ["judgments", *STATUSES, "relevant_to_review", "needs_review"]]

    def review_queue(self) -> pd.DataFrame:
        """Stale and removed judgments: answering grades first, then query and passage order."""
        j = self.judgments
        q = j[j["status"].isin(QUEUED)]
        position = pd.Series(np.arange(len(q)), index=q.index)
        return (q.assign(_pos=position).sort_values(["grade", "_pos"], ascending=[False, True],
                                                    kind="stable")
                .drop(columns="_pos").reset_index(drop=True))


def staleness(test_set: TestSet, corpus: CorpusBuild | pd.DataFrame) -> Staleness:
    """Compare every judgment's ``doc_version`` with the build's version of its passage.

    Parameters
    ----------
    test_set : TestSet
    corpus : CorpusBuild or DataFrame
        ``passage_id, doc_version`` of the current build (a table is validated).

    Raises
    ------
    InputError
        When a judgment's ``doc_version`` does not follow the build's version
        scheme (dates vs numbers), naming the test set's line: "older than"
        would be undefined.
    """
    build = as_corpus(corpus)
    j = test_set.judgments
    current = pd.Series(build.passages["doc_version"].to_numpy(),
                        index=build.passages["passage_id"].astype("str").to_numpy())
    passage = j["passage_id"].astype("str")
    judged = j["doc_version"].astype("object").where(j["doc_version"].notna(), None)
    judged = judged.map(lambda v: None if v is None or str(v).strip() in ("", "None", "nan")
                        else str(v).strip())
    corpus_version = passage.map(current)
    keys: dict[str, Any] = {}  # one scheme per build: dates or number tuples, comparable
    for v in pd.unique(pd.concat([judged.dropna(), corpus_version.dropna()])):
        key = version_key(v, build.scheme)
        if key is None:
            row = j.loc[(judged == v).to_numpy()].iloc[0]
            raise InputError(f"doc_version {v!r} of passage {row['passage_id']!r} (query "
                             f"{row['query_id']!r}) does not follow the corpus build's "
                             f"{build.scheme} versions", source=test_set.source or test_set.name,
                             line=int(row["line"]))
        keys[v] = key
    # versions as integer ranks (equal versions written differently, "v2" and "2", tie)
    position = {k: i for i, k in enumerate(sorted(set(keys.values())))}
    rank = {v: position[k] for v, k in keys.items()}
    judged_rank = judged.map(rank).fillna(-1).to_numpy(dtype=np.int64)
    corpus_rank = corpus_version.map(rank).fillna(-1).to_numpy(dtype=np.int64)
    status = np.full(len(j), "current", dtype=object)
    in_build = corpus_version.notna().to_numpy()
    has_version = judged.notna().to_numpy()
    older = has_version & in_build & (judged_rank < corpus_rank)
    status[older] = "stale"
    status[~has_version & in_build] = "unversioned"
    status[~in_build] = "removed"
    table = pd.DataFrame({"query_id": j["query_id"].astype("str").to_numpy()})
    if "query" in test_set.queries:
        text = test_set.queries.set_index(test_set.queries["query_id"].astype("str"))["query"]
        table["query"] = text.reindex(table["query_id"]).to_numpy()
    table["passage_id"] = passage.to_numpy()
    table["grade"] = j["grade"].to_numpy()
    table["judged_version"] = judged.to_numpy()
    table["corpus_version"] = corpus_version.to_numpy()
    table["status"] = status
    return Staleness(table, build.name)
