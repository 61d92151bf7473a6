"""ragnb's own processes (the command, a report kernel) skip a slow optional import and
set the garbage collector for a short life; library callers are left alone.

Each check runs in a fresh interpreter: what one test imports must not hide what
another process would import.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import nbformat
import pytest


def run_python(code: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.splitlines()


def test_the_console_script_is_console_and_sets_up_a_one_shot_process():
    # the installed script calls console(); it runs main() with rarer young collections,
    # and everything alive is frozen at exit (an atexit handler registered before runs
    # after it, and sees the frozen objects); main() alone leaves the collector as it was
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="ragnb")
    assert script.value == "ragnb.cli:console"
    out = run_python(
        "import atexit, contextlib, gc, io, sys\n"
        "from ragnb import cli\n"
        "atexit.register(lambda: print('at exit, frozen:', gc.get_freeze_count() > 1000))\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    cli.main(['--version'])\n"
        "print(gc.get_threshold(), gc.get_freeze_count())\n"
        "cli.main = lambda: 3\n"
        "print(cli.console(), gc.get_threshold(), gc.get_freeze_count())\n")
    assert out == ["(700, 10, 10) 0", "3 (200000, 30, 30) 0", "at exit, frozen: True"]


@pytest.mark.skipif(importlib.util.find_spec("rfc3987_syntax") is None,
                    reason="rfc3987-syntax is not installed (it comes with JupyterLab)")
def test_jsonschema_imports_rfc3987_syntax_unless_the_process_is_ragnbs():
    probe = ("import sys\n{setup}\nimport jsonschema\n"
             "print('rfc3987_syntax' in sys.modules, 'iri' in jsonschema.FormatChecker.checkers)")
    assert run_python(probe.format(setup="")) == ["True True"]  # what a user's process does
    assert run_python(probe.format(
        setup="from ragnb.startup import one_shot_process; one_shot_process()")) == [
        "False False"]


def test_a_skipped_import_fails_as_a_missing_module_and_altair_still_validates():
    out = run_python(
        "from ragnb.startup import one_shot_process\n"
        "one_shot_process(); one_shot_process()  # idempotent\n"
        "import sys\n"
        "from ragnb.startup import _ImportPolicy\n"
        "print(sum(isinstance(f, _ImportPolicy) for f in sys.meta_path))\n"
        "try:\n"
        "    import rfc3987_syntax.syntax_helpers  # the package itself is refused\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc.name, 'not imported by ragnb' in str(exc))\n"
        "import altair as alt, pandas as pd, jsonschema\n"
        "chart = alt.Chart(pd.DataFrame({'x': [1, 2]})).mark_point().encode(x='x:Q')\n"
        "print(sorted(chart.to_dict(validate=True)['encoding']))\n"
        "try:\n"
        "    chart.mark_point(size='big').to_dict(validate=True)  # still validated\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
        "checks = jsonschema.FormatChecker.checkers\n"
        "print('date' in checks, 'email' in checks)\n")
    assert out == ["1", "rfc3987_syntax True", "['x']", "SchemaValidationError",
                   "True True"]


@pytest.mark.slow
def test_the_report_kernel_runs_as_a_one_shot_process(tmp_path):
    import papermill

    from ragnb.report.kernel import report_kernel

    # as every notebook does: setup_notebook() first (the same import rules again, from
    # the module the kernel imports), then altair and scipy.special
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from ragnb.report import setup_notebook\n"
        "setup_notebook()\n"
        "import gc, sys, altair, scipy.special\n"
        "print('rfc3987_syntax' in sys.modules, 'numpy.f2py.crackfortran' in sys.modules,\n"
        "      sum(getattr(f, 'ragnb_import_policy', False) for f in sys.meta_path),\n"
        "      gc.get_threshold(), sys.argv[0])")]
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    with report_kernel() as kernel:
        done = papermill.execute_notebook(str(path), str(tmp_path / "done.ipynb"),
                                          progress_bar=False, **kernel)
    printed = done.cells[0].outputs[0]["text"].strip()
    assert printed.startswith("False False 1 (200000, 30, 30) ")
    assert printed.endswith("startup.py")


def test_setup_notebook_called_first_spares_an_interactive_kernel_the_import_and_nothing_else():
    # ragnb's notebooks call setup_notebook() before their chart imports: in a JupyterLab
    # kernel too, altair then comes without rfc3987_syntax; the collector is the user's
    out = run_python(
        "import gc, sys\n"
        "from ragnb.report import setup_notebook\n"
        "setup_notebook()\n"
        "from ragnb.labelbias.charts import bounds_chart\n"
        "print('altair' in sys.modules, 'rfc3987_syntax' in sys.modules, gc.get_threshold())\n")
    assert out == ["True False (700, 10, 10)"]


def test_every_notebook_sets_up_before_its_first_other_import():
    # the first statement of each notebook imports ragnb.report, the second calls
    # setup_notebook(): any earlier import could pull in altair (and the slow import)
    import ast

    from ragnb.paths import PROJ_ROOT

    notebooks = sorted((PROJ_ROOT / "notebooks").glob("*.ipynb"))
    assert len(notebooks) == 8
    for path in notebooks:
        first = next(c for c in nbformat.read(path, as_version=4).cells
                     if c.cell_type == "code")
        body = ast.parse(first.source).body
        assert isinstance(body[0], ast.ImportFrom) and body[0].module == "ragnb.report", path
        call = body[1]
        assert isinstance(call, ast.Expr) and call.value.func.id == "setup_notebook", path


def test_numpy_modules_scipy_special_imports_but_never_calls_load_only_when_used():
    probe = ("import sys\n{setup}\nimport scipy.special\n"
             "print('numpy.f2py.crackfortran' in sys.modules, "
             "'numpy.testing._private.utils' in sys.modules)\n"
             "print(round(float(scipy.special.stdtrit(10, 0.975)), 9))\n"
             "from numpy.testing import assert_allclose\n"
             "assert_allclose(1.0, 1.0)\n"
             "import numpy.f2py\n"
             "print(callable(numpy.f2py.run_main), 'numpy.f2py.crackfortran' in sys.modules)\n")
    # a user's process: scipy.special runs both modules' code (what the deferral saves)
    assert run_python(probe.format(setup=""))[0] == "True True"
    # ragnb's: deferred, the quantile unchanged (t(10) 97.5%: 2.228138852, tables),
    # and each module's code runs on first use
    assert run_python(probe.format(
        setup="from ragnb.startup import lighten_imports; lighten_imports()")) == [
        "False False", "2.228138852", "True True"]
