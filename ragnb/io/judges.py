"""A model judge's labels beside the people's: read, checked against the people's scale,
and paired pair by pair.

ragnb never calls a model: it reads the labels a judge wrote (UMBRELA and the LLMJudge
2024 submissions write TREC qrels), in any test-set format, through the one validated
reader (:func:`ragnb.io.as_test_set`). The judge's labels ride on the people's test set
(:attr:`ragnb.io.testset.TestSet.judge`) and are never merged into its judgments: a
pair labelled by both keeps both grades (:meth:`~ragnb.io.testset.TestSet.labelled_by`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from ragnb.errors import InputError
from ragnb.io.testset import TestSet

#: The labeller name of the people's grades.
PEOPLE = "people"


def attach_judge(test_set: TestSet, judge: Any, *, name: str = "judge", format: str = "auto"
                 ) -> TestSet:
    """``test_set`` with a model judge's labels beside its own.

    Parameters
    ----------
    test_set : TestSet
        The people's labels.
    judge : path, DataFrame, qrels dict or TestSet
        The judge's labels, read and validated like any test set (a grade that is not a
        non-negative integer, or a pair given twice, is an error naming file and line).
    name : str
        The judge's name (``"people"`` is refused: it names the human labels).

    Raises
    ------
    InputError
        A judge grade above the people's largest grade (naming the judge's file and
        line), or a judge file with no judgment at all.
    """
    from ragnb.io import as_test_set

    if name == PEOPLE:
        raise InputError("'people' names the human labels; give the judge another name",
                         key="judge")
    labels = as_test_set(judge, name=name, format=format)
    labels = replace(labels, name=name)
    check_scale(test_set, labels)
    return replace(test_set, judge=labels)


def check_scale(people: TestSet, judge: TestSet) -> None:
    """A judge grade above the people's largest grade is an error naming the judge's line:
    the two scales must be one for grades to be compared (map the judge's first).
    """
    top = people.top_grade
    j = judge.judgments
    above = (j["grade"] > top).to_numpy()
    if above.any():
        first = j.loc[above].iloc[0]
        raise InputError(
            f"judge {judge.name!r} gives grade {int(first['grade'])} (query "
            f"{first['query_id']}, passage {first['passage_id']}) but the people's grades go "
            f"from 0 to {top}: {int(above.sum())} judge label(s) are outside the people's "
            "scale; map the judge's grades onto it first", source=judge.source,
            line=int(first["line"]))


def judge_of(test_set: TestSet) -> TestSet:
    """The judge's labels of ``test_set``; an error naming the test set when it has none."""
    if test_set.judge is None:
        raise InputError(f"test set {test_set.name!r} has no model-judge labels "
                         "([test_sets.NAME] judge = \"FILE\", or ragnb init --judge NAME=FILE)",
                         source=test_set.source, key="judge")
    return test_set.judge


def paired_grades(test_set: TestSet) -> pd.DataFrame:
    """The pairs both people and the judge labelled: ``query_id, passage_id, people, judge``
    (people's order). Empty when the two share no pair.
    """
    judge = judge_of(test_set)
    left = test_set.judgments[["query_id", "passage_id", "grade"]]
    right = judge.judgments[["query_id", "passage_id", "grade"]]
    both = left.merge(right, on=["query_id", "passage_id"], how="inner",
                      suffixes=("_people", "_judge"))
    return both.rename(columns={"grade_people": PEOPLE, "grade_judge": "judge"})


def top_pairs(run: Any, k: int) -> pd.DataFrame:
    """``query_id, passage_id`` of ``run``'s top ``k`` of each query (its ranking order)."""
    from ragnb.io.keys import block_codes
    from ragnb.io.run import positions

    codes, _ = block_codes(run.table["query_id"])
    at = positions(codes) < k
    return run.table.loc[at, ["query_id", "passage_id"]].reset_index(drop=True)


def pair_keys(*frames: pd.DataFrame) -> list:
    """One int64 key per ``(query_id, passage_id)`` row of each frame, equal across frames for
    the same pair (pairs compared with :func:`numpy.isin` instead of string MultiIndexes).
    """
    import numpy as np

    sizes = [len(f) for f in frames]
    from ragnb.io.keys import ID_DTYPE

    q, _ = pd.factorize(pd.concat([f["query_id"].astype(ID_DTYPE) for f in frames],
                                  ignore_index=True))
    p, passages = pd.factorize(pd.concat([f["passage_id"].astype(ID_DTYPE) for f in frames],
                                         ignore_index=True))
    keys = q.astype(np.int64) * max(len(passages), 1) + p
    return np.split(keys, np.cumsum(sizes)[:-1])
