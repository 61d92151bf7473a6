"""One shape for the result of every analysis: :class:`Finding`.

Every analysis (the four-cell table, the trajectory, the stratified breakdown,
the label-bias bounds, the ledger views, the test-set health checks, the
code-task recall) returns its own rich result object. What a reader needs from
any of them is the same five things, under the same names:

``headline``
    The answer in one sentence with its key numbers and interval
    (:class:`Headline`: the question, the answer, what to do next).
``display_table``
    The display table (a DataFrame of text, units stated in its caption).
``chart``
    The one chart that shows the answer (an ``alt.Chart``, or ``None``).
``checks``
    The self-checks: a DataFrame ``check, holds, detail`` (one row per check).
``description``
    How the numbers were made: method, resamples, n, seed.
``sections``
    What the page shows under the headline, in order (:class:`Section`: a
    caption and a table, chart or Markdown text, in the body or the appendix);
    by default the chart and the display table.
``objects``
    The intermediate objects an analyst continues from (``"scores"``,
    ``"comparison"``, ...), besides ``source``, the analysis' own result.

A Finding renders itself the same way on every surface: ``to_text()`` on a
terminal (``ragnb run``), rich display in JupyterLab (``_repr_html_``), and
``ragnb.report.show_finding`` on a report page.

:func:`finding` turns any registered result object into a :class:`Finding`
(one adapter per analysis, in the ``finding`` module of its package, e.g.
:mod:`ragnb.fit.finding`, registered with :func:`register` when the package is
imported, so before any of its results exists); notebooks, report pages,
widgets and the CLI show every analysis through it (``ragnb.report.show_finding``).

Names: ``display_table`` is always a table of text made for reading; ``table``
is always data (a breakdown's rows, a run's rankings, a score table). Every
analysis result derives from :class:`Analysis`, so ``result.finding()`` gives
its :class:`Finding`; results that format a table of their own call that
method ``display_table()``, and say how they were made in ``description``.

Units: metric values and their differences are shown in **points** (metric x
100, :data:`POINTS`) everywhere a finding is shown; shares of queries stay
percentages. Config names go through a plain mapping ``display_names`` (config
-> name shown) with the config code kept beside it (:func:`display_name`).
"""
from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed

#: The unit convention of every displayed metric value and difference.
POINTS = "points (metric × 100)"
#: Vega expression that labels an axis of metric values (0-1) in points (x100).
POINTS_LABELS = "format(datum.value * 100, '.3~r')"
#: Columns of :attr:`Finding.checks`.
CHECK_COLUMNS = ("check", "holds", "detail")


def decimals(*values: float) -> int:
    """The precision rule of every surface: points with one decimal; two (then three) only
    where one decimal would print a nonzero figure as 0.0.

    >>> decimals(0.0123), decimals(0.0003), decimals(0.00002, 0.02)
    (1, 2, 3)
    """
    least = min((abs(v) * 100 for v in values if v is not None and not pd.isna(v) and v != 0),
                default=1.0)
    return 1 if least >= 0.05 else 2 if least >= 0.005 else 3


def points(value: float, *, signed: bool = False, digits: int | None = None) -> str:
    """A metric value (0-1) in points, ``value x 100``; "—" if missing. Decimals follow
    :func:`decimals` unless ``digits`` is given.
    """
    if value is None or pd.isna(value):
        return "—"
    d = decimals(value) if digits is None else digits
    return f"{value * 100:{'+' if signed else ''}.{d}f}"


def interval(low: float, high: float, *, signed: bool = False, digits: int | None = None
             ) -> str:
    """An interval in points, ``[low, high]`` (metric values 0-1 in, points out), both ends
    to the same decimals (:func:`decimals`).
    """
    d = decimals(low, high) if digits is None else digits
    return f"[{points(low, signed=signed, digits=d)}, {points(high, signed=signed, digits=d)}]"


def display_name(config: str, display_names: Mapping[str, str] | None = None) -> str:
    """``"name (config)"`` when ``display_names`` names the config, else the config itself.

    Idempotent: a label already of the form ``"name (config)"`` (or a name that
    already ends with its code) is returned as it is, so a name is never shown twice.
    """
    names = display_names or {}
    name = names.get(config)
    if name and name != config:
        return name if str(name).endswith(f"({config})") else f"{name} ({config})"
    config = str(config)
    if config.endswith(")") and " (" in config:
        shown, _, code = config[:-1].rpartition(" (")
        if names.get(code) == shown:
            return config
    return config


