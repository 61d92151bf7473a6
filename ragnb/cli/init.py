"""``ragnb init``: scaffold a workspace (``ragnb.toml``) from files you already have."""
from __future__ import annotations

import argparse

from ragnb.cli._options import add
from ragnb.errors import InputError, listed

NAME = "init"
HELP = "scaffold a workspace (ragnb.toml) from a qrels file, runs and annotations"


def description() -> str:
    """The long help, with the manifest keys read from the manifest's own table."""
    from ragnb.workspace.manifest import describe_keys

    return (
        "Write DIR/ragnb.toml, the workspace every notebook, report and command reads,\n"
        "from files you already have; then read every file once, so a bad file is an\n"
        "error now (naming the file and line), and say which reports apply.\n\n"
        "Configs come from run file names (up to the first dot: bm25.run.gz -> bm25;\n"
        "TREC's archive names input.<tag>.gz -> <tag>).\n"
        "Several test sets from one qrels file: --split NAME=IDS (a file of query ids,\n"
        "repeatable) or --folds folds.json (every fold a test set, or with --split\n"
        "NAME=1,2,3 the folds joined into one test set); the runs and one\n"
        "--strata file then serve every split (or --strata SPLIT=FILE per split).\n"
        "Roles: a test set named golden/production/confirmation has that role; else,\n"
        "given two or more, the first is golden and the second production (--role).\n"
        "Baseline and challenger: --baseline/--challenger, else the first and the last of\n"
        "--rounds, else of the configs in file order: never by score (the weakest and the\n"
        "strongest of many configs on a split differ there by chance alone).\n"
        "The stratum column: --by, else the categorical column with the largest median\n"
        "stratum (never free text); init says which and lists the others.\n"
        "nDCG gain map: written into [workspace] gain: \"linear\" for TREC qrels (trec_eval's\n"
        "ndcg_cut, as ranx and ir_measures), else \"exp\" (2^g - 1); or a grade -> gain\n"
        "file \"gains.json\" / \"gains.csv\", or a [gains] table (\"0\" = 0, \"1\" = 1,\n"
        "\"2\" = 5); ndcg@k then means that map unless a metric names its own.\n\n"
        "examples:\n"
        "  ragnb init my-eval --test-set qrels.txt --runs 'runs/*.trec' \\\n"
        "             --strata topics.tsv --strata-columns query_id,domain --by domain\n"
        "  ragnb init my-eval --test-set qrels.txt --runs 'runs/*' --judge umbrela=llm.qrels\n"
        "  ragnb init my-eval --test-set qrels.txt --folds folds.json \\\n"
        "             --split golden=1,2,3 --split production=4,5 --runs 'runs/*'\n"
        "  ragnb init my-eval --test-set qrels.txt --folds folds.json \\\n"
        "             --runs 'runs/input.*.gz' --strata topics.json --rounds a,b,c\n"
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
    add(p, "judge", judge={"help": "a model judge's labels (TREC qrels, JSONL, CSV/TSV/Parquet) "
                                   "of every test set's queries, kept beside the people's: "
                                   "written as [test_sets.NAME] judge; report 08-judge reads "
                                   "them (NAME defaults to the file name)"})
    p.add_argument("--role", action="append", default=[], metavar="NAME=ROLE",
                   help="golden, production, confirmation or other")
    p.add_argument("--split", action="append", default=[], metavar="NAME=IDS",
                   help="a test set cut from the one --test-set file: IDS is a file of query "
                        "ids, one a line, or with --folds the folds it joins (golden=1,2,3) "
                        "(repeatable)")
    p.add_argument("--folds", default=None, metavar="FILE",
                   help="a JSON folds file ({\"fold\": [query ids]} or a list of lists): "
                        "every fold a test set cut from the one --test-set file")
    p.add_argument("--strata", action="append", default=[], metavar="[SPLIT=]FILE",
                   help="query annotations (CSV/TSV/Parquet/JSONL, a JSON object query id -> "
                        "fields like CODEC's topics.json, or TREC CAsT's topics JSON); may cover "
                        "more queries than the test set; once for every test set or once per "
                        "test set (SPLIT=FILE)")
    add(p, "strata_key", "strata_columns", "by",
        by={"default": "",
            "help": "the default stratum column (default: the categorical column with the "
                    "largest median stratum, never free text)"})
    p.add_argument("--rounds", default=None, metavar="C1,C2,...",
                   help="ordered champions, for the trajectory")
    add(p, "ledger", ledger={"default": None, "help": "a split ledger folder"})
    p.add_argument("--corpus", default=None, metavar="FILE", help="the current corpus build")
    add(p, "labels", labels={"help": "pooled-labelling judgments for the first test set"})
    add(p, "tasks")
    p.add_argument("--task-run", default=None, metavar="FILE", help="the code retriever's run")
    add(p, "order", "extra", "missing", "relevance_level", "metric", "baseline",
        order={"default": "score",
               "help": "ranking order of runs with ranks and scores (default score: trec_eval)"},
        extra={"default": None, "help": "run queries the test set lacks (default: drop, "
                                        "counted, when there are some; else error)"},
        missing={"help": "test-set queries a run lacks ([workspace] missing): error (default; "
                         "init warns), empty (scored 0) or drop (left out, counted)"},
        relevance_level={"help": "the least relevant grade of every binary measure, written as "
                                 "[workspace] relevance_level (trec_eval's -l; default 1)"},
        metric={"default": "", "help": "report metric (default ndcg@10)"},
        baseline={"default": "", "help": "baseline config (default: the first of --rounds, "
                                         "else the first config in file order)"})
    p.add_argument("--challenger", default="", help="challenger config (default: the last "
                                                    "of --rounds, else the last config)")
    p.add_argument("--name", default="", help="workspace name (default: the folder name)")
    p.add_argument("--force", action="store_true", help="replace an existing ragnb.toml")


def _split(text: str, default_from_file: bool = True) -> tuple[str, str]:
    from pathlib import Path

    from ragnb.workspace.manifest import config_name

    name, sep, file = text.partition("=")
    if sep and name and "/" not in name:
        return name, file
    return config_name(Path(text)), text


def _cut_by_queries(args: argparse.Namespace, specs: list) -> tuple[list, list[str]]:
    """The test sets ``--split``/``--folds`` cut from the one ``--test-set`` file, and
    lines to say about them.

    With ``--folds``, ``--split NAME=F1,F2`` joins folds into one test set (fold names as in
    the file, or ``fold-N``); folds no split names are left out, and said so.
    """
    from pathlib import Path

    from ragnb.io.query_lists import fold_names, read_folds, split_name
    from ragnb.workspace.init import TestSetSpec

    if not (args.split or args.folds):
        return specs, []
    if len(specs) != 1:
        raise InputError(f"--split and --folds cut one test-set file; {len(specs)} given",
                         key="--split" if args.split else "--folds")
    whole = specs[0].path
    folds = read_folds(args.folds) if args.folds else {}
    cut, grouped = [], []
    for text in args.split:
        name, sep, ids = text.partition("=")
        if not sep or not name or not ids:
            raise InputError("expected NAME=IDS (a file of query ids, or with --folds fold "
                             f"names: golden=1,2,3), got {text!r}", key="--split")
        if Path(ids).is_file():
            cut.append(TestSetSpec(name, whole, queries=(Path(ids), None)))
        elif folds:
            names = fold_names([f.strip() for f in ids.split(",")], folds, args.folds,
                               key=f"--split {name}")
            twice = [f for f in names if f in grouped]
            if twice:
                raise InputError(f"fold(s) {listed(twice)} already in another --split",
                                 key=f"--split {name}")
            grouped += names
            cut.append(TestSetSpec(name, whole, queries=(
                Path(args.folds), names[0] if len(names) == 1 else tuple(names))))
        else:
            raise InputError(f"no such query-id file {ids!r}; to join folds of a folds file "
                             "give it too: --folds folds.json --split golden=1,2,3",
                             key="--split")
    if args.folds and not args.split:
        cut = [TestSetSpec(split_name(f), whole, queries=(Path(args.folds), f)) for f in folds]
    said = []
    left = [f for f in folds if grouped and f not in grouped]
    if left:
        said.append(f"fold(s) {listed(left, 20)} in no --split: left out "
                    f"({sum(len(folds[f]) for f in left):,} listed queries)")
    return cut, said


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragnb.workspace.init import TestSetSpec, scaffold

    specs = []
    for text in args.test_sets:
        name, file = _split(text)
        specs.append(TestSetSpec(name, Path(file)))
    specs, cut_notes = _cut_by_queries(args, specs)
    if args.judge:
        judge_name, judge_file = _split(args.judge)
        for spec in specs:
            spec.judge = (judge_name, Path(judge_file))
    by_name = {s.name: s for s in specs}
    shared_runs = (args.split or args.folds) and len(args.runs) == 1 and not any(
        f.partition("=")[0] in by_name for f in args.runs[0][:1])
    for i, group in enumerate(args.runs):
        target, files = None, list(group)
        first, sep, rest = files[0].partition("=")
        if sep and first in by_name:
            target, files[0] = first, rest
        if shared_runs:   # one set of runs ranks every split's queries
            for spec in specs:
                spec.runs = tuple(files)
            continue
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
    strata = []
    for text in args.strata:
        first, sep, rest = text.partition("=")
        strata.append((first, rest) if sep and first in by_name else (None, text))
    columns = [c.strip() for c in args.strata_columns.split(",")] if args.strata_columns else []
    manifest, found = scaffold(
        args.folder, specs, strata=strata,
        strata_key=args.strata_key, strata_columns=columns, by=args.by,
        rounds=[c.strip() for c in args.rounds.split(",")] if args.rounds else (),
        ledger=args.ledger, corpus=args.corpus, labels=args.labels, tasks=args.tasks,
        task_run=args.task_run, order=args.order, extra=args.extra, missing=args.missing,
        relevance_level=args.relevance_level,
        metric=args.metric, baseline=args.baseline, challenger=args.challenger,
        name=args.name, force=args.force)
    from ragnb.pages import skip_reasons

    print(f"wrote {manifest}")
    for line in cut_notes + found:
        print(f"  {line}")
    for name, reason in skip_reasons(manifest).items():
        print(f"  report {name}: " + (f"skipped ({reason})" if reason else "runs"))
    print(f"next: ragnb report --all --workspace {args.folder}")
    return 0
