"""Scoring runs against a test set: the tidy per-query score table.

:func:`score` is the one code path from (test set, runs, metrics, label
policy) to per-query values; the CLI, notebooks, widgets and every analysis
call it. The result is long-form: ``config, query_id, metric, value``.

Queries with no relevant passage (no judgment with grade >= 1: unanswerable or
out-of-scope questions) are never handled silently: ``no_relevant="keep"``
scores them as each metric defines (0 under the ``lower`` policy, which is what
makes an out-of-scope stratum's difference exactly zero) and reports the count;
``"drop"`` leaves them out of every table and reports the count.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragnb import progress
from ragnb.errors import InputError, listed
from ragnb.io.run import Run
from ragnb.io.testset import Note, TestSet
from ragnb.metrics import JudgmentIndex, Metric, judge_run, parse_metric
from ragnb.metrics.judged import POLICIES, JudgedRun, Policy
from ragnb.metrics.parallel import scored_runs
from ragnb.vocab import EXTRA, MISSING, NO_RELEVANT

SCORE_COLUMNS = ["config", "query_id", "metric", "value"]


def per_query(table: pd.DataFrame, config: str, metric: str | None = None, *,
              split: str | None = None) -> pd.Series:
    """Per-query values of one config from a tidy score table: the one way to pull them out.

    Parameters
    ----------
    table : DataFrame
        ``config, query_id, value`` (:data:`SCORE_COLUMNS`), with ``metric`` and
        ``split`` columns when several are in it.
    config : str
    metric : str, optional
        Rows of this metric (``None``: the table holds one metric, or has no ``metric``).
    split : str, optional
        Rows of this split (``None``: the table holds one split, or has no ``split``).

    Returns
    -------
    Series
        Values indexed by query id (``name = "config:metric"``, or the config).

    Raises
    ------
    InputError
        No row for this config (naming what the table has), or a query scored
        more than once (several splits or label policies mixed in one table).
    """
    t = table
    if split is not None:
        t = t[t["split"] == split]
    if metric is not None and "metric" in t:
        t = t[t["metric"] == metric]
    sel = t[t["config"] == config]
    on = f" on split {split!r}" if split is not None else ""
    if sel.empty:
        have = {k: list(pd.unique(table[k])) for k in ("split", "config", "metric") if k in table}
        raise InputError(f"no {metric + ' ' if metric is not None else ''}scores for config "
                         f"{config!r}{on}; the table has "
                         + ", ".join(f"{k}s {v[:8]}" for k, v in have.items()),
                         source="scores", key=config)
    dup = sel["query_id"][sel["query_id"].duplicated()].unique()
    if len(dup):
        shown = ", ".join(str(q) for q in dup[:5]) + (f", ... ({len(dup) - 5} more)"
                                                       if len(dup) > 5 else "")
        raise InputError(f"config {config!r}{on} has {len(dup)} query id(s) scored more than once"
                         + (f" for {metric}" if metric is not None else "")
                         + f": {shown}; filter the table to one split and label policy first",
                         source="scores", key=str(dup[0]))
    name = config if metric is None else f"{config}:{metric}"
    return pd.Series(sel["value"].to_numpy(), index=pd.Index(sel["query_id"], name="query_id"),
                     name=name)


@dataclass(frozen=True)
class Scores:
    """Per-query scores of several configs under one label policy.

    Attributes
    ----------
    table : DataFrame
        Tidy: ``config, query_id, metric, value``.
    policy : str
        The label policy for unjudged passages.
    notes : tuple of Note
        Everything dropped, repaired or specially handled, with counts.
    no_relevant : Index
        Query ids that have no passage judged relevant.
    orders : dict
        The ranking order of each config's run (``"score"`` or ``"rank"``,
        :mod:`ragnb.io.run`).
    """

    table: pd.DataFrame
    policy: str
    notes: tuple[Note, ...]
    no_relevant: pd.Index
    orders: Mapping[str, str] = field(default_factory=dict)

    @property
    def configs(self) -> list[str]:
        return list(pd.unique(self.table["config"]))

    @property
    def metrics(self) -> list[str]:
        return list(pd.unique(self.table["metric"]))

    def _metric(self, metric: str | Metric) -> str:
        """The table's name for ``metric``, however it is spelled (``ndcg_cut_10``)."""
        from ragnb.metrics.registry import find_metric

        name = str(parse_metric(metric))
        return name if name in self.metrics else find_metric(str(metric), self.metrics) or name

    def values(self, config: str, metric: str | Metric) -> pd.Series:
        """Per-query values of one config and metric, indexed by query id (:func:`per_query`)."""
        return per_query(self.table, config, self._metric(metric))

    def wide(self, metric: str | Metric) -> pd.DataFrame:
        """One metric as a query_id x config table."""
        metric = self._metric(metric)
        t = self.table[self.table["metric"] == metric]
        return t.pivot(index="query_id", columns="config", values="value")[
            list(pd.unique(t["config"]))]

    def __repr__(self) -> str:
        """One line: what was scored, and how to see it (never the per-query table)."""
        def count(n: int, what: str, many: str = "") -> str:
            return f"{n:,} {what if n == 1 else many or what + 's'}"

        queries = count(self.table["query_id"].nunique(), "query", "queries")
        return (f"Scores({count(len(self.configs), 'config')} ({listed(self.configs)}) x "
                f"{count(len(self.metrics), 'metric')} ({listed(self.metrics)}) x "
                f"{queries}, policy {self.policy}, "
                f"{count(len(self.notes), 'note')}; .means(), .wide(metric), .table)")

    def means(self) -> pd.DataFrame:
        """Mean and number of queries per config and metric (MRR is mean rr)."""
        g = self.table.groupby(["config", "metric"], sort=False)["value"]
        out = g.agg(mean="mean", n="count").reset_index()
        out["policy"] = self.policy
        return out


