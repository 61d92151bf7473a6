"""Every notebook in notebooks/ becomes a report that draws offline (slow; runs in CI).

One build of all notebooks (their default data, with the resample counts cut
to :data:`SMALL` where declared), then one browser check per page: nothing but
``file:`` requested, no console error, no dialog, no script, and as many charts
drawn as the executed notebook has SVG chart outputs. Screenshots go to
``test-artifacts/report-NN-slug.png``. New notebooks are picked up without
touching this file.
"""
from __future__ import annotations

import html

import nbformat
import pandas as pd
import pytest
from browser import static_loaders

from ragnb.paths import NOTEBOOKS_DIR
from ragnb.report.notebooks import discover
from ragnb.report.parameters import read_parameters
from ragnb.report.runner import build_reports

#: Overrides that keep CI fast, applied to the notebooks that declare them.
SMALL = {"resamples": 200, "n_resamples": 200}

NOTEBOOKS = discover(NOTEBOOKS_DIR)


@pytest.fixture(scope="session")
def project_reports(tmp_path_factory):
    declared = set().union(*(read_parameters(nb.path) for nb in NOTEBOOKS))
    small = {k: v for k, v in SMALL.items() if k in declared}
    out = tmp_path_factory.mktemp("project-reports")
    return {r.name: r for r in build_reports(None, small, out_dir=out)}


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda nb: nb.name)
def test_project_report_draws_offline(notebook, project_reports, open_report):
    result = project_reports[notebook.name]
    assert result.ok, result.message
    assert static_loaders(result.html_path.read_text()) == []
    executed = nbformat.read(result.notebook_path, as_version=4)
    charts = sum(
        "image/svg+xml" in o.get("data", {}) for c in executed.cells for o in c.get("outputs", [])
    )
    check = open_report(result.html_path, screenshot=f"report-{notebook.name}.png")
    assert check.blocked_requests == []
    assert check.console_errors == [] and check.page_errors == []
    assert check.dialogs == [] and check.scripts == 0
    assert check.chart_images == charts and check.charts_drawn == charts


#: The headline block must end within the first screen at 1280 px wide.
FIRST_SCREEN_PX = 700


@pytest.fixture(scope="session")
def layouts(project_reports):
    """Each page measured in chromium (screen and print), with screenshots kept."""
    from browser import chromium_available, inspect_layout

    if not chromium_available():
        pytest.skip("chromium not installed")
    return {name: inspect_layout(r.html_path, name=f"page-{name}")
            for name, r in project_reports.items() if r.ok}


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda nb: nb.name)
def test_page_leads_with_its_answer(notebook, layouts):
    page = layouts[notebook.name]
    s = page.screen
    assert s["headline_bottom"] is not None, "no headline block"
    assert s["headline_bottom"] <= FIRST_SCREEN_PX, s["headline_bottom"]
    # then the one chart that shows it, right under the headline
    assert s["first_chart_top"] is not None and s["first_chart_top"] >= s["headline_bottom"]
    assert s["first_chart_top"] - s["headline_bottom"] < 60
    assert [p.stat().st_size > 10_000 for p in page.screenshots] == [True, True]


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda nb: nb.name)
def test_page_shows_no_debug_text(notebook, layouts):
    from browser import FORBIDDEN

    text = layouts[notebook.name].text
    found = sorted({m.group(0) for m in FORBIDDEN.finditer(text)})
    assert found == [], found



@pytest.mark.slow
def test_check_tables_sit_in_the_appendix_behind_one_line(project_reports):
    import re

    for name, result in project_reports.items():
        html = result.html_path.read_text()
        body = html.split('id="appendix-1"')[0]
        heads = re.findall(r'<table class="dataframe ragnb-table"><thead><tr>(.*?)</tr>', body)
        assert not [h for h in heads if re.search(r">check</th>.*>(holds|ok)</th>", h)], name
        for line in re.findall(r'<p class="ragnb-checks[^"]*">(.*?)</p>', body):
            assert re.fullmatch(r"[✓✗] \d+ of \d+ checks? holds?(; failing: .*)?", line), line


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda nb: nb.name)
def test_page_fits_the_screen_and_paper(notebook, layouts):
    page = layouts[notebook.name]
    for where, m in [("screen 1280 px", page.screen), *page.print_media.items()]:
        assert m["scroll_width"] <= m["client_width"], (where, m["scroll_width"],
                                                        m["client_width"], m["too_wide"])
        assert m["too_wide"] == [], where  # nothing reaches past the page's right edge


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda nb: nb.name)
def test_every_table_is_attached_as_csv_that_parses(notebook, layouts, project_reports):
    from browser import csv_attachments

    page = layouts[notebook.name]
    found = csv_attachments(page)
    html = project_reports[notebook.name].html_path.read_text()
    assert len(found) == html.count("<table class=\"dataframe ragnb-table\">") > 0
    for text, stated, table in found:
        assert len(table) == stated, text


@pytest.mark.slow
def test_body_tables_have_at_most_8_columns(project_reports):
    import re

    for name, result in project_reports.items():
        html = result.html_path.read_text()
        body = html.split('id="appendix-1"')[0]
        for head in re.findall(r'<table class="dataframe ragnb-table"><thead><tr>(.*?)</tr>',
                               body):
            assert head.count("<th") <= 8, (name, head[:200])


