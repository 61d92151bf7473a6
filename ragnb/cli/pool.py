"""``ragnb pool``: the pooled labelling list, merging labels, and shard extrapolation."""
from __future__ import annotations

import argparse
import sys

from ragnb.cli._options import INPUTS, OUTPUT, RESAMPLING, action, actions, add

NAME = "pool"
HELP = "pooled labelling list (with a judge-next order), merge new labels, project a shard"
DESCRIPTION = """\
Three actions around labelling the unjudged passages:

  list   for each query, the union of the configs' top k minus what is judged, with
         counts per query and config; --csv/--jsonl export it for labellers. With
         --baseline, ordered "judge next": first the passages whose label can move the
         challenger-minus-baseline difference most.
  merge  merge new judgments (test-set JSONL, qrels or CSV/Parquet) into a NEW test-set
         file (the old one is kept) and write <out>.merge.json (hashes, counts, time);
         conflicting grades for the same query and passage are an error listing them.
  shard  from the labels of a shard of queries, the effect on each config's mean and
         the projection to the whole set with an interval.

The text output of list and shard opens with the answer (what to label next; what
the shard predicted), then the label-bias page's tables in points (metric x 100),
the test set, the split ledger and the notes; --format csv or json (or an --out
file ending .csv, .tsv or .json) keeps the data, metric values 0-1.

examples:
  ragnb pool list --test-set testset.jsonl --run runs/m0_r1.trec --run runs/m2_r1.trec \\
      --k 10 --csv pool.csv --jsonl pool.jsonl --baseline m0_r1 --metric rr@10
  ragnb pool list --workspace . --split golden --config bm25 --config dense --k 10
  ragnb pool merge --test-set testset.jsonl --labels pooled_labels.csv --out testset.v5.jsonl
  ragnb pool shard --test-set testset.jsonl --labels pooled_labels.csv --run ... \\
      --metric rr@10 --shards shards.csv --by shard --shard shard1 --baseline m0_r1
"""