def file_metrics(test_set: Any, metrics: Iterable[str | Metric]) -> list[str | Metric]:
    """``metrics`` as read against ``test_set``: given a file, an nDCG naming no gain takes
    the gain its format implies (:func:`ragnb.io.source.implied_gain`: linear for TREC qrels,
    as trec_eval and ``ragnb init``); otherwise unchanged.
    """
    if not isinstance(test_set, (str, PathLike)):
        return list(metrics)
    from ragnb.io.source import implied_gain
    from ragnb.metrics.registry import with_gain

    gain = implied_gain(test_set)
    return [m if isinstance(m, Metric) else with_gain(m, gain) for m in metrics]


def _is_run_dict(obj) -> bool:
    """``{query_id: {passage_id: score}}`` or ``{query_id: [passage_id, ...]}`` (one run)."""
    first = next(iter(obj.values()), None)
    if isinstance(first, (list, tuple)):
        return True
    if isinstance(first, Mapping):
        inner = next(iter(first.values()), None)
        return not isinstance(inner, (Mapping, list, tuple, pd.DataFrame))
    return False


def _as_runs(runs) -> list:
    """The runs to score, in order: :class:`Run` objects as given, paths as unread
    :class:`~ragnb.io.runs.RunFile` (read one at a time by :func:`score`), long
    DataFrames and dicts converted (:func:`ragnb.io.as_run`).
    """
    import dataclasses

    from ragnb.io import RunFile, as_run

    def one(r, name: str | None = None):
        if isinstance(r, (str, Path)):
            return RunFile.of(r, name=name)
        if isinstance(r, RunFile):
            return r if name is None or r.name == name else dataclasses.replace(r, name=name)
        r = as_run(r, name=name)
        return r if name is None or r.name == name else Run(name, r.table, r.order, r.source,
                                                             r.notes)

    if isinstance(runs, (Run, RunFile, pd.DataFrame, str, Path)) or (
            isinstance(runs, Mapping) and _is_run_dict(runs)):
        return [one(runs)]
    if isinstance(runs, Mapping):
        return [one(r, str(name)) for name, r in runs.items()]
    return [one(r) for r in runs]


