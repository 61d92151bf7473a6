"""Start-up and exit costs that ragnb's own one-shot processes need not pay.

Two processes are ragnb's own: the ``ragnb`` command (:func:`ragnb.cli.console`)
and the kernel that executes a report notebook (``python -m ragnb.startup``,
named by :func:`ragnb.report.kernel.kernel_argv`). Both start, do one job and
exit, so :func:`one_shot_process` sets them up:

- **An optional import skipped** (:data:`SKIPPED_IMPORTS`). ``jsonschema``
  imports ``rfc3987_syntax`` whenever it is importable (jsonschema issue #1428),
  only to check the ``iri`` and ``iri-reference`` string formats, which neither
  altair's chart schema nor nbformat's notebook schema uses. Importing it builds a
  Lark Earley parser of the RFC 3987 grammar: 3-4 s on a 2-core machine, paid by
  every process that imports altair (each report kernel) or papermill (``ragnb
  report``). It is installed wherever JupyterLab is (``jupyter-events`` asks for
  ``jsonschema[format-nongpl]``). A meta-path finder makes its import fail with
  :class:`ModuleNotFoundError`, which jsonschema expects and handles by leaving
  those two format checks out.
- **The cyclic garbage collector set for a short life.** Young collections run
  every 200,000 allocations instead of 700 (mypy's setting), so big imports are
  not interrupted hundreds of times; and at exit everything still alive is
  frozen (:func:`gc.freeze`, from an ``atexit`` handler), because CPython's
  teardown runs full collections over all of it (even with the collector
  disabled): 0.2-0.4 s once pandas, pyarrow and scipy are loaded. The exit is
  otherwise normal: the other ``atexit`` handlers run and files are flushed.

Library code leaves a caller's process alone: importing ``ragnb`` changes
neither the import system nor the collector. The one exception is asked for:
:func:`ragnb.report.setup_notebook`, which ragnb's notebooks call first, skips
the same import in a JupyterLab kernel. Timed by ``benchmarks/bench_startup.py``
and ``ragnb report``'s per-notebook times.

``python -m ragnb.startup -f CONNECTION_FILE`` is ipykernel's launcher
(``python -m ipykernel_launcher``) in a process set up this way.
"""
from __future__ import annotations

import atexit
import gc
import importlib.abc
import sys
from pathlib import Path

#: Optional modules that ragnb's processes do not import, each with its reason.
SKIPPED_IMPORTS: dict[str, str] = {
    "rfc3987_syntax": ("jsonschema's optional iri/iri-reference format check; importing it "
                       "builds an Earley parser (3-4 s), and no schema ragnb validates uses "
                       "those formats"),
}


class _SkipImports(importlib.abc.MetaPathFinder):
    """Fails the import of :data:`SKIPPED_IMPORTS` (and their submodules)."""

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in SKIPPED_IMPORTS:
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (not imported by ragnb's processes: "
                f"{SKIPPED_IMPORTS[top]})", name=fullname)
        return None


def skip_optional_imports() -> None:
    """Make :data:`SKIPPED_IMPORTS` unimportable in this process (idempotent).

    A module already imported stays as it is.
    """
    if not any(isinstance(f, _SkipImports) for f in sys.meta_path):
        sys.meta_path.insert(0, _SkipImports())


def one_shot_process() -> None:
    """Set up a process that does one job and exits (module docstring)."""
    skip_optional_imports()
    gc.set_threshold(200_000, 30, 30)
    atexit.register(gc.freeze)  # atexit runs last-registered first: this runs late


def _launch_kernel() -> None:
    """Run ipykernel's launcher (``ipykernel_launcher``) after :func:`one_shot_process`.

    As that launcher does, the working directory leaves ``sys.path`` while the
    kernel loads (IPython puts it back).
    """
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    one_shot_process()
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


if __name__ == "__main__":  # pragma: no cover - run as a report kernel
    _launch_kernel()
