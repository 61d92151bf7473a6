"""Page ``04-label-bias``: is the answer key biased? Bounds, verdicts and what to label next.

``resolve`` reads the manifest's names (``[report.label-bias]`` / ``[report]``:
``test_set``, ``configs``, ``baseline``, ``challenger``, ``metric``; the
``[labels]`` table: the test set its pooled labels belong to, their ``path``,
the ``shards`` file and the ``shard``); ``run`` bounds every config's score
over the unjudged passages (:func:`ragnb.labelbias.label_bounds`), gives the
three-way verdict against the baseline (its headline is the page's), the
judge-next list, and, when the workspace has the pooled labels, the bounds and
verdicts after merging them and what one labelled shard predicted
(:mod:`ragnb.labelbias.sections`, the same sections as ``ragnb bounds`` and
``ragnb pool``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from ragnb.labelbias import (
    bounds_table,
    judge_next,
    label_bounds,
    merge_judgments,
    shard_projection,
    three_way,
)
from ragnb.labelbias.sections import (
    BOUNDS_BODY,
    BOUNDS_UNITS,
    bounds_sections,
    judge_next_sections,
    named,
    rule_section,
    shard_sections,
)
from ragnb.ledger.status import split_status_section
from ragnb.ledger.views import split_status
from ragnb.pages.registry import Inputs, MissingInput, no_run, register, workspace_of
from ragnb.result import (
    Finding,
    Section,
    checks_frame,
    finding,
    markdown_section,
    markdown_text,
    notes_sections,
    table_section,
)
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED
from ragnb.workspace.inflation import workspace_inflation

#: The page's parts, each a heading over its sections.
BOUNDS = "How much could the missing labels change each score?"
LABEL_NEXT = "What to label next"
AFTER = "After labelling the pool"
SHARD = "What one labelled shard predicted"
JUDGE_FILLED = "Filled by the model judge"


@dataclass(frozen=True)
class LabelBiasInputs(Inputs):
    """What the label-bias page reads: the workspace and the names resolved from its manifest.

    ``challenger`` (``[report]``) leads the tables when it is one of ``configs``;
    ``labels`` / ``shards`` are the pooled labels and the shard file of ``split``
    (``""``: the workspace has none for it); ``shard`` the shard to project from.
    """

    PAGE: ClassVar[str] = "04-label-bias"
    split: str
    configs: tuple[str, ...]
    baseline: str
    challenger: str
    metric: str
    joint: bool
    shard: str
    judge_next_rows: int
    labels: str
    shards: str


def resolve(workspace: Any, *, split: str = "", configs: list = [],  # noqa: B006 (the notebook's)
            baseline: str = "", metric: str = "", joint: bool = True, shard: str = "",
            judge_next_rows: int = 15, resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> LabelBiasInputs:
    """The label-bias page's inputs: given values win over ``[report.label-bias]``, then
    ``[report]`` (the test set: then ``[labels] test_set``, role production, golden, the
    first; the shard: ``[labels] shard``).

    Raises
    ------
    MissingInput
        Fewer than two configs with a run on the test set, no baseline, or no run of it
        among the configs.
    """
    ws = workspace_of(workspace)
    labelled = ws.manifest.labels
    split = (ws.setting("label-bias", "test_set", split) or labelled.get("test_set")
             or ws.test_set_for("label-bias"))
    configs = list(ws.setting("label-bias", "configs", configs) or ws.configs(split))
    if len(configs) < 2:
        raise MissingInput(f"test set {split!r} needs runs of at least two configs")
    baseline = ws.setting("label-bias", "baseline", baseline)
    if not baseline:
        raise MissingInput("no baseline config ([report] baseline)")
    if baseline not in configs:
        raise no_run(ws, split, [baseline])
    mine = labelled.get("test_set") == split  # the pooled labels of this test set, if any
    return LabelBiasInputs(
        ws, split, tuple(configs), baseline, ws.setting("label-bias", "challenger"),
        ws.setting("label-bias", "metric", metric, "ndcg@10"), bool(joint),
        shard or labelled.get("shard", ""), int(judge_next_rows),
        str(labelled.get("path") or "") if mine else "",
        str(labelled.get("shards") or "") if mine else "",
        resamples=resamples, seed=seed)


def _after(i: LabelBiasInputs, test_set: Any, labels: Any, runs: Any, first: list[str],
           challengers: list[str], names: dict[str, str]) -> tuple[list[Section], dict]:
    """The bounds and verdicts once the pooled labels are merged (they collapse to a point)."""
    merged, counts = merge_judgments(test_set, labels)
    after = label_bounds(merged, runs, i.metric, **i.workspace.score_options)
    verdicts = finding(three_way(after, i.baseline, challengers, joint=i.joint,
                                 resamples=i.resamples, seed=i.seed),
                       display_names=names, chart=False)
    sections = [
        markdown_section(markdown_text(
            "**Merged** {added} new judgments into {base} ({merged} in all; {touched} queries "
            "touched, {rel} new relevant).", added=counts.added, base=counts.base_judgments,
            merged=counts.merged_judgments, touched=counts.queries_touched,
            rel=counts.new_relevant), AFTER),
        table_section(named(bounds_table(after, first=first)[BOUNDS_BODY], names),
                      "Bounds after merging the pooled labels, in points: the intervals "
                      "collapse to a point", units=BOUNDS_UNITS),
        table_section(verdicts.display_table, "Verdicts after merging the pooled labels; "
                      + verdicts.caption),
    ]
    return sections, {"merged": merged, "merge_counts": counts, "bounds_after": after,
                      "verdicts_after": verdicts.source}


def _judge_filled(i: LabelBiasInputs, test_set: Any, runs: Any, challengers: list[str],
                  names: dict[str, str], objects: dict) -> list[Section]:
    """The verdicts over every query the judge labelled, beside PPI++: the exact bounds of
    each difference with people's holes and the judge-only queries free (what people's
    labels alone can say about all the queries), the PPI++ interval, and who decides.
    """
    from dataclasses import replace

    from ragnb.judge import judged_estimates
    from ragnb.judge.finding import judge_reading

    ws = i.workspace
    estimates = judged_estimates(test_set, runs, i.metric, baseline=i.baseline,
                                 **ws.score_options)
    known = set(test_set.query_ids.astype(str))
    more = [q for q in pd.unique(test_set.judge.judgments["query_id"].astype(str))
            if q not in known]
    union = replace(test_set, queries=pd.concat(
        [test_set.queries, pd.DataFrame({"query_id": more})], ignore_index=True))
    wide = label_bounds(union, runs, i.metric, **ws.score_options)
    tw = three_way(wide, i.baseline, challengers, joint=i.joint, resamples=i.resamples,
                   seed=i.seed)
    sentence, reading = judge_reading(tw.verdicts, estimates, names)
    objects.update(judge_estimates=estimates, judge_bounds=wide, judge_verdicts=tw)
    return [markdown_section(markdown_text("{s}", s=sentence), JUDGE_FILLED),
            table_section(reading, f"Each difference over all {len(union.queries)} queries "
                                   f"(points): exact bounds with people's unjudged passages "
                                   f"and the {len(more)} queries only judge "
                                   f"{test_set.judge.name} labelled left free, and PPI++, "
                                   "which carries the judge's error measured on the "
                                   f"{estimates.n_labelled} queries people judged (ragnb "
                                   "report 08-judge)")]


def run(inputs: LabelBiasInputs) -> Finding:
    """The three-way verdict's Finding (its headline), then the bounds, what to label next,
    the merged labels and the shard when the workspace has them, and the split ledger.

    ``objects``: ``test_set``, ``runs``, ``bounds`` (:class:`ragnb.labelbias.Bounds`),
    ``table`` (the bounds per config, data), ``verdicts`` (the three-way result, also
    ``finding.source``), ``challengers``, ``judge_next`` (every row), ``labels``,
    ``merged``, ``merge_counts``, ``bounds_after``, ``verdicts_after``, ``projection``
    (those with the pooled labels only), ``inflation``, ``splits`` (the ledger rows).
    """
    from ragnb.labelbias.charts import bounds_chart, shard_chart

    i, ws = inputs, inputs.workspace
    names = ws.display_names
    labels_path, shards_path = ws.use(i.labels), ws.use(i.shards)
    test_set = ws.test_set(i.split)
    runs = ws.runs(i.split, list(i.configs))
    bounds = label_bounds(test_set, runs, i.metric, **ws.score_options)
    first = [i.baseline, i.challenger]
    table = bounds_table(bounds, first=first)
    challengers = [c for c in dict.fromkeys([i.challenger, *bounds.configs])
                   if c in bounds.configs and c != i.baseline]
    tw = three_way(bounds, i.baseline, challengers, joint=i.joint, resamples=i.resamples,
                   seed=i.seed)
    own = finding(tw, display_names=names)
    checks = finding(bounds, display_names=names, chart=False).checks
    next_up = judge_next(bounds, i.baseline, test_set=test_set)
    sections: list[Section] = [
        *own.sections,          # the verdict chart under the headline, then its table
        rule_section(),
        *bounds_sections(bounds, first=first, display_names=names, caption=BOUNDS,
                         chart=bounds_chart(table, display_names=names)),
        *judge_next_sections(bounds.pool, next_up, first=first, display_names=names,
                             max_rows=i.judge_next_rows, caption=LABEL_NEXT),
    ]
    objects: dict[str, Any] = {"test_set": test_set, "runs": runs, "bounds": bounds,
                               "table": table, "verdicts": tw, "challengers": challengers,
                               "judge_next": next_up}
    if labels_path:
        from ragnb.io import read_test_set

        labels = read_test_set(labels_path)  # any test-set format: CSV, qrels, JSONL
        after, more = _after(i, test_set, labels, runs, first, challengers, names)
        sections += after
        objects.update(labels=labels, **more)
        if shards_path:
            shards = pd.read_csv(shards_path, dtype=str)
            projection = shard_projection(
                test_set, labels, runs, i.metric,
                shards.loc[shards["shard"] == i.shard, "query_id"], baseline=i.baseline,
                resamples=i.resamples, seed=i.seed, **ws.score_options)
            sections += shard_sections(projection, i.metric, i.shard, i.baseline,
                                       display_names=names, caption=SHARD,
                                       chart=shard_chart(projection, display_names=names))
            objects["projection"] = projection
    if test_set.judge is not None:  # the judge-filled reading beside the exact bounds
        sections[len(own.sections):len(own.sections)] = _judge_filled(
            i, test_set, runs, challengers, names, objects)
    inflation = workspace_inflation(ws, i.split, i.metric, "lower")
    splits = split_status(ws.ledger_dir, {test_set.name: test_set}, se=inflation)
    sections += [split_status_section(splits),
                 *notes_sections(bounds.notes)]
    objects.update(inflation=inflation, splits=splits)
    return Finding(own.headline, own.display_table, own.chart, checks_frame(checks),
                   own.description, own.caption, tw, tuple(sections), objects)


register(LabelBiasInputs.PAGE, resolve, run)
