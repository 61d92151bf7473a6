"""``ragnb bounds``: label-bias bounds per config and the three-way verdict against a baseline."""
from __future__ import annotations

import argparse

from ragnb.cli._common import (
    MAX_RESAMPLES,
    add_workspace_args,
    bounded_int,
    emit,
    resolve_inputs,
)
from ragnb.io.run import ORDERS
from ragnb.io.testset import MAX_GRADE

NAME = "bounds"
HELP = "label-bias bounds (policies lower/condensed/upper and exact min/max) and verdicts"
DESCRIPTION = """\
How much could the unjudged passages change the scores, and the decision?

Per config: the unjudged share of the top k, the metric under the label policies
lower / condensed / upper (conventions, not bounds), and the exact per-query
bounds bound_min / bound_max over every labelling of the unjudged passages in the
union of the configs' top k (pooling assumption: unjudged passages outside that
union are not relevant). With --baseline, three paired bootstraps per challenger
(current = lower vs lower, conservative = challenger min vs baseline max,
optimistic = the reverse) and a verdict: adopt / reject / labelling decides.

examples:
  ragnb bounds --test-set testset.jsonl --run runs/m0_r1.trec --run runs/m2_r1.trec \\
      --metric rr@10 --baseline m0_r1
  ragnb bounds --workspace . --split golden --metric rr@10 --baseline bm25
  ragnb bounds --test-set qrels.txt --run a=a.run --run b=b.run --metric ndcg@10 \\
      --baseline a --joint --strata topics.csv --by domain
"""


#: Columns of metric values (bounds and policy means): points in the text table, 0-1 in CSV/JSON.
BOUNDS_POINTS = ("lower", "condensed", "upper", "width", "bound_min", "bound_max", "bound_width")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judgments", "--test-set", dest="judgments", metavar="FILE",
                   help="test set JSONL (the ragnb test-set format), TREC qrels, or "
                        "CSV/Parquet table")
    p.add_argument("--run", action="append", default=[], metavar="NAME=FILE",
                   help="a run (repeatable); NAME defaults to the file name")
    add_workspace_args(p)
    p.add_argument("--metric", default="rr@10",
                   help="metric with a cut-off, e.g. rr@10 (default), ndcg@10, recall@20, p@10")
    p.add_argument("--baseline", default=None, help="config to compare the others with")
    p.add_argument("--challenger", action="append", default=None,
                   help="challenger config (repeatable; default: every other config)")
    p.add_argument("--joint", action="store_true",
                   help="verdict from joint per-query bounds of the difference (a passage both "
                        "configs retrieved gets one label): tighter than separate bounds")
    p.add_argument("--top-grade", type=bounded_int(0, MAX_GRADE), default=None,
                   help="labels range over 0..TOP_GRADE (default: the test set's top grade)")
    p.add_argument("--strata", metavar="FILE", default=None,
                   help="query metadata (CSV/Parquet/JSONL with query_id) for per-stratum rows")
    p.add_argument("--by", default=None, help="stratum column of --strata (or of the test set)")
    p.add_argument("--order", choices=ORDERS, default=None,
                   help="ranking order: 'rank' column (default where present) or 'score'")
    p.add_argument("--missing", choices=("error", "empty"), default="error",
                   help="test-set queries a run has no ranking for (default: error)")
    p.add_argument("--extra", choices=("error", "drop"), default="error",
                   help="run queries the test set lacks (default: error; drop counts them)")
    p.add_argument("--no-relevant", choices=("keep", "drop"), default="keep",
                   help="queries with no relevant passage: keep (default) or drop (counted)")
    p.add_argument("--resamples", type=bounded_int(1, MAX_RESAMPLES), default=10_000,
                   help="bootstrap resamples (10,000; at most 100,000)")
    p.add_argument("--seed", type=bounded_int(0, 2**63 - 1), default=20260729,
                   help="bootstrap seed (20260729)")
    p.add_argument("--per-query", action="store_true", help="print the per-query table")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--out", metavar="FILE", default=None, help="write here instead of stdout")


def _strata(args, test_set, workspace_strata=None):
    from ragnb.errors import InputError
    from ragnb.io import read_strata
    from ragnb.io.strata import assign_strata

    if args.strata is None and args.by is None:
        return None, ()
    if args.strata is None and workspace_strata is not None:
        if args.by not in workspace_strata:
            raise InputError(f"the workspace's strata have no column {args.by!r}; columns: "
                             f"{[c for c in workspace_strata if c != 'query_id']}", key="--by")
        table = workspace_strata
    elif args.strata is None:
        if args.by not in test_set.queries:
            raise InputError(f"the test set has no column {args.by!r}; give --strata FILE",
                             key="--by")
        table = test_set.queries[["query_id", args.by]]
    else:
        table = read_strata(args.strata)
    return assign_strata(table, test_set.query_ids, args.by, source=args.strata)


def run(args: argparse.Namespace) -> int:
    from ragnb.labelbias import COLUMN_KINDS, RULE, label_bounds, three_way
    from ragnb.metrics import parse_metric

    metric = parse_metric(args.metric)  # fail fast on a typo
    inputs = resolve_inputs(args, args.config if args.workspace else args.run)
    test_set, runs = inputs.test_set, inputs.runs
    strata, strata_notes = _strata(args, test_set, inputs.strata)
    metric = parse_metric(inputs.metric(str(metric)))  # the workspace's gain map for nDCG
    bounds = label_bounds(test_set, runs, metric, top_grade=args.top_grade,
                          no_relevant=args.no_relevant, **inputs.options)
    header = [(f"# test set {test_set.name} ({len(test_set.queries)} queries), metric "
               f"{bounds.metric}, {len(runs)} configs"),
              f"# {bounds.assumption()}"]
    header += [f"# {col}: {kind}" for col, kind in COLUMN_KINDS.items()]
    header += [f"# note: {n}" for n in (*test_set.notes, *bounds.notes, *strata_notes)]
    table = bounds.per_query if args.per_query else bounds.table(strata)
    if args.format == "table" and "unjudged_share" in table:   # a share of passages: percent
        table = table.assign(unjudged_share=[f"{v:.1%}" for v in table["unjudged_share"]])
    if args.baseline is None:
        emit(table, args.format, args.out, header, points=BOUNDS_POINTS)
        return 0
    result = three_way(bounds, args.baseline, args.challenger, joint=args.joint,
                       resamples=args.resamples, seed=args.seed)
    if args.format == "table":
        from ragnb.result import POINTS, finding

        emit(table, "table", args.out, header, points=BOUNDS_POINTS)
        lines = [f"# three-way verdict against {args.baseline}: {result.description}",
                 f"# rule: {RULE}; * = the interval excludes zero",
                 f"# challenger − {args.baseline}, {POINTS}: difference [95% interval]"]
        emit(finding(result, chart=False).display_table, "table",
             args.out and args.out + ".verdict", lines)
    else:
        merged = result.tests.merge(result.verdicts, on=["baseline", "challenger"])
        emit(table, args.format, args.out, header)
        emit(merged, args.format, args.out and args.out + ".verdict",
             [f"# three-way verdict: {result.description}; rule: {RULE}"])
    return 0
