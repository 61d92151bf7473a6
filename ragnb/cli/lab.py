"""``ragnb lab``: JupyterLab on the notebooks, every notebook reading the given workspace."""
from __future__ import annotations

import argparse
import sys

from ragnb.cli._options import add

NAME = "lab"
HELP = "open JupyterLab on the notebooks, reading your workspace"
#: Words after ``--`` go to JupyterLab (:func:`ragnb.cli._passed_on`).
PASSES_ON = True
DESCRIPTION = """\
Start JupyterLab on the notebooks folder with --workspace as the workspace every
notebook reads: its `workspace` parameter ("" by default) falls back to
$RAGNB_WORKSPACE, which this command sets for the server and its kernels. Run
any notebook (Run > Run All Cells); 03-strata ends with the what-if widget and
the per-query inspector. JupyterLab listens on 127.0.0.1 only; stop it with
Ctrl-C. Without --workspace: $RAGNB_WORKSPACE, else the bundled demo.
As root (a container), give --allow-root. Anything after `--` is passed to
JupyterLab as it is (not an option this command sets itself: the folder, the
ip, --port).

examples:
  ragnb lab --workspace my-eval
  ragnb lab 03 --workspace my-eval --port 8890   # opens 03-strata.ipynb
  ragnb lab --workspace my-eval --print-command  # what would run, and exit
  ragnb lab --workspace my-eval --allow-root --no-browser -- --ServerApp.port_retries=0
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="a notebook to open at once (03, strata, 03-strata)")
    add(p, "workspace", "notebooks", "port", "no_browser", "allow_root", "print_command",
        workspace={"help": "the workspace (ragnb.toml or its folder) the notebooks read "
                           "(default: $RAGNB_WORKSPACE, else the bundled demo)"})


def run(args: argparse.Namespace) -> int:
    from ragnb.cli._server import LOCALHOST, launch, notebooks_dir, require, server_env

    require("jupyterlab", "pip install jupyterlab (a dependency of ragnb)", "`ragnb lab`")
    folder = notebooks_dir(args.notebooks)
    env, manifest = server_env(args.workspace)
    argv = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder}",
            f"--ServerApp.ip={LOCALHOST}"]
    if args.port:
        argv.append(f"--ServerApp.port={args.port}")
    if args.no_browser:
        argv.append("--no-browser")
    if args.allow_root:
        argv.append("--allow-root")
    argv += getattr(args, "passed_on", None) or []
    if args.name:
        from ragnb.report.notebooks import resolve

        argv.append(resolve([args.name], folder)[0].path.name)
    return launch(argv, env, folder, print_only=args.print_command,
                  says=f"ragnb lab: JupyterLab on {folder}, workspace {manifest} "
                       "(Ctrl-C to stop)")