#: Options of ``--missing`` in pool list and shard (drop: as in bounds).
_MISSING_HELP = ("test-set queries a run has no ranking for: error (default), empty (the run "
                 "adds nothing to their pool) or drop (the queries any config lacks are left "
                 "out, counted: the judge-next order and the shard gains compare configs query "
                 "by query)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = actions(p)

    a = action(sub, "list", "the pooled labelling list (judge-next order with --baseline)")
    add(a, *INPUTS, "order", "missing", "extra", "top_grade", "k", "metric", "baseline",
        "challenger", "ledger", *OUTPUT,
        k={"help": "pool depth: each config's top k (default 10)"},
        metric={"help": "metric for the judge-next order (cut at --k), e.g. rr@10"},
        baseline={"help": "baseline config: order the list by judge-next swing"},
        missing={"help": _MISSING_HELP})
    a.add_argument("--csv", metavar="FILE", default=None, help="export the list as CSV")
    a.add_argument("--jsonl", metavar="FILE", default=None, help="export the list as JSONL")
    a.add_argument("--limit", type=int, default=20,
                   help="rows to print (the exports hold every row; 0 = all)")

    a = action(sub, "merge", "merge new judgments into a new test-set file")
    add(a, "judgments", "workspace", "split", "out",
        out={"help": "the new test-set file (its suffix names the format)"})
    add(a, "labels")
    a.add_argument("--overwrite", action="store_true", help="replace an existing --out")

    a = action(sub, "shard", "a labelled shard's effect and its projection to all "
                                     "queries")
    add(a, *INPUTS, "order", "missing", "extra", "metric", "baseline", "by", *RESAMPLING,
        "ledger", *OUTPUT,
        metric={"help": "metric whose mean the shard's labels change, e.g. rr@10"},
        baseline={"help": "also project each challenger's gain over this config"},
        by={"default": "shard", "help": "the column of --shards naming each query's shard "
                                        "(default 'shard')"},
        missing={"help": _MISSING_HELP})
    add(a, "labels", labels={"help": "the new judgments (the shard's labels; others are "
                                     "ignored, counted)"})
    a.add_argument("--shards", metavar="FILE", default=None,
                   help="query metadata (CSV/JSONL/Parquet) naming each query's shard (with "
                        "--workspace, default: its strata file and query metadata)")
    a.add_argument("--shard", default=None, help="which shard's labels to use")


def _need(args, *names):
    from ragnb.errors import InputError

    for n in names:
        if not getattr(args, n.lstrip("-").replace("-", "_")):
            raise InputError(f"pool {args.action} needs {n}", key=n)


def run(args: argparse.Namespace) -> int:
    return {"list": _list, "merge": _merge, "shard": _shard}[args.action](args)


def _list(args) -> int:
    from ragnb.cli._common import (
        emit,
        guard_sealed,
        ledger_line,
        out_format,
        resolve_inputs,
        split_manifest,
        terminal_safe,
    )
    from ragnb.errors import InputError
    from ragnb.labelbias import (
        ORDER_EXPLANATION,
        build_pool,
        export_labelling_list,
        judge_next,
        label_bounds,
        labelling_list,
        pool_counts,
    )
    from ragnb.labelbias.sections import pool_finding
    from ragnb.metrics import parse_metric

    if not args.workspace:
        _need(args, "--run")
    if args.baseline and not args.metric:
        raise InputError("a judge-next order needs --metric (e.g. rr@10)", key="--metric")
    metric = parse_metric(args.metric) if args.metric else None
    if metric is not None and metric.k != args.k:
        raise InputError(f"--metric {metric.text} cuts at {metric.k}, the pool at --k {args.k}",
                         key="--metric")
    inputs = resolve_inputs(args, args.config if args.workspace else args.run)
    test_set, runs = inputs.test_set, inputs.runs
    manifest = split_manifest(inputs.ledger, test_set)  # a ledger that does not verify: refused
    if metric is not None:  # the workspace's gain map for an nDCG that names none
        metric = parse_metric(inputs.metric(args.metric))  # as written: gain=exp stays exp
    if args.baseline and metric is not None:  # a baseline without --metric is refused above
        bounds = label_bounds(test_set, runs, metric, top_grade=args.top_grade,
                              **inputs.options)
        # the judge-next order scores the split: the ledger's policy first
        guard_sealed(inputs.ledger, manifest,
                     bounds.per_query.groupby("config", sort=False)["lower"].mean().to_dict(),
                     str(metric), note="ragnb pool list (judge-next order, lower policy)")
        pool, notes = bounds.pool, bounds.notes
        table = judge_next(bounds, args.baseline, args.challenger, test_set)
    else:
        pool = build_pool(test_set, runs, args.k, top_grade=args.top_grade, **inputs.options)
        table, notes = labelling_list(pool, test_set), pool.notes
    header = [f"# test set {test_set.name} ({pool.n_queries} queries), {len(runs)} configs, "
              f"pool depth {args.k}", *ledger_line(manifest, inputs.ledger, test_set=test_set)]
    written = export_labelling_list(table, args.csv, args.jsonl)
    header += [f"# wrote {p}" for p in written]
    fmt = out_format(args.format, args.out)
    limit = None if args.limit == 0 else args.limit
    if fmt == "table":   # the answer first, then the page's tables
        ordered = bool(args.baseline)
        shown = pool_finding(pool, table if ordered else None, first=[args.baseline or ""],
                             listing=None if ordered else table, max_rows=limit,
                             metric=str(metric or ""), notes=[str(n) for n in
                                                             (*test_set.notes, *notes)],
                             context=[line[2:] for line in header])
        _write(args.out, terminal_safe(shown.to_text()))
        return 0
    counts = pool_counts(pool)
    per_config = counts.groupby("config", sort=False)["unjudged"].sum()
    header[:1] = [(f"# test set {test_set.name}: {len(table)} pooled unjudged passages in "
                   f"{int((pool.items_per_query() > 0).sum())} of {pool.n_queries} queries "
                   f"(union of the top {args.k} of {len(runs)} configs, minus what is judged)"),
                  "# unjudged in each config's top k: " + ", ".join(
                      f"{c} {int(v)}" for c, v in per_config.items() if c != "union")]
    if args.baseline:
        header.append(f"# {ORDER_EXPLANATION}")
    header += [f"# note: {n}" for n in (*test_set.notes, *notes)]
    emit(table if limit is None else table.head(limit), fmt, args.out, header,
         points=("swing", "cumulative_swing"))
    return 0


def _write(out: str | None, text: str) -> None:
    """Text to ``out`` (at once) or to standard output."""
    if not out:
        sys.stdout.write(text)
        return
    from ragnb._atomic import write_atomic_bytes
    from ragnb.errors import InputError

    try:
        write_atomic_bytes(out, text.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot write the output ({exc.strerror})", source=out) from None


def _merge(args) -> int:
    from ragnb.cli._common import workspace_split
    from ragnb.errors import InputError
    from ragnb.labelbias import merge_files, record_path

    _need(args, "--labels", "--out")
    base = args.judgments
    if args.workspace:  # the workspace's test set file (the merged one is a new file)
        ws, split = workspace_split(args)
        base = ws.test_set_entry(split).path
    elif not base:
        raise InputError("pool merge needs --judgments or --workspace", key="--judgments")
    record = merge_files(base, args.labels, args.out, overwrite=args.overwrite)
    c = record.counts
    print(f"merged {c.added} new judgments ({c.new_relevant} relevant, "
          f"{c.share_relevant:.1%}; {c.already_present} already present) into {c.queries_touched}"
          f" queries: {c.base_judgments} -> {c.merged_judgments} judgments")
    print(f"new test set {record.output} (sha256 {record.output_sha256[:12]}); "
          f"old one kept: {record.base}")
    print(f"merge record {record_path(record.output)}")
    return 0


def _shard(args) -> int:
    from ragnb.cli._common import (
        emit,
        guard_sealed,
        ledger_line,
        out_format,
        resolve_inputs,
        split_figure,
        split_manifest,
        terminal_safe,
    )
    from ragnb.errors import InputError, listed
    from ragnb.io import read_strata, read_test_set
    from ragnb.labelbias import shard_lesson, shard_projection
    from ragnb.labelbias.sections import shard_finding

    ws = bool(args.workspace)
    _need(args, "--labels", *(() if ws else ("--run",)), "--metric",
          *(() if ws else ("--shards",)), "--shard")
    inputs = resolve_inputs(args, args.config if args.workspace else args.run)
    test_set, runs = inputs.test_set, inputs.runs
    manifest = split_manifest(inputs.ledger, test_set)  # a ledger that does not verify: refused
    labels = read_test_set(args.labels)
    if args.shards:
        table = read_strata(args.shards)
    elif inputs.strata is not None:  # the workspace's strata file and query metadata
        table = inputs.strata
    else:
        raise InputError("pool shard needs --shards", key="--shards")
    if args.by not in table:
        columns = [c for c in table.columns if c not in ("query_id", "line")]
        raise InputError(f"no column {args.by!r}; columns: {listed(columns, most=12)}",
                         source=args.shards, key="--by")
    values = table[args.by].astype("str")
    if args.shard not in set(values):
        raise InputError(f"no shard {args.shard!r} in column {args.by!r}; shards: "
                         f"{listed(sorted(set(values)), most=20)}",
                         source=args.shards, key="--shard")
    shard = table.loc[values == args.shard, "query_id"]
    out = shard_projection(test_set, labels, runs, inputs.metric(args.metric), shard,
                           baseline=args.baseline, resamples=args.resamples, seed=args.seed,
                           **inputs.options)
    # the projection scores every config on the split: the ledger's policy first
    guard_sealed(inputs.ledger, manifest, dict.fromkeys(r.name for r in runs),
                 inputs.metric(args.metric), note="ragnb pool shard")
    metric = inputs.metric(args.metric)
    ledger = [line[2:] for line in ledger_line(manifest, inputs.ledger,
                                                split_figure(inputs, manifest, metric),
                                                test_set=test_set)]
    notes = [str(n) for n in out.attrs.get("notes", ())]
    fmt = out_format(args.format, args.out)
    if fmt == "table":   # the lesson first, then the page's shard tables in points
        shown = shard_finding(out, metric, args.shard, args.baseline, notes=notes, context=[
            f"test set {test_set.name}: shard {args.shard} is {len(shard)} of "
            f"{len(test_set.queries)} queries", *ledger])
        _write(args.out, terminal_safe(shown.to_text()))
        return 0
    lesson = shard_lesson(out, metric)
    header = [*(f"# {line}" for line in ledger),
              (f"# shard {args.shard}: {len(shard)} of {len(test_set.queries)} queries; "
              f"effect_full = change of the mean over all queries; projected = shard mean "
              f"change (= effect_full x N/n) with a {args.resamples:,}-resample percentile "
              f"bootstrap interval over the shard's queries, finite-population corrected"),
              f"# {lesson}", *(f"# note: {n}" for n in notes)]
    emit(out, fmt, args.out, header)
    print(f"# {lesson}", file=sys.stderr)
    return 0
