"""Estimates that carry the judge's error: people only, judge only (biased) and
prediction-powered (PPI++).

The sampling design is **queries**: people judged a random sample ``L`` of the queries
(``n`` of them; a query's passages they left unjudged count as not relevant, as in every
people-only figure) and the judge labelled the others ``U`` (``m``), and the ones in
``L`` too, so its error is measured on ``L``. For each query, ``y`` is the metric (or a
paired difference) under people's labels and ``f`` under the judge's alone.

- **people only**: ``ȳ_L ± t_{n−1} s_y / √n``.
- **judge only**: ``f̄ ± t_{N−1} s_f / √N`` over every query: the judge's error is in
  it and unmeasured, so it is always named *biased*.
- **PPI++** (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, *Science* 2023;
  power-tuned, Angelopoulos, Duchi & Zrnic 2023): ``θ̂ = λ f̄_U + (ȳ_L − λ f̄_L)``, with
  variance ``V(λ) = λ² s²_{f,U} / m + s²_{y−λf,L} / n``; ``λ`` minimises the estimated
  ``V``: ``λ = (c_L / n) / (s²_{f,U}/m + s²_{f,L}/n)`` with ``c_L`` the covariance of
  ``y`` and ``f`` on ``L`` (``λ = 0`` is people only). The interval is ``θ̂ ± t_ν √V``
  with Welch–Satterthwaite's ``ν`` (the two terms are estimated from ``m`` and ``n``
  queries), valid whatever the judge's error when ``L`` is a random sample of the queries.
  Small-sample corrections, because ``λ`` is fitted on the same ``n`` queries: it is shrunk
  by ``n / (n + 4)``, and the rectifier's variance and degrees of freedom lose one more
  (``n − 2``). Without them 95% intervals cover 90–92% at ``n = 10`` on real-shaped data;
  with them 93–95.5% (``benchmarks/sim_judge.py``).

The estimand is the mean over the population the queries were drawn from (as every
bootstrap interval of ragnb), so it also covers the mean over these queries had people
judged them all.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats

from ragnb.errors import InputError, listed
from ragnb.io.judges import judge_of
from ragnb.io.testset import Note, TestSet

ESTIMATORS = ("people only", "judge only (biased)", "PPI++")
#: Refuse PPI when the labelled queries' judge scores differ from the others' this clearly
#: (Mann–Whitney, two-sided): the people-labelled queries are then not a random sample.
RANDOM_P = 0.01
#: ... or when people judged less than this share of the pairs the judge labelled in their
#: queries' top k (people judged part of each query, e.g. only the top ranks).
PEOPLE_SHARE = 0.5
#: Small-sample shrinkage of the fitted lambda towards 0 (people only): ``n / (n + SHRINK)``.
SHRINK = 4
DESIGN = ("people judged a random sample of whole queries (their unjudged passages count as "
          "not relevant) and the judge labelled every query")


def ppi_mean(y: np.ndarray, f_labelled: np.ndarray, f_unlabelled: np.ndarray, *,
             alpha: float = 0.05, tuned: bool = True) -> dict[str, float]:
    """PPI++ estimate and interval of a mean (module docstring).

    Parameters
    ----------
    y, f_labelled : arrays of length n
        People's value and the judge's on the people-labelled units.
    f_unlabelled : array of length m
        The judge's value on the other units.
    tuned : bool
        Power-tuned ``λ`` (PPI++); False: ``λ = 1`` (PPI).

    Returns
    -------
    dict
        ``estimate, low, high, se, lam, df, n, m``.
    """
    y, fl, fu = (np.asarray(a, dtype=np.float64) for a in (y, f_labelled, f_unlabelled))
    n, m = len(y), len(fu)
    if n < 3 or m < 2 or len(fl) != n:
        raise InputError(f"PPI needs at least 3 people-labelled and 2 judge-only units with a "
                         f"judge value on each labelled one; got n = {n}, m = {m}", key="ppi")
    s_u, s_l = fu.var(ddof=1), fl.var(ddof=1)
    c = np.cov(y, fl, ddof=1)[0, 1]
    denominator = s_u / m + s_l / n
    # tuned: the plug-in optimum, shrunk by n / (n + SHRINK) as it is fitted on these n
    optimum = (c / n) / denominator * n / (n + SHRINK) if denominator > 0 else 0.0
    lam = optimum if tuned else 1.0
    r = y - lam * fl
    lost = 2 if tuned else 1  # degrees of freedom: the mean, and lambda when fitted
    a, b = lam * lam * s_u / m, r.var(ddof=lost) / n
    v = a + b
    df = (v * v / ((a * a / (m - 1) if a else 0.0) + (b * b / (n - lost) if b else 0.0))
          if v > 0 else float(n - lost))
    estimate = lam * fu.mean() + r.mean()
    half = stats.t.ppf(1 - alpha / 2, df) * np.sqrt(v)
    return {"estimate": float(estimate), "low": float(estimate - half),
            "high": float(estimate + half), "se": float(np.sqrt(v)), "lam": float(lam),
            "df": float(df), "n": n, "m": m}


def t_mean(values: np.ndarray, *, alpha: float = 0.05) -> dict[str, float]:
    """Student's t interval of a mean: ``x̄ ± t_{n−1} s / √n``."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    se = x.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    half = stats.t.ppf(1 - alpha / 2, n - 1) * se if n > 1 else np.nan
    mean = float(x.mean()) if n else np.nan
    return {"estimate": mean, "low": mean - half, "high": mean + half, "se": float(se),
            "lam": np.nan, "df": float(n - 1), "n": n, "m": 0}


