"""Report pages from executed notebooks (built by hand here: no kernel needed)."""
from __future__ import annotations

import base64

import nbformat
import pandas as pd
import pytest
from browser import static_loaders

from ragnb.errors import InputError
from ragnb.report.display import HEADLINE_MIMETYPE, PLACE_KEY, headline_html
from ragnb.report.html import (
    CONTENT_SECURITY_POLICY,
    headline_of,
    prepare,
    render_page,
    source_cell_number,
)
from ragnb.report.provenance import PROVENANCE_MIMETYPE
from ragnb.result import Headline

EVIL = "<script>alert(1)</script>"
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">'
    '<rect width="40" height="20" fill="#4c78a8"/></svg>'
)


def cell(source, *outputs, tags=()):
    c = nbformat.v4.new_code_cell(source, outputs=list(outputs))
    if tags:
        c.metadata["tags"] = list(tags)
    return c


def display(data):
    return nbformat.v4.new_output("display_data", data=data)


def stream(text):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def executed_notebook():
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb.cells = [
        cell("setup_source_marker()"),
        cell("k: int = 10  # cut-off", tags=["parameters"]),
        cell("# Parameters\nk = 20\n", tags=["injected-parameters"]),
        nbformat.v4.new_markdown_cell("# The title\n\nSome *prose*."),
        cell("chart_source_marker()", display({"image/svg+xml": SVG, "text/plain": "chart"})),
        cell("chart_source_marker_2()", display({"image/svg+xml": SVG, "text/plain": "chart"})),
        cell("table_source_marker()", display({
            "text/html": pd.DataFrame({"q": [EVIL]}).to_html(), "text/plain": "table"})),
        cell("print('x')", stream("REMOVED-CELL-OUTPUT\n"), tags=["remove_cell"]),
        cell("print('y')", stream("REMOVED-OUTPUT\n"), tags=["remove_output"]),
        cell("print('z')", stream("KEPT-OUTPUT\n"), tags=["remove_input"]),
        cell("js()", display({"application/javascript": "alert(2)", "text/plain": "js"})),
        cell("widget()", display({
            "application/vnd.jupyter.widget-view+json": {"model_id": "m", "version_major": 2,
                                                          "version_minor": 0},
            "text/plain": "widget"})),
        cell("note_split()", display({
            PROVENANCE_MIMETYPE: {"section": "Splits", "facts": {"split_id": "g"}},
            "text/plain": "PROVENANCE-TEXT"})),
    ]
    return nb


@pytest.fixture(scope="module")
def page():
    return render_page(executed_notebook(), name="01-demo",
                       header_html="<header>HEADER-MARKER</header>")


def test_page_has_no_script_and_no_loader(page):
    assert static_loaders(page) == []


def test_page_forbids_everything_but_inline_styles_and_data_images(page):
    from html.parser import HTMLParser

    class Head(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = []

        def handle_starttag(self, tag, attrs):
            self.tags.append((tag, dict(attrs)))

    parser = Head()
    parser.feed(page)
    tags = parser.tags
    csp = [i for i, (t, a) in enumerate(tags) if a.get("http-equiv") == "Content-Security-Policy"]
    assert len(csp) == 1
    assert tags[csp[0]][1]["content"] == CONTENT_SECURITY_POLICY
    # before it only <html>, <head>, <meta> and <title>: nothing it should govern
    assert {t for t, _ in tags[: csp[0]]} <= {"html", "head", "meta", "title"}
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY
    assert "script-src" not in CONTENT_SECURITY_POLICY  # falls back to 'none'


def test_page_shows_no_code(page):
    body = page[page.index("<body") :]
    for marker in ("source_marker", "print(", "k = 20", "k: int", "hl-ipython", "jp-InputPrompt"):
        assert marker not in body


def test_page_honours_remove_tags(page):
    assert "REMOVED-CELL-OUTPUT" not in page
    assert "REMOVED-OUTPUT" not in page
    assert "KEPT-OUTPUT" in page


def test_page_keeps_markdown_header_and_charts(page):
    assert "The title" in page and "<em>prose</em>" in page
    assert page.index("HEADER-MARKER") < page.index("The title")
    encoded = base64.b64encode(SVG.encode()).decode()
    assert page.count(f'src="data:image/svg+xml;base64,{encoded}"') == 2


def test_page_escapes_table_text(page):
    assert EVIL not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_javascript_widgets_and_provenance_outputs_are_not_in_the_body(page):
    assert "alert(2)" not in page
    assert "JavaScript output omitted from the report." in page
    assert "Interactive widget: open the notebook in JupyterLab" in page
    assert "PROVENANCE-TEXT" not in page
    assert "widget-state" not in page


@pytest.mark.parametrize(
    "output",
    [
        display({"application/vnd.vegalite.v6+json": {"mark": "bar"}, "text/plain": "chart"}),
        display({"text/html": "<div id='v'></div><script>vegaEmbed('#v', {})</script>",
                 "text/plain": "chart"}),
    ],
)
def test_chart_needing_javascript_is_an_error_naming_the_cell(output):
    nb = executed_notebook()
    nb.cells.insert(4, cell("alt.Chart(df).mark_bar()\n", output))
    with pytest.raises(InputError) as info:
        prepare(nb, name="01-demo")
    message = str(info.value)
    # executed index 4 is source cell 4 (1-based) once the injected cell is discounted
    assert message.startswith("01-demo: cell 4 (`alt.Chart(df).mark_bar()`) shows a chart")
    assert "ragnb.report.setup_notebook()" in message


def test_source_cell_number_discounts_injected_cell():
    nb = executed_notebook()
    assert [source_cell_number(nb, i) for i in (0, 1, 3, 4)] == [1, 2, 3, 4]


def test_prepare_does_not_modify_the_executed_notebook():
    nb = executed_notebook()
    before = nbformat.writes(nb)
    prepare(nb, name="01-demo")
    assert nbformat.writes(nb) == before


def test_images_linked_from_markdown_are_embedded(tmp_path):
    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    (tmp_path / "figure.png").write_bytes(png)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("![a figure](figure.png)")]
    page = render_page(nb, name="01-demo", header_html="", base_dir=str(tmp_path))
    assert f"data:image/png;base64,{base64.b64encode(png).decode()}" in page
    assert 'src="figure.png"' not in page