def display_labels(configs: Any, display_names: Mapping[str, str] | None = None) -> list[str]:
    """:func:`display_name` of each config, in order (a chart's legend, axis or row labels)."""
    return [display_name(c, display_names) for c in configs]


@dataclass(frozen=True)
class Headline:
    """What a reader must get from the first screen of a report: a sentence a person can say.

    The rule every page keeps (``tests/pages/test_headlines.py`` holds it on the demo,
    TREC CAsT 2021 and CODEC): ``answer`` is one sentence of at most
    :data:`ANSWER_WORDS` words (whitespace-separated tokens) with at most one number
    and its interval; ``next_step`` at most :data:`NEXT_WORDS` words; everything else the
    reader should know (the other split's figure, overlap counts, caveats of a point
    estimate, the gain map) is one fact a bullet in ``why``.

    Attributes
    ----------
    question : str
        The question the analysis answers.
    answer : str
        One sentence: the answer with its number and interval.
    next_step : str
        What to do next, one short sentence.
    verdict : str
        A short label of the answer ("fit", "keep", "3 of 7 checks fail").
    why : tuple of str
        The facts behind the answer, one a bullet, shown directly under it.
    """

    question: str
    answer: str
    next_step: str
    verdict: str = ""
    why: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "why", tuple(w for w in self.why if w))

    @property
    def said(self) -> str:
        """The answer and every Why bullet, as one text (what the headline claims)."""
        return " ".join((self.answer, *self.why))

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.answer,
                "next_step": self.next_step, "verdict": self.verdict, "why": list(self.why)}


#: Most words (whitespace-separated tokens) in a headline's answer.
ANSWER_WORDS = 35
#: Most words in a headline's next step.
NEXT_WORDS = 20
#: A number with its interval as every surface prints one: ``+1.1 [-0.9, +3.2]``, also
#: with its unit between (``-9.8 points [-12.3, -7.6]``).
NUMBER_WITH_INTERVAL = re.compile(r"[+\-−]?\d[\d.,]*%?(?:\s*points)?\s*\[[^\]]*\d[^\]]*\]")


def words(text: str) -> int:
    """Words in ``text`` as the headline rule counts them: whitespace-separated tokens."""
    return len(str(text).split())


@runtime_checkable
class Result(Protocol):
    """What every analysis result offers once adapted (see the module docstring)."""

    headline: Headline
    display_table: pd.DataFrame
    chart: Any
    checks: pd.DataFrame
    description: str


def checks_frame(rows: list[tuple[str, bool, str]] | pd.DataFrame) -> pd.DataFrame:
    """A checks table ``check, holds, detail`` from tuples or a frame with ``check, ok, detail``."""
    if isinstance(rows, pd.DataFrame):
        frame = rows.rename(columns={"ok": "holds"})
        missing = [c for c in CHECK_COLUMNS if c not in frame]
        if missing:
            raise InputError(f"a checks table needs columns {listed(CHECK_COLUMNS, most=9)}; "
                             f"missing {listed(missing)}", key="checks")
        frame = frame[list(CHECK_COLUMNS)].copy()
    else:
        frame = pd.DataFrame(rows, columns=list(CHECK_COLUMNS))
    frame["holds"] = frame["holds"].astype(bool)
    frame["detail"] = frame["detail"].fillna("").astype(str)
    return frame.reset_index(drop=True)


_MARKDOWN_PUNCTUATION = "\\`*_{}[]()#+-.!|~"


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


#: What a section holds.
SectionKind = Literal["table", "chart", "markdown"]
#: Text of a missing table cell (the section's ``note`` says why cells are missing).
MISSING = "—"
#: Width of terminal text (:meth:`Finding.to_text`).
TEXT_WIDTH = 100
#: Longest table cell shown in place on a terminal; longer ones become notes under the table.
LONG_CELL = 48


@dataclass(frozen=True)
class Section:
    """One part of a page under its headline.

    Attributes
    ----------
    caption : str
        What the part shows, with its units.
    kind : {"table", "chart", "markdown"}
    content : DataFrame, alt.Chart or str
        A table of text (values in points), a chart, or trusted Markdown text.
    appendix : bool
        Shown in the page's appendix (a pointer stays in the body).
    note : str
        Read under the table: what a dash means, long header notes.
    units : mapping, optional
        Column -> display unit (:func:`format_unit`) of a table whose values are data
        (0-1): shown in points, kept 0-1 in its CSV.
    max_rows : int, optional
        Rows of a table shown, the others counted under it (its CSV keeps every row);
        None: the surface's default (a page's body limit, every row on a terminal).
    """

    caption: str
    kind: SectionKind
    content: Any
    appendix: bool = False
    note: str = ""
    units: Mapping[str, str] | None = None
    max_rows: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("table", "chart", "markdown"):
            raise InputError(f"a section is a table, chart or markdown, not {self.kind!r}",
                             key="kind")


