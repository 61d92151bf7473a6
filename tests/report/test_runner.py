"""``ragnb report`` end to end on fixture notebooks (executes kernels: slow)."""
from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import re
import shutil

import nbformat
import pytest
from browser import static_loaders

from ragnb.cli import main
from ragnb.errors import InputError
from ragnb.report.runner import plan

from .conftest import FIXTURE_DATA, FIXTURE_NOTEBOOKS


def run_cli(*argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["report", *argv])
    return code, err.getvalue()


# -- checks before any kernel starts (fast) ---------------------------------

@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["charts", "-p", "sed=1"],
         "ragnb report: 01-charts [sed]: unknown parameter `sed`; did you mean `seed`?"),
        (["charts", "-p", "n=ten"],
         "ragnb report: 01-charts [n]: parameter `n` expects int, got 'ten'"),
        (["charts", "-p", "scale=1,5"],
         "ragnb report: 01-charts [scale]: parameter `scale` expects float, got '1,5'"),
        (["--all", "-p", "nope=1"],
         "ragnb report: [nope]: unknown parameter `nope`: declared by none of 01-charts, 02-fails"),
        (["fails", "--data", "."],
         "ragnb report: [--data]: --data sets `data_dir`, which 02-fails does not declare"),
        (["charts", "--data", "/nonexistent-folder"],
         "ragnb report: [--data]: data folder /nonexistent-folder does not exist"),
        (["--all", "-p", "divisr=1"],
         "ragnb report: [divisr]: unknown parameter `divisr`: declared by none of 01-charts, "
         "02-fails; did you mean `divisor`?"),
        (["chart"], "ragnb report: [chart]: no notebook named `chart`; "
                    "available: 01-charts, 02-fails"),
        (["charts", "--all"], "ragnb report: name notebooks to run, or give --all (not both)"),
        (["charts", "-p", "n=1", "-p", "n=2"], "ragnb report: [n]: parameter `n` given twice"),
    ],
)
def test_bad_requests_fail_before_running(argv, message, tmp_path):
    code, err = run_cli(*argv, "--notebooks", str(FIXTURE_NOTEBOOKS), "--out", str(tmp_path))
    assert code == 2
    assert err.strip().splitlines()[-1].startswith(message)
    assert list(tmp_path.iterdir()) == []  # nothing ran, nothing written


def test_parameters_apply_to_the_notebooks_that_declare_them():
    jobs = plan(None, {"n": "3", "divisor": "4"}, notebooks_dir=FIXTURE_NOTEBOOKS)
    assert [(j.notebook.name, j.given) for j in jobs] == [
        ("01-charts", {"n": 3}), ("02-fails", {"divisor": 4})]


def test_relative_path_values_resolve_against_the_callers_directory(tmp_path):
    (job,) = plan(["charts"], {"strata_spec": "spec.toml"}, data_dir=".",
                  notebooks_dir=FIXTURE_NOTEBOOKS, cwd=tmp_path)
    assert job.given == {"strata_spec": str(tmp_path / "spec.toml"), "data_dir": str(tmp_path)}
    assert job.values["n"] == 12  # defaults fill the rest


def test_invalid_parameters_cell_stops_the_plan(tmp_path):
    shutil.copy(FIXTURE_NOTEBOOKS / "02-fails.ipynb", tmp_path / "01-ok.ipynb")
    nb = nbformat.read(tmp_path / "01-ok.ipynb", as_version=4)
    nb.cells[1].source = "divisor = 1  # untyped"
    nbformat.write(nb, tmp_path / "02-bad.ipynb")
    with pytest.raises(InputError, match="02-bad.ipynb:1: parameters cell: expected"):
        plan(None, notebooks_dir=tmp_path)


# -- one real run, shared (see conftest.charts_report) ------------------------


@pytest.mark.slow
def test_report_run_succeeds_from_another_directory(charts_report):
    assert charts_report["code"] == 0, charts_report["stderr"]
    out = charts_report["out"]
    assert sorted(p.name for p in out.iterdir()) == [
        "01-charts.html", "01-charts.ipynb", "01-charts.pdf", "index.html"]
    assert "[1/1] 01-charts: running" in charts_report["stderr"]
    assert re.search(r"\[1/1\] 01-charts: done in [\d.]+ s -> .*01-charts.html \(\d+ KB\)",
                     charts_report["stderr"])


