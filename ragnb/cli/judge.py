"""``ragnb judge``: how good is a model judge, and each difference read with its error."""
from __future__ import annotations

import argparse

from ragnb.cli._options import RESAMPLING, add

NAME = "judge"
HELP = "a model judge against people, and each difference read with its error (PPI++)"
DESCRIPTION = (
    "Measure a model judge's labels against people's on the pairs both labelled\n"
    "(grade confusion, exact agreement, quadratic-weighted kappa with an interval,\n"
    "precision and recall, bias per grade, per query, on each config's own passages)\n"
    "and, given runs and a baseline, read each run's mean and each difference three\n"
    "ways: people only, judge only (biased) and prediction-powered (PPI++), which\n"
    "measures the judge's error on the queries people judged and carries it into the\n"
    "interval. Assumes people judged a random sample of whole queries; PPI is refused,\n"
    "with the reason, where that is visibly not so. The same Finding as report\n"
    "08-judge and ragnb.compare(..., judge=...).\n\n"
    "examples:\n"
    "  ragnb judge --judgments qrels.txt --judge umbrela=llm.qrels\n"
    "  ragnb judge --judgments qrels.txt --judge umbrela=llm.qrels \\\n"
    "              --run bm25=bm25.run --run dense=dense.run --baseline bm25 --challenger dense\n"
    "  ragnb judge --workspace my-eval            # [test_sets.NAME] judge, [report.judge]"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "judgments", "run", "workspace", "split", "order", "missing", "extra", "metric", "k",
        *RESAMPLING, "relevance_level", "baseline", "challenger", "judge",
        judge={"help": "the judge's labels (TREC qrels, JSONL, CSV/TSV/Parquet); NAME "
                       "defaults to the file name (not with --workspace: its test set's judge)"},
        baseline={"help": "the config every difference is from (none: agreement only)"},
        challenger={"help": "the config the headline reads (default: the first other run)"},
        metric={"help": "metric (default: [report] metric, else ndcg@10)"},
        k={"help": "depth of each config's own passages (default 10)"},
        resamples={"help": "resamples of whole queries for kappa's interval (default 10000)"})


def run(args: argparse.Namespace) -> int:
    from ragnb.errors import InputError, listed

    args.baseline = args.baseline or ""
    if args.challenger and len(args.challenger) > 1:
        raise InputError("the headline reads one challenger; every other run is in the "
                         "table", key="--challenger")
    args.challenger = (args.challenger or [""])[0]

    if args.workspace:
        if args.judge or args.run or args.judgments:
            raise InputError("--workspace reads the test set, its judge and its runs from "
                             "the manifest ([test_sets.NAME] judge)", key="--workspace")
        from ragnb.pages import resolve
        from ragnb.pages import run as run_page

        given = {"split": args.split or "", "baseline": args.baseline,
                 "challenger": args.challenger, "metric": args.metric or "", "k": args.k,
                 "resamples": args.resamples, "seed": args.seed}
        finding = run_page(resolve("08-judge", args.workspace, **given))
        print(finding.to_text(), end="")
        return 0
    from ragnb.cli._common import name_file, run_files
    from ragnb.io import read_test_set
    from ragnb.io.judges import attach_judge
    from ragnb.judge.finding import judge_finding

    if not args.judgments or not args.judge:
        raise InputError("give --judgments and --judge [NAME=]FILE, or --workspace",
                         key="--judge" if args.judgments else "--judgments")
    from pathlib import Path

    from ragnb.io.runs import config_of_file

    name, path = name_file(args.judge, "--judge")
    test_set = attach_judge(read_test_set(args.judgments), path,
                            name=name or config_of_file(Path(path).name))
    runs = [f.read() for f in run_files(args.run, args.order)]
    names = [r.name for r in runs]
    if args.baseline and args.baseline not in names:
        raise InputError(f"no run named {args.baseline!r}; runs: "
                         f"{listed(names, most=20)}", key="--baseline")
    challenger = args.challenger or next((n for n in names if n != args.baseline), "")
    finding = judge_finding(test_set, runs, metric=args.metric or "ndcg@10",
                            baseline=args.baseline, challenger=challenger, k=args.k,
                            level=args.relevance_level or 1, resamples=args.resamples,
                            seed=args.seed, missing=args.missing, extra=args.extra)
    print(finding.to_text(), end="")
    return 0
