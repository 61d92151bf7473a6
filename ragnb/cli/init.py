"""``ragnb init``: scaffold a workspace (``ragnb.toml``) from files you already have."""
from __future__ import annotations

import argparse

from ragnb.cli._options import add
from ragnb.errors import InputError

NAME = "init"
HELP = "scaffold a workspace (ragnb.toml) from a qrels file, runs and annotations"


def description() -> str:
    """The long help, with the manifest keys read from the manifest's own table."""
    from ragnb.workspace.manifest import describe_keys

    return (
        "Write DIR/ragnb.toml, the workspace every notebook, report and command reads,\n"
        "from files you already have; then read every file once, so a bad file is an\n"
        "error now (naming the file and line), and say which reports apply.\n\n"
        "Configs come from run file names (up to the first dot: bm25.run.gz -> bm25).\n"
        "Roles: a test set named golden/production/confirmation has that role; else,\n"
        "given two or more, the first is golden and the second production (--role).\n"
        "Baseline and challenger default to the first and last config (edit [report]).\n"
        "nDCG gain map: add [workspace] gain = \"linear\" (or \"exp\", the default, or a\n"
        "grade -> gain file \"gains.json\" / \"gains.csv\"), or a [gains] table\n"
        "(\"0\" = 0, \"1\" = 1, \"2\" = 5); ndcg@k then means that map unless a metric\n"
        "names its own (ndcg@10(gain=exp)).\n\n"
        "example:\n"
        "  ragnb init my-eval --test-set qrels.txt --runs 'runs/*.trec' \\\n"
        "             --strata topics.tsv --strata-columns query_id,domain --by domain\n"
        "  ragnb report --all --workspace my-eval --out my-eval/reports\n\n"
        "Manifest keys (paths relative to the manifest):\n" + describe_keys()
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="the workspace folder (created if needed)")
    p.add_argument("--test-set", "--qrels", dest="test_sets", action="append", required=True,
                   metavar="[NAME=]FILE",
                   help="a test set: TREC qrels, JSONL or CSV/TSV/Parquet (repeatable); NAME "
                        "defaults to the file name up to the first dot")
    p.add_argument("--runs", action="append", nargs="+", default=[], metavar="[SPLIT=]FILE|GLOB",
                   help="runs of a test set: files or one quoted glob (repeatable, one per test "
                        "set in order; SPLIT= names the test set)")
    p.add_argument("--role", action="append", default=[], metavar="NAME=ROLE",
                   help="golden, production, confirmation or other")
    add(p, "strata", "strata_key", "strata_columns", "by",
        strata={"metavar": "[SPLIT=]FILE", "help": (
            "query annotations (CSV/TSV/Parquet/JSONL, or a JSON object query id -> fields like "
            "CODEC's topics.json); may cover more queries than the test set")},
        by={"default": "",
            "help": "the default stratum column (default: the first with 2 to 30 values)"})
    p.add_argument("--rounds", default=None, metavar="C1,C2,...",
                   help="ordered champions, for the trajectory")
    add(p, "ledger", ledger={"default": None, "help": "a split ledger folder"})
    p.add_argument("--corpus", default=None, metavar="FILE", help="the current corpus build")
    add(p, "labels", labels={"help": "pooled-labelling judgments for the first test set"})
    add(p, "tasks")
    p.add_argument("--task-run", default=None, metavar="FILE", help="the code retriever's run")
    add(p, "order", "extra", "metric", "baseline",
        order={"default": "score",
               "help": "ranking order of runs with ranks and scores (default score: trec_eval)"},
        extra={"default": None, "help": "run queries the test set lacks (default: drop, "
                                        "counted, when there are some; else error)"},
        metric={"default": "", "help": "report metric (default ndcg@10)"},
        baseline={"default": "", "help": "baseline config"})
    p.add_argument("--challenger", default="", help="challenger config")
    p.add_argument("--name", default="", help="workspace name (default: the folder name)")
    p.add_argument("--force", action="store_true", help="replace an existing ragnb.toml")


def _split(text: str, default_from_file: bool = True) -> tuple[str, str]:
    from pathlib import Path

    from ragnb.workspace.manifest import config_name

    name, sep, file = text.partition("=")
    if sep and name and "/" not in name:
        return name, file
    return config_name(Path(text)), text


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragnb.workspace.init import TestSetSpec, scaffold

    specs = []
    for text in args.test_sets:
        name, file = _split(text)
        specs.append(TestSetSpec(name, Path(file)))
    by_name = {s.name: s for s in specs}
    for i, group in enumerate(args.runs):
        target, files = None, list(group)
        first, sep, rest = files[0].partition("=")
        if sep and first in by_name:
            target, files[0] = first, rest
        if target is None:
            if i >= len(specs):
                raise InputError(f"more --runs ({len(args.runs)}) than test sets; name the "
                                 "test set: --runs SPLIT=GLOB", key="--runs")
            target = specs[i].name
        by_name[target].runs = tuple(by_name[target].runs) + tuple(files)
    for text in args.role:
        name, sep, role = text.partition("=")
        if not sep or name not in by_name:
            raise InputError(f"expected NAME=ROLE with a test-set name, got {text!r}",
                             key="--role")
        by_name[name].role = role
    strata_split, strata = None, args.strata
    if strata:
        first, sep, rest = strata.partition("=")
        if sep and first in by_name:
            strata_split, strata = first, rest
    columns = [c.strip() for c in args.strata_columns.split(",")] if args.strata_columns else []
    manifest, found = scaffold(
        args.folder, specs, strata=strata, strata_test_set=strata_split,
        strata_key=args.strata_key, strata_columns=columns, by=args.by,
        rounds=[c.strip() for c in args.rounds.split(",")] if args.rounds else (),
        ledger=args.ledger, corpus=args.corpus, labels=args.labels, tasks=args.tasks,
        task_run=args.task_run, order=args.order, extra=args.extra, metric=args.metric,
        baseline=args.baseline, challenger=args.challenger, name=args.name, force=args.force)
    from ragnb.pages import skip_reasons

    print(f"wrote {manifest}")
    for line in found:
        print(f"  {line}")
    for name, reason in skip_reasons(manifest).items():
        print(f"  report {name}: " + (f"skipped ({reason})" if reason else "runs"))
    print(f"next: ragnb report --all --workspace {args.folder}")
    return 0