def table_section(table: pd.DataFrame, caption: str, *, appendix: bool = False,
                  note: str = "", units: Mapping[str, str] | None = None,
                  max_rows: int | None = None) -> Section:
    """A table :class:`Section` (``units``: columns of data shown in points, see
    :func:`format_unit`; ``max_rows``: rows shown, the CSV keeps every row).
    """
    return Section(caption, "table", table, appendix, note, units, max_rows)


def rows_not_shown(table: pd.DataFrame, max_rows: int | None) -> str:
    """The line under a table cut at ``max_rows``: how many rows are not shown ("" none)."""
    hidden = 0 if max_rows is None else max(len(table) - max_rows, 0)
    return (f"{hidden} more row{'s' if hidden != 1 else ''} not shown (all rows in the CSV)."
            if hidden else "")


def format_unit(value: Any, unit: str, digits: int | None = None) -> str:
    """One value (0-1) in a display unit: ``points[:digits]``, ``signed points``, ``percent``.

    Points without ``:digits`` take ``digits`` (a table's :func:`table_decimals`), else
    the value's own :func:`decimals`.
    """
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return MISSING
    name, _, stated = unit.partition(":")
    if name in ("points", "signed points"):
        return points(float(value), signed=name == "signed points",
                      digits=int(stated) if stated else digits)
    if name == "percent":
        return f"{float(value) * 100:.{int(stated or 1)}f}%"
    raise InputError(f"unknown unit {unit!r}: points, signed points or percent", key="units")


def table_decimals(table: pd.DataFrame, units: Mapping[str, str]) -> int:
    """One precision for a table's points columns (``units``): :func:`decimals` over all
    their values, raised (to 3 at most) while two different figures of one row would print
    alike (a lower and an upper bound 0.03 points apart both as 74.4).

    >>> t = pd.DataFrame({"lower": [0.7441, 0.5], "upper": [0.7444, 0.6]})
    >>> table_decimals(t, {"lower": "points", "upper": "points"})
    2
    """
    columns = [c for c, u in units.items() if c in table and u.partition(":")[0]
               in ("points", "signed points") and not u.partition(":")[2]]
    if not columns:
        return 1
    values = table[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    rows = [np.unique(np.round(r[np.isfinite(r)] * 100, 9)) for r in values]
    d = decimals(*values[np.isfinite(values)])
    while d < 3 and any(len(np.unique(np.round(r, d))) < len(r) for r in rows):
        d += 1
    return d


def shown_in_units(table: pd.DataFrame, units: Mapping[str, str] | None) -> pd.DataFrame:
    """``table`` with its ``units`` columns formatted (:func:`format_unit`), its points to
    one precision (:func:`table_decimals`).
    """
    if not units:
        return table
    d = table_decimals(table, units)
    return table.assign(**{c: [format_unit(v, u, d) for v in table[c]]
                           for c, u in units.items() if c in table})


def markdown_section(text: str, caption: str = "", *, appendix: bool = False) -> Section:
    """A Markdown :class:`Section` (``text`` is trusted: escape values from the data)."""
    return Section(caption, "markdown", text, appendix)


def notes_sections(notes: Any, caption: str = "Notes", *, appendix: bool = True
                   ) -> list[Section]:
    """The notes of a reading (``note: ...`` each, escaped) as one Markdown section, in the
    appendix by default; none when there are none.
    """
    notes = list(notes)
    if not notes:
        return []
    return [markdown_section("\n\n".join(markdown_text("note: {n}", n=n) for n in notes),
                             caption, appendix=appendix)]


def text_cell(value: Any) -> str:
    """A table cell as plain text: a missing or non-finite value is :data:`MISSING`."""
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, float) and not np.isfinite(value):
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    return str(value).replace("\n", " ")


def text_table(table: pd.DataFrame) -> str:
    """A DataFrame as an aligned plain-text table (no index; missing cells a dash).

    A cell longer than :data:`LONG_CELL` characters shows as ``[n]`` and its text is
    wrapped under the table as note ``[n]``, so a table stays as wide as its numbers.
    """
    header = [str(c) for c in table.columns]
    notes: list[str] = []

    def cell(value: Any) -> str:
        text = text_cell(value)
        if len(text) <= LONG_CELL:
            return text
        notes.append(text)
        return f"[{len(notes)}]"

    rows = [[cell(v) for v in row] for row in table.itertuples(index=False, name=None)]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]
    numeric = [pd.api.types.is_numeric_dtype(table.iloc[:, i]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if n else c.ljust(w)
                         for c, w, n in zip(cells, widths, numeric)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows),
                      *(_wrap(f"[{i}] {n}") for i, n in enumerate(notes, start=1))])


