"""The self-contained HTML page of an executed notebook.

A report page must open on a laptop with no network and still show every
chart, and must never run text from the data as code. Choice: **static
pages, charts as SVG images drawn in the kernel by vl-convert, and no script at
all**. The page is nbconvert's ``lab`` template with the template
``ragnb/templates/report`` on top of it, which

- drops every loader the ``lab`` template has (require.js, MathJax, mermaid,
  the widget manager: all CDN scripts) and replaces JavaScript outputs by a
  note (:func:`prepare` does the same for widgets);
- puts a Content-Security-Policy first in ``<head>``: ``default-src 'none'``
  with inline styles and ``data:`` images allowed, so the page can load
  nothing from anywhere and can run no script, not even an injected one;
- adds the provenance header (:mod:`ragnb.report.header`) at the top;
- embeds images that markdown cells link to (``embed_images``), so they
  travel with the page too.

Why SVG rather than the Vega bundle inlined once per page (the interactive
alternative measured in ``NOTEBOOKS.md``):

- *No dependence on Altair's HTML template.* Interactive pages only work
  offline by pre-setting ``VEGA_DEBUG`` so that Altair's chart output skips its
  CDN loader, a detail of ``altair/utils/html.py`` that can change with any
  Altair release; the SVG comes from Altair's public ``svg`` renderer.
- *No script on the page, so a strict security policy.* With a Vega runtime the
  page needs inline scripts and ``eval`` (Vega compiles expressions with
  ``Function``); with SVG the policy forbids all scripts, a second line of
  defence behind the escaping helpers of :mod:`ragnb.report.display`.
- *Smaller for the charts a report holds, and it prints.* No 898 KB Vega
  bundle (``vl_convert.javascript_bundle()``, vl-convert 1.9) per page. Measured
  on this stack: a page with two small charts and two tables is 306 KB, of
  which 256 KB is the ``lab`` template's CSS; SVG grows with the marks drawn (a
  2000-point scatter makes a 1035 KB page), where the bundle would cost about
  the same. Each chart is an ``<img src="data:image/svg+xml;base64,...">``
  (nbconvert's default for SVG), which also keeps the SVGs' internal ids (clip
  paths, gradients) from clashing between charts on one page;
  ``chromium --print-to-pdf`` and e-mail previews show the charts.
- What is lost: tooltips, zoom and selections. The same notebook stays
  interactive in JupyterLab (``setup_notebook()`` picks Altair's offline
  ``jupyter`` renderer there), which is where exploring happens; the page is
  for reading in a review meeting.

Before rendering, :func:`prepare` checks the executed notebook: an Altair chart
output that needs JavaScript (Vega-Lite JSON, Altair's HTML with ``vegaEmbed``)
is an error naming the notebook and cell (the notebook did not call
``ragnb.report.setup_notebook()``), because it would be blank on the page.
Facts contributed with :data:`~ragnb.report.provenance.PROVENANCE_MIMETYPE`
are removed from the body (they are shown in the header). Cells tagged
``remove_cell`` are dropped, ``remove_output`` lose their outputs; all code
is hidden (``remove_input`` is implied). The ``parameters`` and injected
parameters cells are dropped.
"""
from __future__ import annotations

import copy
import html
import json
import re
from typing import Any

import nbformat

from ragnb.errors import InputError
from ragnb.paths import PACKAGE_DIR
from ragnb.report.display import BODY_MAX_COLUMNS, HEADLINE_MIMETYPE, PLACE_KEY
from ragnb.report.header import HEADER_CSS
from ragnb.report.parameters import INJECTED_TAG, PARAMETERS_TAG
from ragnb.report.provenance import PROVENANCE_MIMETYPE

#: Folder holding the nbconvert template ``report`` (package data).
TEMPLATE_DIR = PACKAGE_DIR / "templates"
TEMPLATE_NAME = "report"
#: Cell tags honoured on the page.
REMOVE_CELL_TAG, REMOVE_INPUT_TAG = "remove_cell", "remove_input"
REMOVE_OUTPUT_TAG = "remove_output"
WIDGET_VIEW_MIMETYPE = "application/vnd.jupyter.widget-view+json"
#: Shown instead of a widget (its state is not saved and nothing could run it).
WIDGET_NOTE = (
    '<div class="ragnb-omitted">Interactive widget: open the notebook in JupyterLab to use it.'
    "</div>"
)
#: The page may load nothing and run nothing; inline styles and data: images only.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def source_cell_number(nb: nbformat.NotebookNode, index: int) -> int:
    """1-based number of executed cell ``index`` in the source notebook.

    Papermill inserts an ``injected-parameters`` cell; cells after it move by one.
    """
    injected = sum(
        1 for c in nb.cells[:index] if INJECTED_TAG in c.get("metadata", {}).get("tags", [])
    )
    return index - injected + 1


def _needs_javascript(output: dict[str, Any]) -> bool:
    data = output.get("data", {})
    if any(k.startswith(("application/vnd.vegalite", "application/vnd.vega.")) for k in data):
        return True
    html = data.get("text/html", "")
    if isinstance(html, list):
        html = "".join(html)
    return "vegaEmbed" in html or "vega-embed" in html


_TITLE = re.compile(r"aria-label=\"Title text '(.*?)'\"")


def chart_alt(svg: str | list) -> str:
    """Alternative text for a chart image: its title(s) as Vega wrote them, else "chart"."""
    text = "".join(svg) if isinstance(svg, list) else svg
    titles = [html.unescape(t) for t in _TITLE.findall(text)]
    return "Chart: " + "; ".join(titles) if titles else "Chart"


