"""Notebook names, discovery, and the stored-without-outputs check."""
from __future__ import annotations

import shutil

import nbformat
import pytest

from ragnb.errors import InputError
from ragnb.paths import NOTEBOOKS_DIR
from ragnb.report.notebooks import check_stored, discover, resolve

from .conftest import FIXTURE_NOTEBOOKS
from .test_parameters import write_notebook


@pytest.fixture
def folder(tmp_path):
    for name in ("01-fit.ipynb", "02-trajectory.ipynb", "03-fit-strata.ipynb"):
        write_notebook(tmp_path / name, "k: int = 10  # cut-off")
    (tmp_path / "notes.txt").write_text("not a notebook")
    return tmp_path


def test_discover_lists_conventional_notebooks_in_number_order(folder):
    write_notebook(folder / "Untitled.ipynb", "k: int = 1  # k")
    assert [nb.name for nb in discover(folder)] == ["01-fit", "02-trajectory", "03-fit-strata"]
    assert discover(folder / "absent") == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [("01", "01-fit"), ("1", "01-fit"), ("fit", "01-fit"), ("01-fit", "01-fit"),
     ("01-fit.ipynb", "01-fit"), ("trajectory", "02-trajectory"), ("fit-strata", "03-fit-strata")],
)
def test_a_name_matches_number_slug_or_both(folder, name, expected):
    assert [nb.name for nb in resolve([name], folder)] == [expected]


def test_resolve_keeps_order_and_drops_repeats(folder):
    resolved = resolve(["02", "fit", "01-fit"], folder)
    assert [nb.name for nb in resolved] == ["02-trajectory", "01-fit"]


def test_unknown_name_lists_available(folder):
    with pytest.raises(InputError, match="no notebook named `fitt`; "
                                         "available: 01-fit, 02-trajectory, 03-fit-strata"):
        resolve(["fitt"], folder)


def test_ambiguous_name_is_an_error(folder):
    write_notebook(folder / "04-fit.ipynb", "k: int = 1  # k")
    with pytest.raises(InputError, match="`fit` is ambiguous: 01-fit, 04-fit"):
        resolve(["fit"], folder)


def test_fixture_notebooks_are_stored_clean():
    assert check_stored(FIXTURE_NOTEBOOKS) == []


def test_project_notebooks_are_stored_clean():
    """Runs in CI: every notebook in notebooks/ has no outputs and a valid parameters cell."""
    assert check_stored(NOTEBOOKS_DIR) == []


def test_check_stored_finds_every_problem(tmp_path):
    shutil.copy(FIXTURE_NOTEBOOKS / "01-charts.ipynb", tmp_path / "01-charts.ipynb")
    nb = nbformat.read(tmp_path / "01-charts.ipynb", as_version=4)
    nb.cells[3].outputs = [nbformat.v4.new_output("stream", name="stdout", text="hi\n")]
    nb.cells[4].execution_count = 5
    nb.metadata["papermill"] = {"parameters": {}}
    nbformat.write(nb, tmp_path / "02-executed.ipynb")
    write_notebook(tmp_path / "03-noparams.ipynb", "k: int = 1  # k", tag_count=0)
    write_notebook(tmp_path / "04-badtype.ipynb", "k: int = 'x'  # k")
    write_notebook(tmp_path / "Untitled.ipynb", "k: int = 1  # k")
    write_notebook(tmp_path / "01-again.ipynb", "k: int = 1  # k")  # first cell: no setup
    problems = check_stored(tmp_path)
    text = "\n".join(problems)
    assert "02-executed.ipynb: cell 4 is stored with outputs" in text
    assert "02-executed.ipynb: cell 5 is stored with an execution count" in text
    assert "02-executed.ipynb: stored with papermill metadata" in text
    assert "03-noparams.ipynb: needs exactly one code cell tagged `parameters`" in text
    assert "04-badtype.ipynb: parameters cell: the default of `k` must be a literal int" in text
    assert "Untitled.ipynb: name must look like `01-fit.ipynb`" in text
    assert "01-charts.ipynb: number 01 already used by 01-again.ipynb" in text
    assert "01-again.ipynb: the first code cell must call `ragnb.report.setup_notebook()`" in text
    # write_notebook's first cell is `x = 1`: every notebook it wrote lacks the call
    assert sum("must call `ragnb.report.setup_notebook()`" in p for p in problems) == 4
    assert len(problems) == 11


@pytest.mark.slow
def test_check_stored_agrees_with_nbstripout(tmp_path):
    """nbstripout --verify (what CI also runs) passes and fails on the same notebooks."""
    import subprocess
    import sys

    clean = tmp_path / "01-clean.ipynb"
    shutil.copy(FIXTURE_NOTEBOOKS / "02-fails.ipynb", clean)  # stored with nbstripout
    nb = nbformat.read(clean, as_version=4)
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="10\n")]
    nb.cells[2].execution_count = 1
    dirty = tmp_path / "02-dirty.ipynb"
    nbformat.write(nb, dirty)
    verify = [sys.executable, "-m", "nbstripout", "--verify"]
    assert subprocess.run([*verify, str(clean)], capture_output=True, check=False).returncode == 0
    assert subprocess.run([*verify, str(dirty)], capture_output=True, check=False).returncode != 0
    assert [p.split(": ", 1)[0] for p in check_stored([clean, dirty])] == [str(dirty), str(dirty)]


@pytest.mark.parametrize("path", sorted(NOTEBOOKS_DIR.glob("*.ipynb")), ids=lambda p: p.stem)
def test_each_page_shows_its_answer_before_its_provenance(path):
    """Issue 33 #11: in JupyterLab and Voila a page opened on lines of paths, byte
    counts and hashes before the question. The finding comes first in its cell."""
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if "show_finding(finding)" in c.source)
    lines = cell.source.splitlines()
    answer = next(i for i, ln in enumerate(lines) if ln.startswith("show_finding(finding)"))
    assert all(i > answer for i, ln in enumerate(lines)
               if ln.startswith(("show_workspace_files(", "provenance(")))


def test_outside_a_report_the_files_read_are_one_folded_line(monkeypatch, tmp_path):
    import ragnb.report.display as display

    shown = []
    monkeypatch.setattr(display, "_display_bundle", shown.append)
    monkeypatch.setattr(display, "in_report", lambda: False)
    files = [tmp_path / f"f{i}.trec" for i in range(3)]

    class Workspace:
        def files_read(self):
            return files

    display.show_workspace_files(Workspace())
    assert len(shown) == 1
    assert shown[0]["text/html"].startswith('<details class="ragnb-provfacts"')
    assert "Workspace files: 3 read" in shown[0]["text/html"]
    assert all(str(f) in shown[0]["text/html"] for f in files)
