"""``reports/index.html``: every report of a folder with its headline answer (the agenda).

One row per page ``NN-slug.html`` in the folder, in number order: the question,
the answer and the next step from the executed notebook beside it
(``metadata.ragnb.headline``, written by the runner), when it ran, and a link.
A page whose notebook states no headline is listed with "no headline"; a
notebook whose page is missing (its run failed) is listed as failed. Static,
escaped, no script, the same security policy as the report pages.
"""
from __future__ import annotations

import html
import re
from os import PathLike
from pathlib import Path
from typing import Any

import nbformat

from ragnb._atomic import write_atomic
from ragnb.errors import InputError

INDEX_NAME = "index.html"
_PAGE = re.compile(r"^\d{2}-[\w-]+$")

_CSS = """
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1100px; padding: 0 16px;
  color: #1a1a1a; }
h1 { font-size: 22px; margin: 0 0 4px 0; }
.sub { color: #555; font-size: 13px; margin: 0 0 18px 0; }
ol { padding: 0; list-style: none; }
li { border-left: 6px solid #1f5fa8; background: #f3f7fc; margin: 0 0 12px 0;
  padding: 10px 16px; }
li.failed { border-left-color: #b00020; background: #fdf1f2; }
.q { font-size: 16px; font-weight: 600; margin: 0 0 4px 0; }
.a { font-size: 15px; margin: 0 0 4px 0; line-height: 1.4; }
.n, .meta { font-size: 13px; color: #333; margin: 0; }
.meta { color: #666; }
@page { margin: 12mm; }
"""


def _headline(nb_path: Path) -> tuple[dict[str, Any] | None, str]:
    try:
        nb = nbformat.read(nb_path, as_version=4)
    except (OSError, ValueError):
        return None, ""
    meta = nb.metadata.get("ragnb", {})
    started = (meta.get("provenance") or {}).get("started_at", "")
    return meta.get("headline"), str(started)[:19].replace("T", " ")


def index_rows(out_dir: str | PathLike[str]) -> list[dict[str, Any]]:
    """One dict per report in ``out_dir``: name, page, ok, headline (or None), started."""
    out = Path(out_dir)
    names = sorted({p.stem for p in out.glob("*.html") if _PAGE.match(p.stem)}
                   | {p.stem for p in out.glob("*.ipynb") if _PAGE.match(p.stem)})
    rows = []
    for name in names:
        page = out / f"{name}.html"
        headline, started = _headline(out / f"{name}.ipynb")
        rows.append({"name": name, "page": page.name, "ok": page.exists(),
                     "headline": headline, "started": started})
    return rows


def render_index(rows: list[dict[str, Any]], *, csp: str) -> str:
    """The index page for :func:`index_rows`."""
    e = html.escape
    items = []
    for r in rows:
        h = r["headline"] or {}
        question = h.get("question") or r["name"]
        if not r["ok"]:
            items.append(f'<li class="failed"><p class="q">{e(question)}</p>'
                         f'<p class="a">{e(r["name"])}: the run failed, no page was written '
                         f"(the executed notebook shows the error).</p></li>")
            continue
        answer = h.get("answer") or "no headline (this notebook states none)"
        nxt = f'<p class="n"><strong>Next:</strong> {e(h["next_step"])}</p>' \
            if h.get("next_step") else ""
        when = f" · ran {e(r['started'])} UTC" if r["started"] else ""
        items.append(f'<li><p class="q"><a href="{e(r["page"])}">{e(question)}</a></p>'
                     f'<p class="a">{e(answer)}</p>{nxt}'
                     f'<p class="meta">{e(r["name"])}{when}</p></li>')
    ok = sum(r["ok"] for r in rows)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp)}">'
        "<title>Reports</title>"
        f"<style>{_CSS}</style></head><body>"
        "<h1>Reports: the answers</h1>"
        f'<p class="sub">{len(rows)} report{"s" if len(rows) != 1 else ""}, {ok} written; '
        "each opens with the same answer.</p>"
        f'<ol>{"".join(items)}</ol></body></html>\n'
    )


def write_index(out_dir: str | PathLike[str]) -> Path:
    """Write ``<out_dir>/index.html`` listing every report in the folder; returns its path."""
    from ragnb.report.html import CONTENT_SECURITY_POLICY

    out = Path(out_dir)
    page = render_index(index_rows(out), csp=CONTENT_SECURITY_POLICY)
    try:
        return write_atomic(out / INDEX_NAME, page)
    except OSError as exc:  # e.g. a folder named index.html: the reports are written already
        raise InputError(f"cannot write the index of the reports ({exc.strerror or exc}); "
                         "the report pages are not affected", source=out / INDEX_NAME
                         ) from None