@pytest.mark.slow
def test_given_parameters_reach_the_kernel(charts_report):
    executed = nbformat.read(charts_report["out"] / "01-charts.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    # n=10 rounds of 2 systems; the kernel read the data from the --data folder
    assert "label=fixture n=10 scale=2.0 rows=20" in printed
    assert executed.metadata.papermill.parameters["systems"] == ["baseline", "champion"]


@pytest.mark.slow
def test_html_is_static_and_shows_no_code(charts_report):
    page = (charts_report["out"] / "01-charts.html").read_text()
    assert static_loaders(page) == []
    assert "http://" not in page.split("<body", 1)[1].replace("http://www.w3.org", "")
    body = page.split("<body", 1)[1]
    for code in ("pd.read_csv", "setup_notebook", "alt.Chart", "show_table(", "hl-ipython"):
        assert code not in body
    assert "REMOVED-CELL-MARKER" not in page and "REMOVED-OUTPUT-MARKER" not in page


@pytest.mark.slow
def test_html_holds_each_chart_as_an_svg_image(charts_report):
    executed = nbformat.read(charts_report["out"] / "01-charts.ipynb", as_version=4)
    svgs = [o["data"]["image/svg+xml"] for c in executed.cells for o in c.get("outputs", [])
            if "image/svg+xml" in o.get("data", {})]
    assert len(svgs) == 2
    page = (charts_report["out"] / "01-charts.html").read_text()
    for svg in svgs:
        assert "Score by round" in svg or "Mean score" in svg
        assert base64.b64encode(svg.encode()).decode() in page


@pytest.mark.slow
def test_html_escapes_text_from_the_data(charts_report):
    page = (charts_report["out"] / "01-charts.html").read_text()
    assert "<script>alert(1)</script>" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 4  # 2 tables, text, markdown


@pytest.mark.slow
def test_provenance_header(charts_report):
    page = (charts_report["out"] / "01-charts.html").read_text()
    line = page[page.index('<header class="ragnb-provline"'): page.index("</header>")]
    assert "<strong>01-charts</strong>" in line and 'href="#ragnb-provenance"' in line
    # the full record closes the page
    header = page[page.index('<footer class="ragnb-provenance"'): page.index("</footer>")]
    assert page.index("</footer>") > page.rindex("jp-Cell")
    data = charts_report["data"]
    scores = hashlib.sha256((data / "scores.csv").read_bytes()).hexdigest()
    strata = hashlib.sha256((data / "strata.toml").read_bytes()).hexdigest()
    tree = hashlib.sha256(
        f"scores.csv\t{scores}\nstrata.toml\t{strata}\n".encode()).hexdigest()
    assert scores in header and strata in header and tree in header
    assert "(2 files," in header
    assert "<code>seed</code> = 7, <code>resamples</code> = 200" in header
    from ragnb import __version__
    assert f"ragnb {__version__}" in header
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, took [\d.]+ s", header)
    assert "<th>split_id</th><th>selections_against</th><th>inflation</th>" in header
    assert "<td>golden-v1</td><td>3</td><td>0.012</td>" in header
    assert "<h3>Strata</h3>" in header and "<td>strata.toml</td><td>4</td>" in header
    assert "Specs (pre-registration)" in header and "before the run" in header
    assert re.search(r"<code>n</code></td><td>int</td><td><code>10</code></td><td>given</td>",
                     header)
    assert re.search(r"<code>label</code></td><td>str</td><td><code>fixture</code></td>"
                     r"<td>default</td>", header)
    for package in ("numpy", "pandas", "altair", "vl-convert-python", "papermill"):
        assert f"<td>{package}</td>" in header


@pytest.mark.slow
def test_executed_notebook_keeps_provenance(charts_report):
    executed = nbformat.read(charts_report["out"] / "01-charts.ipynb", as_version=4)
    prov = executed.metadata.ragnb.provenance
    assert prov["notebook"] == "01-charts"
    assert prov["contributed"]["Splits"] == [
        {"split_id": "golden-v1", "selections_against": 3, "inflation": 0.012}]
    assert {p["name"]: p["value"] for p in prov["parameters"]}["scale"] == 2.0


@pytest.mark.slow
def test_failing_cell_names_notebook_and_cell_and_keeps_the_notebook(tmp_path):
    # the previous good page and notebook stay until a new run completes (issue 13, defect 11)
    stale = tmp_path / "02-fails.html"
    stale.write_text("an old page")
    (tmp_path / "02-fails.ipynb").write_text("an old notebook")
    code, err = run_cli("fails", "-p", "divisor=0", "--notebooks", str(FIXTURE_NOTEBOOKS),
                        "--out", str(tmp_path), "--no-progress")
    assert code == 1
    last = err.strip().splitlines()[-1]
    failed = tmp_path / "02-fails.failed.ipynb"
    assert last == (
        "ragnb report: 02-fails: cell 3 (`value = 10 // divisor`) raised ZeroDivisionError: "
        f"integer division or modulo by zero; executed notebook with the error: {failed}"
    )
    executed = nbformat.read(failed, as_version=4)
    errors = [o for c in executed.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert [e.ename for e in errors] == ["ZeroDivisionError"]
    assert stale.read_text() == "an old page"
    assert (tmp_path / "02-fails.ipynb").read_text() == "an old notebook"
    assert not list(tmp_path.glob(".*running*"))


def test_fixture_data_is_what_the_notebook_expects():
    assert (FIXTURE_DATA / "scores.csv").read_text().count("<script>alert(1)</script>") == 2
