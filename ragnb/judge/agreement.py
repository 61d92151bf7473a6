"""How good is the judge? Its grades against people's on the pairs both labelled.

Every figure is over the overlap (pairs with a grade from people and from the judge):

- the confusion matrix ``C[i, j]``: pairs people graded ``i`` and the judge ``j``;
- exact agreement ``tr(C) / n``;
- quadratic-weighted Cohen's κ (Cohen 1968): ``κ = 1 − Σ w·C / Σ w·E`` with
  ``w[i, j] = (i − j)²`` and ``E = C·1 1ᵀ·C / n`` (the counts independent raters give),
  with a percentile interval from resampling whole queries (pairs of one query are not
  independent), seeded;
- binary precision ``TP / judge relevant`` and recall ``TP / people relevant`` at the
  relevance level (grade ≥ level is relevant);
- the judge's bias per people grade (mean judge − people grade, shares over and under);
- agreement per query and per stratum, and on the passages only one config retrieves
  (does the judge favour the challenger's passages? seed 003's direction of bias).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.io.judges import PEOPLE, judge_of, pair_keys, paired_grades
from ragnb.io.keys import block_codes
from ragnb.io.testset import TestSet
from ragnb.vocab import DEFAULT_SEED

#: Resamples and seed of κ's interval unless given.
RESAMPLES = 2000
SEED = DEFAULT_SEED


def quadratic_kappa(confusion: np.ndarray) -> float:
    """Quadratic-weighted κ of a square confusion matrix (NaN when it is undefined:
    every pair in one grade on both sides gives ``Σ w·E = 0``).
    """
    c = np.asarray(confusion, dtype=np.float64)
    return float(_kappas(c[None])[0])


def _kappas(c: np.ndarray) -> np.ndarray:
    """κ of each matrix in a stack ``(B, K, K)``."""
    k = c.shape[-1]
    w = (np.arange(k)[:, None] - np.arange(k)[None, :]) ** 2.0
    n = c.sum(axis=(1, 2))
    expected = c.sum(axis=2)[:, :, None] * c.sum(axis=1)[:, None, :] / np.where(n, n, 1)[:, None,
                                                                                        None]
    observed = (w * c).sum(axis=(1, 2))
    chance = (w * expected).sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(chance > 0, 1.0 - observed / np.where(chance > 0, chance, 1), np.nan)


@dataclass(frozen=True)
class Agreement:
    """The judge measured against people (see the module docstring).

    Attributes
    ----------
    judge : str
    pairs : DataFrame
        ``query_id, passage_id, people, judge``: the overlap.
    confusion : DataFrame
        Counts, people's grade (rows) × the judge's (columns).
    exact, kappa, precision, recall : float
    kappa_interval : (float, float)
        Percentile interval of κ over ``resamples`` query resamples (seed ``seed``).
    level : int
        The relevance level of precision and recall.
    by_grade, by_query : DataFrame
        Bias per people grade; agreement per query.
    by_stratum, by_config : DataFrame or None
        Agreement per stratum; on passages only one config retrieves.
    counts : mapping
        ``people``, ``judge`` (labels each side), ``both`` (the overlap), ``judge_only``,
        ``people_only`` pairs; ``queries_both``, ``judge_only_queries``.
    """

    judge: str
    pairs: pd.DataFrame
    confusion: pd.DataFrame
    exact: float
    kappa: float
    kappa_interval: tuple[float, float]
    precision: float
    recall: float
    level: int
    by_grade: pd.DataFrame
    by_query: pd.DataFrame
    counts: Mapping[str, int]
    resamples: int
    seed: int
    alpha: float = 0.05
    by_stratum: pd.DataFrame | None = None
    by_config: pd.DataFrame | None = None
    identical: bool = False
    method: str = field(default="")


def agreement(test_set: TestSet, *, level: int = 1, strata: pd.DataFrame | None = None,
              by: str = "", topk: Mapping[str, pd.DataFrame] | None = None,
              configs: Sequence[str] = (), resamples: int = RESAMPLES, seed: int = SEED,
              alpha: float = 0.05) -> Agreement:
    """The judge of ``test_set`` against its people, on the pairs both labelled.

    Parameters
    ----------
    test_set : TestSet
        People's labels with the judge's beside them (:func:`ragnb.judge.attach_judge`).
    level : int
        Least grade that counts as relevant for precision and recall.
    strata, by : DataFrame and column, optional
        Agreement per stratum of ``by`` (``query_id`` plus the column).
    topk : mapping config -> DataFrame, optional
        Each config's retrieved pairs (``query_id, passage_id``, its top k); with two
        ``configs`` (baseline, challenger), agreement on passages only each retrieves.
    resamples, seed, alpha : int, int, float
        κ's interval: ``resamples`` resamples of whole queries, a
        :class:`numpy.random.Generator` seeded ``seed``, percentile ``1 − alpha``.

    Raises
    ------
    InputError
        No pair labelled by both (no agreement can be measured: naming both counts).
    """
    judge = judge_of(test_set)
    pairs = paired_grades(test_set)
    n_people, n_judge = len(test_set.judgments), len(judge.judgments)
    if pairs.empty:
        raise InputError(f"judge {judge.name!r} and people share no labelled pair "
                         f"({n_people} people's labels, {n_judge} judge's): nothing to measure "
                         "the judge against", source=judge.source, key="judge")
    k = int(max(test_set.top_grade, pairs["judge"].max(), level)) + 1
    p, j = pairs[PEOPLE].to_numpy(np.int64), pairs["judge"].to_numpy(np.int64)
    conf = np.zeros((k, k), dtype=np.int64)
    np.add.at(conf, (p, j), 1)
    n = len(pairs)
    qcodes, qids = block_codes(pairs["query_id"])
    per_query = np.zeros((len(qids), k * k))
    np.add.at(per_query, (qcodes, p * k + j), 1)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(len(qids), np.full(len(qids), 1.0 / len(qids)), size=resamples)
    boot = _kappas((weights @ per_query).reshape(resamples, k, k))
    boot = boot[np.isfinite(boot)]
    lo, hi = (np.quantile(boot, [alpha / 2, 1 - alpha / 2]) if len(boot) else (np.nan, np.nan))
    tp = int(((p >= level) & (j >= level)).sum())
    judged_rel, people_rel = int((j >= level).sum()), int((p >= level).sum())
    judge_q = pd.Index(pd.unique(judge.judgments["query_id"]))
    people_q = pd.Index(pd.unique(test_set.judgments["query_id"]))
    people_keys, judge_keys = pair_keys(test_set.judgments, judge.judgments)
    counts = {"people": n_people, "judge": n_judge, "both": n,
              "judge_only": int((~np.isin(judge_keys, people_keys)).sum()),
              "people_only": int((~np.isin(people_keys, judge_keys)).sum()),
              "queries_both": len(qids),
              "judge_only_queries": int((~judge_q.isin(people_q)).sum())}
    grades = pd.Index(range(k), name="people grade")
    return Agreement(
        judge=judge.name, pairs=pairs,
        confusion=pd.DataFrame(conf, index=grades,
                               columns=pd.Index(range(k), name="judge grade")),
        exact=float(np.trace(conf) / n), kappa=quadratic_kappa(conf),
        kappa_interval=(float(lo), float(hi)),
        precision=tp / judged_rel if judged_rel else float("nan"),
        recall=tp / people_rel if people_rel else float("nan"), level=level,
        by_grade=_by_grade(pairs, k), by_query=_groups(pairs, "query_id"),
        by_stratum=_by_stratum(pairs, strata, by),
        by_config=_by_config(pairs, topk, configs) if topk and len(configs) == 2 else None,
        counts=counts, resamples=resamples, seed=seed, alpha=alpha,
        identical=bool(counts["judge_only"] == 0 and counts["people_only"] == 0
                       and np.trace(conf) == n),
        method=(f"{n:,} pairs labelled by both on {len(qids)} queries; quadratic-weighted "
                f"Cohen's κ with a {1 - alpha:.0%} percentile interval from {resamples:,} "
                f"resamples of whole queries (numpy Generator, seed {seed}); precision and "
                f"recall at grade ≥ {level}"))


def _summary(g: pd.DataFrame) -> dict[str, Any]:
    diff = g["judge"] - g[PEOPLE]
    return {"pairs": len(g), "exact": float((diff == 0).mean()), "bias": float(diff.mean()),
            "over": float((diff > 0).mean()), "under": float((diff < 0).mean())}


def _groups(pairs: pd.DataFrame, key: str) -> pd.DataFrame:
    diff = pairs["judge"] - pairs[PEOPLE]
    frame = pd.DataFrame({key: pairs[key].to_numpy(), "exact": (diff == 0).to_numpy(float),
                          "bias": diff.to_numpy(float), "over": (diff > 0).to_numpy(float),
                          "under": (diff < 0).to_numpy(float)})
    g = frame.groupby(key, sort=False, observed=True)
    out = g.mean()
    out.insert(0, "pairs", g.size())
    return out.reset_index()


def _by_grade(pairs: pd.DataFrame, k: int) -> pd.DataFrame:
    rows = []
    for grade in range(k):
        g = pairs[pairs[PEOPLE] == grade]
        if len(g):
            rows.append({"people grade": grade, **_summary(g),
                         "judge mean": float(g["judge"].mean())})
    return pd.DataFrame(rows)


def _by_stratum(pairs: pd.DataFrame, strata: pd.DataFrame | None, by: str
                ) -> pd.DataFrame | None:
    if strata is None or not by or by not in strata:
        return None
    lookup = strata.drop_duplicates("query_id").set_index("query_id")[by]
    tagged = pairs.assign(stratum=pairs["query_id"].astype(str).map(lookup.astype(str))
                          .fillna("(none)"))
    out = _groups(tagged, "stratum")
    queries = tagged.groupby("stratum", sort=False)["query_id"].nunique()
    out.insert(1, "queries", out["stratum"].map(queries).to_numpy())
    return out.rename(columns={"stratum": by}).sort_values(by, kind="stable"
                                                            ).reset_index(drop=True)


def _by_config(pairs: pd.DataFrame, topk: Mapping[str, pd.DataFrame], configs: Sequence[str]
               ) -> pd.DataFrame:
    """Agreement on the passages only the baseline retrieves, only the challenger, both."""
    base, chal = configs
    at, a, b = pair_keys(pairs, topk[base], topk[chal])
    in_a, in_b = np.isin(at, a), np.isin(at, b)
    rows = []
    for where, mask in ((f"only {base}", in_a & ~in_b), (f"only {chal}", in_b & ~in_a),
                        ("both", in_a & in_b)):
        g = pairs[mask]
        row = {"passages": where, **(_summary(g) if len(g) else
                                     {"pairs": 0, "exact": np.nan, "bias": np.nan,
                                      "over": np.nan, "under": np.nan})}
        rows.append(row)
    return pd.DataFrame(rows)
