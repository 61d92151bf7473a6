"""Page ``06-health``: is the test set still a fair ruler? The test-set health checks.

``resolve`` reads the manifest's names (``[workspace] corpus``; ``[health]``:
``test_set``, ``declared_sources``, ``bucket_column``, ``holdout_split``,
``holdout_run``, ``old_version``; ``[labels]``; ``[report.health]`` /
``[report]``: ``baseline``, ``challenger``, ``metric``, ``policy``); ``run``
reads the test set and the corpus build, runs every check of
:mod:`ragnb.health` (coverage, staleness, composition, bucket power,
near-duplicates, the held-back 20%, the version diffs) and returns the health
review's Finding (its rules: :func:`ragnb.health.health_review`) with each
check's tables, charts and readings as sections, in the notebook's order.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

import pandas as pd

from ragnb.health import (
    SHARE_METHOD,
    bucket_scores,
    buckets_of,
    coverage,
    health_review,
    holdout_check,
    holdout_split,
    near_duplicate_groups,
    source_mix,
    staleness,
    unanswerable_share,
    version_diff,
)
from ragnb.health.buckets import describe_buckets
from ragnb.health.charts import (
    bucket_chart,
    coverage_chart,
    holdout_chart,
    shares_chart,
    staleness_chart,
    version_chart,
)
from ragnb.io import read_corpus, read_run, read_test_set
from ragnb.labelbias import merge_judgments
from ragnb.ledger.status import split_status_section
from ragnb.ledger.views import split_status
from ragnb.metrics.judged import Policy
from ragnb.metrics.score import score
from ragnb.pages.registry import Inputs, MissingInput, no_run, policy_of, register, workspace_of
from ragnb.result import (
    MISSING,
    Finding,
    Section,
    display_name,
    markdown_section,
    markdown_text,
    notes_sections,
    table_section,
)
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED
from ragnb.workspace.inflation import workspace_inflation

#: Shares shown in percent (their CSV keeps 0-1).
SHARES = ("share", "ci_low", "ci_high", "target", "declared")
#: What a dash in the review queue means.
QUEUE_DASHES = ("A dash in judged_version: the judgment records no version; in corpus_version: "
                "the passage is no longer in the build (removed).")
#: Bucket-table columns in points (their CSV keeps 0-1).
BUCKET_POINTS = ("mean", "ci_low", "ci_high", "sd_diff", "mde")
#: What a dash in the bucket table means.
BUCKET_DASHES = ("A dash: not defined for the row (sd_diff, mde and needed need a paired "
                 "baseline; an interval needs two queries).")
#: What a dash in a version diff's table means.
VERSION_DASHES = ("A dash: not defined (the re-judging columns need two common queries, its "
                  "effect size per-query differences that vary; the added-queries columns need "
                  "two added queries).")


@dataclass(frozen=True)
class HealthInputs(Inputs):
    """What the health page reads: the workspace, the names and the files resolved from its
    manifest.

    ``holdout_run`` and ``old_version`` are files from ``[health]`` ("" none);
    ``rejudged_split`` the test set ``[labels]`` judges and ``labels`` its new
    judgments ("" none: no re-judging diff).
    """

    PAGE: ClassVar[str] = "06-health"
    split: str
    answer_grade: int
    unanswerable_target: float
    declared_sources: Mapping[str, float]
    bucket_column: str
    config: str
    baseline: str
    metric: str
    policy: Policy
    target: float
    duplicate_threshold: float
    review_rows: int
    holdout_split_name: str
    holdout_salt: str
    holdout_share: float
    holdout_run: str
    old_version: str
    rejudged_split: str
    labels: str
    rejudged_metric: str


#: The grade that answers a query when neither the parameter nor ``[health] answer_grade``
#: gives one (the top of a 0/1/2 scale).
ANSWER_GRADE = 2


def resolve(workspace: Any, *, split: str = "", answer_grade: int = -1,
            unanswerable_target: float = 0.15,
            declared_sources: Mapping[str, float] = MappingProxyType({}),
            bucket_column: str = "", config: str = "", baseline: str = "", metric: str = "",
            policy: str = "", target: float = 0.05, duplicate_threshold: float = 0.9,
            review_rows: int = 15, holdout_split_name: str = "", holdout_salt: str = "",
            holdout_share: float = 0.2, rejudged_metric: str = "",
            resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> HealthInputs:
    """The health page's inputs: given values win over ``[health]`` and ``[report.health]``,
    then ``[report]``.

    Raises
    ------
    MissingInput
        No corpus build, no held-back check inputs (``[health] holdout_split``,
        ``holdout_run``), no declared source mix, no config to score per bucket, or a
        split without a run of the configs it scores.
    """
    ws = workspace_of(workspace)
    if ws.manifest.corpus is None:
        raise MissingInput("no corpus build ([workspace] corpus)")
    health = ws.manifest.health
    holdout_split_name = holdout_split_name or health.get("holdout_split", "")
    if not holdout_split_name or not health.get("holdout_run"):
        raise MissingInput("no held-back check inputs ([health] holdout_split, holdout_run)")
    declared_sources = dict(declared_sources or health.get("declared_sources", {}))
    if not declared_sources:
        raise MissingInput("no declared source mix ([health] declared_sources)")
    split = (ws.setting("health", "test_set", split) or health.get("test_set")
             or ws.test_set_for("health"))
    baseline = ws.setting("health", "baseline", baseline)
    config = ws.setting("health", "challenger", config)
    if not config:
        raise MissingInput("no config to score per bucket ([report] challenger)")
    for name, configs in ((split, (baseline, config)), (holdout_split_name, (baseline,))):
        lacking = [c for c in configs if c and c not in ws.configs(name)]
        if lacking:
            raise no_run(ws, name, lacking)
    metric = ws.setting("health", "metric", metric, "ndcg@10")
    if answer_grade < 0:  # not given: the manifest's, else the top of a 0/1/2 scale
        answer_grade = int(health.get("answer_grade", ANSWER_GRADE))
    labelled = ws.manifest.labels
    return HealthInputs(
        ws, split, answer_grade, unanswerable_target, declared_sources,
        bucket_column or health.get("bucket_column", "intent"), config, baseline, metric,
        policy_of(ws.setting("health", "policy", policy, "lower")), target,
        duplicate_threshold, review_rows, holdout_split_name,
        holdout_salt or holdout_split_name, holdout_share, str(health["holdout_run"]),
        str(health.get("old_version", "")),
        labelled.get("test_set", "") if labelled.get("path") else "",
        str(labelled.get("path") or ""),
        ws.setting("label-bias", "metric", rejudged_metric, metric),
        resamples=resamples, seed=seed)


def _dashed(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its missing text cells a dash (numbers stay numbers; they show a dash)."""
    text = [c for c in table.columns if pd.api.types.is_string_dtype(table[c])
            or table[c].dtype == object]
    return table.assign(**{c: table[c].where(table[c].notna(), MISSING) for c in text})


