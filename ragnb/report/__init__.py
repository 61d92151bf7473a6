"""Reports: notebooks executed into self-contained, offline HTML pages.

What a notebook calls (light imports, safe inside a kernel):

- :func:`setup_notebook` in its first cell (charts that draw with no network);
- :func:`show_finding` for an analysis result (any of them, through
  :mod:`ragnb.result`): the headline that opens the page, its chart, its table,
  its checks in one line and its method;
- :func:`show_table`, :func:`show_text`, :func:`show_markdown` for anything
  holding text from the data (always escaped; tables carry a CSV download,
  are capped at 15 rows and go to the appendix when wider than 8 columns);
  :func:`show_checks` for a checks table (one line; the table in the appendix);
- :func:`provenance` / :func:`note_split` to add facts to the page's header.

The machinery behind ``ragnb report``, one concept per module:
:mod:`~ragnb.report.notebooks` (names, discovery, stored-without-outputs check),
:mod:`~ragnb.report.parameters` (the ``parameters`` cell and its types),
:mod:`~ragnb.report.kernel` (the kernel: this interpreter, this ragnb),
:mod:`~ragnb.report.runner` (plan and run), :mod:`~ragnb.report.provenance`
(what the header states), :mod:`~ragnb.report.header` (its HTML) and
:mod:`~ragnb.report.html` (the page: why static SVG, no script, no network).
"""
from __future__ import annotations

from ragnb.report.display import (
    in_report,
    markdown_text,
    note_split,
    provenance,
    setup_notebook,
    show_checks,
    show_finding,
    show_markdown,
    show_method,
    show_splits,
    show_table,
    show_text,
    show_workspace_files,
    table_html,
    text_html,
)

__all__ = [
    "in_report",
    "markdown_text",
    "note_split",
    "provenance",
    "setup_notebook",
    "show_checks",
    "show_finding",
    "show_markdown",
    "show_method",
    "show_splits",
    "show_table",
    "show_text",
    "show_workspace_files",
    "table_html",
    "text_html",
]
