"""``ragnb score``: metric values per config (means) or per query (tidy table)."""
from __future__ import annotations

import argparse

from ragnb.cli._common import (
    add_judgment_args,
    add_ledger_arg,
    add_output_args,
    add_strata_args,
    emit,
    guard_sealed,
    ledger_line,
    load_runs,
    split_manifest,
    strata_labels,
)
from ragnb.errors import InputError
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
    add_judgment_args(p, required=False)
    p.add_argument("--run", action="append", default=[], metavar="NAME=FILE",
                   help="a run to score (repeatable); NAME defaults to the file name")
    p.add_argument("--workspace", "-w", metavar="PATH", default=None,
                   help="score a workspace's test set (ragnb.toml or its folder) instead of "
                        "--judgments/--run: every config's run, or those named by --config; "
                        "ranking order, --extra and --missing from the manifest unless given")
    p.add_argument("--split", default=None, metavar="NAME",
                   help="with --workspace: the test set (default: production, golden or the "
                        "first)")
    p.add_argument("--config", action="append", default=[], metavar="CONFIG",
                   help="with --workspace: a config to score (repeatable; default: all)")
    p.add_argument("--metric", action="append", required=True, metavar="METRIC",
                   help="metric name such as ndcg@10 (repeatable); see the list above")
    p.add_argument("--per-query", action="store_true",
                   help="print the per-query tidy table instead of means")
    add_strata_args(p, "per-stratum means: one row per config, metric and value of COLUMN "
                       "(in --strata, or in the test set's query metadata, e.g. intent)")
    add_ledger_arg(p)
    add_output_args(p)


def run(args: argparse.Namespace) -> int:
    from ragnb.io import read_test_set
    from ragnb.metrics import parse_metric
    from ragnb.score import score

    for m in args.metric:  # fail fast on a typo, before reading big files
        parse_metric(m)
    strata = None
    if args.workspace:
        test_set, runs, options, strata = _from_workspace(args)
    else:
        if not args.judgments or not args.run:
            raise InputError("give --judgments and --run, or --workspace", key="--judgments")
        test_set = read_test_set(args.judgments)
        runs = load_runs(args.run, args.order)
        options = {"missing": args.missing, "extra": args.extra}
    scores = score(test_set, runs, args.metric, policy=args.policy, upper_grade=args.upper_grade,
                   no_relevant=args.no_relevant, **options)
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
    if args.by:
        scored = scores.table["query_id"].unique()
        if strata is not None and not args.strata:  # the workspace's strata file
            from ragnb.io.strata import assign_strata

            labels, strata_notes = assign_strata(strata, scored, args.by,
                                                 source=strata.attrs.get("source"))
            strata_notes = (*strata.attrs.get("notes", ()), *strata_notes)
        else:
            labels, strata_notes = strata_labels(args, test_set, scored)
        header += [f"# note: {n}" for n in strata_notes]
        table = stratum_means(scores.table, labels, args.by)
        if args.per_query:
            table = scores.table.assign(**{args.by: scores.table["query_id"].map(labels)})
    emit(table, args.format, args.out, header)
    return 0


def _from_workspace(args):
    """Test set, runs and score options of a workspace (flags given on the line win)."""
    from ragnb.workspace import open_workspace

    if args.judgments or args.run:
        raise InputError("--workspace replaces --judgments and --run; give one or the other",
                         key="--workspace")
    ws = open_workspace(args.workspace)
    split = args.split or ws.test_set_for("score")
    order = args.order or ws.run_order
    configs = args.config or ws.configs(split)
    from ragnb.io import read_run

    entry = ws.test_set_entry(split)
    runs = []
    for c in configs:
        if c not in entry.runs:
            raise InputError(f"no run of config {c!r} on test set {split!r}; configs: "
                             f"{', '.join(entry.runs)}", source=ws.manifest.path,
                             key=f"test_sets.{split}.runs")
        runs.append(read_run(entry.runs[c], name=c, order=order))
    options = {"missing": args.missing if args.missing != "error" else ws.manifest.missing,
               "extra": args.extra if args.extra != "error" else ws.manifest.extra}
    from ragnb.strata import strata_table

    test_set = ws.test_set(split)
    strata = strata_table(test_set, ws.strata(split))
    notes = strata.attrs.get("notes", ())
    strata = strata[strata["query_id"].isin(set(test_set.query_ids))]
    strata.attrs["notes"] = notes
    return test_set, runs, options, strata


def stratum_means(table, labels, column: str):
    """Mean per config, metric and stratum: ``config, metric, <column>, n, mean``."""
    df = table.assign(**{column: table["query_id"].map(labels)})
    out = (df.groupby(["config", "metric", column], sort=False)["value"]
           .agg(n="size", mean="mean").reset_index())
    return out