def plain_markdown(text: str) -> str:
    """Markdown made by :func:`markdown_text` as plain text (escapes, emphasis and entities
    removed), for a terminal.
    """
    text = re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)\*\*?", "", str(text)))
    return html.unescape(text)


def _wrap(text: str, indent: str = "") -> str:
    return textwrap.fill(" ".join(str(text).split()), TEXT_WIDTH, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False)


@dataclass(frozen=True)
class Finding:
    """The result of any analysis in the one shape (satisfies :class:`Result`).

    Attributes
    ----------
    headline : Headline
    display_table : DataFrame
        The display table (text cells, units in ``caption``).
    chart : alt.Chart or None
        The one chart that shows the answer.
    checks : DataFrame
        ``check, holds, detail``.
    description : str
        Method, resamples, n and seed of the numbers.
    caption : str
        Caption of ``display_table``, stating its units.
    source : object
        The analysis' own result object, for the detail.
    sections : tuple of Section
        What the page shows under the headline, in order; empty: the chart, then
        ``display_table`` (filled in on creation).
    objects : mapping
        Intermediate objects by name (``"scores"``, ``"comparison"``) to continue from.

    Examples
    --------
    >>> f = Finding(Headline("Q?", "A.", "Do this."), pd.DataFrame({"x": ["1.0"]}),
    ...             caption="x in points")
    >>> [s.caption for s in f.sections]
    ['x in points']
    >>> print(f.to_text().splitlines()[0])
    Q?
    """

    headline: Headline
    display_table: pd.DataFrame
    chart: Any = None
    checks: pd.DataFrame = field(default_factory=lambda: checks_frame([]))
    description: str = ""
    caption: str = ""
    source: Any = None
    sections: tuple[Section, ...] = ()
    objects: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.sections:
            object.__setattr__(self, "sections", tuple(self._default_sections()))

    def _default_sections(self) -> list[Section]:
        out = []
        if self.chart is not None:
            out.append(Section(self.caption or self.headline.question, "chart", self.chart))
        if self.display_table is not None and len(self.display_table.columns):
            out.append(table_section(self.display_table, self.caption))
        return out

    @property
    def checks_line(self) -> str:
        """"N of M checks hold", with the failing checks named."""
        return checks_line(self.checks)

    def headline_text(self) -> str:
        """The headline for a terminal: question, answer, next step and verdict, wrapped."""
        h = self.headline
        out = [h.question, _wrap(h.answer)]
        out += [textwrap.fill(" ".join(w.split()), TEXT_WIDTH, initial_indent="  - ",
                              subsequent_indent="    ", break_on_hyphens=False)
                for w in h.why]
        out.append(_wrap(f"Next: {h.next_step}"))
        if h.verdict:
            out.append(f"Verdict: {h.verdict}")
        return "\n".join(out)

    def to_text(self) -> str:
        """The finding for a terminal: headline first, then each section, checks, method.

        Tables are plain text (values as the section shows them, in points; a dash
        where a value is missing, with the section's note under the table); charts
        are listed by caption; appendix sections come last, marked so.
        """
        out = [self.headline_text()]
        ordered = ([s for s in self.sections if not s.appendix]
                   + [s for s in self.sections if s.appendix])
        for s in ordered:
            where = " (appendix)" if s.appendix else ""
            if s.kind == "chart":
                out.append("\n" + _wrap(f"Chart{where}: {s.caption}"))
                continue
            out.append("")
            if s.caption:
                out.append(_wrap(s.caption + where))
            if s.kind == "table":
                shown = s.content if s.max_rows is None else s.content.head(s.max_rows)
                out.append(text_table(shown_in_units(shown, s.units)))
                if rows_not_shown(s.content, s.max_rows):
                    out.append(rows_not_shown(s.content, s.max_rows))
            else:
                out.append("\n".join(_wrap(plain_markdown(p))
                                     for p in str(s.content).split("\n\n")))
            if s.note:
                out.append(_wrap(s.note))
        if len(self.checks):
            out.append("\n" + _wrap(f"Checks: {self.checks_line}"))
        if self.description:
            out.append(_wrap(f"Method: {self.description}"))
        return "\n".join(out) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """Rich display in JupyterLab: headline, sections (every text escaped), checks."""
        h = self.headline
        parts = [f"<h3>{html.escape(h.question)}</h3>", f"<p>{html.escape(h.answer)}</p>"]
        if h.why:
            parts.append("<ul>" + "".join(f"<li>{html.escape(w)}</li>" for w in h.why)
                         + "</ul>")
        parts.append(f"<p><strong>Next:</strong> {html.escape(h.next_step)}</p>")
        for s in self.sections:
            cap = html.escape(s.caption + (" (appendix)" if s.appendix else ""))
            if s.kind == "table":
                shown = s.content if s.max_rows is None else s.content.head(s.max_rows)
                body = shown_in_units(shown, s.units).to_html(index=False, na_rep=MISSING,
                                                              escape=True)
                note = f"<p><em>{html.escape(s.note)}</em></p>" if s.note else ""
                parts.append(f"<figure><figcaption>{cap}</figcaption>{body}{note}</figure>")
            elif s.kind == "chart":
                parts.append(f"<p>Chart: {cap}</p>")
            else:
                parts.append(f'<div style="white-space: pre-wrap">{html.escape(s.content)}</div>')
        if len(self.checks):
            parts.append(f"<p>{html.escape(self.checks_line)}</p>")
        if self.description:
            parts.append(f"<p><em>Method: {html.escape(self.description)}</em></p>")
        return "\n".join(parts)


