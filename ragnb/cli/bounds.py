"""``ragnb bounds``: label-bias bounds per config and the three-way verdict against a baseline."""
from __future__ import annotations

import argparse

from ragnb.cli._options import INPUTS, OUTPUT, RESAMPLING, STRATA, add

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
The per-query bounds of the difference are joint by default (a passage both
configs retrieved gets one label for both); --separate pairs each config's own
bounds instead (looser: the seed's table).

examples:
  ragnb bounds --test-set testset.jsonl --run runs/m0_r1.trec --run runs/m2_r1.trec \\
      --metric rr@10 --baseline m0_r1
  ragnb bounds --workspace . --split golden --metric rr@10 --baseline bm25
  ragnb bounds --test-set qrels.txt --run a=a.run --run b=b.run --metric ndcg@10 \\
      --baseline a --separate --strata topics.csv --by domain
"""


#: Columns of metric values (bounds and policy means): points in the text table, 0-1 in CSV/JSON.
BOUNDS_POINTS = ("lower", "condensed", "upper", "width", "bound_min", "bound_max", "bound_width")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, *INPUTS, "order", "no_relevant", "missing", "extra", "top_grade", "metric",
        "baseline", "challenger", *STRATA, *RESAMPLING, "per_query", "ledger", *OUTPUT,
        metric={"default": "rr@10", "help": "metric with a cut-off, e.g. rr@10 (default), "
                                            "ndcg@10, recall@20, p@10"},
        missing={"help": "test-set queries a run has no ranking for: error (default), empty "
                         "(an empty ranking) or drop (the queries any config lacks leave every "
                         "table: bounds and verdicts compare configs query by query; counted)"},
        by={"help": "per-stratum rows: a column of --strata or of the test set's query "
                    "metadata"})
    p.add_argument("--separate", dest="joint", action="store_false",
                   help="verdict from each config's separate bounds (challenger min - baseline "
                        "max, ...) instead of the default joint bounds of the difference (a "
                        "passage both configs retrieved gets one label: tighter)")
    p.add_argument("--joint", dest="joint", action="store_true", default=True,
                   help="joint bounds of the difference (the default)")


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
    from ragnb.labelbias import COLUMN_KINDS, RULE, label_bounds, three_way
    from ragnb.metrics import parse_metric

    metric = parse_metric(args.metric)  # fail fast on a typo
    inputs = resolve_inputs(args, args.config if args.workspace else args.run)
    test_set, runs = inputs.test_set, inputs.runs
    manifest = split_manifest(inputs.ledger, test_set)  # a ledger that does not verify: refused
    strata, strata_notes = None, ()
    if args.by or args.strata:
        strata, strata_notes = strata_labels(args, test_set, test_set.query_ids, inputs.strata)
    metric = parse_metric(inputs.metric(str(metric)))  # the workspace's gain map for nDCG
    bounds = label_bounds(test_set, runs, metric, top_grade=args.top_grade,
                          no_relevant=args.no_relevant, **inputs.options)
    # bounds score the split: the ledger's policy first (a sealed split: refused, or recorded
    # inside its unseal run with each config's mean under the lower policy)
    guard_sealed(inputs.ledger, manifest,
                 bounds.per_query.groupby("config", sort=False)["lower"].mean().to_dict(),
                 str(bounds.metric), note="ragnb bounds (lower policy)")
    header = [(f"# test set {test_set.name} ({len(test_set.queries)} queries), metric "
               f"{bounds.metric}, {len(runs)} configs"),
              f"# {bounds.assumption()}",
              *ledger_line(manifest, inputs.ledger,
                           split_figure(inputs, manifest, str(bounds.metric)),
                           test_set=test_set)]
    header += [f"# {col}: {kind}" for col, kind in COLUMN_KINDS.items()]
    header += [f"# note: {n}" for n in (*test_set.notes, *bounds.notes, *strata_notes)]
    table = bounds.per_query if args.per_query else bounds.summary(strata)
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
