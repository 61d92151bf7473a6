"""Version diff: re-score the old version of a test set beside the new one.

Seed 004: version the test set, and when queries are added, re-score the old
version too, so that a move in the headline number can be told apart from a
change of the ruler. :func:`version_diff` does it for every config:

- **queries**: ``added`` (only in the new version), ``removed`` (only in the
  old), ``rejudged`` (in both, with judgments added, removed or re-graded),
  ``unchanged`` (the same passages and grades; a changed ``doc_version`` alone
  is counted in ``reversioned`` but is not a re-judgment);
- **scores**: the config's mean on the old version (all its queries) and on
  the new one, and their difference;
- **re-judging effect**: on the queries common to both versions, the new
  version's score minus the old version's, per query, with a paired bootstrap
  (:func:`ragnb.stats.paired_bootstrap`) — the part of the move due to labels —
  and its effect size, mean / SD of those per-query differences
  (:func:`ragnb.stats.classic.effect_size`);
- **are the new queries harder?** the new version's mean on the added queries
  minus its mean on the common ones, with an unpaired bootstrap
  (:func:`ragnb.stats.unpaired.unpaired_bootstrap`): below zero, the added
  queries are harder for this config.

Runs are scored against each version with ``extra="drop"`` (a run may rank the
queries of both versions); a version's query the run lacks is an error unless
``missing`` says otherwise (:func:`ragnb.metrics.score.score`).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.io.run import Run
from ragnb.io.testset import Note, TestSet
from ragnb.metrics.judged import Policy
from ragnb.metrics.score import score
from ragnb.result import Analysis, interval, points
from ragnb.stats import child_seed, paired_bootstrap, tie_tolerance
from ragnb.stats.classic import effect_size
from ragnb.stats.unpaired import unpaired_bootstrap
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

CHANGES = ("added", "removed", "rejudged", "unchanged")


def query_changes(old: TestSet, new: TestSet) -> pd.DataFrame:
    """Per query of either version: how its judgments changed.

    Returns ``query_id, change, judgments_old, judgments_new, added_judgments,
    removed_judgments, regraded, reversioned``; old-version order, then the
    added queries in new-version order.
    """
    def keyed(ts: TestSet) -> pd.DataFrame:
        j = ts.judgments
        return pd.DataFrame({"query_id": j["query_id"].astype("str").to_numpy(),
                             "passage_id": j["passage_id"].astype("str").to_numpy(),
                             "grade": j["grade"].to_numpy(),
                             "doc_version": j["doc_version"].astype("object").to_numpy()})

    jo, jn = keyed(old), keyed(new)
    both = jo.merge(jn, on=["query_id", "passage_id"], how="outer", suffixes=("_old", "_new"),
                    indicator=True)
    flags = pd.DataFrame({
        "query_id": both["query_id"],
        "added_judgments": both["_merge"] == "right_only",
        "removed_judgments": both["_merge"] == "left_only",
        "regraded": (both["_merge"] == "both") & (both["grade_old"] != both["grade_new"]),
        "reversioned": (both["_merge"] == "both") & (both["grade_old"] == both["grade_new"])
        & (both["doc_version_old"].astype("str") != both["doc_version_new"].astype("str")),
    }).groupby("query_id").sum()
    old_ids = list(old.queries["query_id"].astype("str"))
    new_ids = list(new.queries["query_id"].astype("str"))
    old_set, new_set = set(old_ids), set(new_ids)
    ids = old_ids + [q for q in new_ids if q not in old_set]
    table = flags.reindex(ids, fill_value=0).astype(int)
    table.index.name = "query_id"
    table.insert(0, "judgments_old", jo["query_id"].value_counts().reindex(ids, fill_value=0))
    table.insert(1, "judgments_new", jn["query_id"].value_counts().reindex(ids, fill_value=0))
    in_old = np.array([q in old_set for q in ids])
    in_new = np.array([q in new_set for q in ids])
    changed = (table[["added_judgments", "removed_judgments", "regraded"]].sum(axis=1) > 0)
    change = np.select([~in_old, ~in_new, changed.to_numpy()], ["added", "removed", "rejudged"],
                       "unchanged")
    table.insert(0, "change", change)
    return table.reset_index()


@dataclass(frozen=True)
class VersionDiff(Analysis):
    """Old vs new version of a test set, re-scored for every config.

    Attributes
    ----------
    changes : DataFrame
        :func:`query_changes`.
    table : DataFrame
        One row per config (see :func:`version_diff`).
    old_name, new_name, metric : str
    notes : tuple of Note
        What scoring each version reported (prefixed with the version).
    """

    changes: pd.DataFrame
    table: pd.DataFrame
    old_name: str
    new_name: str
    metric: str
    notes: tuple[Note, ...]
    description: str

    def counts(self) -> dict[str, int]:
        """Queries per change (every kind listed)."""
        c = self.changes["change"].value_counts()
        return {k: int(c.get(k, 0)) for k in CHANGES}

    def display_table(self) -> pd.DataFrame:
        """The per-config table in a few columns, for reading: scores and intervals in points."""
        t = self.table

        def span(low, high):
            return [interval(a, b, signed=True, digits=2) if pd.notna(a) else "—"
                    for a, b in zip(low, high)]

        def pts(values, signed=False):
            return [points(v, signed=signed, digits=2) for v in values]

        return pd.DataFrame({
            "config": t["config"], f"old ({self.old_name})": pts(t["old"]),
            f"new ({self.new_name})": pts(t["new"]), "difference": pts(t["difference"], True),
            "re-judging (common queries)": pts(t["rejudging"], True),
            "re-judging CI": span(t["rejudging_low"], t["rejudging_high"]),
            "re-judging effect size": ["—" if pd.isna(e) else f"{e:+.2f}"
                                       for e in t["rejudging_effect_size"]],
            "added minus common": pts(t["harder_by"], True),
            "added minus common CI": span(t["harder_low"], t["harder_high"]),
            "added harder": t["harder"].map({True: "yes", False: "no"}).fillna("—"),
        })

    def reading(self, config: str) -> str:
        """What moved one config's score between the versions, in one sentence (points)."""
        r = self.table.set_index("config").loc[config]
        text = (f"{config}: {points(r['old'], digits=2)} points on {self.old_name} "
                f"({r['n_old']} queries) → {points(r['new'], digits=2)} on {self.new_name} "
                f"({r['n_new']}), {points(r['difference'], signed=True)} points; on the "
                f"{r['n_common']} common queries re-judging moved it "
                f"{points(r['rejudging'], signed=True)} points")
        if r["n_added"] >= 2:
            text += (f"; the {r['n_added']} added queries score "
                     f"{points(r['harder_by'], signed=True)} points against the common ones "
                     f"{interval(r['harder_low'], r['harder_high'], signed=True)}")
            if r["added_no_relevant"]:
                text += (f" ({r['added_no_relevant']} of them have no relevant passage, which "
                         "every ranking scores alike: score refusal apart)")
        return text + "."