class Analysis:
    """Base of every analysis result: the one shape through :meth:`finding`.

    Subclasses are the results of the analyses (the four-cell table, the
    trajectory, the stratified breakdown, the label-bias bounds and three-way
    verdict, the split ledger's view, the health review and its coverage,
    staleness, near-duplicate, held-back and version checks, the code-task
    recall and keep verdict); each has an adapter registered with
    :func:`register`, says how it was made in ``description`` (never a
    ``describe()`` method) and formats its text table in ``display_table()``.
    """

    __slots__ = ()

    def finding(self, *, display_names: Mapping[str, str] | None = None,
                **context: Any) -> Finding:
        """The result as a :class:`Finding` (see :func:`finding` for ``context``)."""
        return finding(self, display_names=display_names, **context)


def checks_line(checks: pd.DataFrame) -> str:
    """One line summarising a checks table: ``"10 of 10 checks hold"``; failures named."""
    checks = checks_frame(checks)
    n, ok = len(checks), int(checks["holds"].sum())
    if n == 0:
        return "no checks"
    line = f"{ok} of {n} check{'s' if n != 1 else ''} hold{'s' if ok == 1 else ''}"
    failed = checks[~checks["holds"]]
    if len(failed):
        line += "; failing: " + "; ".join(
            f"{c}" + (f" ({d})" if d else "") for c, d in zip(failed["check"], failed["detail"]))
    return line


def chart_or(given: Any, make: Callable[..., Any], *args: Any) -> Any:
    """The chart given (``False``: none), else the analysis' own chart ``make(*args)``."""
    if given is False:
        return None
    if given is not None:
        return given
    return make(*args)


#: Adapters: result type -> function(result, **context) -> Finding.
ADAPTERS: dict[type, Callable[..., Finding]] = {}


def register(kind: type) -> Callable[[Callable[..., Finding]], Callable[..., Finding]]:
    """Register the adapter of one result type (a decorator)."""
    def wrap(fn: Callable[..., Finding]) -> Callable[..., Finding]:
        ADAPTERS[kind] = fn
        return fn
    return wrap


def finding(result: Any, /, *, display_names: Mapping[str, str] | None = None,
            **context: Any) -> Finding:
    """The :class:`Finding` of an analysis result.

    Parameters
    ----------
    result : object
        A result of a registered type (:data:`ADAPTERS`), or a Finding (returned as is).
    display_names : mapping, optional
        Config -> name shown (empty by default: configs show as their codes).
    **context
        What the adapter needs beyond the result (see the ``finding`` module of the
        analysis' package, e.g. :mod:`ragnb.trajectory.finding`).

    Raises
    ------
    InputError
        When no adapter is registered for the result's type.
    """
    if isinstance(result, Finding):
        return result
    for kind in type(result).__mro__:
        if kind in ADAPTERS:
            return ADAPTERS[kind](result, display_names=dict(display_names or {}), **context)
    known = ", ".join(sorted(k.__name__ for k in ADAPTERS))
    raise InputError(f"no finding adapter for a {type(result).__name__}; known: {known}",
                     key="result")