def test_chart_images_carry_their_titles_as_alternative_text(page):
    import re

    images = [tag for tag in re.findall(r"<img [^>]*>", page) if "data:image/svg+xml" in tag]
    alts = [re.search(r'alt="([^"]*)"', tag) for tag in images]
    assert images and all(a and a.group(1).startswith("Chart") for a in alts)
    assert "No description has been provided" not in page


def test_chart_alt_reads_the_vega_title():
    from ragnb.report.html import chart_alt

    svg = ('<svg><text aria-label="Title text \'Delta &amp; friends\'">x</text></svg>')
    assert chart_alt(svg) == "Chart: Delta & friends"
    assert chart_alt("<svg></svg>") == "Chart"


def _answer_first_notebook():
    nb = nbformat.v4.new_notebook()
    headline = {"question": "Q?", "answer": f"A {EVIL}", "next_step": "N", "verdict": "v"}
    wide = nbformat.v4.new_output("display_data", data={"text/html": "<table>WIDE</table>",
                                                        "text/plain": "wide"},
                                  metadata={PLACE_KEY: "appendix", "caption": "Wide one",
                                            "columns": 12})
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Q?\n\nIntro prose."),
        cell("load()", stream("LOADED\n")),
        cell("show_finding(x)",
             display({HEADLINE_MIMETYPE: headline, "text/html": headline_html(Headline(**headline)),
                      "text/plain": "headline"}),
             display({"image/svg+xml": SVG, "text/plain": "chart"}),
             display({"text/html": "<p>BODY-TABLE</p>", "text/plain": "t"}),
             wide),
        cell("later_chart()", display({"image/svg+xml": SVG, "text/plain": "chart"})),
    ]
    return nb


def test_prepare_puts_the_headline_and_its_chart_first_and_wide_tables_last():
    nb = _answer_first_notebook()
    out = prepare(nb, name="01-x")
    first = out.cells[0].outputs
    assert [list(o.data) for o in first] == [["text/html", "text/plain"],
                                             ["image/svg+xml", "text/plain"]]
    assert 'id="ragnb-headline"' in first[0].data["text/html"]
    assert "&lt;script&gt;" in first[0].data["text/html"]
    assert out.cells[1].source == "Intro prose."  # the title is the headline's question now
    body = [o.data.get("text/html", "") for o in out.cells[3].outputs]
    assert body[0] == "<p>BODY-TABLE</p>"
    assert 'Wide one (12 columns): <a href="#appendix-1">appendix A1</a>' in body[1]
    assert out.cells[-2].source.startswith("## Appendix")
    assert 'id="appendix-1"' in out.cells[-1].outputs[0].data["text/html"]
    assert "WIDE" in out.cells[-1].outputs[0].data["text/html"]
    assert len(out.cells[4].outputs) == 1  # a later chart stays where it was
    assert headline_of(nb)["answer"] == f"A {EVIL}"


def test_page_without_headline_keeps_its_order():
    nb = executed_notebook()
    out = prepare(nb, name="01-demo")
    assert [c.source for c in out.cells] == [c.source for c in nb.cells]
    assert headline_of(nb) is None