def version_diff(old: TestSet, new: TestSet, runs: Run | Iterable[Run], metric: str, *,
                 policy: Policy = "lower", missing: str = "error", ci: float = 0.95,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> VersionDiff:
    """Score every run on both versions and say what moved (see the module docstring).

    Returns
    -------
    VersionDiff
        ``table`` columns: ``config, old, n_old, new, n_new, difference`` (new -
        old), ``n_common, rejudging, rejudging_low, rejudging_high,
        rejudging_effect_size`` (paired, on common queries; the effect size is
        mean / SD of the per-query differences, NaN when they are all equal),
        ``n_added, added_no_relevant`` (added queries with no relevant passage),
        ``added, common_new, harder_by, harder_low, harder_high`` (added minus
        common on the new version; NaN when fewer than two queries were added),
        ``harder`` (the interval lies below zero; None when not computed).
    """
    runs = [runs] if isinstance(runs, Run) else list(runs)
    if not runs:
        raise InputError("no run to score", key="runs")
    changes = query_changes(old, new)
    s_old = score(old, runs, metric, policy=policy, extra="drop", missing=missing)
    s_new = score(new, runs, metric, policy=policy, extra="drop", missing=missing)
    notes = tuple(Note(n.kind, n.count, f"[{v}] {n.detail}")
                  for v, s in ((old.name, s_old), (new.name, s_new)) for n in s.notes)
    kind = changes.set_index("query_id")["change"]
    rows = []
    for run in runs:
        vo = s_old.values(run.name, metric)
        vn = s_new.values(run.name, metric)
        vo.index, vn.index = vo.index.astype("str"), vn.index.astype("str")
        common = vo.index.intersection(vn.index)
        added = vn.index[kind.reindex(vn.index).to_numpy() == "added"]
        row = {"config": run.name, "old": float(vo.mean()), "n_old": len(vo),
               "new": float(vn.mean()), "n_new": len(vn),
               "difference": float(vn.mean() - vo.mean()), "n_common": len(common)}
        if len(common) >= 2:
            # unchanged judgments on every common query: re-judging cannot move them
            fixed = bool((kind.reindex(common) == "unchanged").all())
            p = paired_bootstrap(vo.loc[common], vn.loc[common], resamples=resamples,
                                 seed=child_seed(seed, (run.name, "rejudging")), ci=ci,
                                 fixed=fixed)
            row |= {"rejudging": p.delta, "rejudging_low": p.ci_low, "rejudging_high": p.ci_high,
                    "rejudging_effect_size": effect_size(vn.loc[common] - vo.loc[common])}
        else:
            row |= {"rejudging": math.nan, "rejudging_low": math.nan, "rejudging_high": math.nan,
                    "rejudging_effect_size": math.nan}
        row |= {"n_added": len(added),
                "added_no_relevant": int(added.isin(s_new.no_relevant.astype("str")).sum()),
                "added": float(vn.loc[added].mean()) if len(added)
                else math.nan, "common_new": float(vn.loc[common].mean()) if len(common)
                else math.nan}
        if len(added) >= 2 and len(common) >= 2:
            u = unpaired_bootstrap(vn.loc[common], vn.loc[added], resamples=resamples,
                                   seed=child_seed(seed, (run.name, "added")), ci=ci)
            tol = tie_tolerance(vn.to_numpy(dtype=float))  # float noise is not a difference
            row |= {"harder_by": u.delta, "harder_low": u.ci_low, "harder_high": u.ci_high,
                    "harder": bool(u.ci_high < -tol)}
        else:
            row |= {"harder_by": math.nan, "harder_low": math.nan, "harder_high": math.nan,
                    "harder": None}
        rows.append(row)
    description = (
        f"{metric} ({policy} policy). difference = mean on {new.name!r} - mean on {old.name!r} "
        f"(different query sets); rejudging = {new.name!r} - {old.name!r} on the common "
        f"queries, {ci:.0%} percentile paired bootstrap, effect size = mean / SD of the "
        f"per-query differences; harder_by = added minus common "
        f"queries on {new.name!r}, {ci:.0%} percentile bootstrap of a difference of "
        f"independent means; {resamples:,} resamples, seeds derived from {seed}")
    return VersionDiff(changes, pd.DataFrame(rows), old.name, new.name, str(metric), notes,
                       description)
