"""Page ``08-judge``: can a model judge's labels stand in for people's? Read them honestly.

``resolve`` reads the manifest's names (``[report.judge]`` / ``[report]``: ``test_set``,
``baseline``, ``challenger``, ``metric``; else the first test set with a ``judge``);
``run`` measures the judge against people on the pairs both labelled
(:func:`ragnb.judge.agreement`) and, when the test set has runs, gives each run's mean
and each difference from the baseline three ways: people only, judge only (biased) and
prediction-powered (:func:`ragnb.judge.judged_estimates`), all in
:func:`ragnb.judge.finding.judge_finding`. Its headline is the difference the page is
about, read with the judge's error carried.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ragnb.judge.finding import judge_finding
from ragnb.pages.registry import Inputs, MissingInput, register, workspace_of
from ragnb.result import Finding
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED


@dataclass(frozen=True)
class JudgeInputs(Inputs):
    """What the judge page reads: the test set with a judge, its runs and the pair."""

    PAGE: ClassVar[str] = "08-judge"
    split: str
    configs: tuple[str, ...]
    baseline: str
    challenger: str
    metric: str
    k: int
    level: int
    by: str


def resolve(workspace: Any, *, split: str = "", baseline: str = "", challenger: str = "",
            metric: str = "", k: int = 10, resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> JudgeInputs:
    """The judge page's inputs: given values win over ``[report.judge]``, then ``[report]``;
    the test set defaults to the first with a ``judge``.

    Raises
    ------
    MissingInput
        No test set has model-judge labels, or the one named has none.
    """
    ws = workspace_of(workspace)
    judged = [n for n, e in ws.manifest.test_sets.items() if e.judge is not None]
    split = ws.setting("judge", "test_set", split) or (judged[0] if judged else "")
    if not split:
        raise MissingInput("no test set has model-judge labels ([test_sets.NAME] judge)")
    if split not in judged:
        raise MissingInput(f"test set {split!r} has no model-judge labels "
                           f"([test_sets.{split}] judge)")
    configs = ws.configs(split)
    baseline = ws.setting("judge", "baseline", baseline)
    challenger = ws.setting("judge", "challenger", challenger)
    entry = ws.strata_entry(split)
    return JudgeInputs(
        ws, split, tuple(configs), baseline if baseline in configs else "",
        challenger if challenger in configs and challenger != baseline else "",
        ws.setting("judge", "metric", metric, "ndcg@10"), int(k),
        int(ws.manifest.relevance_level), (entry.by if entry else "") or "",
        resamples=resamples, seed=seed)


def run(inputs: JudgeInputs) -> Finding:
    """The page's Finding (:func:`ragnb.judge.finding.judge_finding`) on the workspace's test
    set, runs, strata and display names.
    """
    i, ws = inputs, inputs.workspace
    test_set = ws.test_set(i.split)
    return judge_finding(
        test_set, ws.runs(i.split, list(i.configs)) if i.configs else [], metric=i.metric,
        baseline=i.baseline, challenger=i.challenger, k=i.k, level=i.level,
        strata=ws.strata(i.split) if i.by else None, by=i.by, display_names=ws.display_names,
        resamples=i.resamples, seed=i.seed, **ws.score_options)


register(JudgeInputs.PAGE, resolve, run)