def _method(text: str, *more: str) -> str:
    """``Method: text``, then ``more`` sentences (what a dash means) when any."""
    more = tuple(m for m in more if m)
    if more and not text.endswith("."):
        text += "."
    return " ".join((f"Method: {text}", *more))


def _dashes(table: pd.DataFrame) -> bool:
    """Whether ``table`` shows a dash: a missing or infinite value, or a dash as text."""
    floats = table.select_dtypes("number")
    return bool(table.isna().any().any() or table.isin([MISSING]).any().any()
                or (floats.abs() == float("inf")).any().any())


def _diff_note(table: pd.DataFrame, description: str) -> str:
    """The method of a version diff, and what its dashes mean when it has any."""
    return _method(description, VERSION_DASHES if _dashes(table) else "")


def _shown_configs(table: pd.DataFrame, names: Mapping[str, str]) -> pd.DataFrame:
    """``table`` with its config column as the names shown (``name (config)``)."""
    return table.assign(config=[display_name(c, names) for c in table["config"]])


def _changes(diff: Any) -> pd.DataFrame:
    return pd.DataFrame({"change": list(diff.counts()), "queries": list(diff.counts().values())})


def _versions(inputs: HealthInputs, test_set: Any, configs: list[str]
              ) -> tuple[list[Section], Any]:
    """The old version re-scored beside the new (``[health] old_version``), if any."""
    i, ws = inputs, inputs.workspace
    if not i.old_version:
        return [], None
    names = ws.display_names
    old = read_test_set(ws.use(i.old_version))
    diff = version_diff(old, test_set, ws.runs(i.split, configs), i.metric, policy=i.policy,
                        resamples=i.resamples, seed=i.seed)
    readings = "\n\n".join(markdown_text("{reading}", reading=diff.reading(c)) for c in configs)
    sections = [
        markdown_section(readings, f"Version diff: {diff.old_name} → {diff.new_name}"),
        table_section(_changes(diff), f"{diff.old_name} → {diff.new_name}: queries by change"),
        table_section(_shown_configs(diff.display_table(), names),
                      f"{i.metric} of each config on both versions, in points (metric × 100)",
                      note=_diff_note(diff.display_table(), diff.description)),
    ]
    sections += notes_sections(diff.notes, "", appendix=False)
    sections.append(Section(f"{i.metric} on {diff.old_name} and {diff.new_name}", "chart",
                            version_chart(diff, display_names=names)))
    return sections, diff


