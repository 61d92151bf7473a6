"""``ragnb compare``: paired bootstrap of challengers against a baseline, Holm-adjusted,
on one or several metrics (one Holm family: metrics x challengers).
"""
from __future__ import annotations

import argparse

from ragnb.cli._options import OUTPUT, RESAMPLING, SCORING, STRATA, add

NAME = "compare"
HELP = "paired comparison: challengers vs a baseline (optionally by stratum), Holm p-values"
DESCRIPTION = (
    "Compare one or more challenger runs with a baseline run on the same test set.\n\n"
    "For each challenger: mean per-query difference (challenger - baseline), its\n"
    "interval (calibrated t-interval by default; percentile or BCa paired bootstrap\n"
    "with --method), standard error, the two-sided p-value of the test the interval\n"
    "inverts (so the two never disagree), Holm-adjusted p-value over every row shown, the\n"
    "secondary bootstrap p, the minimum detectable effect (80% power, alpha .05) and\n"
    "the queries needed to resolve the observed difference. Rows under 6 queries\n"
    "read 'too few queries to say'.\n"
    "With --by, queries are resampled within strata (sizes fixed) and each stratum\n"
    "gets a row beside the pooled one; the strata come from --strata FILE or from the\n"
    "test set's own query metadata (e.g. --by intent).\n\n"
    "--metric is repeatable (--metric ndcg@10 --metric map): the Holm family is then\n"
    "metrics x challengers (x strata rows), stated in the header. Every row carries the\n"
    "standardized effect size (mean difference / SD of differences); --also ttest and\n"
    "--also wilcoxon add the paired t-test and Wilcoxon signed-rank p-values beside the\n"
    "headline test. trec_eval names are accepted (map, P_10, ndcg_cut_10, ...)."
)

SHOW = ["metric", "challenger", "stratum", "n", "baseline_mean", "challenger_mean", "delta",
        "ci_low", "ci_high", "se", "p_value", "p_holm", "p_bootstrap", "effect_size", "p_ttest",
        "p_wilcoxon", "n_zero", "mde", "queries_needed"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "judgments", "workspace", "split", *SCORING, "baseline", "challenger", "metrics",
        "relevance_level", *STRATA, *RESAMPLING, "ledger", "jobs", "cluster", *OUTPUT,
        baseline={"required": True, "metavar": "NAME=FILE",
                  "help": "the baseline run (with --workspace: its config)"},
        challenger={"required": True, "metavar": "NAME=FILE",
                    "help": "a challenger run (repeatable; with --workspace: its config)"},
        metrics={"help": "a metric, e.g. ndcg@10 or map (repeatable: one Holm family over "
                        "metrics x challengers)"})
    p.add_argument("--ci", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--method", choices=("t", "percentile", "bca"), default="t",
                   help="interval: calibrated t (default), percentile or BCa bootstrap")
    p.add_argument("--also", action="append", choices=("ttest", "wilcoxon"), default=[],
                   help="a classic paired test shown beside the headline one (repeatable)")
    add(p, "judge", judge={"metavar": "[NAME=]FILE|NAME",
                           "help": "read the comparison with a model judge's labels: people "
                                   "only, judge only (biased) and PPI++ (ragnb judge's "
                                   "Finding; with --workspace: NAME of the test set's judge)"})

