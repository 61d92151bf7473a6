"""From a labelled shard of the queries to the projected effect on the whole set.

Seed 003: labelling the pool of 43 of 164 queries (shard 1) moved KURE's MRR@10
by +0.0078 — a change in the mean *over all 164 queries*, to which only the 43
labelled ones contribute. With ``delta_i`` the change of query ``i``'s score
when its new labels are merged, ``N`` queries in all and ``n`` in the shard ``S``:

``effect_full = sum_{i in S} delta_i / N``
    what the shard did to the full-set mean (the seed's +0.0078);
``projected = mean_{i in S} delta_i = effect_full * N / n``
    the expected change of the full-set mean once every query is labelled, if
    the shard's queries are like the rest (the seed's 0.0078 x 164/43 = +0.0297).

Interval. The projection error is ``(N - n)/N`` times the difference between
the unlabelled queries' mean change and the shard's, whose variance under
simple random sampling of the shard is ``S^2 (1/n + 1/(N - n))``; so
``Var = (1 - n/N) S^2 / n``: the shard mean's variance with the finite
population correction (Cochran 1977, eq. 2.8). The interval is the paired
percentile bootstrap of the shard mean (resampling the shard's queries,
:func:`ragnb.stats.paired_bootstrap`) with its half-widths scaled by
``sqrt(1 - n/N)``. It assumes the shard is a random sample of queries; a shard
cut by topic or date can be unlike the rest, and no interval fixes that.

Lesson (seed 003, §7): a shard's share of new positives says little about the
metric — MRR moves a whole query from 0 to 0.5 on one positive. Judge by the
effect on the metric, which is what this table shows;
:func:`ragnb.labelbias.finding.shard_lesson` says it with the table's own figures.

Reference: Cochran, W. G. (1977). Sampling Techniques, 3rd ed. Wiley.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.run import Run
from ragnb.io.testset import TestSet
from ragnb.labelbias.merge import merge_judgments
from ragnb.labelbias.pool import ranked_by_every_run
from ragnb.metrics import parse_metric
from ragnb.metrics.score import score
from ragnb.stats import paired_bootstrap
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

SHARD_COLUMNS = ["config", "target", "n_shard", "n_total", "new_judgments", "new_relevant",
                 "share_relevant", "queries_changed", "mean_before", "mean_after", "effect_full",
                 "projected", "ci_low", "ci_high", "fpc", "resamples", "seed"]


def shard_effect(
    before: pd.DataFrame,
    after: pd.DataFrame,
    shard: Iterable[str],
    *,
    baseline: str | None = None,
    new_judgments: int | None = None,
    new_relevant: int | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
) -> pd.DataFrame:
    """Effect of a labelled shard on each config's mean, and its projection to all queries.

    Parameters
    ----------
    before, after : DataFrame
        Tidy per-query scores (``config, query_id, value``; one metric) on
        the full set, before and after merging the shard's labels.
    shard : iterable of str
        The labelled queries.
    baseline : str, optional
        Also project the change of each challenger's gain over this config
        (rows with ``target = "<config> - <baseline>"``).
    new_judgments, new_relevant : int, optional
        The shard's label counts, shown beside the effect (the lesson).

    Returns
    -------
    DataFrame
        :data:`SHARD_COLUMNS`, one row per config (and per gain).
    """
    b = before.pivot(index="query_id", columns="config", values="value")
    a = after.pivot(index="query_id", columns="config", values="value")
    if set(a.columns) != set(b.columns) or set(a.index) != set(b.index):
        raise InputError("before and after must score the same configs on the same queries",
                         key="after")
    a = a.reindex(index=b.index, columns=b.columns)
    ids = pd.Index(pd.unique(pd.Index(list(shard), dtype="str")))
    missing = ids.difference(b.index)
    if len(missing):
        raise InputError(f"{len(missing)} shard queries are not scored, e.g. "
                         f"{listed(list(missing[:5]), most=20)}", key="shard")
    n_total, n = len(b), len(ids)
    if n < 2:
        raise InputError(f"a shard needs at least 2 queries, got {n}", key="shard")
    fpc = 1.0 - n / n_total
    targets: list[tuple[str, str, pd.Series, pd.Series]] = [
        (c, c, b[c], a[c]) for c in b.columns]
    if baseline is not None:
        if baseline not in b.columns:
            raise InputError(f"unknown baseline {baseline!r}; configs "
                             f"{listed(list(b.columns), most=20)}",
                             key="baseline")
        targets += [(c, f"{c} - {baseline}", b[c] - b[baseline], a[c] - a[baseline])
                    for c in b.columns if c != baseline]
    rows = []
    for config, target, vb, va in targets:
        delta = va - vb
        r = paired_bootstrap(vb.loc[ids], va.loc[ids], resamples=resamples, seed=seed, ci=ci,
                             method="percentile")  # the fpc-scaled bootstrap projection
        est = float(delta.loc[ids].mean())
        scale = np.sqrt(fpc)
        rows.append({
            "config": config, "target": target, "n_shard": n, "n_total": n_total,
            "new_judgments": new_judgments, "new_relevant": new_relevant,
            "share_relevant": (new_relevant / new_judgments
                               if new_judgments and new_relevant is not None else np.nan),
            "queries_changed": int((delta.loc[ids].abs() > 1e-12).sum()),
            "mean_before": float(vb.mean()), "mean_after": float(va.mean()),
            "effect_full": float(delta.sum() / n_total),
            "projected": est,
            "ci_low": est - scale * (est - r.ci_low),
            "ci_high": est + scale * (r.ci_high - est),
            "fpc": fpc, "resamples": resamples, "seed": seed,
        })
    return pd.DataFrame(rows, columns=SHARD_COLUMNS)


def shard_projection(
    test_set: TestSet,
    labels: TestSet | pd.DataFrame,
    runs: Sequence[Run],
    metric: str,
    shard: Iterable[str],
    *,
    baseline: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    missing: str = "error",
    extra: str = "error",
) -> pd.DataFrame:
    """Merge the shard's labels, score before and after, and project (:func:`shard_effect`).

    Only the labels of the shard's queries are merged (the rest of ``labels``,
    if any, is ignored and counted out), so a full pooled-labels file and a
    shard list reproduce "what shard 1 alone would have shown". With
    ``missing="drop"`` the queries some config lacks leave the full set and the
    shard (the gains are paired); ``result.attrs["notes"]`` counts them.
    """
    metric = str(parse_metric(metric))
    test_set, runs, missing, dropped = ranked_by_every_run(test_set, list(runs), missing)
    ids = pd.Index(pd.unique(pd.Index([str(s) for s in shard], dtype="str")))
    if dropped:
        ids = ids[ids.isin(set(test_set.query_ids.astype("str")))]
    lab = labels.judgments if isinstance(labels, TestSet) else labels
    lab = lab[lab["query_id"].astype("str").isin(ids)]
    if lab.empty:
        raise InputError("the labels hold no judgment for the shard's queries", key="shard")
    merged, counts = merge_judgments(test_set, lab)
    before = score(test_set, runs, metric, policy="lower", missing=missing, extra=extra).table
    after = score(merged, runs, metric, policy="lower", missing=missing, extra=extra).table
    out = shard_effect(before, after, ids, baseline=baseline, new_judgments=counts.added,
                       new_relevant=counts.new_relevant, resamples=resamples, seed=seed)
    out.attrs["notes"] = [str(n) for n in dropped]
    return out
