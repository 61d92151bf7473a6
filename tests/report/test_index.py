"""reports/index.html: every report of a folder with its headline; PDF through chromium."""
from __future__ import annotations

import nbformat
import pytest

from ragnb.report.index import index_rows, write_index

EVIL = "<script>alert(1)</script>"


def _report(folder, name, headline, page=True):
    nb = nbformat.v4.new_notebook()
    nb.metadata["ragnb"] = {"headline": headline,
                            "provenance": {"started_at": "2026-07-01T10:00:00+00:00"}}
    nbformat.write(nb, folder / f"{name}.ipynb")
    if page:
        (folder / f"{name}.html").write_text("<html></html>")


def test_index_lists_every_page_with_its_answer_escaped(tmp_path):
    _report(tmp_path, "01-fit", {"question": "Is the gain real?", "answer": f"Fit {EVIL}",
                                 "next_step": "Quote production.", "verdict": "fit"})
    _report(tmp_path, "02-x", None)
    _report(tmp_path, "03-broken", None, page=False)
    (tmp_path / "notes.html").write_text("not a report")
    page = write_index(tmp_path).read_text()
    assert [r["name"] for r in index_rows(tmp_path)] == ["01-fit", "02-x", "03-broken"]
    assert page.count("<li") == 3
    assert '<a href="01-fit.html">Is the gain real?</a>' in page
    assert "Fit &lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script" not in page
    assert "<strong>Next:</strong> Quote production." in page
    assert "no headline (this notebook states none)" in page
    assert "03-broken: the run failed" in page
    assert "Content-Security-Policy" in page
    assert "3 reports, 2 written" in page


@pytest.mark.slow
def test_pdf_is_printed_by_chromium(tmp_path):
    from browser import chromium_available

    from ragnb.report.pdf import write_pdf

    if not chromium_available():
        pytest.skip("chromium not installed")
    page = tmp_path / "01-x.html"
    page.write_text("<html><body><h1>Answer first</h1><table><tr><td>1</td></tr></table>"
                    "</body></html>")
    pdf = write_pdf(page)
    assert pdf == tmp_path / "01-x.pdf"
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    assert not list(tmp_path.glob(".*.tmp"))


def test_27_10_a_folder_named_index_html_is_a_one_line_error(tmp_path, capsys):
    # issue 27, item 10: the atomic rename onto a folder was a traceback after the pages
    import shutil

    from ragnb.cli import main
    from ragnb.errors import InputError
    from ragnb.paths import DEMO_DIR

    (tmp_path / "out" / "index.html").mkdir(parents=True)
    with pytest.raises(InputError, match=r"index\.html: cannot write the index of the reports "
                                         r"\(Is a directory\)"):
        write_index(tmp_path / "out")
    shutil.copy(DEMO_DIR / "golden.jsonl", tmp_path)  # a workspace every report skips
    (tmp_path / "ragnb.toml").write_text(
        '[workspace]\nname = "w"\n[test_sets.golden]\npath = "golden.jsonl"\n')
    code = main(["report", "--all", "--workspace", str(tmp_path), "--out",
                 str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "Traceback" not in "\n".join(err)
    assert err[-1].endswith("index.html: cannot write the index of the reports (Is a "
                            "directory); the report pages are not affected")
    assert (tmp_path / "out" / "index.html").is_dir()
