"""Page ``05-ledger``: how often has each split been used to choose? The split ledger's views.

``resolve`` reads the manifest's names (``[workspace] ledger``; ``[report.ledger]``
/ ``[report]``: ``test_set`` (the ``guard_split`` parameter), ``runner_up``,
``winner``, ``metric``; the test set with role golden); ``run`` reads the ledger
(never writes it), scores the guard's two close candidates on the guard split and
returns the :class:`~ragnb.ledger.SplitUse` Finding with each split's use and
inflation, the selection timeline, the ledger's history and the regression guard
as sections.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from ragnb.errors import InputError
from ragnb.ledger.charts import inflation_chart, selection_timeline_chart
from ragnb.ledger.finding import SplitUse
from ragnb.ledger.ledger import Ledger
from ragnb.ledger.status import SPLIT_STATUS_CAPTION, split_status_table
from ragnb.ledger.views import guard_report, inflation_curve, selection_counts
from ragnb.pages.registry import Inputs, MissingInput, no_run, register, workspace_of
from ragnb.result import (
    MISSING,
    Finding,
    Section,
    markdown_section,
    markdown_text,
    notes_sections,
    table_section,
)
from ragnb.stats import paired_bootstrap
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED
from ragnb.workspace.inflation import workspace_inflation
from ragnb.workspace.splits import score_splits

#: What a dash in a column of the split table means (read under the table when it has one).
DASHES = {
    "budget": "no selection budget set",
    "retired for selection": "not retired: the split may still be used to choose",
    "selection inflation (points)": "no figure: the split was selected against, and the "
                                    "workspace does not hold it or scores fewer than two of "
                                    "its candidates on it",
}
#: The notebook's prose above the history table.
HISTORY = ("Every event, from the append-only log (the manifests above are derived from it).")
#: The notebook's prose above the regression guard's table.
DEMOTED = ("A split past its budget becomes a regression guard: it still runs on every change "
           "and raises an alarm on large drops, because a selection bias of a point or two "
           "cannot flip a 15-point alarm. It refuses to rank candidates a few points apart, "
           "because there the bias is the size of the signal.")
#: The guard's columns as its table shows them (its caption states points).
GUARD_COLUMNS = {"selection_bias_points": "selection bias", "margin_points": "margin"}
#: Columns of the history table.
HISTORY_COLUMNS = ["seq", "ts", "split", "event", "actor", "summary"]


@dataclass(frozen=True)
class LedgerInputs(Inputs):
    """What the ledger page reads: the workspace and the names resolved from its manifest.

    ``guard_split`` is the test set the regression guard runs on; ``runner_up`` and
    ``winner`` its two close candidates; ``alert_drop`` the illustrative drop (score
    units) its alarm is tested with.
    """

    PAGE: ClassVar[str] = "05-ledger"
    guard_split: str
    runner_up: str
    winner: str
    metric: str
    alert_drop: float


def resolve(workspace: Any, *, guard_split: str = "", runner_up: str = "", winner: str = "",
            metric: str = "", alert_drop: float = 0.16, resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> LedgerInputs:
    """The ledger page's inputs: given values win over ``[report.ledger]``, then ``[report]``
    (``guard_split`` is ``[report.ledger] test_set``, else the test set with role golden).

    Raises
    ------
    MissingInput
        No split ledger, no candidates for the guard, no split to run it on, or no run of
        one of the candidates on that split.
    """
    ws = workspace_of(workspace)
    if ws.manifest.ledger is None:
        raise MissingInput("no split ledger ([workspace] ledger)")
    runner_up = ws.setting("ledger", "runner_up", runner_up)
    winner = ws.setting("ledger", "winner", winner)
    if not runner_up or not winner:
        raise MissingInput("no candidates for the regression guard ([report.ledger] "
                           "runner_up, winner)")
    guard_split = ws.setting("ledger", "test_set", guard_split) or ws.role("golden")
    if not guard_split:
        raise MissingInput("no split for the regression guard ([report.ledger] test_set, "
                           "else the test set with role golden)")
    lacking = [c for c in (runner_up, winner) if c not in ws.configs(guard_split)]
    if lacking:
        raise no_run(ws, guard_split, lacking)
    return LedgerInputs(ws, guard_split, runner_up, winner,
                        ws.setting("ledger", "metric", metric, "ndcg@10"), float(alert_drop),
                        resamples=resamples, seed=seed)


def _explanation(inputs: LedgerInputs, figure: Any, split_se: float, close: Any) -> str:
    """How the inflation chart is drawn and what the guard adds to the split's figure."""
    return markdown_text(
        "Selection inflation: {describe}. The curve is the worst case for each number of "
        "selections N (all candidates equal: E[max of N standard normals] × SE / √2, SE {se} "
        "points between candidates); each split's mark is its own figure. The guard below adds "
        "the noise of its own two candidates' difference, SE {close_se} points ({how}), to that "
        "figure.",
        describe=figure.describe() if figure is not None
        else f"unknown on {inputs.guard_split} (no candidates' scores)",
        se=f"{split_se * 100:.2f}", close_se=f"{close.se * 100:.2f}", how=close.describe())


def _dashes(table: pd.DataFrame) -> str:
    """The note under the split table: what each dash in it means ("" when none)."""
    said = [f"under {column}, {why}" for column, why in DASHES.items()
            if column in table and (table[column] == MISSING).any()]
    return f"A dash {'; '.join(said)}." if said else ""