def _rejudged(inputs: HealthInputs) -> tuple[list[Section], dict[str, Any]]:
    """The re-judged test set (``[labels]``) scored before and after its new judgments."""
    i, ws = inputs, inputs.workspace
    if not i.rejudged_split:
        return [], {"rejudged": None}
    names = ws.display_names
    before = ws.test_set(i.rejudged_split)
    after, counts = merge_judgments(before, read_test_set(ws.use(i.labels)),
                                    name=f"{before.name}+labels")
    rejudged = version_diff(before, after, ws.runs(i.rejudged_split), i.rejudged_metric,
                            resamples=i.resamples, seed=i.seed)
    merged = markdown_text(
        "**Merged** {added} new judgments into {base} ({merged} in all; {touched} queries "
        "touched, {rel} new relevant).", added=counts.added, base=counts.base_judgments,
        merged=counts.merged_judgments, touched=counts.queries_touched, rel=counts.new_relevant)
    sections = [
        markdown_section(merged, f"Re-judging: {before.name} before and after its new labels"),
        table_section(_changes(rejudged),
                      f"{rejudged.old_name} → {rejudged.new_name}: queries by change"),
        table_section(_shown_configs(rejudged.display_table(), names),
                      f"{i.rejudged_metric} of each config before and after re-judging, in "
                      "points (metric × 100)",
                      note=_diff_note(rejudged.display_table(), rejudged.description)),
        Section(f"{i.rejudged_metric} before and after re-judging {before.name}", "chart",
                version_chart(rejudged, display_names=names)),
    ]
    return sections, {"rejudged": rejudged, "rejudged_test_set": before,
                      "rejudged_after": after, "merge_counts": counts}


def _verdicts(review: Any, *checks: str) -> str:
    """What the review says of ``checks``: each one's verdict and detail, one line each."""
    return "\n\n".join(markdown_text("**{check} {verdict}:** {detail}.", check=e.check.capitalize(),
                                       verdict="holds" if e.holds else "fails", detail=e.detail)
                         for e in review.entries if e.check in checks)


