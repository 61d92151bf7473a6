"""The kernel that executes report notebooks: this interpreter, this ``ragnb``.

A report must be computed by the same Python and the same ``ragnb`` as the
command that asked for it, from any working directory. Looking a kernel up by
name (``python3``) does not guarantee that: the name resolves through
``JUPYTER_PATH`` and the user's kernelspecs, which may point at another
environment. ``ipykernel install --user`` would fix the name by writing into the
user's home, a side effect a report command must not have.

Choice: no kernelspec file at all. :func:`report_kernel` yields papermill
arguments with a kernel manager whose kernelspec manager answers one name,
:data:`KERNEL_NAME`, with a spec built in memory: ``sys.executable -m
ragnb.startup`` (ipykernel's launcher, minus a 3-4 s optional import:
:mod:`ragnb.startup`), and an environment holding

- :data:`REPORT_ENV` = ``1``: :func:`ragnb.report.setup_notebook` then renders
  charts for a static page instead of for JupyterLab;
- :data:`PACKAGE_DIR_ENV`: the folder of the runner's ``ragnb``, which
  ``setup_notebook`` compares with the kernel's (a mismatch is an error);
- ``PYTHONPATH`` with the source tree prepended when ``ragnb`` runs from a
  checkout rather than from ``site-packages``, so that a worktree's code wins
  over an editable install pointing elsewhere.

The kernel talks over IPC sockets in a private temporary folder (TCP on
Windows), which also holds the connection file: nothing is written to the
user's Jupyter runtime folder and ipykernel has no unencrypted-TCP warning to
print. Only public ``jupyter_client`` extension points are used
(``KernelManager.kernel_spec_manager``, ``KernelSpecManager.get_kernel_spec``),
passed through papermill's ``kernel_manager_class`` engine argument.
The executed notebook keeps its own ``kernelspec`` metadata (``python3``), so it
opens in JupyterLab as usual.
"""
from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ragnb.paths import PACKAGE_DIR

#: Name under which the report kernel is known to papermill (never installed).
KERNEL_NAME = "ragnb-report"
#: Set to ``1`` in the report kernel's environment.
REPORT_ENV = "RAGNB_REPORT"
#: Folder of the ``ragnb`` package the runner imported.
PACKAGE_DIR_ENV = "RAGNB_PACKAGE_DIR"


def kernel_env() -> dict[str, str]:
    """Environment variables the report kernel gets on top of the runner's."""
    env = {REPORT_ENV: "1", PACKAGE_DIR_ENV: str(PACKAGE_DIR)}
    source_root = PACKAGE_DIR.parent
    if source_root.name not in ("site-packages", "dist-packages"):
        rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
        env["PYTHONPATH"] = os.pathsep.join([str(source_root), *rest])
    return env


def kernel_argv() -> list[str]:
    """Command line of the report kernel: this interpreter's ipykernel, launched by
    :mod:`ragnb.startup` (ipykernel's own launcher in a process set up for one job).
    """
    return [sys.executable, "-m", "ragnb.startup", "-f", "{connection_file}"]


@contextmanager
def report_kernel() -> Iterator[dict[str, Any]]:
    """Papermill arguments that run a notebook in the report kernel.

    Yields
    ------
    dict
        ``kernel_name`` and ``kernel_manager_class`` for
        :func:`papermill.execute_notebook`; valid inside the ``with`` block (the
        kernel's sockets and connection file live in a temporary folder that is
        removed on exit).
    """
    from ragnb.startup import kernel_memory_limit

    kernel_memory_limit()  # a malformed $RAGNB_KERNEL_MEMORY is an error before any kernel
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    with tempfile.TemporaryDirectory(prefix="ragnb-kernel-") as tmp:

        class ReportKernelSpecManager(KernelSpecManager):
            def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
                if kernel_name != KERNEL_NAME:
                    raise NoSuchKernel(kernel_name)
                return KernelSpec(
                    argv=kernel_argv(),
                    display_name=(f"Python {sys.version_info.major}.{sys.version_info.minor} "
                                  "(ragnb report)"),
                    language="python",
                    env=kernel_env(),
                    resource_dir=tmp,
                    metadata={"debugger": False},
                )

        class ReportKernelManager(AsyncKernelManager):
            @default("kernel_spec_manager")
            def _default_kernel_spec_manager(self) -> KernelSpecManager:
                return ReportKernelSpecManager()

            @default("transport")
            def _default_transport(self) -> str:
                return "ipc" if os.name == "posix" else "tcp"

            @default("ip")
            def _default_ip(self) -> str:
                return os.path.join(tmp, "kernel") if self.transport == "ipc" else "127.0.0.1"

            @default("connection_file")
            def _default_connection_file(self) -> str:
                return os.path.join(tmp, "kernel.json")

        yield {"kernel_name": KERNEL_NAME, "kernel_manager_class": ReportKernelManager}
