"""``ragnb run``: one page's finding on a workspace, as text (the same Finding as its report)."""
from __future__ import annotations

import argparse

from ragnb.cli._options import add
from ragnb.errors import InputError

NAME = "run"
HELP = "print one page's finding on a workspace: headline first, then its tables in points"
DESCRIPTION = """\
Run one page (a notebook's analysis, registered in ragnb.pages) on a workspace
and print its finding: the question, the answer, the next step and the verdict,
then each section's table in points (metric x 100; a dash where a value is not
defined, the reason under the table), the charts by caption, the checks and the
method. The numbers and sentences are those of the page's notebook and report.
Parameters are the notebook's (`ragnb report --help`), read as their declared
types; an input the workspace lacks ends with its reason and exit code 2.

examples:
  ragnb run 01-fit                                  # the bundled demo workspace
  ragnb run strata --workspace my-eval -p metric=rr@10 -p reported=none
  ragnb run 01 -p champion=round-39 -p resamples=2000
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("page", metavar="PAGE", help="the page: 01-fit, fit or 01")
    add(parser, "workspace", "parameter",
        workspace={"help": "the workspace (ragnb.toml or its folder; default: the bundled demo)"},
        parameter={"help": "set a parameter of the page's notebook (repeatable), read as its "
                           "declared type"})


def run(args: argparse.Namespace) -> int:
    from ragnb.pages import page
    from ragnb.paths import NOTEBOOKS_DIR
    from ragnb.report.parameters import read_parameters, resolve_value, unknown_parameter
    from ragnb.workspace.default import default_workspace

    p = page(args.page)
    declared = read_parameters(NOTEBOOKS_DIR / f"{p.slug}.ipynb")
    values = {}
    for key, value in args.parameter:
        if key in values:
            raise InputError(f"parameter `{key}` given twice", key=key)
        if key not in declared or key == "workspace":
            raise unknown_parameter(key, {k: v for k, v in declared.items()
                                          if k != "workspace"}, source=p.slug)
        values[key] = resolve_value(declared[key], value, source=p.slug)
    inputs = p.resolve(args.workspace or default_workspace(), **values)
    print(p.run(inputs).to_text(), end="")
    return 0