def _output_html(output: dict[str, Any]) -> str:
    text = output.get("data", {}).get("text/html", "")
    return "".join(text) if isinstance(text, list) else text


def _html_output(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("display_data", data={"text/html": text, "text/plain": ""})


def headline_of(nb: nbformat.NotebookNode) -> dict[str, str] | None:
    """The headline (question, answer, next step) the notebook showed first, if any."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(HEADLINE_MIMETYPE)
            if payload is not None:
                return dict(json.loads(payload) if isinstance(payload, str) else payload)
    return None


def _drop_title(nb: nbformat.NotebookNode) -> None:
    """Remove the first markdown ``# title`` line: the headline block states the question."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            lines = cell.source.splitlines()
            if lines and lines[0].startswith("# "):
                cell.source = "\n".join(lines[1:]).lstrip("\n")
            return


def prepare(nb: nbformat.NotebookNode, *, name: str) -> nbformat.NotebookNode:
    """A copy of an executed notebook ready for the page (see the module docstring).

    Also orders the page answer first: the first headline output
    (:data:`~ragnb.report.display.HEADLINE_MIMETYPE`) and the chart displayed
    right after it in the same cell move to a first cell; outputs placed in the
    appendix (:data:`~ragnb.report.display.PLACE_KEY`) move to a last cell
    under "Appendix", leaving a pointer line with a link in their place.

    Raises
    ------
    InputError
        When a cell shows a chart that needs JavaScript to draw.
    """
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    top: list[Any] = []
    appendix: list[Any] = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        kept = []
        take_chart = False
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if PROVENANCE_MIMETYPE in data:
                continue
            if _needs_javascript(output):
                first = next((ln for ln in cell.source.splitlines() if ln.strip()), "")
                raise InputError(
                    f"cell {source_cell_number(nb, index)} (`{first.strip()}`) shows a chart "
                    "that needs JavaScript and would be blank on the page; call "
                    "`ragnb.report.setup_notebook()` in the first cell",
                    source=name,
                )
            if "image/svg+xml" in data:
                output.setdefault("metadata", {})["ragnb_alt"] = chart_alt(data["image/svg+xml"])
            if WIDGET_VIEW_MIMETYPE in data:
                output = nbformat.v4.new_output(
                    "display_data", data={"text/html": WIDGET_NOTE, "text/plain": "widget"}
                )
            if HEADLINE_MIMETYPE in data and not top:
                top.append(_html_output(_output_html(output)))
                take_chart = True
                continue
            if take_chart and "image/svg+xml" in data:
                top.append(output)
                take_chart = False
                continue
            take_chart = False
            place = output.get("metadata", {}).get(PLACE_KEY)
            if place == "appendix":
                number = len(appendix) + 1
                meta = output["metadata"]
                appendix.append(_html_output(
                    f'<div class="ragnb-appendix-item" id="appendix-{number}">'
                    f"<h3>A{number}.</h3>{_output_html(output)}</div>"))
                columns = meta.get("columns", 0)
                wide = f" ({columns} columns)" if columns > BODY_MAX_COLUMNS else ""
                kept.append(_html_output(
                    f'<p class="ragnb-pointer">{html.escape(str(meta.get("caption", "Table")))}'
                    f'{wide}: <a href="#appendix-{number}">appendix A{number}</a>.</p>'))
                continue
            kept.append(output)
        cell.outputs = kept
    if top:
        _drop_title(nb)
        first = nbformat.v4.new_code_cell(source="", outputs=top)
        first.metadata["tags"] = ["ragnb-headline"]
        nb.cells.insert(0, first)
    if appendix:
        nb.cells.append(nbformat.v4.new_markdown_cell(
            "## Appendix\n\nWide tables, full versions of body tables, and the self-checks "
            "behind each one-line summary."))
        nb.cells.append(nbformat.v4.new_code_cell(source="", outputs=appendix))
    return nb


def exporter() -> Any:
    """The nbconvert HTML exporter configured for report pages."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.HTMLExporter.exclude_input = True
    config.HTMLExporter.exclude_input_prompt = True
    config.HTMLExporter.exclude_output_prompt = True
    config.HTMLExporter.embed_images = True  # images a markdown cell links to travel with the page
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = {REMOVE_CELL_TAG, PARAMETERS_TAG, INJECTED_TAG}
    config.TagRemovePreprocessor.remove_input_tags = {REMOVE_INPUT_TAG}
    config.TagRemovePreprocessor.remove_all_outputs_tags = {REMOVE_OUTPUT_TAG}
    return HTMLExporter(
        config=config,
        template_name=TEMPLATE_NAME,
        extra_template_basedirs=[str(TEMPLATE_DIR)],
    )


def render_page(
    nb: nbformat.NotebookNode, *, name: str, header_html: str, base_dir: str | None = None,
    footer_html: str = "",
) -> str:
    """The HTML page of an executed notebook, ``header_html`` on top, ``footer_html`` last.

    ``base_dir`` is the notebook's folder: images that markdown cells link to
    with a relative path are read from there and embedded as ``data:`` URIs.
    """
    from ragnb import __version__

    page, _ = exporter().from_notebook_node(
        prepare(nb, name=name),
        resources={
            "metadata": {"name": name, "path": base_dir or ""},
            "ragnb": {
                "csp": CONTENT_SECURITY_POLICY,
                "css": HEADER_CSS,
                "header": header_html,
                "footer": footer_html,
                "version": __version__,
            },
        },
    )
    return page
