"""Page ``02-trajectory``: golden vs production across rounds of selection, on a workspace.

``resolve`` reads the manifest's names (``[report.trajectory]`` / ``[report]``:
``golden``, ``production``, ``metric``, ``policy``; test sets by role; the
``[rounds]`` of champions); ``run`` scores every round's champion on both
splits, draws the trajectory (:func:`ragnb.trajectory.trajectory`), dates the
divergence, and returns its Finding with the divergence and what changed there,
the selection inflation, production as it arrives (:func:`ragnb.watch.watch_scores`),
the consistency check against the four-cell table and the split ledger's table
as sections.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from ragnb.errors import InputError
from ragnb.fit import four_cell
from ragnb.io.overlap import split_overlap
from ragnb.ledger.status import split_status_section
from ragnb.ledger.views import split_status
from ragnb.metrics.judged import Policy
from ragnb.metrics.registry import metric_label
from ragnb.pages.registry import Inputs, MissingInput, no_run, policy_of, register, workspace_of
from ragnb.result import (
    POINTS,
    Finding,
    Section,
    checks_frame,
    display_name,
    markdown_section,
    markdown_text,
    notes_sections,
    table_section,
)
from ragnb.trajectory.rounds import Trajectory
from ragnb.trajectory.rounds import trajectory as draw_trajectory
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED
from ragnb.watch import watch_scores
from ragnb.workspace.inflation import workspace_inflation
from ragnb.workspace.splits import score_splits

#: What "Production as it arrives" shows (read above its headline).
WATCH_TEXT = (
    "The last champion's production gain over the first, with production judged a batch at a "
    "time (in the test set's order): an anytime-valid confidence sequence, valid however often "
    "it is looked at, and when to stop labelling (`ragnb watch` does the same from the command "
    "line).")
#: What the consistency check is (read above its verdict).
CONSISTENCY_TEXT = ("The production line's first and last points must be the four-cell table's "
                    "production column: one measurement seen twice.")


@dataclass(frozen=True)
class TrajectoryInputs(Inputs):
    """What the trajectory page reads: the workspace and the names resolved from its manifest
    (the rounds of champions are the workspace's ``[rounds]``, read by ``run``).
    """

    PAGE: ClassVar[str] = "02-trajectory"
    golden: str
    production: str
    metric: str
    policy: Policy
    watch_batch: int = 20


def resolve(workspace: Any, *, golden: str = "", production: str = "", metric: str = "",
            policy: str = "", resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
            watch_batch: int = 20) -> TrajectoryInputs:
    """The trajectory page's inputs: given values win over ``[report.trajectory]``, then
    ``[report]``.

    Raises
    ------
    MissingInput
        No rounds of champions, no golden or production test set, or a split without a
        run of a round's config (rounds named in the manifest; a rounds file is read by
        ``run``).
    InputError
        ``watch_batch`` below 1.
    """
    ws = workspace_of(workspace)
    if not ws.has_rounds:
        raise MissingInput("no rounds of champions ([rounds] configs)")
    golden = ws.setting("trajectory", "golden", golden) or ws.role("golden")
    production = ws.setting("trajectory", "production", production) or ws.role("production")
    if not golden or not production:
        raise MissingInput("needs two test sets, one with role golden and one with role "
                           "production")
    for split in (golden, production):
        lacking = [c for c in ws.manifest.rounds if c not in ws.configs(split)]
        if lacking:
            raise no_run(ws, split, lacking, "round config(s) ")
    if int(watch_batch) < 1:
        raise InputError(f"a batch holds at least one query, got watch_batch={watch_batch}",
                         key="watch_batch")
    return TrajectoryInputs(ws, golden, production,
                            ws.setting("trajectory", "metric", metric, "ndcg@10"),
                            policy_of(ws.setting("trajectory", "policy", policy, "lower")),
                            int(watch_batch), resamples=resamples, seed=seed)


def divergence_change(tr: Trajectory, rounds: pd.DataFrame, names: dict[str, str]) -> str:
    """What changed at the divergence round: the champion kept there and the one before it
    (with the rounds file's ``change`` when it has one), and the first champion after it;
    "" when no round is dated, or the page gives no divergence reading (production shares
    too many queries with golden).
    """
    if tr.divergence_round is None or (tr.overlap is not None and tr.overlap.refused):
        return ""
    rounds = rounds.sort_values("round").reset_index(drop=True)
    at = int(rounds.index[rounds["round"] == tr.divergence_round][0])
    if at == 0:  # the hinge is never the first round; nothing came before it
        return ""
    row, before = rounds.iloc[at], rounds.iloc[at - 1]
    change = row.get("change") if "change" in rounds else None
    text = markdown_text(
        "**What changed at round {r}:** the champion went from {before} (round {r0}) to "
        "{kept}", r=tr.divergence_round, before=display_name(before["config"], names),
        r0=int(before["round"]), kept=display_name(row["config"], names))
    if change is not None and not pd.isna(change) and str(change).strip():
        text += markdown_text(" (change: {change})", change=str(change).strip())
    text += "."
    if at + 1 < len(rounds):
        after = rounds.iloc[at + 1]
        text += markdown_text(" The first champion after the lines part is {kept} (round {r}).",
                              kept=display_name(after["config"], names), r=int(after["round"]))
    return text


def _chart_caption(tr: Trajectory) -> str:
    """What the trajectory chart shows, with its units."""
    what = metric_label(tr.metric) if tr.metric else "Score"
    return (f"{what} of each round's champion on {tr.golden} and {tr.production}, in {POINTS}, "
            "with 95% intervals; grey band: what selection alone explains"
            + ("; dashed rule: the divergence round" if tr.divergence_round is not None else ""))


def _watch_sections(watch: Finding) -> list[Section]:
    """Production as it arrives: what it is and its answer, then its chart and table."""
    h = watch.headline
    text = WATCH_TEXT + "\n\n" + markdown_text(
        "**{question}** {answer} This is a second method's figure (valid at every look, so "
        "wider than the headline's fixed-n interval): the headline's reading stands.",
        question=h.question, answer=h.answer)
    return [markdown_section(text, "Production as it arrives"), *watch.sections]


def _production_as_it_arrives(i: TrajectoryInputs, scores: pd.DataFrame, overlap: Any,
                              first: str, last: str, names: dict[str, str]
                              ) -> tuple[Any, Finding | None]:
    """The watch of the last champion's production gain over the first, on the production
    queries the trajectory reads (those golden shares are set aside); none when production
    is refused as a copy of golden (nothing there was unseen by the selection).
    """
    if overlap.refused:
        return None, None
    if overlap.shared:
        shared = set(overlap.shared)
        scores = scores[~((scores["split"] == i.production)
                          & scores["query_id"].astype(str).isin(shared))]
    watch = watch_scores(scores, split=i.production, baseline=first, champion=last,
                         metric=i.metric, batch_size=i.watch_batch)
    return watch, watch.finding(display_names=names)


def _endpoints(check: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """The endpoint check as a table: each production endpoint beside its four-cell cell."""
    return pd.DataFrame({
        "point": check["point"], "round": check["round"],
        "config": [display_name(c, names) for c in check["config"]],
        "trajectory": check["trajectory"], "four-cell cell": check["four_cell"],
        "equal": ["yes" if e else "no" for e in check["equal"]]})


def run(inputs: TrajectoryInputs) -> Finding:
    """The trajectory's Finding: headline, chart, movement table, the divergence and what
    changed there, the selection inflation, production as it arrives, the consistency check
    and the splits' use.

    ``objects``: ``scores`` (tidy, both splits, every round's champion), ``notes``,
    ``test_sets``, ``rounds`` (ordered champions), ``overlap``, ``inflation`` (each
    split's one figure), ``four_cell`` (first vs last champion), ``watch`` (production as
    it arrives, :class:`ragnb.watch.stream.Watch`), ``endpoints`` (the consistency check),
    ``splits`` (the ledger rows, :func:`ragnb.ledger.views.split_status`).
    """
    i, ws = inputs, inputs.workspace
    names = ws.display_names
    rounds = ws.rounds()  # ordered champions
    if "round" not in rounds:  # a rounds file needs only its `config` column: in file order
        rounds = rounds.assign(round=range(len(rounds)))
    rounds = rounds.sort_values("round", kind="stable").reset_index(drop=True)
    configs = list(rounds["config"])
    test_sets, runs = ws.splits([i.golden, i.production], configs)
    scores, notes = score_splits(test_sets, runs, i.metric, policy=i.policy,
                                  **ws.spread, **ws.score_options)
    # one selection-inflation figure per split, the same on every page
    inflation = {s: workspace_inflation(ws, s, i.metric, i.policy)
                 for s in (i.golden, i.production)}
    overlap = split_overlap(test_sets[i.golden], test_sets[i.production], first_name=i.golden,
                            other_name=i.production)  # shared queries were selected against too
    tr = draw_trajectory(scores, rounds, golden=i.golden, production=i.production,
                         resamples=i.resamples, seed=i.seed, inflation=inflation[i.golden],
                         overlap=overlap)
    first, last = configs[0], configs[-1]
    fc = four_cell(scores[scores["config"].isin([first, last])], baseline=first, champion=last,
                   golden=i.golden, production=i.production, resamples=i.resamples,
                   seed=i.seed, overlap=overlap)
    own = tr.finding(four_cell=fc, display_names=names)
    watch, shown = _production_as_it_arrives(i, scores, overlap, first, last, names)

    divergence = markdown_text("{text}", text=tr.divergence_text)
    changed = divergence_change(tr, rounds, names)
    inf = tr.inflation
    rise = tr.movement.set_index("split").loc[i.golden, "total"]
    check = tr.endpoint_check(fc)
    same = bool(check["equal"].all() and check.attrs["movement_equals_delta"])
    consistency = CONSISTENCY_TEXT + "\n\n" + markdown_text(
        "The trajectory's first and last {production} points are the four-cell table's "
        "{production} cells, and its total movement is the four-cell {production} delta: "
        "**{ok}** (each comparison is one of the page's self-checks).",
        production=i.production, ok="yes" if same else "no, see the page's self-checks")
    splits = split_status(ws.ledger_dir, test_sets, se=inflation)
    sections: list[Section] = [
        # the chart right under the headline, then the movement table
        Section(_chart_caption(tr), "chart", own.chart),
        table_section(own.display_table, own.caption),
        markdown_section(divergence + (f"\n\n{changed}" if changed else ""), "Divergence"),
        markdown_section(markdown_text(
            "After {n} rounds of keeping the winner, {text}; against an observed golden rise "
            "of {rise} points.", n=inf["rounds"], text=inf["describe"],
            rise=f"{rise * 100:+.1f}"), "Selection inflation"),
        *(_watch_sections(shown) if shown is not None else [markdown_section(markdown_text(
            "Not read: {why}", why=overlap.describe()), "Production as it arrives")]),
        markdown_section(consistency, "Consistency with the four-cell table"),
        table_section(_endpoints(check, names),
                      f"The {i.production} line's endpoints and the four-cell {i.production} "
                      "cells, in points",
                      units={"trajectory": "points", "four-cell cell": "points"}),
        split_status_section(splits),
    ]
    sections += notes_sections(notes)
    checks, description = own.checks, own.description
    if shown is not None:
        arriving = shown.checks.assign(check="production as it arrives: "
                                       + shown.checks["check"])
        checks = checks_frame(pd.concat([own.checks, arriving], ignore_index=True))
        description = f"{own.description}; production as it arrives: {shown.description}"
    return Finding(own.headline, own.display_table, own.chart, checks, description,
                   own.caption, tr, tuple(sections),
                   {"scores": scores, "notes": notes, "test_sets": test_sets, "rounds": rounds,
                    "overlap": overlap, "inflation": inflation, "four_cell": fc,
                    "watch": watch, "endpoints": check, "splits": splits})


register(TrajectoryInputs.PAGE, resolve, run)