@dataclass(frozen=True)
class JudgedEstimates:
    """People only, judge only (biased) and PPI++ for each run's mean and each difference.

    Attributes
    ----------
    table : DataFrame
        ``quantity`` (a config, or ``challenger − baseline``), ``kind`` (mean,
        difference), ``estimator`` (:data:`ESTIMATORS`), ``estimate, low, high, se, lam,
        n, m``; metric values 0-1.
    values : DataFrame
        Per query: ``query_id, config, people`` (NaN off ``L``), ``judge``, ``labelled``.
    refused : str
        Why PPI is not given (one line), or ``""``.
    design : str
        The sampling design the estimates assume.
    """

    metric: str
    judge: str
    baseline: str
    table: pd.DataFrame
    values: pd.DataFrame
    n_labelled: int
    n_judge_only: int
    design: str
    refused: str = ""
    people_share: float = float("nan")
    random_p: float = float("nan")
    alpha: float = 0.05
    notes: tuple[Note, ...] = field(default=())

    def difference(self, challenger: str, estimator: str) -> pd.Series:
        """The row of ``challenger − baseline`` under ``estimator``."""
        t = self.table
        rows = t[(t["kind"] == "difference") & (t["quantity"] == challenger)
                 & (t["estimator"] == estimator)]
        if rows.empty:
            raise InputError(f"no {estimator} difference for {challenger!r}", key=challenger)
        return rows.iloc[0]


