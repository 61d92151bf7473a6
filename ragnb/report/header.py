"""The provenance header at the top of a report page, as escaped HTML.

Renders a :class:`~ragnb.report.provenance.Provenance` record; every value is
passed through :func:`html.escape` (parameter values and contributed facts can
hold any text). Static HTML only (``<details>`` for the long lists), no script.
Layout, top to bottom: a summary table (notebook, when and how long, code
version, randomness, data with digests), the spec files with their timing,
one table per section of contributed facts, then collapsible lists of
parameters, data files and package versions.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any

from ragnb.filefacts import span_text
from ragnb.report.provenance import PathFact, Provenance, SpecFact

#: Styles of the header (inlined in the page; the page allows no external CSS).
HEADER_CSS = """
.ragnb-provenance { font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 13px;
  margin: 0 0 1.5em 0; padding: 0.8em 1em;
  border: 1px solid #ccc; border-radius: 4px; background: #fafafa; }
.ragnb-provenance h2 { font-size: 15px; margin: 0 0 0.5em 0; }
.ragnb-provenance h3 { font-size: 13px; margin: 0.9em 0 0.3em 0; }
.ragnb-provenance table { border-collapse: collapse; margin: 0.2em 0; }
.ragnb-summary th { white-space: nowrap; }
.ragnb-provenance th, .ragnb-provenance td { text-align: left; vertical-align: top;
  padding: 2px 10px 2px 0; border-bottom: 1px solid #e4e4e4; }
.ragnb-provenance code, .ragnb-provenance .digest { font-family: monospace; font-size: 12px;
  word-break: break-all; }
.ragnb-provenance details { margin: 0.4em 0; }
.ragnb-provenance summary { cursor: pointer; font-weight: 600; }
.ragnb-provenance .warn { color: #b00020; font-weight: 600; }
.jp-RenderedSVG img, .jp-RenderedImage img { max-width: 100%; height: auto; }
.ragnb-provline { font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 12px;
  color: #555; padding: 6px 12px; border-bottom: 1px solid #ddd; overflow-wrap: anywhere; }
.ragnb-provline code, .ragnb-provline .digest { font-family: monospace; font-size: 11px; }
.ragnb-provline .warn { color: #b00020; }
.ragnb-headline { border-left: 6px solid #1f5fa8; background: #f3f7fc; padding: 10px 18px;
  margin: 8px 0 12px 0; font-family: var(--jp-ui-font-family, system-ui, sans-serif); }
.ragnb-headline h1.ragnb-question { font-size: 20px; margin: 4px 0 8px 0; padding: 0; }
.ragnb-headline .ragnb-answer { font-size: 17px; line-height: 1.45; margin: 0 0 8px 0; }
.ragnb-headline .ragnb-why { font-size: 14px; line-height: 1.4; margin: 0 0 8px 0;
  padding-left: 20px; color: #333; }
.ragnb-headline .ragnb-why li { margin: 1px 0; }
.ragnb-headline .ragnb-next { font-size: 15px; margin: 0; color: #123; }
.ragnb-headline .jp-InternalAnchorLink, .ragnb-headline .anchor-link { display: none; }
figure.ragnb-table { margin: 0.6em 0 1em 0; max-width: 100%; }
figure.ragnb-table figcaption { font-size: 13px; color: #333; margin-bottom: 4px; }
.ragnb-scroll { max-width: 100%; }
table.ragnb-table { border-collapse: collapse; font-size: 13px; table-layout: auto; }
table.ragnb-table th, table.ragnb-table td { padding: 3px 8px; vertical-align: top;
  border-bottom: 1px solid #e4e4e4; overflow-wrap: break-word; word-break: normal; }
table.ragnb-table .txt { text-align: left; }
table.ragnb-table th { overflow-wrap: anywhere; }
.ragnb-appendix-item table.ragnb-table { font-size: 11.5px; }
.ragnb-appendix-item table.ragnb-table th, .ragnb-appendix-item table.ragnb-table td {
  padding: 2px 4px; }
table.ragnb-table .num { text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }
.jp-RenderedHTMLCommon table.ragnb-table td, .jp-RenderedHTMLCommon table.ragnb-table th {
  max-width: 28em; }
.jp-RenderedHTMLCommon table.ragnb-table td.txt { text-align: left; }
.jp-RenderedHTMLCommon table.ragnb-table th.txt { text-align: left; }
.ragnb-csv { font-size: 12px; margin-left: 0.5em; }
.ragnb-more, .ragnb-pointer, .ragnb-method { font-size: 12.5px; color: #555; margin: 0.3em 0; }
.ragnb-checks { font-size: 14px; margin: 0.4em 0; }
.ragnb-checks.ok { color: #1b5e20; }
.ragnb-checks.fail { color: #b00020; font-weight: 600; }
.ragnb-text { overflow-wrap: anywhere; }
.jp-OutputArea-output pre { white-space: pre-wrap; overflow-wrap: anywhere; }
main { max-width: 100%; overflow-wrap: break-word; }
@page { margin: 12mm; }
.ragnb-provenance td { overflow-wrap: anywhere; }
@media print {
  body { font-size: 11px; }
  main, .jp-Notebook { padding: 0 !important; margin: 0 !important; }
  table { max-width: 100%; }
  th, td { overflow-wrap: anywhere; }
  .ragnb-provline, .ragnb-provenance { overflow-wrap: anywhere; }
  .jp-Cell, .jp-OutputArea-output { padding: 0 !important; }
  table.ragnb-table { font-size: 10px; table-layout: fixed; width: 100%; }
  .ragnb-provenance table { table-layout: fixed; width: 100%; }
  table.ragnb-table th, table.ragnb-table td { padding: 2px 4px; }
  table.ragnb-table .num { white-space: normal; }
  .ragnb-provenance table { font-size: 10px; }
  .ragnb-provenance .digest, .ragnb-provenance code { word-break: break-all; }
  .ragnb-provenance details { display: block; }
  .ragnb-headline, figure.ragnb-table, .jp-RenderedSVG { break-inside: avoid; }
}
.ragnb-omitted { font-style: italic; color: #666; }
"""


def _e(value: Any) -> str:
    if isinstance(value, str):
        return escape(value)
    if value is None:
        return "—"
    if isinstance(value, (list, dict, bool)):
        return escape(json.dumps(value, ensure_ascii=False))
    return escape(str(value))


def _when(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    klass = f' class="{cls}"' if cls else ""
    return f"<table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _data_summary(fact: PathFact) -> str:
    where = f"<code>{_e(fact.value)}</code>"
    if fact.kind == "missing":
        return f'{where} <span class="warn">missing ({_e(fact.resolved)})</span>'
    if fact.kind == "file":
        f = fact.files[0]
        return f'{where} ({_size(f.size)}) sha256 <span class="digest">{f.sha256}</span>'
    total = sum(f.size for f in fact.files)
    return (
        f"{where} ({len(fact.files)} files, {_size(total)}) tree sha256 "
        f'<span class="digest">{fact.tree_sha256}</span>'
    )


def _spec_timing(spec: SpecFact) -> str:
    if spec.seconds_before_run is None:
        return '<span class="warn">missing</span>'
    if spec.seconds_before_run < 0:
        return (f'<span class="warn">modified {span_text(spec.seconds_before_run)} '
                "after the run started</span>")
    return f"{span_text(spec.seconds_before_run)} before the run"


def _git_text(prov: Provenance) -> str:
    if prov.git is None:
        return "git commit not available (not a git checkout)"
    text = f"git <code>{_e(prov.git.commit)}</code>"
    if prov.git.branch:
        text += f" on {_e(prov.git.branch)}"
    if prov.git.dirty:
        text += ' <span class="warn">with uncommitted changes</span>'
    return text


def _short_digest(fact: PathFact) -> str:
    if fact.kind == "missing":
        return f'<code>{_e(fact.parameter)}</code> <span class="warn">missing</span>'
    digest = fact.files[0].sha256 if fact.kind == "file" else fact.tree_sha256
    return (f'<code>{_e(fact.parameter)}</code> <span class="digest" title="{_e(digest)}">'
            f"{_e((digest or '')[:12])}</span>")


def render_header(prov: Provenance) -> str:
    """The compact provenance line that opens a report page (data digest, version, when).

    The full record is :func:`render_record`, at the end of the page.
    """
    code = f"ragnb {_e(prov.ragnb_version)}"
    if prov.git is not None:
        code += f" · git <code>{_e(prov.git.commit[:10])}</code>"
        if prov.git.dirty:
            code += ' <span class="warn">(uncommitted changes)</span>'
    data = ", ".join(_short_digest(f) for f in prov.data[:2])
    if len(prov.data) > 2:
        data += f" and {len(prov.data) - 2} more"
    if not data:  # files a notebook hashed itself (a workspace's files), from its facts
        hashed = [row for rows in prov.contributed.values() for row in rows
                  if isinstance(row.get("sha256"), str)]
        if hashed:
            first = hashed[0]
            name = str(first.get("file", first.get("path", "file"))).replace("\\", "/")
            data = (f'<code>{_e(name.rsplit("/", 1)[-1])}</code> <span class="digest" '
                    f'title="{_e(first["sha256"])}">{_e(first["sha256"][:12])}</span>')
            if len(hashed) > 1:
                data += f" and {len(hashed) - 1} more"
    parts = [f"<strong>{_e(prov.notebook)}</strong>", f"ran {_when(prov.started_at)}", code]
    if data:
        parts.append(f"data sha256 {data}")
    late = [s for s in prov.specs if s.seconds_before_run is None or s.seconds_before_run < 0]
    if late:
        parts.append('<span class="warn">spec modified after the run started (or missing): '
                     + ", ".join(f"<code>{_e(s.parameter)}</code>" for s in late) + "</span>")
    parts.append('<a href="#ragnb-provenance">full provenance</a>')
    return ('<header class="ragnb-provline" id="ragnb-provline">'
            + " · ".join(parts) + "</header>")


def render_record(prov: Provenance) -> str:
    """The full provenance record (``<footer>``) that closes a report page."""
    duration = "—" if prov.duration_s is None else f"{prov.duration_s:.1f} s"
    randomness = ", ".join(
        f"<code>{_e(p.name)}</code> = {_e(p.value)}" for p in prov.randomness
    ) or "no seed or resample parameter"
    summary_rows = [
        ("Notebook", f"<code>{_e(prov.notebook)}</code>"),
        ("Ran", f"{_when(prov.started_at)}, took {duration} (kernel start included)"),
        ("Code", f"ragnb {_e(prov.ragnb_version)}, {_git_text(prov)}, {_e(prov.python)}"),
        ("Randomness", randomness),
        *(
            (f"Data: <code>{_e(f.parameter)}</code>", _data_summary(f))
            for f in prov.data
        ),
    ]
    parts = [
        '<footer class="ragnb-provenance" id="ragnb-provenance">',
        "<h2>Provenance (full record)</h2>",
        '<table class="ragnb-summary">'
        + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in summary_rows)
        + "</table>",
    ]
    if prov.specs:
        parts.append("<h3>Specs (pre-registration)</h3>")
        parts.append(
            _table(
                ["parameter", "file", "sha256", "modified", "relative to the run",
                 "first committed", "changed since last commit"],
                (
                    (
                        f"<code>{_e(s.parameter)}</code>",
                        f'<code title="{_e(s.resolved)}">{_e(s.value)}</code>',
                        f'<span class="digest">{_e(s.sha256)}</span>',
                        _when(s.mtime) if s.mtime else "—",
                        _spec_timing(s),
                        _e(s.git_first_commit) if s.git_first_commit else "not in git",
                        "—" if s.git_modified is None
                        else ('<span class="warn">yes</span>' if s.git_modified else "no"),
                    )
                    for s in prov.specs
                ),
                "ragnb-specs",
            )
        )
    for section, rows in prov.contributed.items():
        columns: list[str] = []
        for row in rows:
            columns.extend(k for k in row if k not in columns)
        parts.append(f"<h3>{_e(section)}</h3>")
        parts.append(
            _table(columns, ([_e(row.get(c)) for c in columns] for row in rows),
                   "ragnb-contributed")
        )
    parts.append(f"<details><summary>Parameters ({len(prov.parameters)})</summary>")
    parts.append(
        _table(
            ["name", "type", "value", "set by", "help"],
            (
                (f"<code>{_e(p.name)}</code>", _e(p.type), f"<code>{_e(p.value)}</code>",
                 _e(p.origin), _e(p.help))
                for p in prov.parameters
            ),
            "ragnb-parameters",
        )
    )
    parts.append("</details>")
    files = [(f, x) for f in prov.data for x in f.files]
    if files:
        parts.append(f"<details><summary>Data files ({len(files)})</summary>")
        parts.append(
            _table(
                ["parameter", "file", "size", "sha256", "modified"],
                (
                    (f"<code>{_e(f.parameter)}</code>", f"<code>{_e(x.path)}</code>",
                     _size(x.size), f'<span class="digest">{x.sha256}</span>', _when(x.mtime))
                    for f, x in files
                ),
                "ragnb-files",
            )
        )
        parts.append("</details>")
    parts.append("<details><summary>Environment</summary>")
    parts.append(
        _table(
            ["package", "version"],
            [("python", _e(prov.python)), ("ragnb", _e(prov.ragnb_version))]
            + [(_e(k), _e(v)) for k, v in prov.packages.items()],
        )
    )
    parts.append("</details></footer>")
    return "\n".join(parts)