def _guard_table(guard: pd.DataFrame) -> pd.DataFrame:
    """The guard's rows, its alarm row labelled an illustration (a hypothetical drop);
    its bias and margin columns named as read (in points, as the caption says).
    """
    illustration = guard["check"].str.startswith("alert")
    return guard.rename(columns=GUARD_COLUMNS).assign(
        check=guard["check"].where(~illustration, "illustration: " + guard["check"]),
        detail=guard["detail"].where(~illustration, "(illustration: a hypothetical drop, not "
                                     "a measured regression) " + guard["detail"]))


def run(inputs: LedgerInputs) -> Finding:
    """The split-use Finding: headline, inflation chart, split table, timeline, history, guard.

    The ledger is only read. ``objects``: ``ledger`` (:class:`ragnb.ledger.Ledger`),
    ``test_sets``, ``runs``, ``scores`` (tidy, the guard's two candidates on its split),
    ``close`` (their paired bootstrap), ``figures`` (each ledger split's one inflation
    figure), ``manifests`` (:meth:`ragnb.ledger.Ledger.manifests` with them), ``guard``
    (:func:`ragnb.ledger.views.guard_report`), ``history``, ``counts`` (running selections
    per split), ``budgets``.
    """
    i, ws = inputs, inputs.workspace
    ledger = Ledger(ws.ledger_dir)
    guarded = ws.split_manifest(i.guard_split)
    if guarded is None:
        raise InputError(f"test set {i.guard_split!r} is not a split of the ledger "
                         f"{ws.ledger_dir}: how often it was selected against is unknown, so "
                         "the guard cannot judge a ranking on it (guard_split: a registered "
                         "split)", key="guard_split")
    test_sets, runs = ws.splits([i.guard_split], [i.runner_up, i.winner])
    scores, notes = score_splits(test_sets, runs, i.metric, **ws.spread,
                                  **ws.score_options)
    wide = scores.pivot(index="query_id", columns="config", values="value")
    close = paired_bootstrap(wide[i.runner_up], wide[i.winner], resamples=i.resamples,
                             seed=i.seed)
    if not math.isfinite(close.se):  # too few queries for an interval
        raise InputError(f"the regression guard on {i.guard_split!r} needs the SE of the "
                         f"difference between {i.runner_up} and {i.winner}, and its "
                         f"{len(wide)} queries give none ({close.describe()})",
                         key="guard_split")
    figures = {}  # each split's one selection-inflation figure, as every page shows it
    for name in ws.test_set_names:
        manifest = ws.split_manifest(name)
        if manifest is not None:
            figures[manifest.name] = workspace_inflation(ws, name, i.metric)
    figure = figures.get(guarded.name)
    split_se = figure.se if figure is not None and figure.se is not None else close.se
    manifests = ledger.manifests(se=figures)
    means = wide.mean().to_dict()
    guard = guard_report(i.guard_split, {i.runner_up: means[i.runner_up],
                                         i.winner: means[i.winner]}, i.winner,
                         guarded.selections_against, close.se, i.alert_drop, inflation=figure,
                         guard=guarded.role == "regression_guard")
    current = {m["split"]: m["selections_against"] for m in manifests.to_dict("records")}
    su = SplitUse(manifests, guard, guarded.name, close.se)  # its row in the ledger's table
    own = su.finding(display_names=ws.display_names,
                     chart=inflation_chart(inflation_curve(split_se), current, figures))
    history = ledger.history()
    counts = selection_counts(history)
    budgets = {m.split_id.split("@")[0]: m.budget for m in map(ledger.manifest, ledger.splits())
               if m.budget is not None}  # a split without one has no budget line
    refused = guard["outcome"].iloc[0] == "refused"
    table = split_status_table(manifests)
    sections: list[Section] = [
        Section("Selection inflation after N selections against a split, in points: the worst "
                "case (all candidates equal) as a curve, each split's own figure as a mark",
                "chart", own.chart),
        table_section(table, SPLIT_STATUS_CAPTION, note=_dashes(table)),
        markdown_section(_explanation(i, figure, split_se, close)),
        Section("Selections against each split over time (its budget dashed; a red mark "
                "where it was demoted to regression guard)", "chart",
                selection_timeline_chart(counts, budgets)),
        markdown_section(HISTORY, "History"),
        table_section(history[HISTORY_COLUMNS], "The split ledger's events, oldest first",
                      note="A dash under actor: the event names no actor."
                      if history["actor"].isna().any() else ""),
        markdown_section(DEMOTED, "What a demoted split is still good for"),
        table_section(_guard_table(guard),
                      f"The regression guard on {i.guard_split}: the close ranking it "
                      f"{'refuses' if refused else 'allows'}, and what its alarm does on an "
                      f"illustrative {i.alert_drop * 100:.0f}-point drop (points)"),
    ]
    sections += notes_sections(notes)
    return Finding(own.headline, own.display_table, own.chart, own.checks, own.description,
                   own.caption, su, tuple(sections),
                   {"ledger": ledger, "test_sets": test_sets, "runs": runs, "scores": scores,
                    "close": close, "figures": figures, "manifests": manifests,
                    "guard": guard, "history": history, "counts": counts, "budgets": budgets})


register(LedgerInputs.PAGE, resolve, run)