def score(
    test_set: TestSet | JudgmentIndex,
    runs: Run | Iterable[Run] | Mapping[str, Run],
    metrics: str | Metric | Iterable[str | Metric],
    *,
    policy: Policy = "lower",
    upper_grade: int | None = None,
    no_relevant: str = "keep",
    missing: str = "error",
    extra: str = "error",
    jobs: int = 1,
    cluster: Any = None,
) -> Scores:
    """Per-query metric values for every run and metric.

    Parameters
    ----------
    test_set : TestSet, JudgmentIndex, DataFrame, dict or path
        The answer key (an index can be passed to reuse it across calls); a
        long DataFrame ``query_id, passage_id, grade`` or a pytrec_eval-style
        dict ``{query_id: {passage_id: grade}}`` is validated like a file. Given a
        path, an nDCG naming no gain takes the one the file implies (linear for TREC
        qrels, as trec_eval; :func:`ragnb.io.source.implied_gain`), as every command does.
    runs : Run, list of Run or {name: Run}
        Each run may also be a long DataFrame, a dict ``{query_id:
        {passage_id: score}}`` (pytrec_eval/ranx), a path or a
        :class:`~ragnb.io.runs.RunFile` (:func:`ragnb.io.as_run`). Paths and run files
        are read one at a time, each scored and let go before the next is read, so
        only one run is in memory at once.
    metrics : str or list of str
        Names such as ``"ndcg@10"``; see :func:`ragnb.metrics.metric_help`.
    policy : {"lower", "condensed", "upper"}
        Treatment of unjudged passages (see :mod:`ragnb.metrics.judged`).
    upper_grade : int, optional
        Grade given to unjudged passages under ``upper`` (default: the top grade).
    no_relevant : {"keep", "drop"}
        Queries with no relevant passage: scored and counted, or dropped and counted.
    missing : {"error", "empty", "drop"}
        Test-set queries a run has no ranking for.
    extra : {"error", "drop"}
        Run queries that the test set lacks.
    jobs : int
        Processes scoring runs at once (0: one per core): each reads and scores whole
        runs, one at a time, and the table is assembled in the runs' order, so it is
        the serial table exactly (:mod:`ragnb.metrics.parallel`).
    cluster : str or distributed.Client, optional
        Score the runs on a dask.distributed cluster instead (a scheduler address such as
        ``tcp://host:8786``, or a client; ``pip install 'ragnb[dask]'``): one task per run,
        the table again the serial one exactly. ``jobs`` is then ignored.
    """
    setting, run_list, notes, no_relevant_ids = plan(
        test_set, runs, metrics, policy=policy, upper_grade=upper_grade,
        no_relevant=no_relevant, missing=missing, extra=extra)
    frames = []
    orders = {}
    for name, order, run_frames, run_notes in scoring(setting, run_list, jobs, cluster):
        orders[name] = order
        frames.extend(run_frames)
        notes.extend(run_notes)
    table = pd.concat(frames, ignore_index=True)
    return Scores(table, policy, tuple(notes), no_relevant_ids, orders)


def plan(test_set: Any, runs: Any, metrics: Any, *, policy: Policy, upper_grade: int | None,
         no_relevant: str, missing: str, extra: str
         ) -> tuple[tuple, list, list[Note], pd.Index]:
    """Everything :func:`score` checks and prepares before it scores a run: the setting
    of :func:`score_item`, the runs (unread where given as files), the notes so far and
    the queries with no relevant passage.
    """
    for value, allowed, what in ((policy, POLICIES, "policy"), (no_relevant, NO_RELEVANT,
                                 "no_relevant"), (missing, MISSING, "missing"),
                                 (extra, EXTRA, "extra")):
        if value not in allowed:
            raise InputError(f"{what} must be one of "
                             f"{listed(allowed, most=20)}, got {value!r}", key=what)
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    metrics = file_metrics(test_set, metrics)
    if not isinstance(test_set, (JudgmentIndex, TestSet)):
        from ragnb.io import as_test_set

        test_set = as_test_set(test_set)  # a DataFrame, a qrels dict or a path
    index = test_set if isinstance(test_set, JudgmentIndex) else \
        JudgmentIndex.from_test_set(test_set)
    parsed = list(dict.fromkeys(parse_metric(m) for m in metrics))
    if not parsed:
        raise InputError("no metric given", key="metric")
    for m in parsed:
        if m.spec.uses_policy and policy not in m.spec.policies:
            raise InputError(f"metric {m.text} is not defined under the {policy!r} label policy; "
                             f"it is defined under {', '.join(m.spec.policies)}", key=m.text)
    run_list = _as_runs(runs)
    names = [r.name for r in run_list]
    if len(set(names)) != len(names):
        raise InputError(f"two runs share a config name: "
                         f"{listed(names, most=20)}; name them NAME=FILE",
                         key="run")

    relevant = index.relevant_counts(1)
    no_rel = relevant == 0
    keep_q = np.ones(index.n_queries, dtype=bool)
    notes: list[Note] = []
    if no_rel.any():
        if no_relevant == "drop":
            keep_q &= ~no_rel
            what = "dropped from every table"
        else:
            what = "kept and scored as each metric defines (0 unless a policy labels " \
                   "unjudged passages relevant)"
        notes.append(Note("no_relevant", int(no_rel.sum()),
                          f"queries with no passage judged relevant (grade >= 1): {what}"))

    setting = (index, parsed, policy, upper_grade, keep_q, missing, extra)
    return setting, run_list, notes, index.query_ids[no_rel]


