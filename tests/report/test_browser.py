"""A report page in a real browser with the network cut (chromium via playwright)."""
from __future__ import annotations

import nbformat
import pytest

EVIL = "<script>alert(1)</script>"


@pytest.mark.slow
def test_report_draws_offline_and_runs_no_script(charts_report, open_report):
    assert charts_report["code"] == 0, charts_report["stderr"]
    page_path = charts_report["out"] / "01-charts.html"
    executed = nbformat.read(charts_report["out"] / "01-charts.ipynb", as_version=4)
    charts = sum(
        "image/svg+xml" in o.get("data", {}) for c in executed.cells for o in c.get("outputs", [])
    )
    assert charts == 2

    check = open_report(page_path, screenshot="report-01-charts.png")

    assert check.blocked_requests == []  # nothing but file: was requested
    assert check.console_errors == [] and check.page_errors == []
    assert check.dialogs == []  # alert(1) never fired
    assert check.scripts == 0
    assert check.chart_images == charts and check.charts_drawn == charts
    assert check.text.count(EVIL) == 4  # shown as text: two tables, show_text, show_markdown
    assert "golden-v1" in check.text  # the provenance header is on the page
    assert check.screenshot.stat().st_size > 10_000
    pdf = charts_report["out"] / "01-charts.pdf"  # --pdf printed it through chromium
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert (charts_report["out"] / "index.html").exists()


@pytest.mark.slow
def test_browser_check_catches_a_page_that_reaches_the_network(tmp_path, open_report):
    """The check itself can fail: a CDN script, a blank chart and an alert are all seen."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<html><body>"
        '<script src="https://cdn.jsdelivr.net/npm/vega@6"></script>'
        "<script>alert(1); console.error('boom')</script>"
        '<div class="jp-RenderedSVG"><img src="data:image/svg+xml;base64,bm90IGFuIHN2Zw=="></div>'
        "</body></html>"
    )
    check = open_report(page)
    assert check.blocked_requests == ["https://cdn.jsdelivr.net/npm/vega@6"]
    assert check.dialogs == ["alert: 1"]
    assert "boom" in check.console_errors
    assert check.chart_images == 1 and check.charts_drawn == 0
