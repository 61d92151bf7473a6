"""``ragnb bounds``: label-bias bounds per config and the three-way verdict against a baseline."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

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

The text output opens with the answer (the question, the answer, the next step
and the verdict), then the tables of the label-bias page in points (metric x 100;
a dash where a value is not defined, the reason under the table), the test set,
the split ledger and the notes; --format csv or json (or an --out file ending
.csv, .tsv or .json) keeps the data, metric values 0-1, the verdicts in
<out>.verdict.

examples:
  ragnb bounds --test-set testset.jsonl --run runs/m0_r1.trec --run runs/m2_r1.trec \\
      --metric rr@10 --baseline m0_r1
  ragnb bounds --workspace . --split golden --metric rr@10 --baseline bm25
  ragnb bounds --test-set qrels.txt --run a=a.run --run b=b.run --metric ndcg@10 \\
      --baseline a --separate --strata topics.csv --by domain
"""


#: Columns of metric values in the per-query table: points in the text, 0-1 in CSV/JSON.
PER_QUERY_POINTS = ("lower", "condensed", "upper", "bound_min", "bound_max")


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
        out_format,
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
    metric = parse_metric(inputs.metric(args.metric))  # the gain map; gain=exp as written stays
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
    notes = [str(n) for n in (*test_set.notes, *bounds.notes, *strata_notes)]
    result = None if args.baseline is None else three_way(
        bounds, args.baseline, args.challenger, joint=args.joint, resamples=args.resamples,
        seed=args.seed)
    fmt = out_format(args.format, args.out)
    if fmt == "table":   # the answer first, then the page's tables in points
        text = bounds_text(bounds, result, strata=strata, per_query=args.per_query,
                           header=header, notes=notes)
        if args.out:
            write_text(args.out, text)
        else:
            sys.stdout.write(text)
        return 0
    header += [f"# {col}: {kind}" for col, kind in COLUMN_KINDS.items()]
    header += [f"# note: {n}" for n in notes]
    table = bounds.per_query if args.per_query else bounds.summary(strata)
    emit(table, fmt, args.out, header)
    if result is not None:
        merged = result.tests.merge(result.verdicts, on=["baseline", "challenger"])
        emit(merged, fmt, args.out and args.out + ".verdict",
             [f"# three-way verdict: {result.description}; rule: {RULE}"])
    return 0


def bounds_text(bounds, result, *, strata=None, per_query: bool = False,
                header: Sequence[str] = (), notes: Sequence[str] = ()) -> str:
    """The text output: the three-way verdict's Finding with ``result`` (else the bounds'),
    its sections those of the label-bias page (:mod:`ragnb.labelbias.sections`), then the
    test set, the split ledger and the notes under the tables.
    """
    from ragnb.cli._common import terminal_safe
    from ragnb.labelbias.sections import bounds_sections, context_sections, rule_section
    from ragnb.result import Finding, finding, table_section

    first = [] if result is None else [str(result.verdicts["baseline"].iloc[0])]
    parts = bounds_sections(bounds, first=first, strata=strata,
                            caption="" if result is None else
                            "How much could the missing labels change each score?")
    if per_query:   # every query's row instead of the means (and their every-column copy)
        parts[1:3] = [table_section(bounds.per_query, f"{bounds.metric} per query in points "
                                    "(metric × 100): the three policies and the exact bounds",
                                    units=dict.fromkeys(PER_QUERY_POINTS, "points"))]
    own = finding(bounds, chart=False)
    checks = own.checks
    if result is not None:
        base = first[0]
        own = finding(result, chart=False, judge_next=(
            f"of `ragnb pool list --baseline {base} --metric {bounds.metric}` (same inputs)"))
        parts = [*own.sections, rule_section(), *parts]
    parts += context_sections([line[2:] for line in [*header[:1], *header[2:]]], notes)
    shown = Finding(own.headline, own.display_table, None, checks, own.description,
                    own.caption, own.source, tuple(parts))
    return terminal_safe(shown.to_text())


def write_text(out: str, text: str) -> None:
    """``text`` written to ``out`` at once (an error names the file)."""
    from ragnb._atomic import write_atomic_bytes
    from ragnb.errors import InputError

    try:
        write_atomic_bytes(out, text.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot write the output ({exc.strerror})", source=out) from None
