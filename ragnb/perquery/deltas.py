"""Per-query deltas and the rankings behind them, as tidy tables.

``delta = challenger - baseline`` per query, on one metric of a score table;
the sorts are by delta (losses first or wins first) or by its size.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.run import Run
from ragnb.io.strata import label_queries
from ragnb.io.testset import TestSet
from ragnb.metrics import parse_metric
from ragnb.metrics.score import Scores, per_query

#: Sort orders by name: (key column, ascending).
SORTS = {
    "losses first": ("delta", True),
    "wins first": ("delta", False),
    "largest |delta| first": ("abs_delta", False),
    "query id": ("query_id", True),
}
DELTA_COLUMNS = ["query_id", "stratum", "baseline", "challenger", "delta"]
UNJUDGED = "unjudged"


def _table(scores: Scores | pd.DataFrame) -> pd.DataFrame:
    t = scores.table if isinstance(scores, Scores) else scores
    missing = {"config", "query_id", "metric", "value"} - set(t.columns)
    if missing:
        raise InputError(f"a score table needs columns config, query_id, metric, value; "
                         f"missing {listed(sorted(missing))}", source="scores")
    return t


def query_deltas(scores: Scores | pd.DataFrame, *, baseline: str, challenger: str,
                 metric: str, strata: pd.Series | None = None, sort: str = "losses first",
                 stratum: str | None = None) -> pd.DataFrame:
    """One row per query: its stratum, both configs' values and ``delta`` (challenger - baseline).

    Parameters
    ----------
    strata : Series, optional
        ``query_id -> stratum``; queries without one are ``"unclassified"``.
    sort : str
        A key of :data:`SORTS`. Ties keep query id order.
    stratum : str, optional
        Keep only this stratum's queries.
    """
    if sort not in SORTS:
        raise InputError(f"sort must be one of {listed(SORTS, most=9)}, got {sort!r}", key="sort")
    t = _table(scores)
    metric = str(parse_metric(metric))
    t = t[t["metric"] == metric]
    if t.empty:
        raise InputError(f"metric {metric!r} is not in the score table", key=metric)
    b, c = (per_query(t, name, metric) for name in (baseline, challenger))
    ids = b.index.union(c.index).sort_values()
    out = pd.DataFrame({"query_id": ids.astype(str), "baseline": b.reindex(ids).to_numpy(),
                        "challenger": c.reindex(ids).to_numpy()})
    if out[["baseline", "challenger"]].isna().any(axis=None):
        bad = out.loc[out[["baseline", "challenger"]].isna().any(axis=1), "query_id"]
        raise InputError(f"{len(bad)} queries are scored for one config only, e.g. "
                         f"{listed(bad, most=3)}", key=str(bad.iloc[0]))
    out["delta"] = out["challenger"] - out["baseline"]
    if strata is not None:
        labels, _, _ = label_queries(pd.Series(strata), out["query_id"])
        out["stratum"] = labels.astype(str).to_numpy()
    else:
        out["stratum"] = "all"
    if stratum is not None:
        if stratum not in set(out["stratum"]):
            raise InputError(f"no query in stratum {stratum!r} (strata: "
                             f"{', '.join(sorted(set(out['stratum'])))})", key=stratum)
        out = out[out["stratum"] == stratum]
    key, ascending = SORTS[sort]
    out = out.assign(abs_delta=out["delta"].abs()).sort_values(
        [key, "query_id"], ascending=[ascending, True], kind="stable")
    out.attrs = {"metric": metric, "baseline": baseline, "challenger": challenger,
                 "sort": sort}
    return out[DELTA_COLUMNS].reset_index(drop=True)


def side_by_side(test_set: TestSet, runs: Sequence[Run] | Mapping[str, Run], query_id: str,
                 *, baseline: str, challenger: str, k: int = 10) -> pd.DataFrame:
    """The two configs' top ``k`` for one query, rank by rank, with grades.

    Columns ``rank``, then per config ``<config>`` (passage id), ``<config> grade``
    (the judged grade, or ``"unjudged"``) and ``<config> in other`` (whether the
    passage is also in the other config's top k).
    """
    by_name = {r.name: r for r in (runs.values() if isinstance(runs, Mapping) else runs)}
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}", key="k")
    j = test_set.judgments
    j = j[j["query_id"].astype(str) == str(query_id)]
    grades = dict(zip(j["passage_id"].astype(str), j["grade"]))
    tops = {}
    for name in (baseline, challenger):
        if name not in by_name:
            raise InputError(f"no run named {name!r} (runs: {', '.join(by_name)})", key=name)
        t = by_name[name].table
        tops[name] = list(t.loc[t["query_id"].astype(str) == str(query_id),
                                "passage_id"].astype(str)[:k])
    out = pd.DataFrame({"rank": np.arange(1, k + 1)})
    for name, other in ((baseline, challenger), (challenger, baseline)):
        ids = tops[name] + [""] * (k - len(tops[name]))
        out[name] = ids
        out[f"{name} grade"] = [(str(grades[p]) if p in grades else UNJUDGED) if p else ""
                                for p in ids]
        out[f"{name} in other"] = [("yes" if p in tops[other] else "no") if p else ""
                                   for p in ids]
    return out


def query_scores(scores: Scores | pd.DataFrame, query_id: str, *, baseline: str,
                 challenger: str) -> pd.DataFrame:
    """Every metric of the score table for one query: baseline, challenger, delta."""
    t = _table(scores)
    t = t[(t["query_id"].astype(str) == str(query_id))
          & t["config"].isin([baseline, challenger])]
    if t.empty:
        raise InputError(f"query {query_id!r} has no scores", key=str(query_id))
    wide = t.pivot(index="metric", columns="config", values="value")
    order = list(pd.unique(t["metric"]))
    wide = wide.loc[order]
    return pd.DataFrame({"metric": order, "baseline": wide[baseline].to_numpy(),
                         "challenger": wide[challenger].to_numpy(),
                         "delta": (wide[challenger] - wide[baseline]).to_numpy()})
