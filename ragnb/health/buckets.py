"""Intent buckets: how many queries each holds, how a config scores in each, and whether
a bucket is large enough to see the difference that matters.

Seed 004: compare configurations per intent bucket, with enough queries per
bucket that a 5-point difference is visible above the noise. For each bucket
(the values of a query field, e.g. ``intent``; queries without a value form
the ``unclassified`` bucket, :func:`ragnb.io.strata.assign_strata`):

- the config's mean with a percentile bootstrap interval
  (:func:`ragnb.stats.unpaired.bootstrap_mean`, seed derived per bucket with
  :func:`ragnb.stats.child_seed`, so buckets do not share draws);
- the standard deviation that decides power, ``sd_diff``: with a
  ``baseline``, the SD of the per-query differences config - baseline in the
  bucket (what a paired comparison of the two would face); without one,
  ``sqrt(2) x`` the SD of the config's scores (two configs compared on the same
  queries with uncorrelated per-query scores: an overestimate when, as usual,
  they are positively correlated, so the warning errs on the side of caution);
  With a baseline the SD is floored as in :mod:`ragnb.stats.interval` (by
  an upper bound on the share of queries that differ), so a bucket whose
  differences merely happen to be all 0 is not read as certain;
- the minimum detectable effect at 80% power and two-sided alpha 0.05,
  ``MDE = (t_.975 + t_.8) x sd_diff / sqrt(n)``, df ``n - 1``
  (:func:`ragnb.stats.interval.t_mde`; 2.80 for large n), and the
  queries needed to detect ``target`` (:func:`ragnb.stats.queries_needed`,
  t quantiles); ``too_small`` when ``n`` is below that.
"""
from __future__ import annotations

import math

import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.strata import assign_strata
from ragnb.io.testset import TestSet
from ragnb.metrics.score import Scores
from ragnb.stats import child_seed, queries_needed
from ragnb.stats.interval import floored_sd, t_mde
from ragnb.stats.unpaired import bootstrap_mean
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

ALL = "all queries"


def buckets_of(test_set: TestSet, column: str = "intent") -> pd.Series:
    """Bucket label per query id from a query field (``unclassified`` where empty)."""
    labels, _ = assign_strata(test_set.queries, test_set.query_ids, column,
                              source=test_set.source or test_set.name)
    return labels


def bucket_sizes(buckets: pd.Series) -> pd.DataFrame:
    """``bucket, n, share``, largest first (ties by name)."""
    counts = buckets.value_counts()
    table = pd.DataFrame({"bucket": counts.index.astype(str), "n": counts.to_numpy()})
    table = table.sort_values(["n", "bucket"], ascending=[False, True], kind="stable")
    table["share"] = table["n"] / table["n"].sum()
    return table.reset_index(drop=True)


def bucket_scores(scores: Scores, buckets: pd.Series, *, config: str, metric: str,
                  baseline: str | None = None, target: float = 0.05, ci: float = 0.95,
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Per-bucket mean of one config with its interval, and whether the bucket can see ``target``.

    Parameters
    ----------
    scores : Scores
        Per-query scores holding ``config`` (and ``baseline``) for ``metric``.
    buckets : Series
        Bucket label per query id (:func:`buckets_of`); every scored query needs one.
    config : str
        The configuration whose scores are shown.
    metric : str
    baseline : str, optional
        A second configuration: the power columns then use the SD of the paired
        differences ``config - baseline`` (see the module docstring).
    target : float
        The difference a bucket must be able to detect (0.05 = 5 points).
    ci, resamples, seed
        Bootstrap settings; bucket ``b`` uses ``child_seed(seed, b)``.

    Returns
    -------
    DataFrame
        ``bucket, n, mean, ci_low, ci_high, sd_diff, mde, needed, too_small``,
        buckets largest first, then a row for all queries together.
    """
    if not target > 0:
        raise InputError(f"`target` must be > 0, got {target!r}", key="target")
    values = scores.values(config, metric)
    base = scores.values(baseline, metric) if baseline else None
    labels = buckets.copy()
    labels.index = labels.index.astype("str")
    missing = values.index.difference(labels.index)
    if len(missing):
        raise InputError(f"{len(missing)} scored quer{'y has' if len(missing) == 1 else 'ies have'}"
                         f" no bucket, e.g. {listed(list(missing[:5]), most=20)}", key="buckets")
    labels = labels.reindex(values.index)
    groups = [(b, labels.index[labels == b]) for b in bucket_sizes(labels)["bucket"]]
    groups.append((ALL, values.index))
    rows = []
    for bucket, ids in groups:
        v = values.loc[ids].to_numpy(dtype=float)
        n = len(v)
        if base is not None:
            d = v - base.loc[ids].to_numpy(dtype=float)
            sd = floored_sd(d) if n > 1 else math.nan  # observed zeros are not certainty
        else:
            sd = math.sqrt(2) * float(v.std(ddof=1)) if n > 1 else math.nan
        if n >= 2:
            m = bootstrap_mean(v, resamples=resamples, seed=child_seed(seed, bucket), ci=ci)
            low, high = m.ci_low, m.ci_high
        else:
            low = high = math.nan
        needed = queries_needed(sd, target) if n > 1 else math.inf
        rows.append({"bucket": bucket, "n": n, "mean": float(v.mean()) if n else math.nan,
                     "ci_low": low, "ci_high": high, "sd_diff": sd,
                     "mde": t_mde(sd / math.sqrt(n), n) if n > 1 else math.inf,
                     "needed": needed, "too_small": bool(n < needed)})
    return pd.DataFrame(rows)


def describe_buckets(metric: str, config: str, baseline: str | None, target: float,
                     resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                     ci: float = 0.95) -> str:
    """How :func:`bucket_scores` made its columns, in one paragraph."""
    sd = (f"the SD of the per-query differences {config} - {baseline} (floored by an upper "
          f"bound on the share of queries that differ)" if baseline else
          f"sqrt(2) x the SD of {config}'s scores (no baseline: uncorrelated configs assumed)")
    return (f"mean {metric} of {config} per bucket, {ci:.0%} percentile bootstrap CI "
            f"({resamples:,} resamples of each bucket, seeds derived from {seed}); "
            f"MDE = (t_.975 + t_.8, df n - 1) x sd_diff / sqrt(n) (80% power, two-sided alpha "
            f"0.05) with sd_diff = "
            f"{sd}; too small when n < the queries needed to detect {target * 100:g} points "
            "(t quantiles)")
