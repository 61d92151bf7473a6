"""What notebooks call: chart rendering for the context, safe tables and text, provenance facts.

Imported inside kernels, so this module stays light (no papermill, no nbconvert).

Charts: :func:`setup_notebook`, called in a notebook's first cell, picks the
Altair renderer for where the notebook runs.

- In JupyterLab (interactive, possibly offline): ``alt.renderers.enable("jupyter",
  offline=True)``, Altair's anywidget-based renderer with the Vega bundle served
  by the kernel; no CDN. (The ``mimetype`` renderer does not draw in Lab 4.6 with
  Vega-Lite 6; the default ``html`` renderer loads Vega from a CDN.)
- In a report run (the runner's kernel has ``RAGNB_REPORT=1``,
  :mod:`ragnb.report.kernel`): the ``svg`` renderer, see :mod:`ragnb.report.html`
  for why the report pages are static.

Text from the data (query texts, document titles, labels) can hold markup such
as ``<script>alert(1)</script>``. It must show as text: pandas' ``to_html``
escapes by default, but a ``Styler`` does not (unless ``escape="html"``),
``IPython.display.HTML``/``Markdown`` built with an f-string do not. Use
:func:`show_table`, :func:`show_text` and :func:`show_markdown`, which always
escape; report pages also carry a Content-Security-Policy that forbids scripts,
so a slip elsewhere shows garbled text rather than running code.
"""
from __future__ import annotations

import html
import math
import numbers
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragnb.errors import InputError, RagnbError
from ragnb.filefacts import sha256_file
from ragnb.paths import PACKAGE_DIR
from ragnb.report.kernel import PACKAGE_DIR_ENV, REPORT_ENV
from ragnb.report.provenance import PROVENANCE_MIMETYPE
from ragnb.result import escape_markdown as escape_markdown  # re-exported
from ragnb.result import format_unit as format_unit  # re-exported
from ragnb.result import markdown_text, plain_markdown, table_decimals
from ragnb.spreadsheet import people_csv

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

def in_report() -> bool:
    """Whether this process is a report kernel started by ``ragnb report``."""
    return os.environ.get(REPORT_ENV, "") not in ("", "0")


def setup_notebook() -> None:
    """Enable the Altair renderer that draws charts with no network here.

    ``"svg"`` in a report run, ``"jupyter"`` (offline) otherwise; see
    ``altair.renderers.active``. Returns nothing, so the cell shows nothing.

    Called first in a notebook, before anything imports altair, it also spares the
    kernel jsonschema's optional ``rfc3987_syntax`` import (3-4 s) and two numpy
    modules scipy imports but never calls (:func:`ragnb.startup.lighten_imports`),
    as a report kernel is spared them.

    Raises
    ------
    RagnbError
        In a report run, when the kernel imported a different ``ragnb`` than the
        runner (the report would not show what the command's code computes).
    """
    from ragnb.startup import lighten_imports

    lighten_imports()
    import altair as alt

    if in_report():
        expected = os.environ.get(PACKAGE_DIR_ENV)
        if expected and Path(expected).resolve() != PACKAGE_DIR.resolve():
            raise RagnbError(
                f"the report kernel imported ragnb from {PACKAGE_DIR}, "
                f"the runner from {expected}"
            )
        alt.renderers.enable("svg")
    else:
        alt.renderers.enable("jupyter", offline=True)


def _display_bundle(bundle: dict[str, Any], metadata: dict[str, Any] | None = None) -> None:
    from IPython.display import display

    display(bundle, raw=True, metadata=metadata or None)


#: Most columns a table shows in the body of a page; wider ones go to the appendix.
BODY_MAX_COLUMNS = 8
#: Rows a body table shows before it is capped (the CSV attachment has them all).
BODY_MAX_ROWS = 15
#: Output metadata key saying where the page puts an output (``appendix``).
PLACE_KEY = "ragnb_place"
#: MIME type of the headline block (a finding's question, answer and next step).
HEADLINE_MIMETYPE = "application/vnd.ragnb.headline+json"
MISSING = "—"
#: Columns whose cells are config codes (shown with their display names).
CONFIG_COLUMNS = ("config", "baseline", "challenger", "champion", "winner", "target")


