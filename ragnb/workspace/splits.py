"""Several splits scored together: one tidy table with a ``split`` column.

The fit analyses compare the same configurations on two splits (golden and
production); :func:`score_splits` runs :func:`ragnb.metrics.score.score` once per split
and stacks the results as ``split, config, query_id, metric, value``.
:meth:`ragnb.workspace.Workspace.splits` reads a workspace's test sets and runs in that shape.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io import read_run
from ragnb.io.run import Run
from ragnb.io.testset import Note, TestSet
from ragnb.metrics.score import Scores, score


def score_splits(test_sets: Mapping[str, TestSet], runs: Mapping[str, Iterable[Run]],
                 metrics, **options) -> tuple[pd.DataFrame, tuple[Note, ...]]:
    """Score each split's runs; returns the stacked tidy table and every note (prefixed)."""
    frames, notes = [], []
    for split, test_set in test_sets.items():
        if split not in runs:
            raise InputError(f"no runs given for split {split!r}", key=split)
        result: Scores = score(test_set, list(runs[split]), metrics, **options)
        frames.append(result.table.assign(split=split))
        notes += [Note(n.kind, n.count, f"[{split}] {n.detail}") for n in result.notes]
    table = pd.concat(frames, ignore_index=True)
    return table[["split", "config", "query_id", "metric", "value"]], tuple(notes)


def read_round_runs(folder: str | Path, configs: Iterable[str]) -> list[Run]:
    """Runs named ``<config>.*`` in ``folder`` (one file per config; any run format)."""
    folder = Path(folder)
    runs = []
    for config in configs:
        matches = sorted(p for p in folder.glob(f"{config}.*") if p.is_file())
        if not matches:
            raise InputError(f"no run file for config {config!r}", source=folder)
        if len(matches) > 1:
            raise InputError(f"several run files for config {config!r}: "
                             f"{listed((p.name for p in matches), most=9)}", source=folder)
        runs.append(read_run(matches[0], name=config))
    return runs


def rounds_paired_se(workspace, split: str, metric: str, policy: str = "lower"
                     ) -> tuple[float, str]:
    """The paired SE a split's selection inflation is computed from, and its source.

    The first and the last config of the workspace's rounds (the baseline and
    the current champion) scored on ``split`` as :func:`score_splits` does,
    then :func:`ragnb.stats.paired_se` (deterministic). The four-cell table,
    the trajectory and this function compare the same two configs on the same
    queries, so every page prints the same inflation for the split.

    Parameters
    ----------
    workspace : ragnb.workspace.Workspace
        Supplies the rounds (``workspace.rounds()``) and the split's runs.
    """
    from ragnb.stats import paired_se

    configs = list(workspace.rounds()["config"])
    first, last = configs[0], configs[-1]
    test_sets, runs = workspace.splits([split], [first, last])
    scores, _ = score_splits(test_sets, runs, metric, policy=policy,
                             **workspace.spread, **workspace.score_options)
    wide = scores.pivot(index="query_id", columns="config", values="value")
    return paired_se(wide[first], wide[last])