def run(args: argparse.Namespace) -> int:
    from ragnb.cli._common import (
        emit,
        guard_sealed,
        ledger_line,
        resolve_inputs,
        split_figure,
        split_manifest,
        strata_labels,
    )
    from ragnb.comparison.compare import compare_scores
    from ragnb.errors import InputError
    from ragnb.metrics import parse_metric
    from ragnb.metrics.registry import metric_label
    from ragnb.metrics.score import score

    metrics = list(dict.fromkeys(str(parse_metric(m)) for m in args.metric))
    if args.judge:
        return _judged(args, metrics)
    if args.strata and not args.by:
        raise InputError("--strata needs --by COLUMN", key="--by")
    # runs are read one at a time while scoring: one run in memory at once
    inputs = resolve_inputs(args, [args.baseline, *args.challenger], run_flag="--baseline",
                            read=False)
    test_set, runs = inputs.test_set, inputs.runs
    ledger_dir = inputs.ledger
    manifest = split_manifest(ledger_dir, test_set)  # a ledger that does not verify: refused now
    # the workspace's gain map for an nDCG that names none
    metrics = list(dict.fromkeys(str(parse_metric(inputs.metric(m))) for m in metrics))
    baseline_name = runs[0].name
    scores = score(test_set, runs, metrics, policy=args.policy, upper_grade=args.upper_grade,
                   no_relevant=args.no_relevant, jobs=inputs.jobs(args.jobs),
                   cluster=inputs.cluster(args.cluster), **inputs.options)
    notes = [*test_set.notes, *scores.notes]
    strata = None
    if args.by:
        scored = scores.table["query_id"].unique()
        strata, strata_notes = strata_labels(args, test_set, scored, inputs.strata)
        notes += list(strata_notes)
    found = compare_scores(scores, baseline=baseline_name, metrics=metrics,
                           challengers=[r.name for r in runs[1:]], strata=strata,
                           tests=args.also, resamples=args.resamples, seed=args.seed,
                           ci=args.ci, method=args.method, notes=notes)
    result = found.source
    labels = ", ".join(metric_label(str(parse_metric(m))) for m in metrics)
    header = [(f"# {labels} on {test_set.name}, label policy {scores.policy}; "
               f"baseline {baseline_name}; differences are challenger - baseline"),
              f"# {result.attrs['description']}",
              f"# beside it: {result.attrs['classic']}"]
    for row in result.attrs.get("checks", []):
        where = row["challenger"] + (f", {row['metric']}" if len(metrics) > 1 else "")
        header.append(f"# check [{where}] {row['check']}: "
                      f"{'ok' if row['holds'] else 'FLAGGED'} — {row['detail']}")
    means = scores.means()
    first = means[means["metric"] == metrics[0]].set_index("config")["mean"].to_dict()
    # one scoring per config, whatever the number of metrics (each is scored once per run)
    guard_sealed(ledger_dir, manifest, first if len(metrics) == 1 else dict.fromkeys(first),
                 ", ".join(metrics))
    cols = [c for c in SHOW if c in result.columns]
    for row in result[result["statement"] != ""].itertuples():
        what = f"{row.metric}: " if len(metrics) > 1 else ""
        header.append(f"# [{what}{row.challenger} / {row.stratum}] {row.statement}")
    figures = {}
    if manifest is not None:
        from ragnb.stats import paired_se

        result["selections_against"] = manifest.selections_against
        for metric in metrics:
            wide = scores.wide(metric)
            pair = wide[[baseline_name, runs[-1].name]].dropna()
            se, source = paired_se(pair[baseline_name], pair[runs[-1].name])
            figure = split_figure(inputs, manifest, metric, scores.policy, se=se,
                                  se_source=source)
            figures[metric] = figure
            result.loc[result["metric"] == metric, "inflation"] = (
                float("nan") if figure is None else figure.inflation)
            if figure is not None and manifest.selections_against and metric != metrics[0]:
                header.append(f"# [{metric}] {figure.describe()}")
        cols += ["selections_against", "inflation"]
    refuse_close_ranking(manifest, scores, metrics, figures)
    header += ledger_line(manifest, ledger_dir, figures.get(metrics[0]), test_set=test_set)
    header += [f"# note: {n}" for n in notes]
    if strata is None:
        cols.remove("stratum")
    if len(metrics) == 1:
        cols.remove("metric")
    if args.format == "table" and not args.out:
        # the Finding first and alone: headline, its table in points, method, short notes;
        # the full frame is behind --format csv|tsv|json (issue 33 #5)
        print(finding_text(found, header[3:]), end="")
        return 0
    out = result
    if args.format == "table":
        out = result[cols].copy()
        out["queries_needed"] = [f"{int(v):,}" if v == v and v != float("inf") else "—"
                                 for v in out["queries_needed"]]
    from ragnb.comparison.finding import DASH

    emit(out, args.format, args.out, header, points=(
        "baseline_mean", "challenger_mean", "delta", "ci_low", "ci_high", "se", "mde",
        "inflation"), notes_below=True, dash=DASH)
    return 0


