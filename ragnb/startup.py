"""Start-up and exit costs that ragnb's own one-shot processes need not pay.

Two processes are ragnb's own: the ``ragnb`` command (:func:`ragnb.cli.console`)
and the kernel that executes a report notebook (``python -m ragnb.startup``,
named by :func:`ragnb.report.kernel.kernel_argv`). Both start, do one job and
exit, so :func:`one_shot_process` sets them up:

- **An optional import skipped** (:data:`SKIPPED_IMPORTS`). ``jsonschema``
  imports ``rfc3987_syntax`` whenever it is importable (jsonschema issue #1428),
  only to check the ``iri`` and ``iri-reference`` string formats, which neither
  altair's chart schema nor nbformat's notebook schema uses (they use ``uri``,
  ``uri-reference`` and ``color-hex``). Importing it builds a Lark Earley parser
  of the RFC 3987 grammar: 3-4 s on a 2-core machine, paid by every process that
  imports altair (each report kernel) or papermill (``ragnb report``). It is
  installed wherever JupyterLab is (``jupyter-events`` asks for
  ``jsonschema[format-nongpl]``). Its import fails with
  :class:`ModuleNotFoundError`, which jsonschema expects and handles by leaving
  those two format checks out.
- **Two imports deferred until used** (:data:`LAZY_IMPORTS`). Importing
  ``scipy.special`` (t and normal quantiles: every comparison) runs scipy's
  vendored ``array_api_compat``, which reads every attribute of ``numpy`` and so
  imports ``numpy.f2py`` (and with it ``charset_normalizer``) and
  ``numpy.testing``: 0.1-0.2 s of a 1 s command, for modules nothing calls. They
  are loaded by :class:`importlib.util.LazyLoader`: the module object exists at
  once, its code runs on its first attribute access.
- **The cyclic garbage collector set for a short life.** Young collections run
  every 200,000 allocations instead of 700 (mypy's setting), so big imports are
  not interrupted hundreds of times; and at exit everything still alive is
  frozen (:func:`gc.freeze`, from an ``atexit`` handler), because CPython's
  teardown runs full collections over all of it (even with the collector
  disabled): 0.2-0.4 s once pandas, pyarrow and scipy are loaded. The exit is
  otherwise normal: the other ``atexit`` handlers run and files are flushed.

Library code leaves a caller's process alone: importing ``ragnb`` changes
neither the import system nor the collector. The one exception is asked for:
:func:`ragnb.report.setup_notebook`, which ragnb's notebooks call first, applies
:func:`lighten_imports` in a JupyterLab kernel too. Timed by ``benchmarks/bench_startup.py``
and ``ragnb report``'s per-notebook times.

``python -m ragnb.startup -f CONNECTION_FILE`` is ipykernel's launcher
(``python -m ipykernel_launcher``) in a process set up this way, with one more
rule: **a memory limit** (:func:`kernel_memory_limit`, ``RLIMIT_DATA``), so that
one bad input (a decompression bomb, a huge parameter) ends that report with a
``MemoryError`` instead of taking the machine. ``RLIMIT_DATA`` bounds the memory
a process writes (heap and private mappings); ``RLIMIT_AS`` would also count the
address space that V8 (vl-convert, which draws the charts) reserves and never
uses, 60-70 GB.
"""
from __future__ import annotations

import atexit
import gc
import importlib.abc
import importlib.util
import sys
from pathlib import Path

#: Optional modules that ragnb's processes do not import, each with its reason.
SKIPPED_IMPORTS: dict[str, str] = {
    "rfc3987_syntax": ("jsonschema's optional iri/iri-reference format check; importing it "
                       "builds an Earley parser (3-4 s), and no schema ragnb validates uses "
                       "those formats"),
}

#: Modules whose code runs only when first used, each with its reason.
LAZY_IMPORTS: dict[str, str] = {
    "numpy.f2py": "imported by scipy.special's array_api_compat, never called (0.1 s)",
    "numpy.testing": "imported by scipy.special's array_api_compat, never called (0.05 s)",
}