def _cell(value: Any, float_format: Callable[[float], str] | None) -> str:
    if value is None or value is pd_na() or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if not math.isfinite(value):
            return MISSING
        return float_format(value) if float_format else f"{value:.4g}"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(_cell(v, float_format) for v in value)
    text = str(value)
    return text.replace("\\n", " ").replace("\n", " ")


def pd_na() -> Any:
    import pandas as pd

    return pd.NA


def _is_number(series: pd.Series) -> bool:
    import pandas as pd

    return bool(pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series))


def csv_link(df: pd.DataFrame, name: str, *, index: bool = True) -> str:
    """A download link holding the whole table as CSV in a ``data:`` URI."""
    import base64

    data = base64.b64encode(people_csv(df, index=index).encode("utf-8")).decode("ascii")
    slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")[:60] or "table"
    return (f'<a class="ragnb-csv" download="{html.escape(slug)}.csv" '
            f'href="data:text/csv;base64,{data}">CSV ({len(df)} rows)</a>')


def table_html(
    df: pd.DataFrame,
    *,
    caption: str | None = None,
    float_format: str | Callable[[float], str] | None = None,
    index: bool = True,
    max_rows: int | None = None,
    units: dict[str, str] | None = None,
    display_names: dict[str, str] | None = None,
) -> str:
    """HTML of a DataFrame with every label and cell escaped, and the table attached as CSV.

    Missing values show as "—" (never ``NaN`` or ``<NA>``), booleans as yes/no,
    text columns align left and numbers right. Only the first ``max_rows`` rows
    are shown, with a count of the rows not shown; the CSV link holds them all.

    Parameters
    ----------
    df : DataFrame
        The table; values, column labels and index labels may hold any text.
    caption : str, optional
        Shown above the table (escaped too); states the units.
    float_format : str or callable, optional
        A format spec (``".3f"``) or a function from float to str.
    index : bool
        Show the index.
    max_rows : int, optional
        Rows shown; the rest are counted under the table.
    units : dict, optional
        Column -> unit of its (0-1) values as shown: ``"points"`` (x100, one
        decimal unless a nonzero figure would print 0.0 or two figures of a row alike:
        :func:`ragnb.result.table_decimals`; ``"points:2"`` two), ``"signed points"``
        (with a sign) or ``"percent"``. The CSV keeps the values as they are.
    display_names : dict, optional
        Config -> display name: cells of the config columns
        (:data:`CONFIG_COLUMNS`) show ``name (config)``; the CSV keeps the codes.
    """
    if isinstance(float_format, str):
        spec = float_format

        def float_format(x):
            return format(x, spec)
    frame = df.reset_index() if index else df
    if index and list(frame.columns[:1]) == ["index"]:
        frame = frame.rename(columns={"index": ""})
    numeric = [_is_number(frame.iloc[:, i]) for i in range(frame.shape[1])]
    if display_names:
        from ragnb.result import display_name

        frame = frame.assign(**{c: [display_name(v, display_names) if isinstance(v, str) else v
                                    for v in frame[c]]
                                for c in CONFIG_COLUMNS if c in frame})
    if units:
        frame = frame.copy()
        digits = table_decimals(frame, units)
        for column, unit in units.items():
            if column in frame:
                frame[column] = [format_unit(v, unit, digits) for v in frame[column]]
    shown = frame if max_rows is None else frame.head(max_rows)
    head = "".join(f'<th class="{"num" if n else "txt"}">{html.escape(str(c))}</th>'
                   for c, n in zip(frame.columns, numeric))
    rows = []
    for values in shown.itertuples(index=False, name=None):
        rows.append("<tr>" + "".join(
            f'<td class="{"num" if n else "txt"}">{html.escape(_cell(v, float_format))}</td>'
            for v, n in zip(values, numeric)) + "</tr>")
    hidden = len(frame) - len(shown)
    more = (f'<p class="ragnb-more">{hidden} more row{"s" if hidden != 1 else ""} not shown '
            "(all rows in the CSV).</p>") if hidden else ""
    table = (f'<table class="dataframe ragnb-table"><thead><tr>{head}</tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    link = csv_link(df, caption or "table", index=index)
    cap = (f"<figcaption>{html.escape(caption)} {link}</figcaption>" if caption
           else f"<figcaption>{link}</figcaption>")
    return (f'<figure class="ragnb-table">{cap}<div class="ragnb-scroll">{table}</div>{more}'
            "</figure>")


def show_table(
    df: pd.DataFrame,
    *,
    appendix: bool | None = None,
    max_rows: int | None = BODY_MAX_ROWS,
    **options: Any,
) -> None:
    """Display a DataFrame as an escaped HTML table with a CSV attachment.

    Parameters
    ----------
    df : DataFrame
    appendix : bool, optional
        Put the table in the page's appendix (a pointer stays in the body).
        Default: when it has more than :data:`BODY_MAX_COLUMNS` columns.
    max_rows : int or None
        Rows shown (:data:`BODY_MAX_ROWS`; ``None`` for all); the CSV has every row.
    **options
        Of :func:`table_html` (``caption``, ``float_format``, ``index``).
    """
    columns = len(df.columns) + (df.index.nlevels if options.get("index", True) else 0)
    if appendix is None:
        appendix = columns > BODY_MAX_COLUMNS
    metadata = {PLACE_KEY: "appendix", "caption": options.get("caption") or "table",
                "columns": columns} if appendix else {}
    _display_bundle({"text/html": table_html(df, max_rows=max_rows, **options),
                     "text/plain": df.to_string(max_rows=max_rows)}, metadata)


def checks_html(checks: pd.DataFrame) -> str:
    """One line: "N of M checks hold", the failing ones named."""
    from ragnb.result import checks_frame, checks_line

    frame = checks_frame(checks)
    ok = bool(frame["holds"].all())
    return (f'<p class="ragnb-checks {"ok" if ok else "fail"}">'
            f'{"✓" if ok else "✗"} {html.escape(checks_line(frame))}</p>')


def show_checks(checks: pd.DataFrame, *, caption: str = "Checks") -> None:
    """Show a checks table as one line in the body; the table itself goes to the appendix."""
    from ragnb.result import checks_frame, checks_line

    frame = checks_frame(checks)
    _display_bundle({"text/html": checks_html(frame), "text/plain": checks_line(frame)})
    if len(frame):
        show_table(frame, index=False, caption=caption, appendix=True, max_rows=None)


def headline_html(headline: Any) -> str:
    """The headline block: the question, the answer in one sentence, its Why bullets, what to
    do next.
    """
    h = headline.to_dict() if hasattr(headline, "to_dict") else dict(headline)
    why = "".join(f"<li>{html.escape(w)}</li>" for w in h.get("why") or ())
    return (
        '<section class="ragnb-headline" id="ragnb-headline">'
        f'<h1 class="ragnb-question">{html.escape(h["question"])}</h1>'
        f'<p class="ragnb-answer">{html.escape(h["answer"])}</p>'
        + (f'<ul class="ragnb-why">{why}</ul>' if why else "") +
        f'<p class="ragnb-next"><strong>Next:</strong> {html.escape(h["next_step"])}</p>'
        "</section>"
    )


def show_finding(result: Any, /, *, table: bool = True, **context: Any) -> None:
    """Show any analysis result the one way: headline, its sections in order, checks, method.

    ``result`` is an analysis result (adapted with :func:`ragnb.result.finding`,
    ``context`` passed on, e.g. ``display_names``) or a Finding. Each section shows
    as it says (:class:`ragnb.result.Section`: a table, a chart or Markdown text;
    appendix sections go to the page's appendix); ``table=False`` leaves the tables
    out. On a report page the headline and the chart right after it open the
    page. Returns nothing (so a cell ending with it shows no repr);
    :func:`ragnb.result.finding` gives the Finding itself.
    """
    from ragnb.result import finding

    f = finding(result, **context)
    _display_bundle({HEADLINE_MIMETYPE: f.headline.to_dict(),
                     "text/html": headline_html(f.headline),
                     "text/plain": f.headline_text()})
    for section in f.sections:
        if section.kind != "table" or table:
            show_section(section)
    if len(f.checks):
        show_checks(f.checks)
    if f.description:
        show_method(f.description)


def show_section(section: Any) -> None:
    """Show one :class:`ragnb.result.Section`: its table, chart or (trusted) Markdown."""
    from IPython.display import display

    if section.kind == "chart":
        display(section.content)
    elif section.kind == "markdown":
        text = (f"## {escape_markdown(section.caption)}\n\n" if section.caption else "") \
            + section.content
        if section.appendix:  # the page's appendix takes HTML
            _display_bundle({"text/html": text_html(plain_markdown(section.content)),
                             "text/plain": plain_markdown(section.content)},
                            {PLACE_KEY: "appendix", "caption": section.caption or "Notes"})
        else:
            _display_bundle({"text/markdown": text, "text/plain": text})
    elif len(section.content.columns):
        show_table(section.content, index=False, caption=section.caption or None,
                   appendix=section.appendix or None, units=section.units,
                   **({} if section.max_rows is None else {"max_rows": section.max_rows}))
    if section.kind == "table" and section.note:
        show_markdown("*{note}*", note=section.note)


def show_method(text: str) -> None:
    """How the numbers were made, as a muted line under what it describes."""
    _display_bundle({"text/html": f'<p class="ragnb-method">Method: {html.escape(str(text))}</p>',
                     "text/plain": f"Method: {text}"})


def text_html(text: str) -> str:
    """HTML showing ``text`` as it is (escaped, line breaks kept)."""
    return f'<div class="ragnb-text" style="white-space: pre-wrap">{html.escape(str(text))}</div>'


def show_text(text: str) -> None:
    """Display text from the data as text, never as markup."""
    _display_bundle({"text/html": text_html(text), "text/plain": str(text)})


def show_markdown(template: str, /, **values: Any) -> None:
    """Display a trusted Markdown template filled with escaped values.

    Examples
    --------
    >>> show_markdown("**Reading:** {r} on {n} queries", r="ok", n=4)  # doctest: +SKIP
    """
    text = markdown_text(template, **values)
    _display_bundle({"text/markdown": text, "text/plain": text})


def _fact_value(key: str, value: Any) -> Any:
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()  # numpy scalar
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple)):
        return [_fact_value(key, v) for v in value]
    raise InputError(
        f"a provenance fact must be a number, text, bool, None or a list of them; "
        f"got {type(value).__name__}",
        key=key,
    )


