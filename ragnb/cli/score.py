"""``ragnb score``: metric values per config (means) or per query (tidy table)."""
from __future__ import annotations

import argparse
import os
import sys

from ragnb.cli._options import INPUTS, OUTPUT, SCORING, STRATA, add

NAME = "score"
HELP = "score runs against a test set (means, or per query with --per-query)"


def description() -> str:
    """The long help, with the metric list read from the registry."""
    from ragnb.metrics import metric_help

    return (
        "Score one or more runs against a test set.\n\n"
        "Runs are TREC run files, JSONL {query_id: [passage_id, ...]} or CSV/Parquet long\n"
        "tables (query_id, passage_id, rank and/or score); gzip is read transparently.\n"
        "Output: mean per config and metric, or with --per-query the tidy table\n"
        "config, query_id, metric, value.\n\n"
        "Metrics (name@k, parameters in parentheses, e.g. rbp(p=0.9)):\n" + metric_help()
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, *INPUTS, *SCORING, "metrics", "relevance_level", "per_query", *STRATA, "ledger", "jobs",
        "cluster",
        *OUTPUT,
        run={"help": "a run to score (repeatable); NAME defaults to the file name"},
        metrics={"help": "metric name such as ndcg@10 (repeatable); see the list above"},
        per_query={"help": "print the per-query tidy table instead of means; with --out "
                            "FOLDER/ (a trailing /) it is written as a Parquet table "
                            "partitioned by config (ragnb.read_scores reads it)"},
        by={"help": "per-stratum means: one row per config, metric and value of COLUMN (in "
                    "--strata, or in the test set's query metadata, e.g. intent)"})


def run(args: argparse.Namespace) -> int:
    from ragnb.cli._common import (
        emit,
        guard_sealed,
        ledger_line,
        resolve_inputs,
        split_figure,
        split_manifest,
        strata_labels,
        terminal_safe,
    )
    from ragnb.errors import InputError
    from ragnb.metrics import parse_metric
    from ragnb.metrics.registry import metric_label
    from ragnb.metrics.score import score

    for m in args.metric:  # fail fast on a typo, before reading big files
        parse_metric(m)
    # runs are read one at a time while scoring: one run in memory at once
    inputs = resolve_inputs(args, args.config if args.workspace else args.run, read=False)
    test_set, runs, options = inputs.test_set, inputs.runs, inputs.options
    ledger_dir = inputs.ledger
    manifest = split_manifest(ledger_dir, test_set)  # a ledger that does not verify: refused now
    metrics = [inputs.metric(m) for m in args.metric]  # the workspace's gain map for nDCG
    folder = bool(args.out) and is_folder(args.out)
    if folder and (not args.per_query or args.by):
        raise InputError("a folder holds the per-query score table: give --per-query (and no "
                         "--by; strata are applied when it is read)", key="--out")

    def guard(means) -> None:
        first = means[means["metric"] == means["metric"].iloc[0]]
        values = dict(zip(first["config"], first["mean"]))
        # one scoring per config, whatever the number of metrics (each is scored once a run)
        one = means["metric"].nunique() == 1
        guard_sealed(ledger_dir, manifest, values if one else dict.fromkeys(values),
                     ", ".join(dict.fromkeys(means["metric"])))

    scoring = {"policy": args.policy, "upper_grade": args.upper_grade,
               "no_relevant": args.no_relevant, "jobs": inputs.jobs(args.jobs),
               "cluster": inputs.cluster(args.cluster), **options}
    if folder:  # written run by run: one run's scores in memory, whatever the sweep
        from ragnb.metrics.store import score_into

        written = score_into(args.out, test_set, runs, metrics, check=guard, **scoring)
        policy, orders, notes, means = (written.policy, written.orders, written.notes,
                                        written.means)
    else:
        scores = score(test_set, runs, metrics, **scoring)
        policy, orders, notes, means = (scores.policy, dict(scores.orders), scores.notes,
                                        scores.means())
        guard(means)
    header = [f"# test set {test_set.name} ({len(test_set.queries)} queries), "
              f"label policy {policy}, ranking order " + ", ".join(sorted(set(orders.values())))]
    named = [(str(parse_metric(m)), metric_label(str(parse_metric(m)))) for m in metrics]
    header += [f"# {label}" for text, label in named if label != text]   # the nDCG gain
    header += ledger_line(manifest, ledger_dir,
                          split_figure(inputs, manifest, metrics[0], policy),
                          test_set=test_set)
    header += [f"# note: {n}" for n in (*test_set.notes, *notes)]
    if folder:
        rows = int(means["n"].sum())
        header += [f"# wrote {rows:,} per-query scores of {means['config'].nunique()} configs "
                   f"to {written.path}/ (Parquet, one partition per config; ragnb.read_scores "
                   "reads it back)"]
        for line in header:
            print(terminal_safe(line), file=sys.stderr)
        return 0
    table = scores.table if args.per_query else means
    if args.by:
        scored = scores.table["query_id"].unique()
        labels, strata_notes = strata_labels(args, test_set, scored, inputs.strata)
        header += [f"# note: {n}" for n in strata_notes]
        table = stratum_means(scores.table, labels, args.by)
        if args.per_query:
            table = scores.table.assign(**{args.by: scores.table["query_id"].map(labels)})
    emit(table, args.format, args.out, header, points=("mean", "value"))
    return 0


def is_folder(out: str) -> bool:
    """``--out`` names a folder (a trailing separator, or one that exists): a score table."""
    from pathlib import Path

    return out.endswith(("/", os.sep)) or Path(out).is_dir()


def stratum_means(table, labels, column: str):
    """Mean per config, metric and stratum: ``config, metric, <column>, n, mean``."""
    df = table.assign(**{column: table["query_id"].map(labels)})
    out = (df.groupby(["config", "metric", column], sort=False)["value"]
           .agg(n="size", mean="mean").reset_index())
    return out