class _ImportPolicy(importlib.abc.MetaPathFinder):
    """Refuses :data:`SKIPPED_IMPORTS` (and their submodules); loads
    :data:`LAZY_IMPORTS` through :class:`importlib.util.LazyLoader`.

    Policies are recognised by :attr:`ragnb_import_policy`, not by class: a report
    kernel runs this module as ``__main__`` and imports it again as
    ``ragnb.startup``, which makes two classes of the same name.
    """

    ragnb_import_policy = True

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in SKIPPED_IMPORTS:
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (not imported by ragnb's processes: "
                f"{SKIPPED_IMPORTS[top]})", name=fullname)
        if fullname not in LAZY_IMPORTS:
            return None
        for finder in sys.meta_path:  # the spec the other finders would give
            if _is_policy(finder) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = importlib.util.LazyLoader(spec.loader)
                return spec
        return None


def _is_policy(finder) -> bool:
    return getattr(finder, "ragnb_import_policy", False) is True


def lighten_imports() -> None:
    """Skip :data:`SKIPPED_IMPORTS` and defer :data:`LAZY_IMPORTS` in this process
    (idempotent). Modules already imported stay as they are.
    """
    if not any(_is_policy(f) for f in sys.meta_path):
        sys.meta_path.insert(0, _ImportPolicy())


def one_shot_process() -> None:
    """Set up a process that does one job and exits (module docstring)."""
    lighten_imports()
    gc.set_threshold(200_000, 30, 30)
    atexit.register(gc.freeze)  # atexit runs last-registered first: this runs late


#: Environment variable holding a report kernel's memory limit: bytes, or a number
#: with a K, M, G or T suffix (``6G``); ``0`` or ``none`` for no limit.
KERNEL_MEMORY_ENV = "RAGNB_KERNEL_MEMORY"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
#: The smallest limit accepted: under a few hundred MB a kernel was seen to hang
#: while starting instead of failing.
MIN_KERNEL_MEMORY = 1 << 30


def kernel_memory_limit() -> int | None:
    """The memory limit of a report kernel, in bytes (None: no limit).

    ``$RAGNB_KERNEL_MEMORY`` when set; else three quarters of the machine's
    memory, at least 3 GiB and at most 8 GiB. A demo report kernel holds about
    0.4 GB, but drawing a chart (vl-convert's V8) needs about 2 GB of writable
    address space, so a limit below 3 GiB can end a kernel that draws charts.

    Raises
    ------
    InputError
        When the variable is not a size.
    """
    import os
    import re

    text = os.environ.get(KERNEL_MEMORY_ENV, "").strip()
    if text.lower() in ("0", "none"):
        return None
    if text:
        match = re.fullmatch(r"([0-9]{1,15})\s*([KMGT]?)i?B?", text, re.IGNORECASE)
        if not match or int(match[1]) < 1:
            from ragnb.errors import InputError

            raise InputError(f"must be a size such as 6G (or 0 for no limit), got {text[:40]!r}",
                             source=f"${KERNEL_MEMORY_ENV}")
        limit = int(match[1]) * _UNITS[match[2].upper()]
        if limit < MIN_KERNEL_MEMORY:
            from ragnb.errors import InputError

            raise InputError(f"{text[:40]!r} is below 1G: a kernel under it can hang while "
                             "starting (and drawing a chart needs about 3G)",
                             source=f"${KERNEL_MEMORY_ENV}")
        return limit
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        physical = 0
    return min(8 << 30, max(3 << 30, physical * 3 // 4))


def limit_memory(limit: int | None) -> None:
    """Lower this process's ``RLIMIT_DATA`` to ``limit`` bytes (never raise it)."""
    import resource

    if limit is None:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or limit < soft:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))


def _launch_kernel() -> None:
    """Run ipykernel's launcher (``ipykernel_launcher``) after :func:`one_shot_process`,
    under :func:`kernel_memory_limit`.

    As that launcher does, the working directory leaves ``sys.path`` while the
    kernel loads (IPython puts it back).
    """
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    limit_memory(kernel_memory_limit())
    one_shot_process()
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


if __name__ == "__main__":  # pragma: no cover - run as a report kernel
    # the importable module's function, so that the kernel holds one copy of this
    # module's state (``python -m`` runs the file as ``__main__``, a second copy)
    from ragnb.startup import _launch_kernel as launch

    launch()