@pytest.mark.slow
def test_index_lists_every_page_with_its_headline(project_reports):
    import nbformat

    out = next(iter(project_reports.values())).html_path.parent
    index = (out / "index.html").read_text()
    for name, result in project_reports.items():
        assert f'href="{name}.html"' in index
        headline = nbformat.read(result.notebook_path, as_version=4).metadata["ragnb"]["headline"]
        assert html.escape(headline["answer"]) in index
    assert index.count("<li") == len(NOTEBOOKS)


def _figure(page: str, caption_start: str) -> tuple[list[list[str]], pd.DataFrame]:
    """The body cells and the attached CSV of the first table whose caption starts so."""
    import base64
    import io
    import re

    at = page.index(f"<figcaption>{html.escape(caption_start)}")
    fig = page[at: page.index("</figure>", at)]
    csv = base64.b64decode(re.search(r'href="data:text/csv;base64,([^"]+)"', fig).group(1))
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", fig.split("<tbody>")[1])]
    return rows, pd.read_csv(io.BytesIO(csv))


@pytest.mark.slow
def test_03_largest_losses_and_wins_and_06_version_diff_are_in_points(project_reports):
    """Issue 23 #10: each shown value is its CSV value (0-1) x 100; the version-diff
    sentence gives both versions' scores in points."""
    import re

    page = project_reports["03-strata"].html_path.read_text()
    for caption in ("Largest losses (", "Largest wins ("):
        rows, data = _figure(page, caption)
        columns = list(data.columns)
        for shown, (_, row) in zip(rows, data.iterrows(), strict=False):
            for col, unit in (("baseline", ""), ("challenger", ""), ("delta", "+")):
                assert shown[columns.index(col)] == f"{row[col] * 100:{unit}.1f}", (caption, col)
    page = project_reports["06-health"].html_path.read_text()
    readings = re.findall(r"round-\d\d: ([\d.]+) points on \S+ \(\d+ queries\) → ([\d.]+) on",
                          page)
    assert readings and all(float(a) > 1 and float(b) > 1 for a, b in readings)


def _page_slugs():
    from ragnb.pages import PAGES

    return sorted(PAGES)


def _shown_text(executed) -> str:
    """Every text the executed notebook shows (HTML unescaped, Markdown, plain), joined."""
    import re

    from ragnb.result import plain_markdown

    parts = []
    for cell in executed.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for kind in ("text/html", "text/markdown", "text/plain"):
                if kind in data:
                    text = data[kind]
                    if kind == "text/html":
                        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
                    elif kind == "text/markdown":
                        text = plain_markdown(text)
                    parts.append(text)
            caption = output.get("metadata", {}).get("caption")
            if caption:  # an appendix block's caption travels in its metadata
                parts.append(str(caption))
            if output.get("output_type") == "stream":
                parts.append(output.get("text", ""))
    return " ".join(" ".join(parts).split())


@pytest.mark.slow
@pytest.mark.parametrize("slug", _page_slugs())
def test_a_page_says_the_same_in_its_report_ragnb_run_and_the_api(slug, project_reports):
    """Issue 24: one Finding on every surface. The API's Finding, ``ragnb run``'s text and
    the report built from the notebook agree: the headline field by field, every table's
    and text's caption, every cell of every table as shown (in its units) and every line of
    every text."""
    import contextlib
    import io

    import nbformat

    from ragnb.cli import main
    from ragnb.pages import resolve, run
    from ragnb.paths import DEMO_DIR
    from ragnb.report.display import BODY_MAX_ROWS, HEADLINE_MIMETYPE
    from ragnb.result import plain_markdown, shown_in_units, text_cell

    declared = read_parameters(NOTEBOOKS_DIR / f"{slug}.ipynb")
    small = {k: v for k, v in SMALL.items() if k in declared}
    api = run(resolve(slug, DEMO_DIR, **small))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["run", slug, *(f"-p{k}={v}" for k, v in small.items())]) == 0
    assert out.getvalue() == api.to_text()

    result = project_reports[slug]
    assert result.ok, result.message
    executed = nbformat.read(result.notebook_path, as_version=4)
    headlines = [o["data"][HEADLINE_MIMETYPE] for c in executed.cells
                 for o in c.get("outputs", []) if HEADLINE_MIMETYPE in o.get("data", {})]
    assert headlines[0] == api.headline.to_dict()
    shown = _shown_text(executed)
    for section in api.sections:
        if section.caption and section.kind != "chart":  # a chart is drawn, not captioned
            # a caption is plain text (a table's "* marks ..." keeps its star)
            assert " ".join(section.caption.split()) in shown, section.caption
        if section.kind == "table":
            # the rows a page shows (the others are counted under the table, all in its CSV)
            rows = BODY_MAX_ROWS if section.max_rows is None else section.max_rows
            cells = shown_in_units(section.content.head(rows), section.units)
            for value in cells.to_numpy().ravel():
                text = " ".join(text_cell(value).split())
                assert text in shown, (section.caption, text)
        elif section.kind == "markdown":
            for line in plain_markdown(section.content).splitlines():
                if line.strip():
                    assert " ".join(line.split()) in shown, (section.caption, line)
