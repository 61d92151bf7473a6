"""A judge whose errors follow a measured confusion matrix, for truth tests and benchmarks.

Real judge data (LLMJudge 2024) has no runs, and real runs have no judge: the check that
PPI's intervals hold on real runs fills a collection's labels with grades drawn, pair by
pair, from a real judge's confusion matrix ``P(judge grade | people grade)``
(:class:`ragnb.judge.Agreement`'s ``confusion``, row-normalised). Scales of other lengths
are mapped linearly (grade ``g`` of ``0..G`` to ``round(g · K / G)`` of ``0..K``) and back.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragnb.io.judges import top_pairs
from ragnb.io.testset import TestSet, validate_judgments


def rescale(grades: np.ndarray, top_from: int, top_to: int) -> np.ndarray:
    """Grades of ``0..top_from`` onto ``0..top_to``, linearly, rounded half up."""
    g = np.asarray(grades, dtype=np.float64) * top_to / max(top_from, 1)
    return np.floor(g + 0.5).astype(np.int64)


def draw_judge(test_set: TestSet, runs: Sequence, confusion: np.ndarray, *, k: int = 10,
               rng: np.random.Generator, name: str = "simulated",
               boost: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Judge grades for every pair people judged and every pair in a run's top ``k`` of the
    test set's queries (a pair nobody judged is taken as people's grade 0).

    ``confusion`` is ``P(judge | people)`` on its own scale (rows sum to 1). ``boost``
    (config -> probability) lifts the judge's grade by one, with that probability, on the
    passages only that config retrieves (a judge that favours the challenger).
    Returns a judgments table (``query_id, passage_id, grade``, validated).
    """
    conf = np.asarray(confusion, dtype=np.float64)
    conf = conf / conf.sum(axis=1, keepdims=True)
    top_j, top_p = conf.shape[0] - 1, max(test_set.top_grade, 1)
    queries = set(test_set.query_ids.astype(str))
    tops = {r.name: top_pairs(r, k) for r in runs}
    pool = pd.concat([test_set.judgments[["query_id", "passage_id"]].astype(str),
                      *tops.values()]).drop_duplicates()
    pool = pool[pool["query_id"].isin(queries)].reset_index(drop=True)
    truth = pool.merge(test_set.judgments[["query_id", "passage_id", "grade"]].astype(
        {"query_id": str, "passage_id": str}), on=["query_id", "passage_id"], how="left")
    people = rescale(truth["grade"].fillna(0).to_numpy(np.int64), top_p, top_j)
    cum = conf.cumsum(axis=1)[people]
    drawn = (rng.random(len(people))[:, None] > cum).sum(axis=1).clip(0, top_j)
    if boost:
        keys = pd.MultiIndex.from_frame(pool)
        retrieved = {c: keys.isin(pd.MultiIndex.from_frame(t)) for c, t in tops.items()}
        for config, p in boost.items():
            only = retrieved[config] & ~np.any([v for c, v in retrieved.items() if c != config],
                                               axis=0)
            lift = only & (rng.random(len(pool)) < p)
            drawn = np.where(lift, np.minimum(drawn + 1, top_j), drawn)
    grade = rescale(drawn, top_j, top_p)
    return validate_judgments(pool.assign(grade=grade), f"judge {name}")


def hide_queries(test_set: TestSet, share: float, rng: np.random.Generator) -> TestSet:
    """``test_set`` with the people's labels of a random ``share`` of its queries removed
    (whole queries, drawn without replacement; the judge's labels, if any, kept).
    """
    from dataclasses import replace

    q = test_set.query_ids.astype(str).to_numpy()
    hidden = set(rng.choice(q, size=int(round(share * len(q))), replace=False))
    keep = ~test_set.judgments["query_id"].astype(str).isin(hidden).to_numpy()
    return replace(test_set, judgments=test_set.judgments[keep].reset_index(drop=True),
                   queries=test_set.queries[~test_set.queries["query_id"].astype(str)
                                            .isin(hidden)].reset_index(drop=True))