def _check_sections(i: HealthInputs, review: Any, charts: dict[str, Any], *, cov: Any,
                    stale: Any, unanswerable: Any, mix: Any, scores: Any, buckets: Any,
                    dups: Any, held: Any, check: Any) -> list[Section]:
    """Each check under its heading: what the review says of it, its tables and chart
    (coverage, staleness, composition, intent buckets, near-duplicates, the held-back 20%).
    """
    shares = charts["unanswerable share"]
    sections: list[Section] = []
    # coverage: is the answer still in the index?
    sections += [
        markdown_section(_verdicts(review, "coverage"),
                         "Coverage: is the answer still in the index?"),
        table_section(cov.summary(), "Coverage of the answerable queries (shares in %)",
                      units=dict.fromkeys(("coverage", "ci_low", "ci_high"), "percent"),
                      note=_method(cov.description)),
        table_section(cov.uncovered(), "Answerable queries whose answer is not in the build"),
        Section("Coverage of the answerable queries", "chart", charts["coverage"]),
    ]

    # staleness: judged before the document changed
    queue = _dashed(stale.review_queue())
    sections += [
        markdown_section(_verdicts(review, "judgment freshness"),
                         "Staleness: judged before the document changed"),
        table_section(stale.counts(), "Judgments by freshness (relevant = grade >= 1; shares "
                      "in %)", units={"share": "percent"}),
        table_section(queue, "Review queue: answering grades first", note=QUEUE_DASHES,
                      max_rows=i.review_rows),
        Section("Judgments by freshness", "chart", charts["judgment freshness"]),
    ]

    # composition: unanswerable share and source mix
    percent = dict.fromkeys(SHARES, "percent")
    sections += [
        markdown_section(_verdicts(review, "unanswerable share", "source mix"),
                         "Composition: unanswerable share and source mix"),
        table_section(unanswerable, "Unanswerable queries against the target share (%)",
                      units=percent),
        table_section(mix, "Source mix against the declared shares (%)", units=percent,
                      note=_method(f"intervals: 95% {SHARE_METHOD}")),
        Section("Unanswerable share and source mix against their targets", "chart", shares),
    ]

    # intent buckets: sizes, scores and power
    method = describe_buckets(i.metric, i.config, i.baseline or None, i.target, i.resamples,
                              i.seed)
    sections.append(markdown_section(_verdicts(review, "bucket power"),
                                     "Intent buckets: sizes, scores and power"))
    sections += notes_sections(scores.notes, "", appendix=False)
    sections += [
        table_section(buckets, f"{i.metric} of {i.config} per {i.bucket_column}, in points "
                      "(metric × 100)",
                      units=dict.fromkeys(BUCKET_POINTS, "points"),
                      note=_method(method, BUCKET_DASHES if _dashes(buckets) else "")),
        Section(f"{i.metric} of {i.config} per {i.bucket_column} against the target difference",
                "chart", charts["bucket power"]),
    ]

    # near-duplicate queries
    groups = dups.groups().round({"min_similarity": 2})
    members = dups.members.round({"min_similarity": 2})
    sections += [
        markdown_section(_verdicts(review, "near-duplicates"), "Near-duplicate queries"),
        table_section(dups.summary(), "Near-duplicate groups", note=_method(dups.description)),
        table_section(groups, "Groups and the query to keep", max_rows=i.review_rows),
        table_section(members, "Every member of a near-duplicate group", appendix=True),
    ]

    # the held-back 20%
    summary = check.summary()
    sections += [
        markdown_section(markdown_text("{held}\n\n**Held-back check on {split}.** {reading}",
                                       held=held.describe(), split=i.holdout_split_name,
                                       reading=check.reading()), "The held-back 20%"),
        table_section(check.sides(), f"{check.quantity}, {i.metric} on {i.holdout_split_name}: "
                      "tuning vs held-back queries, in points (metric × 100)",
                      units=dict.fromkeys(("mean", "ci_low", "ci_high"), "points"),
                      note=_method(check.description)),
        table_section(summary.round({c: 4 for c in summary.columns
                                     if summary[c].dtype.kind == "f"}),
                      "Tuning vs held-back queries, every column, metric units (0-1)",
                      appendix=True),
        Section(f"{check.quantity} on {i.holdout_split_name}: tuning vs held-back queries",
                "chart", charts["held-back 20%"]),
    ]

    return sections