def scoring(setting: tuple, run_list: list, jobs: int = 1, cluster: Any = None
            ) -> Iterator[tuple[str, str, list[pd.DataFrame], list[Note]]]:
    """:func:`score_item` of each of :func:`plan`'s runs, in order, under a progress bar."""
    steps = 1 + len(setting[1])
    with progress.bar(len(run_list) * steps, "scoring", unit="step") as bar:
        yield from scored_runs(score_item, run_list, setting, jobs, bar, cluster)


def score_item(item: Any, setting: tuple, bar=None
               ) -> tuple[str, str, list[pd.DataFrame], list[Note]]:
    """One run (a :class:`Run`, or a file read here) scored: its name, ranking order, frames
    and notes; ``setting`` is ``(index, metrics, policy, upper_grade, keep, missing, extra)``.
    """
    from ragnb.io import as_run

    run = as_run(item)
    del item
    notes: list[Note] = []
    index, metrics, policy, upper_grade, keep, missing, extra = setting
    frames = _score_run(run, index, metrics, policy, upper_grade, keep, missing, extra, notes,
                        bar)
    return run.name, run.order, frames, notes


def _score_run(run: Run, index: JudgmentIndex, parsed: list[Metric], policy: Policy,
               upper_grade: int | None, keep_q: np.ndarray, missing: str, extra: str,
               notes: list[Note], bar=None) -> list[pd.DataFrame]:
    """One run's frames (its notes appended to ``notes``); ``bar`` advances per step."""
    judged = judge_run(run, index, extra=extra,
                       missing="error" if missing == "error" else "empty")
    if bar is not None:
        bar.update(1)
    notes.extend(run.notes + judged.notes)
    run_keep = keep_q
    if missing == "drop":
        has = np.zeros(index.n_queries, dtype=bool)
        has[judged.q] = True
        if not has.all():
            run_keep = keep_q & has
            notes[:] = [n for n in notes if not (n.kind == "empty_rankings"
                                                 and run.name in n.detail)]
            notes.append(Note("dropped_missing", int((~has).sum()),
                              f"test-set queries with no ranking in run {run.name!r} "
                              "were left out of its scores"))
    return _score_one(judged, parsed, policy, upper_grade, run_keep, bar)


def _score_one(judged: JudgedRun, metrics: list[Metric], policy: Policy,
               upper_grade: int | None, keep: np.ndarray, bar=None) -> list[pd.DataFrame]:
    qids = judged.index.query_ids[keep]
    keys = [(policy if m.spec.uses_policy else "lower", m.k) for m in metrics]
    last_use = {key: i for i, key in enumerate(keys)}
    views: dict[tuple, object] = {}
    out = []
    for i, (metric, key) in enumerate(zip(metrics, keys)):
        if key not in views:
            views[key] = judged.view(key[0], metric.k, upper_grade)
        values = metric.spec.func(views[key], **metric.params)[keep]
        if last_use[key] == i:  # no later metric reads this view: free it now
            del views[key]
        out.append(pd.DataFrame({
            "config": judged.config,
            "query_id": qids,
            "metric": metric.text,
            "value": values,
        }))
        if bar is not None:
            bar.update(1)
    return out
