"""Page ``01-fit``: is the gain real or fit? The four-cell table on a workspace.

``resolve`` reads the manifest's names (``[report.fit]`` / ``[report]``:
``golden``, ``production``, ``baseline``, ``challenger``, ``metric``,
``policy``; test sets by role); ``run`` scores both splits, builds the
four-cell table (:func:`ragnb.fit.four_cell`) and returns its Finding with the
reading, the limit and the split ledger's table as sections.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ragnb.fit import four_cell
from ragnb.fit.depth import judging_depth
from ragnb.io.overlap import split_overlap
from ragnb.ledger.status import split_status_section
from ragnb.ledger.views import split_status
from ragnb.metrics.judged import Policy
from ragnb.metrics.registry import parse_metric
from ragnb.pages.registry import Inputs, MissingInput, no_run, policy_of, register, workspace_of
from ragnb.result import Finding, markdown_section, markdown_text, notes_sections
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED
from ragnb.workspace.inflation import workspace_inflation
from ragnb.workspace.splits import score_splits


@dataclass(frozen=True)
class FitInputs(Inputs):
    """What the fit page reads: the workspace and the names resolved from its manifest."""

    PAGE: ClassVar[str] = "01-fit"
    golden: str
    production: str
    baseline: str
    champion: str
    metric: str
    policy: Policy


def resolve(workspace: Any, *, baseline: str = "", champion: str = "", golden: str = "",
            production: str = "", metric: str = "", policy: str = "",
            resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> FitInputs:
    """The fit page's inputs: given values win over ``[report.fit]``, then ``[report]``.

    Raises
    ------
    MissingInput
        No golden or production test set, no baseline or champion, or a split without
        a run of one of them.
    """
    ws = workspace_of(workspace)
    golden = ws.setting("fit", "golden", golden) or ws.role("golden")
    production = ws.setting("fit", "production", production) or ws.role("production")
    if not golden or not production:
        raise MissingInput("needs two test sets, one with role golden and one with role "
                           "production")
    baseline = ws.setting("fit", "baseline", baseline)
    champion = ws.setting("fit", "challenger", champion)
    if not baseline or not champion:
        raise MissingInput("no baseline and challenger configs ([report] baseline, challenger)")
    for split in (golden, production):
        lacking = [c for c in (baseline, champion) if c not in ws.configs(split)]
        if lacking:
            raise no_run(ws, split, lacking)
    return FitInputs(ws, golden, production, baseline, champion,
                     ws.setting("fit", "metric", metric, "ndcg@10"),
                     policy_of(ws.setting("fit", "policy", policy, "lower")),
                     resamples=resamples, seed=seed)


def run(inputs: FitInputs) -> Finding:
    """The four-cell Finding: headline, chart, table, the reading, its limit, the splits' use.

    ``objects``: ``scores`` (tidy, both splits), ``notes``, ``test_sets``, ``overlap``,
    ``inflation`` (each split's one figure), ``splits`` (the ledger rows,
    :func:`ragnb.ledger.views.split_status`).
    """
    i, ws = inputs, inputs.workspace
    test_sets, runs = ws.splits([i.golden, i.production], [i.baseline, i.champion])
    k = parse_metric(i.metric).k or 10
    both, notes = score_splits(test_sets, runs, [i.metric, f"judged@{k}"], policy=i.policy,
                               **ws.spread, **ws.score_options)
    judged = both["metric"] == str(parse_metric(f"judged@{k}"))
    scores = both[~judged].reset_index(drop=True)
    overlap = split_overlap(test_sets[i.golden], test_sets[i.production], first_name=i.golden,
                            other_name=i.production)  # shared queries were selected against too
    # one selection-inflation figure per split, the same on every page
    inflation = {s: workspace_inflation(ws, s, i.metric, i.policy)
                 for s in (i.golden, i.production)}
    shares = both[judged & (both["config"] == i.baseline)].groupby("split")["value"].mean()
    depth = judging_depth(test_sets, i.golden, i.production, judged=shares.to_dict(), k=k)
    fc = four_cell(scores, baseline=i.baseline, champion=i.champion, golden=i.golden,
                   production=i.production, resamples=i.resamples, seed=i.seed, overlap=overlap,
                   inflation=inflation, depth=depth)
    own = fc.finding(display_names=ws.display_names)
    share = fc.share_not_carried
    reading = markdown_text(
        "**Reading: {reading}.** {text}\n\n**Honest gain:** {gain} points on {production} (the "
        "production delta). **Share of the golden gain that did not carry over:** {share}."
        "\n\n**{limit}**",
        reading=fc.reading, text=fc.explanation, gain=f"{fc.honest_gain * 100:+.1f}",
        production=i.production, limit=fc.limit,
        share="not defined (no gain on golden)" if share != share else f"{share:.0%}")
    splits = split_status(ws.ledger_dir, test_sets, se=inflation)
    sections = (*own.sections, markdown_section(reading, "Reading"),
                split_status_section(splits), depth.section(), *notes_sections(notes))
    return Finding(own.headline, own.display_table, own.chart, own.checks, own.description,
                   own.caption, fc, sections,
                   {"scores": scores, "notes": notes, "test_sets": test_sets,
                    "overlap": overlap, "inflation": inflation, "splits": splits})


register(FitInputs.PAGE, resolve, run)