def provenance_bundle(section: str, facts: dict[str, Any]) -> dict[str, Any]:
    """The display bundle that carries one row of contributed provenance facts."""
    if not isinstance(section, str) or not section:
        raise InputError("a provenance section must be a non-empty string", key="section")
    clean = {k: _fact_value(k, v) for k, v in facts.items()}
    plain = ", ".join(f"{k}={v!r}" for k, v in clean.items())
    shown = ", ".join(f"{k} {v}" for k, v in clean.items())
    return {
        PROVENANCE_MIMETYPE: {"section": section, "facts": clean},
        # JupyterLab and Voila show this line (the report page moves the facts to its footer):
        # small, wrapped, never running off the page.
        "text/html": ('<div class="ragnb-provfacts" style="font-size: 11px; color: #666; '
                      'white-space: normal; overflow-wrap: anywhere">'
                      f"Provenance · {html.escape(section)}: {html.escape(shown)}</div>"),
        "text/plain": f"[provenance: {section}] {plain}",
    }


def provenance(section: str = "Notes", /, **facts: Any) -> None:
    """Add a row of facts to the report header, in the table of ``section``.

    Each call is one row; the table's columns are the keys of its rows in order
    of first appearance. In JupyterLab the call shows the facts as plain text.

    Examples
    --------
    >>> provenance("Strata", spec="strata.toml", strata=4)  # doctest: +SKIP
    """
    _display_bundle(provenance_bundle(section, facts))


