"""``ragnb app``: one notebook served as a dashboard (Voila) on the given workspace."""
from __future__ import annotations

import argparse
import sys

from ragnb.cli._options import add

NAME = "app"
HELP = "serve a notebook as a dashboard (Voila) on your workspace"
#: Words after ``--`` go to Voila (:func:`ragnb.cli._passed_on`).
PASSES_ON = True
DESCRIPTION = """\
Serve one notebook with Voila: its outputs and widgets, no code, the
notebook's `workspace` parameter set to --workspace (through $RAGNB_WORKSPACE,
as `ragnb lab` does). 03-strata is the dashboard this is made for: the
stratified breakdown with the what-if widget and the per-query inspector.
Voila listens on 127.0.0.1 only; stop it with Ctrl-C. Needs Voila:
pip install 'ragnb[app]'. --allow-root is accepted as `ragnb lab` takes it
(Voila itself runs as root without it). Anything after `--` is passed to Voila
as it is (not an option this command sets itself: the ip, --port).

examples:
  ragnb app 03-strata --workspace my-eval
  ragnb app 03 --workspace my-eval --port 8866 --no-browser
  ragnb app 03-strata --workspace my-eval --print-command   # what would run, and exit
  ragnb app 03 --workspace my-eval --allow-root -- --theme=dark
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", metavar="NAME", help="the notebook to serve (03, strata, 03-strata)")
    add(p, "workspace", "notebooks", "port", "no_browser", "allow_root", "print_command",
        workspace={"help": "the workspace (ragnb.toml or its folder) the notebook reads "
                           "(default: $RAGNB_WORKSPACE, else the bundled demo)"})


def run(args: argparse.Namespace) -> int:
    from ragnb.cli._server import LOCALHOST, launch, notebooks_dir, require, server_env
    from ragnb.report.notebooks import resolve

    require("voila", "pip install 'ragnb[app]'", "`ragnb app`")
    folder = notebooks_dir(args.notebooks)
    notebook = resolve([args.name], folder)[0]
    env, manifest = server_env(args.workspace)
    argv = [sys.executable, "-m", "voila", str(notebook.path), f"--Voila.ip={LOCALHOST}"]
    if args.port:
        argv.append(f"--port={args.port}")
    if args.no_browser:
        argv.append("--no-browser")
    argv += getattr(args, "passed_on", None) or []  # --allow-root: Voila has no root check
    return launch(argv, env, folder, print_only=args.print_command,
                  says=f"ragnb app: {notebook.name} with Voila, workspace {manifest} "
                       "(Ctrl-C to stop)")