def finding_text(found, notes: list[str]) -> str:
    """``found.to_text()`` (the reading's notes are its own section, as ``ragnb.compare``
    shows them), then the lines only the command adds (header lines without their ``#``;
    checks that hold only counted, in the finding's "Checks" line), numbered, then where
    the full table is.
    """
    import textwrap

    from ragnb.result import TEXT_WIDTH

    said = [" ".join(n.removeprefix("# ").split()) for n in notes
            if not (n.startswith("# check [") and ": ok — " in n)   # "Checks:" counts those
            and not n.startswith("# note: ")]   # the finding's own Notes section has those
    lines = [textwrap.fill(f"[{i}] {n}", TEXT_WIDTH, subsequent_indent="    ",
                           break_on_hyphens=False) for i, n in enumerate(said, start=1)]
    return (found.to_text() + ("\nAlso noted:\n" + "\n".join(lines) + "\n" if lines else "")
            + "\nThe full table (values 0-1, every column): --format csv, tsv or json.\n")


def refuse_close_ranking(manifest, scores, metrics: list[str], figures=None) -> None:
    """On a regression guard, refuse to rank the candidates unless the leader is clear
    (:func:`ragnb.ledger.policy.check_choice`, the rule the ledger notebook shows), on
    every metric compared; the selection bias in the margin is the split's figure
    (``figures``: metric -> :class:`ragnb.stats.SelectionInflation`).
    """
    if manifest is None or manifest.role != "regression_guard":
        return
    from ragnb.ledger.policy import check_choice
    from ragnb.stats import paired_se

    for metric in metrics:
        wide = scores.wide(metric).dropna()
        means = wide.mean().to_dict()
        leader, runner_up = sorted(means, key=means.get, reverse=True)[:2]
        se, _ = paired_se(wide[runner_up], wide[leader])
        check_choice(manifest, means, se, (figures or {}).get(metric))


def _judged(args: argparse.Namespace, metrics: list[str]) -> int:
    """``--judge``: the comparison read three ways (:func:`ragnb.judge.finding.judge_finding`)."""
    from ragnb.cli._common import name_file, resolve_inputs
    from ragnb.errors import InputError
    from ragnb.judge.finding import judge_finding

    if len(metrics) > 1 or len(args.challenger) > 1 or args.by:
        raise InputError("--judge reads one metric and one challenger, without --by",
                         key="--judge")
    if args.workspace:
        from ragnb.pages import resolve
        from ragnb.pages import run as run_page

        inputs = resolve("08-judge", args.workspace, split=args.split or "",
                         baseline=args.baseline, challenger=args.challenger[0],
                         metric=metrics[0], resamples=args.resamples, seed=args.seed)
        judge = inputs.workspace.test_set(inputs.split).judge
        if judge is not None and args.judge != judge.name:
            raise InputError(f"test set {inputs.split!r}'s judge is {judge.name!r}, not "
                             f"{args.judge!r}", key="--judge")
        print(run_page(inputs).to_text(), end="")
        return 0
    from pathlib import Path

    from ragnb.io.judges import attach_judge
    from ragnb.io.runs import config_of_file

    inputs = resolve_inputs(args, [args.baseline, *args.challenger], run_flag="--baseline")
    name, path = name_file(args.judge, "--judge")
    test_set = attach_judge(inputs.test_set, path,
                            name=name or config_of_file(Path(path).name))
    runs = inputs.runs
    finding = judge_finding(test_set, runs, metric=inputs.metric(metrics[0]),
                            baseline=runs[0].name, challenger=runs[1].name,
                            resamples=args.resamples, seed=args.seed, **inputs.options)
    print(finding.to_text(), end="")
    return 0