#: Most workspace files listed (folded) outside a report.
SHOWN_FILES = 8


def show_workspace_files(workspace: Any) -> None:
    """Add the files a workspace has read to the report's provenance (one row per file, sha256).

    ``workspace`` is a :class:`ragnb.workspace.Workspace`; folders get a row with
    their file count. Outside a report (JupyterLab, Voila) the files are one
    folded line ("N files read", the list inside), so no page opens on a block of
    paths and hashes before its answer.
    """
    files = workspace.files_read()
    if not in_report():
        items = "".join(f"<li>{html.escape(str(p))}</li>" for p in files[:SHOWN_FILES])
        more = (f"<li>… and {len(files) - SHOWN_FILES} more</li>"
                if len(files) > SHOWN_FILES else "")
        _display_bundle({"text/html": ('<details class="ragnb-provfacts" style="font-size: '
                                       '11px; color: #666"><summary>Provenance · Workspace '
                                       f"files: {len(files)} read (each with its sha256 in a "
                                       f"report's provenance)</summary><ul>{items}{more}</ul>"
                                       "</details>"),
                         "text/plain": f"[provenance: Workspace files] {len(files)} files read"})
        return
    for path in files:
        if path.is_file():
            provenance("Workspace files", file=str(path), bytes=path.stat().st_size,
                       sha256=sha256_file(path))
        elif path.is_dir():
            provenance("Workspace files", folder=str(path),
                       files=sum(1 for p in path.rglob("*") if p.is_file()))


