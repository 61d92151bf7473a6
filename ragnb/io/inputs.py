"""Test sets and runs from whatever the caller holds: a path, a DataFrame or a dict.

The Python API accepts, wherever it takes a test set or a run:

- a path (any supported file format, :func:`ragnb.io.read_test_set` /
  :func:`ragnb.io.read_run`);
- a pandas DataFrame in long form (test set: ``query_id, passage_id, grade``
  and optionally ``doc_version``; run: ``query_id, passage_id`` and ``rank``
  and/or ``score``);
- a dict of dicts, the pytrec_eval / ranx shape: qrels ``{query_id:
  {passage_id: grade}}``, run ``{query_id: {passage_id: score}}`` (a run dict
  may also map a query to a ranked list of passage ids).

Tables are validated by the same functions as files
(:func:`ragnb.io.testset.validate_judgments`, :func:`ragnb.io.run.validate_run`);
errors name the table (``DataFrame <name>``), the row and what is wrong.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.run import Order, Run, validate_run
from ragnb.io.runs import RunFile, read_run
from ragnb.io.testset import TestSet, validate_judgments
from ragnb.io.testsets import _queries_of, read_test_set


def _describe(obj: Any) -> str:
    return type(obj).__name__


def _rows(df: pd.DataFrame) -> pd.DataFrame:
    """The table with a 1-based ``line`` column (row numbers, for error messages)."""
    return df.reset_index(drop=True).assign(line=np.arange(1, len(df) + 1))


def _require_columns(df: pd.DataFrame, needed: tuple[str, ...], source: str, what: str) -> None:
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise InputError(f"a {what} table needs columns {listed(list(needed), most=20)}; missing "
                         f"{listed(missing, most=20)} "
                         f"(found {listed(list(map(str, df.columns)), most=20)})", source=source)


def as_test_set(obj: Any, *, name: str | None = None, format: str = "auto") -> TestSet:
    """A :class:`~ragnb.io.testset.TestSet` from a path, a long DataFrame or a qrels dict."""
    if isinstance(obj, TestSet):
        return obj
    if isinstance(obj, (str, Path)):
        return read_test_set(obj, name=name, format=format)
    name = name or "test set"
    if isinstance(obj, pd.DataFrame):
        source = f"DataFrame {name}"
        _require_columns(obj, ("query_id", "passage_id", "grade"), source, "test-set")
        df = _rows(obj[[c for c in ("query_id", "passage_id", "grade", "doc_version")
                        if c in obj.columns]])
    elif isinstance(obj, Mapping):
        source = f"dict {name}"
        rows = []
        for qid, judged in obj.items():
            if not isinstance(judged, Mapping):
                raise InputError(f"query {qid!r} must map to {{passage_id: grade}}, got "
                                 f"{_describe(judged)}", source=source, key=str(qid))
            rows += [(str(qid), str(pid), grade) for pid, grade in judged.items()]
        if not rows:
            raise InputError("no judgments", source=source)
        df = _rows(pd.DataFrame(rows, columns=["query_id", "passage_id", "grade"]))
    else:
        raise InputError(f"a test set must be a path, a DataFrame or a dict "
                         f"{{query_id: {{passage_id: grade}}}}, got {_describe(obj)}",
                         source=name)
    if not len(df):
        raise InputError("no judgments", source=source)
    judgments = validate_judgments(df, source)
    return TestSet(queries=_queries_of(judgments), judgments=judgments, name=name,
                   source=source)


def as_run(obj: Any, *, name: str | None = None, order: Order | None = None,
           format: str = "auto") -> Run:
    """A :class:`~ragnb.io.run.Run` from a path, a :class:`~ragnb.io.runs.RunFile`, a long
    DataFrame or a run dict.
    """
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, RunFile):
        return obj.read()
    if isinstance(obj, (str, Path)):
        return read_run(obj, name=name, order=order, format=format)
    name = name or "run"
    if isinstance(obj, pd.DataFrame):
        source = f"DataFrame {name}"
        _require_columns(obj, ("query_id", "passage_id"), source, "run")
        if not ({"rank", "score"} & set(obj.columns)):
            raise InputError("a run table needs a rank and/or a score column "
                             f"(found "
                             f"{listed(list(map(str, obj.columns)), most=20)})", source=source)
        df = _rows(obj[[c for c in ("query_id", "passage_id", "rank", "score")
                        if c in obj.columns]])
    elif isinstance(obj, Mapping):
        source = f"dict {name}"
        qids, pids, ranks, scores = [], [], [], []
        for qid, ranking in obj.items():
            if isinstance(ranking, Mapping):
                for pid, s in ranking.items():
                    if isinstance(s, bool) or not isinstance(s, (int, float, np.number)):
                        raise InputError(f"score {s!r} of passage {pid!r} is not a number",
                                         source=source, key=str(qid))
                    qids.append(str(qid))
                    pids.append(str(pid))
                    ranks.append(np.nan)
                    scores.append(float(s))
            elif isinstance(ranking, (list, tuple)):
                for r, pid in enumerate(ranking, start=1):
                    qids.append(str(qid))
                    pids.append(str(pid))
                    ranks.append(float(r))
                    scores.append(np.nan)
            else:
                raise InputError(f"query {qid!r} must map to {{passage_id: score}} or a list "
                                 f"of passage ids, got {_describe(ranking)}", source=source,
                                 key=str(qid))
        df = _rows(pd.DataFrame({"query_id": qids, "passage_id": pids, "rank": ranks,
                                 "score": scores}))
    else:
        raise InputError(f"a run must be a path, a DataFrame or a dict "
                         f"{{query_id: {{passage_id: score}}}}, got {_describe(obj)}", source=name)
    if not len(df):
        raise InputError("the run has no rows", source=source)
    return validate_run(df, source, order=order, name=name)