def run(inputs: HealthInputs) -> Finding:
    """The health review's Finding: headline, the most urgent failure's chart, then each
    check under its heading (what the review says of it, its tables and chart), the version
    diffs and the splits' use.

    ``objects``: ``test_set``, ``corpus``, ``coverage``, ``staleness`` (and
    ``staleness_per_query``), ``unanswerable``, ``mix``, ``scores`` (per bucket's
    config and baseline), ``buckets``, ``duplicates``, ``held`` (the held-back
    split), ``tuned`` (the test set tuning selects on), ``holdout_scores``,
    ``holdout``, ``diff`` (old version, or None), ``rejudged`` (or None; with
    ``rejudged_test_set``, ``rejudged_after``, ``merge_counts``), ``review``,
    ``charts`` (check -> chart), ``inflation`` (each split's one figure), ``splits``
    (the ledger rows).
    """
    i, ws = inputs, inputs.workspace
    names = ws.display_names
    test_set = ws.test_set(i.split)
    corpus = read_corpus(ws.use(ws.manifest.corpus))
    # the checks: coverage, staleness, composition, bucket power, near-duplicates, held back
    cov = coverage(test_set, corpus, answer_grade=i.answer_grade)
    stale = staleness(test_set, corpus)
    per_query = stale.per_query()
    unanswerable = unanswerable_share(test_set, target=i.unanswerable_target)
    mix = source_mix(test_set, dict(i.declared_sources))
    configs = [c for c in (i.baseline, i.config) if c]
    scores = score(test_set, ws.runs(i.split, configs), i.metric, policy=i.policy,
                   no_relevant="drop")  # unanswerable queries are counted apart (above)
    buckets = bucket_scores(scores, buckets_of(test_set, i.bucket_column), config=i.config,
                            metric=i.metric, baseline=i.baseline or None, target=i.target,
                            resamples=i.resamples, seed=i.seed)
    dups = near_duplicate_groups(test_set, threshold=i.duplicate_threshold)
    tuned = ws.test_set(i.holdout_split_name)
    held = holdout_split(tuned.query_ids, share=i.holdout_share, salt=i.holdout_salt)
    tuned_run = read_run(ws.use(i.holdout_run))
    holdout_runs = ws.runs(i.holdout_split_name, [i.baseline]) if i.baseline else []
    holdout_scores = score(tuned, holdout_runs + [tuned_run], i.metric, policy=i.policy)
    check = holdout_check(holdout_scores, held, config=tuned_run.name, metric=i.metric,
                          baseline=i.baseline or None, resamples=i.resamples, seed=i.seed)

    # the review: each check's rule (ragnb.health.review), the headline
    shares = shares_chart(mix, unanswerable)
    charts = {"coverage": coverage_chart(cov), "judgment freshness": staleness_chart(stale),
              "unanswerable share": shares, "source mix": shares,
              "bucket power": bucket_chart(buckets, metric=i.metric, config=i.config,
                                           target=i.target, display_names=names),
              "held-back 20%": holdout_chart(check, i.holdout_split_name)}
    review = health_review(
        i.split, coverage=cov, staleness_per_query=per_query, unanswerable=unanswerable,
        mix=mix, buckets=buckets, target=i.target, duplicates=dups, holdout=check,
        holdout_split=i.holdout_split_name, charts=charts,
        description=f"{i.metric}; intervals 95%: shares {SHARE_METHOD}, scores percentile "
                    f"bootstrap ({i.resamples:,} resamples, seed {i.seed})")
    own = review.finding(display_names=names)

    # the most urgent failure's chart opens the page ("its chart is below")
    first = (review.failing() or review.entries)[0]
    sections: list[Section] = [Section(
        f"The check to fix first: {first.check} (on {first.split})" if not first.holds
        else f"The first check: {first.check}", "chart", own.chart)] \
        if own.chart is not None else []
    sections.append(markdown_section(markdown_text(
        "**Test set** {split}: {q} queries, {j} judgments. **Corpus build** {build}: {p} "
        "passages, document versions ordered as {scheme}s.", split=i.split,
        q=len(test_set.queries), j=len(test_set.judgments), build=corpus.name, p=len(corpus),
        scheme=corpus.scheme)))

    sections += _check_sections(i, review, charts, cov=cov, stale=stale,
                                unanswerable=unanswerable, mix=mix, scores=scores,
                                buckets=buckets, dups=dups, held=held, check=check)

    # version diffs: the old version re-scored beside the new; the re-judged test set
    versions, diff = _versions(i, test_set, configs)
    rejudging, rejudged = _rejudged(i)
    sections += versions + rejudging

    # how often each split has been used to choose
    splits_read = {i.split: test_set, i.holdout_split_name: tuned}
    if rejudged["rejudged"] is not None:
        splits_read[rejudged["rejudged_test_set"].name] = rejudged["rejudged_test_set"]
    # each split's one selection-inflation figure, as every page of the workspace shows it
    inflation = {s: workspace_inflation(ws, s, i.metric, i.policy)
                 for s in (i.split, i.holdout_split_name) if s in ws.test_set_names}
    splits = split_status(ws.ledger_dir, splits_read, se=inflation)
    sections.append(split_status_section(splits))
    return Finding(own.headline, own.display_table, own.chart, own.checks, own.description,
                   own.caption, review, tuple(sections),
                   {"test_set": test_set, "corpus": corpus, "coverage": cov,
                    "staleness": stale, "staleness_per_query": per_query,
                    "unanswerable": unanswerable, "mix": mix, "scores": scores,
                    "buckets": buckets, "duplicates": dups, "held": held, "tuned": tuned,
                    "holdout_scores": holdout_scores, "holdout": check, "diff": diff,
                    **rejudged, "review": review, "charts": charts, "inflation": inflation,
                    "splits": splits})


register(HealthInputs.PAGE, resolve, run)