def note_split(
    split_id: str,
    selections_against: int,
    inflation: float | str | None = None,
    /,
    **facts: Any,
) -> None:
    """State in the header how often a split has been selected against.

    Parameters
    ----------
    split_id : str
        The split (from the split ledger).
    selections_against : int
        How many selection decisions have used this split so far.
    inflation : float or str, optional
        The expected selection inflation of the best score on it (a number, or
        text with its unit such as ``"0.42 points"``).
    **facts
        More columns (e.g. ``status="sealed"``).
    """
    provenance(
        "Splits",
        split_id=split_id,
        selections_against=selections_against,
        inflation=inflation,
        **facts,
    )


def show_splits(manifests: pd.DataFrame) -> None:
    """Show each split's ledger state beside its scores, and put it in the page header.

    ``manifests`` is :meth:`ragnb.ledger.Ledger.manifests` (with ``se`` given, so it
    has each split's one ``inflation`` figure and its ``inflation_method``,
    :func:`ragnb.stats.split_inflation`); the table is
    :func:`ragnb.ledger.status.split_status_table`.
    """
    from ragnb.ledger.status import SPLIT_STATUS_CAPTION, split_status_table

    show_table(split_status_table(manifests), index=False, caption=SPLIT_STATUS_CAPTION)
    note_splits(manifests)


def note_splits(manifests: pd.DataFrame) -> None:
    """Put each split's selections against and its selection inflation in the page header.

    A row whose ``selections_against`` is missing (a test set the ledger does not
    know) is stated as unknown, never as zero.
    """
    import pandas as pd

    from ragnb.stats.inflation import inflation_text

    for row in manifests.to_dict("records"):
        inflation = row.get("inflation")
        if row["selections_against"] is None or row["selections_against"] is pd.NA:
            provenance("Splits", split_id=row["split_id"], selections_against="unknown",
                       role=row.get("role"))
            continue
        method = row.get("inflation_method")
        note_split(row["split_id"], int(row["selections_against"]),
                   None if inflation is None or pd.isna(inflation)
                   else inflation_text(float(inflation), method, row.get("inflation_low"),
                                       row.get("inflation_high")).replace(" (", " points (", 1)
                   if method else f"{inflation * 100:.2f} points",
                   role=row.get("role"), sealed=bool(row.get("sealed")))
