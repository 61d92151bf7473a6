"""Fixtures of the report tests: fixture notebooks and one shared report run."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_NOTEBOOKS = FIXTURES / "notebooks"
FIXTURE_DATA = FIXTURES / "data"


@pytest.fixture(scope="session")
def charts_report(tmp_path_factory):
    """Run ``ragnb report charts`` once, from an unrelated working directory.

    Returns a dict with the exit code, stderr, the output folder, the copied
    notebooks folder and the data folder given with ``--data``.
    """
    import contextlib
    import io
    import os

    from ragnb.cli import main

    root = tmp_path_factory.mktemp("charts-report")
    notebooks = root / "notebooks"
    shutil.copytree(FIXTURE_NOTEBOOKS, notebooks)
    shutil.copytree(FIXTURE_DATA, root / "data")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    err = io.StringIO()
    cwd = os.getcwd()
    os.chdir(elsewhere)
    # Without PYTHONPATH a kernel would import whichever ragnb is installed; the
    # runner must point it at the ragnb running this test (setup_notebook checks).
    pythonpath = os.environ.pop("PYTHONPATH", None)
    try:
        with contextlib.redirect_stderr(err):
            code = main([
                "report", "charts",
                "--notebooks", str(notebooks),
                "--out", "out",                 # relative to the working directory
                "--data", "../data",            # relative to the working directory
                "-p", "n=10", "-p", "scale=2", "-p", "systems=baseline,champion",
                "-p", "seed=7",
                "--no-progress",
                "--pdf",                        # and a PDF beside the page
            ])
    finally:
        os.chdir(cwd)
        if pythonpath is not None:
            os.environ["PYTHONPATH"] = pythonpath
    return {
        "code": code,
        "stderr": err.getvalue(),
        "out": elsewhere / "out",
        "notebooks": notebooks,
        "data": root / "data",
    }