def judged_estimates(test_set: TestSet, runs: Sequence, metric: str, *, baseline: str,
                     k: int = 10, alpha: float = 0.05, missing: str = "error",
                     extra: str = "error") -> JudgedEstimates:
    """Each run's mean and each difference from ``baseline``, three ways (module docstring).

    ``runs`` are :class:`~ragnb.io.run.Run` objects of the test set's queries and the
    judge's; ``missing`` and ``extra`` are the workspace's rules for queries a run lacks and
    run queries neither people nor the judge labelled. ``k`` is the depth at which the
    people's share of the judge's pairs is measured.
    """
    from ragnb.metrics.score import score

    judge = judge_of(test_set)
    people_q = pd.Index(test_set.query_ids.astype(str))
    judge_q = pd.Index(pd.unique(judge.judgments["query_id"].astype(str)))
    union = people_q.append(judge_q[~judge_q.isin(people_q)])
    runs = list(runs)
    configs = [r.name for r in runs]
    if baseline not in configs:
        raise InputError(f"no run of the baseline {baseline!r}; runs: "
                         f"{listed(configs, most=20)}", key="baseline")
    notes: list[Note] = []
    outside = sorted({str(q) for r in runs for q in r.query_ids} - set(union))
    if outside and extra == "error":
        raise InputError(f"{len(outside)} run queries are labelled neither by people nor by "
                         f"judge {judge.name!r}, e.g. "
                         f"{listed(outside[:3], most=20)} ([workspace] extra = "
                         "\"drop\" leaves them out, counted)", key="extra")
    if outside:
        notes.append(Note("unlabelled_queries", len(outside),
                          "run queries neither people nor the judge labelled: left out"))
    whole = TestSet(queries=pd.DataFrame({"query_id": union.astype(str)}),
                    judgments=judge.judgments, name=f"{test_set.name} (judge {judge.name})",
                    source=judge.source)
    f = score(whole, runs, metric, missing=missing, extra="drop").table
    # people's labels score only their queries: the runs cut to them first (same values)
    mine = [replace(r, table=r.table[r.table["query_id"].isin(people_q).to_numpy()])
            for r in runs]
    y = score(test_set, mine, metric, missing=missing, extra="drop").table
    values = f.rename(columns={"value": "judge"}).merge(
        y.rename(columns={"value": "people"})[["config", "query_id", "people"]],
        on=["config", "query_id"], how="left")
    values["labelled"] = values["query_id"].astype(str).isin(people_q)
    wide_f = values.pivot(index="query_id", columns="config", values="judge")[configs]
    wide_y = values.pivot(index="query_id", columns="config", values="people")[configs]
    labelled = wide_f.index.astype(str).isin(people_q)
    n, m = int(labelled.sum()), int((~labelled).sum())
    share = _people_share(test_set, mine, k)
    refused = ""
    p = float("nan")
    if n < 3:
        refused = f"only {n} people-labelled queries: PPI needs at least 3"
    elif m < 2:
        refused = (f"{m} queries only the judge labelled: people judged (nearly) every query, "
                   "so PPI has nothing to add to people only")
    else:
        p = float(stats.mannwhitneyu(wide_f.loc[labelled, baseline],
                                     wide_f.loc[~labelled, baseline]).pvalue)
        if share < PEOPLE_SHARE:
            refused = (f"people judged {share:.0%} of the pairs the judge labelled in their "
                       f"queries' top {k}: not whole queries, so the people-labelled set is "
                       "not a random sample of the evaluated units (the bounds decide)")
        elif p < RANDOM_P:
            refused = (f"the people-labelled queries are not like the others (judge-scored "
                       f"{baseline} medians {wide_f.loc[labelled, baseline].median():.3f} vs "
                       f"{wide_f.loc[~labelled, baseline].median():.3f}, Mann–Whitney p = "
                       f"{p:.2g}): not a random sample (the bounds decide)")
    rows = []

    def add(quantity: str, kind: str, yl: np.ndarray, fl: np.ndarray, fu: np.ndarray) -> None:
        people = t_mean(yl, alpha=alpha)
        judged = t_mean(np.concatenate([fl, fu]), alpha=alpha)
        rows.append({"quantity": quantity, "kind": kind, "estimator": ESTIMATORS[0], **people})
        rows.append({"quantity": quantity, "kind": kind, "estimator": ESTIMATORS[1], **judged,
                     "m": len(fu)})
        if not refused:
            rows.append({"quantity": quantity, "kind": kind, "estimator": ESTIMATORS[2],
                         **ppi_mean(yl, fl, fu, alpha=alpha)})

    for c in configs:
        add(c, "mean", wide_y.loc[labelled, c].to_numpy(), wide_f.loc[labelled, c].to_numpy(),
            wide_f.loc[~labelled, c].to_numpy())
    for c in configs:
        if c == baseline:
            continue
        dy = (wide_y[c] - wide_y[baseline])[labelled].to_numpy()
        df = wide_f[c] - wide_f[baseline]
        add(c, "difference", dy, df[labelled].to_numpy(), df[~labelled].to_numpy())
    return JudgedEstimates(metric, judge.name, baseline, pd.DataFrame(rows), values, n, m,
                           DESIGN, refused, share, p, alpha, tuple(notes))


def _people_share(test_set: TestSet, runs: Sequence, k: int) -> float:
    """Of the judge's labelled pairs in the runs' top ``k`` on people's queries, the share
    people judged too (1 when people judged every pair the judge did there).
    """
    judge = judge_of(test_set)
    people_q = set(test_set.query_ids.astype(str))
    from ragnb.io.judges import pair_keys, top_pairs

    top = pd.concat([top_pairs(r, k) for r in runs])
    top = top[top["query_id"].isin(people_q)]
    at, by_j, by_p = pair_keys(top, judge.judgments, test_set.judgments)
    at = np.unique(at)
    by_judge, by_people = np.isin(at, by_j), np.isin(at, by_p)
    return float((by_judge & by_people).sum() / by_judge.sum()) if by_judge.any() else 1.0
