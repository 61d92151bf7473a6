"""``ragnb report``: execute notebooks into offline, self-contained HTML reports."""
from __future__ import annotations

import argparse
import sys

from ragnb.cli._options import add
from ragnb.errors import InputError
from ragnb.paths import NOTEBOOKS_DIR, REPORTS_DIR

NAME = "report"
HELP = "execute notebooks with papermill into self-contained HTML reports"
DESCRIPTION = """\
Execute notebooks with papermill and write, for each, the executed notebook and
a self-contained HTML page (no code, charts as SVG, no network needed). Each
page opens with its answer (the question, the answer with its interval, what to
do next) under a one-line provenance summary; the full provenance (data
hashes, code version, parameters, seeds) closes the page. <out>/index.html
lists every report in the folder with its answer; --pdf also prints each page
to PDF with headless chromium.

NAME is a notebook's number, slug or both (01, fit, 01-fit). Parameters are
checked against each notebook's `parameters` cell before anything runs: an
unknown parameter or a value that does not read as the declared type is an
error. A parameter applies to every selected notebook that declares it.

With --workspace (a ragnb.toml or its folder; `ragnb init` makes one) every
notebook reads that workspace; --all runs each notebook whose inputs the
workspace has and skips the others with a one-line reason (never the demo).
Without it, notebooks read their default workspace, the bundled demo.

examples:
  ragnb report --all
  ragnb report --all --pdf      # and NN-slug.pdf beside each page
  ragnb report --all --workspace my-eval --out my-eval/reports
  ragnb report fit -p metric=rr@10 -p seed=7
  ragnb report 01 02 --data /path/to/data --out /tmp/reports
  ragnb report --check          # notebooks stored without outputs, valid parameters
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="notebooks to run (01, fit, 01-fit)")
    parser.add_argument("--all", action="store_true", help="run every notebook, in number order")
    add(parser, "workspace",
        workspace={"help": "the workspace (ragnb.toml or its folder) every notebook reads"})
    parser.add_argument("--data", metavar="DIR",
                        help="a workspace folder (holding ragnb.toml), or the `data_dir` of "
                             "notebooks that declare it")
    add(parser, "parameter")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help=f"output folder (default: {REPORTS_DIR})")
    add(parser, "notebooks", notebooks={"help": f"notebooks folder (default: {NOTEBOOKS_DIR})"})
    parser.add_argument("--no-progress", action="store_true", help="no per-cell progress bar")
    parser.add_argument(
        "--pdf", action="store_true",
        help="also print each page to NN-slug.pdf with headless chromium (/usr/bin/chromium)",
    )
    parser.add_argument(
        "--check", action="store_true",
        help="only check that the notebooks are stored without outputs and with a valid "
             "parameters cell",
    )


def run(args: argparse.Namespace) -> int:
    from ragnb.report import runner
    from ragnb.report.notebooks import check_stored

    notebooks_dir = args.notebooks or NOTEBOOKS_DIR
    if args.check:
        problems = check_stored(notebooks_dir)
        for line in problems:
            print(line, file=sys.stderr)
        if not problems:
            print(f"notebooks in {notebooks_dir}: stored clean, parameters valid")
        return 1 if problems else 0
    if args.all == bool(args.names):
        raise InputError("name notebooks to run, or give --all (not both)")
    params: dict[str, str] = {}
    for key, value in args.parameter:
        if key in params:
            raise InputError(f"parameter `{key}` given twice", key=key)
        params[key] = value
    jobs = runner.plan(
        None if args.all else args.names, params, data_dir=args.data, notebooks_dir=notebooks_dir,
        workspace=args.workspace,
    )
    results = runner.run(jobs, args.out or REPORTS_DIR, progress=not args.no_progress,
                         pdf=args.pdf)
    for r in results:
        if r.skipped:
            print(f"ragnb report: {r.message}", file=sys.stderr)
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"ragnb report: {r.message}", file=sys.stderr)
    if failed and all(r.bad_input for r in failed):
        return 2  # bad input, as every command: the one line above names file and problem
    return 1 if failed else 0
