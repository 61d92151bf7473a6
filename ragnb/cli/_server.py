"""What ``ragnb lab`` and ``ragnb app`` share: the workspace, the server's environment, the launch.

The workspace is checked here (a bad manifest is a one-line error now, not a
traceback in a kernel later) and handed to every kernel the server starts as
``$RAGNB_WORKSPACE``, which each notebook's ``workspace`` parameter (``""``)
falls back to. The server replaces this process (``exec``), so Ctrl-C and the
exit code are the server's own.
"""
from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from ragnb.errors import InputError
from ragnb.paths import NOTEBOOKS_DIR, PACKAGE_DIR

#: Where the servers listen unless told otherwise: this machine only.
LOCALHOST = "127.0.0.1"


def notebooks_dir(given: str | None) -> Path:
    """The notebooks folder: ``given``, else the project's ``notebooks/``; it must exist."""
    folder = Path(given).expanduser().resolve() if given else NOTEBOOKS_DIR
    if not folder.is_dir():
        raise InputError("no notebooks folder here (give --notebooks DIR: the project's "
                         "notebooks/)", source=folder, key="--notebooks")
    return folder


def server_env(workspace: str | None) -> tuple[dict[str, str], Path]:
    """The environment for the server: this one, ``$RAGNB_WORKSPACE`` set to the checked manifest
    (``workspace``, else the current default) and this ``ragnb`` first on ``PYTHONPATH``
    when it runs from a source tree; and the manifest's path.
    """
    from ragnb.workspace.default import WORKSPACE_ENV, default_workspace
    from ragnb.workspace.manifest import parse_manifest

    manifest = parse_manifest(Path(workspace).expanduser() if workspace else default_workspace())
    env = dict(os.environ)
    env[WORKSPACE_ENV] = str(manifest.path)
    source_root = PACKAGE_DIR.parent
    if source_root.name not in ("site-packages", "dist-packages"):
        rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                if p and Path(p).resolve() != source_root]
        env["PYTHONPATH"] = os.pathsep.join([str(source_root), *rest])
    return env, manifest.path


def require(module: str, install: str, what: str) -> None:
    """``module`` importable, else an error naming ``install``, the command that brings it."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise InputError(f"{what} needs {module}, which is not installed: {install}")


def launch(argv: Sequence[str], env: dict[str, str], cwd: Path, *, print_only: bool,
           says: str) -> int:
    """Print the command (``print_only``), or say ``says`` on stderr and become the server."""
    changed = {k: env[k] for k in ("RAGNB_WORKSPACE", "PYTHONPATH")
               if k in env and env.get(k) != os.environ.get(k)}
    if print_only:
        print(f"cd {shlex.quote(str(cwd))} && "
              + " ".join(f"{k}={shlex.quote(v)}" for k, v in changed.items())
              + (" " if changed else "") + shlex.join(argv))
        return 0
    print(says, file=sys.stderr, flush=True)
    os.chdir(cwd)
    os.execve(argv[0], list(argv), env)
    return 0  # pragma: no cover - execve does not return
