"""``ragnb score``: metric values per config (means) or per query (tidy table)."""
from __future__ import annotations

import argparse

from ragnb.cli._common import (
    add_judgment_args,
    add_ledger_arg,
    add_output_args,
    emit,
    guard_sealed,
    ledger_line,
    load_runs,
    split_manifest,
)
from ragnb.metrics import metric_help

NAME = "score"
HELP = "score runs against a test set (means, or per query with --per-query)"


def _description() -> str:
    return (
        "Score one or more runs against a test set.\n\n"
        "Runs are TREC run files, JSONL {query_id: [passage_id, ...]} or CSV/Parquet long\n"
        "tables (query_id, passage_id, rank and/or score); gzip is read transparently.\n"
        "Output: mean per config and metric, or with --per-query the tidy table\n"
        "config, query_id, metric, value.\n\n"
        "Metrics (name@k, parameters in parentheses, e.g. rbp(p=0.9)):\n" + metric_help()
    )


DESCRIPTION = _description()


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_judgment_args(p)
    p.add_argument("--run", action="append", required=True, metavar="NAME=FILE",
                   help="a run to score (repeatable); NAME defaults to the file name")
    p.add_argument("--metric", action="append", required=True, metavar="METRIC",
                   help="metric name such as ndcg@10 (repeatable); see the list above")
    p.add_argument("--per-query", action="store_true",
                   help="print the per-query tidy table instead of means")
    add_ledger_arg(p)
    add_output_args(p)


def run(args: argparse.Namespace) -> int:
    from ragnb.io import read_test_set
    from ragnb.metrics import parse_metric
    from ragnb.score import score

    for m in args.metric:  # fail fast on a typo, before reading big files
        parse_metric(m)
    test_set = read_test_set(args.judgments)
    runs = load_runs(args.run, args.order)
    scores = score(test_set, runs, args.metric, policy=args.policy, upper_grade=args.upper_grade,
                   no_relevant=args.no_relevant, missing=args.missing, extra=args.extra)
    header = [f"# test set {test_set.name} ({len(test_set.queries)} queries), "
              f"label policy {scores.policy}, ranking order "
              + ", ".join(sorted({r.order for r in runs}))]
    manifest = split_manifest(args.ledger, test_set)
    means = scores.means()
    for metric, group in means.groupby("metric", sort=False):
        guard_sealed(args.ledger, manifest, dict(zip(group["config"], group["mean"])), metric)
    header += ledger_line(manifest, args.ledger)
    header += [f"# note: {n}" for n in (*test_set.notes, *scores.notes)]
    table = scores.table if args.per_query else means
    emit(table, args.format, args.out, header, points=("mean", "value"))
    return 0
