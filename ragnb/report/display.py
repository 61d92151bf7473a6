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
from ragnb.paths import PACKAGE_DIR
from ragnb.report.kernel import PACKAGE_DIR_ENV, REPORT_ENV
from ragnb.report.provenance import PROVENANCE_MIMETYPE

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

_MARKDOWN_PUNCTUATION = "\\`*_{}[]()#+-.!|~"


def in_report() -> bool:
    """Whether this process is a report kernel started by ``ragnb report``."""
    return os.environ.get(REPORT_ENV, "") not in ("", "0")


def setup_notebook() -> None:
    """Enable the Altair renderer that draws charts with no network here.

    ``"svg"`` in a report run, ``"jupyter"`` (offline) otherwise; see
    ``altair.renderers.active``. Returns nothing, so the cell shows nothing.

    Raises
    ------
    RagnbError
        In a report run, when the kernel imported a different ``ragnb`` than the
        runner (the report would not show what the command's code computes).
    """
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


def _display_bundle(bundle: dict[str, Any]) -> None:
    from IPython.display import display

    display(bundle, raw=True)


def table_html(
    df: pd.DataFrame,
    *,
    caption: str | None = None,
    float_format: str | Callable[[float], str] | None = None,
    index: bool = True,
    max_rows: int | None = None,
) -> str:
    """HTML of a DataFrame with every label and cell escaped.

    Parameters
    ----------
    df : DataFrame
        The table; values, column labels and index labels may hold any text.
    caption : str, optional
        Shown above the table (escaped too).
    float_format : str or callable, optional
        A format spec (``".3f"``) or a function from float to str.
    index : bool
        Show the index.
    max_rows : int, optional
        Truncate long tables (pandas' ``max_rows``).
    """
    if isinstance(float_format, str):
        spec = float_format
        float_format = lambda x: format(x, spec)
    table = df.to_html(
        escape=True,
        float_format=float_format,
        index=index,
        max_rows=max_rows,
        border=0,
        classes="dataframe ragnb-table",
        render_links=False,
    )
    if caption is None:
        return table
    return (
        f'<figure class="ragnb-table"><figcaption>{html.escape(caption)}</figcaption>'
        f"{table}</figure>"
    )


def show_table(df: pd.DataFrame, **options: Any) -> None:
    """Display a DataFrame as an escaped HTML table (options of :func:`table_html`)."""
    _display_bundle({"text/html": table_html(df, **options), "text/plain": df.to_string()})


def text_html(text: str) -> str:
    """HTML showing ``text`` as it is (escaped, line breaks kept)."""
    return f'<div class="ragnb-text" style="white-space: pre-wrap">{html.escape(str(text))}</div>'


def show_text(text: str) -> None:
    """Display text from the data as text, never as markup."""
    _display_bundle({"text/html": text_html(text), "text/plain": str(text)})


def escape_markdown(value: Any) -> str:
    """``value`` as Markdown that renders as its literal text.

    HTML-escaped first (``<``, ``>``, ``&``), then Markdown punctuation gets a
    backslash so that ``*``, ``_`` or ``[..](..)`` in data do not format.
    """
    text = html.escape(str(value), quote=False)
    return "".join("\\" + ch if ch in _MARKDOWN_PUNCTUATION else ch for ch in text)


def markdown_text(template: str, /, **values: Any) -> str:
    """Fill a trusted Markdown ``template`` with escaped ``values`` (``str.format`` fields)."""
    return template.format(**{k: escape_markdown(v) for k, v in values.items()})


def show_markdown(template: str, /, **values: Any) -> None:
    """Display a trusted Markdown template filled with escaped values.

    Examples
    --------
    >>> show_markdown("**Reading:** {reading} on {n} queries", reading=reading, n=n)  # doctest: +SKIP
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
    return {
        PROVENANCE_MIMETYPE: {"section": section, "facts": clean},
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


def note_split(
    split_id: str,
    selections_against: int,
    inflation: float | None = None,
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
    inflation : float, optional
        The expected selection inflation of the best score on it.
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
    has the ``inflation`` the selection count implies: ``E[max of N normals] x SE``).
    A row whose ``selections_against`` is missing (a test set the ledger does not
    know) is shown as unknown, never as zero.
    """
    import pandas as pd
    cols = [c for c in ("split", "role", "selections_against", "budget", "sealed",
                        "retired_for_selection_at", "inflation") if c in manifests]
    table = manifests[cols].copy().astype(object).where(manifests[cols].notna(), "—")
    if "inflation" in manifests:
        table["inflation"] = ["—" if pd.isna(v) else f"{v * 100:.2f}"
                              for v in manifests["inflation"]]
        table = table.rename(columns={"inflation": "implied inflation (points)"})
    show_table(table, index=False,
               caption="How often each split has been used to choose (split ledger)")
    for row in manifests.to_dict("records"):
        inflation = row.get("inflation")
        if row["selections_against"] is None or row["selections_against"] is pd.NA:
            provenance("Splits", split_id=row["split_id"], selections_against="unknown",
                       role=row.get("role"))
            continue
        note_split(row["split_id"], int(row["selections_against"]),
                   None if inflation is None or pd.isna(inflation)
                   else f"{inflation * 100:.2f} points",
                   role=row.get("role"), sealed=bool(row.get("sealed")))
