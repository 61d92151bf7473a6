"""Open a report page in a real browser with the network cut, and say what happened.

Used by every test that checks a report page (through the ``open_report``
fixture of ``tests/conftest.py``). Drives Debian's chromium
(``/usr/bin/chromium``, installed by ``.ci/run``) with the ``playwright``
package; never ``playwright install`` (it downloads browsers).

Every request that is not ``file:`` or ``data:`` is aborted and recorded, so a
page that tries to reach a CDN fails the check even on a machine with network.
"""
from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

#: Debian's chromium; the tests skip (with this reason) only when it is absent.
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_MISSING = f"{CHROMIUM} not installed (apt-get install -y chromium; .ci/run does it)"
#: Screenshots land here (gitignored), kept after the run as test artifacts.
ARTIFACTS_DIR = Path(__file__).resolve().parents[1] / "test-artifacts"

_COUNT_CHARTS = """() => {
  const imgs = [...document.querySelectorAll('.jp-RenderedSVG img, .jp-RenderedImage img')];
  return {
    images: imgs.length,
    images_drawn: imgs.filter(i => i.complete && i.naturalWidth > 0 && i.naturalHeight > 0).length,
    vega: document.querySelectorAll('.vega-embed svg.marks, .vega-embed canvas').length,
    scripts: document.querySelectorAll('script').length,
  };
}"""


@dataclass
class PageCheck:
    """What a page did in the browser."""

    url: str
    blocked_requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    chart_images: int = 0
    chart_images_drawn: int = 0
    vega_charts_drawn: int = 0
    scripts: int = 0
    text: str = ""
    screenshot: Path | None = None

    @property
    def charts_drawn(self) -> int:
        """Charts visibly drawn: loaded SVG/PNG images plus Vega SVG/canvas views."""
        return self.chart_images_drawn + self.vega_charts_drawn


def chromium_available() -> bool:
    """Whether Debian's chromium and the playwright package are both there."""
    return CHROMIUM.exists() and shutil.which(str(CHROMIUM)) is not None


def open_page(html_path: Path, screenshot: str | None = None, timeout_ms: int = 15000) -> PageCheck:
    """Load ``html_path`` offline in chromium and collect what happened.

    Parameters
    ----------
    html_path : Path
        The report page.
    screenshot : str, optional
        File name of a full-page screenshot kept under :data:`ARTIFACTS_DIR`.
    timeout_ms : int
        Limit for loading the page.
    """
    from playwright.sync_api import sync_playwright

    url = html_path.resolve().as_uri()
    check = PageCheck(url)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 900})

            def note(url):  # recorded once, whichever hook sees it first
                if not url.startswith(("file:", "data:")) and url not in check.blocked_requests:
                    check.blocked_requests.append(url)

            def route(r):
                if r.request.url.startswith(("file:", "data:")):
                    r.continue_()
                else:
                    note(r.request.url)
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on(
                "console",
                lambda m: check.console_errors.append(m.text) if m.type == "error" else None,
            )
            page.on("pageerror", lambda e: check.page_errors.append(str(e)))

            def on_dialog(d):
                check.dialogs.append(f"{d.type}: {d.message}")
                d.dismiss()

            page.on("dialog", on_dialog)
            page.on("request", lambda r: note(r.url))
            page.goto(url, wait_until="load", timeout=timeout_ms)
            page.wait_for_load_state("networkidle", timeout=timeout_ms)
            counts = page.evaluate(_COUNT_CHARTS)
            check.chart_images = counts["images"]
            check.chart_images_drawn = counts["images_drawn"]
            check.vega_charts_drawn = counts["vega"]
            check.scripts = counts["scripts"]
            check.text = page.inner_text("body")
            if screenshot:
                ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
                check.screenshot = ARTIFACTS_DIR / screenshot
                page.screenshot(path=str(check.screenshot), full_page=True)
        finally:
            browser.close()
    return check


_LOADERS = re.compile(
    r"""<script\b|<link\b|<iframe\b|<object\b|<embed\b|@import\b"""
    r"""|\b(?:src|srcset|data|poster)\s*=\s*["']?\s*(?:https?:|//)"""
    r"""|url\(\s*["']?\s*(?:https?:|//)""",
    re.IGNORECASE,
)


def static_loaders(html: str) -> list[str]:
    """Everything in a page that could load or run something (should be empty).

    Any ``<script>`` counts (report pages run no script), as do ``<link>``,
    frames, objects, ``@import`` and ``src``/``url()`` pointing at ``http(s):``
    or ``//``. Plain ``<a href="https://...">`` links are allowed: nothing is
    fetched unless a reader clicks.
    """
    return [m.group(0) for m in _LOADERS.finditer(html)]


#: Printable width in CSS pixels (96 per inch) of A4 and Letter with the pages' 12 mm margins.
PRINT_WIDTHS = {"A4": round((210 - 24) / 25.4 * 96), "Letter": round((8.5 * 25.4 - 24) / 25.4 * 96)}
#: What a meeting page must never show: missing-value markers, internal jargon, errors, reprs.
FORBIDDEN = re.compile(
    r"\bNaN\b|<NA>|\bnan%|seed 00\d|Traceback|\b[A-Z][A-Za-z]+\((?:[a-z_]+=|\.\.\.\))"
    r"|\balt\.[A-Z]\w+\(|\[provenance:|\\n"
)

_LAYOUT = """() => {
  const h = document.querySelector('#ragnb-headline');
  const r = h ? h.getBoundingClientRect() : null;
  const wide = [...document.querySelectorAll('main *')].filter(
      e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .slice(0, 5)
    .map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 60));
  return {
    headline_top: r ? r.top + window.scrollY : null,
    headline_bottom: r ? r.bottom + window.scrollY : null,
    scroll_width: document.documentElement.scrollWidth,
    client_width: document.documentElement.clientWidth,
    too_wide: wide,
    csv: [...document.querySelectorAll('a.ragnb-csv')]
      .map(a => [a.getAttribute('href'), a.textContent]),
    links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
    first_chart_top: (() => {
      const i = document.querySelector('.jp-RenderedSVG img');
      return i ? i.getBoundingClientRect().top + window.scrollY : null; })(),
  };
}"""


@dataclass
class Layout:
    """Where a report page puts its headline, whether it fits, what it attaches."""

    url: str
    screen: dict = field(default_factory=dict)
    print_media: dict = field(default_factory=dict)
    text: str = ""
    screenshots: list[Path] = field(default_factory=list)


def inspect_layout(html_path: Path, name: str | None = None, width: int = 1280,
                   height: int = 800, timeout_ms: int = 15000) -> Layout:
    """Measure a page at ``width`` px on screen and at A4/Letter widths in print media.

    With ``name``, keeps ``<name>-top.png`` (the first screen) and
    ``<name>-full.png`` (the whole page) under :data:`ARTIFACTS_DIR`.
    """
    from playwright.sync_api import sync_playwright

    url = html_path.resolve().as_uri()
    out = Layout(url)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(
                ("file:", "data:")) else r.abort())
            page = context.new_page()
            page.goto(url, wait_until="load", timeout=timeout_ms)
            out.screen = page.evaluate(_LAYOUT)
            out.text = page.inner_text("body")
            if name:
                ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
                top, full = ARTIFACTS_DIR / f"{name}-top.png", ARTIFACTS_DIR / f"{name}-full.png"
                page.screenshot(path=str(top))
                page.screenshot(path=str(full), full_page=True)
                out.screenshots = [top, full]
            page.emulate_media(media="print")
            for paper, w in PRINT_WIDTHS.items():
                page.set_viewport_size({"width": w, "height": height})
                out.print_media[paper] = page.evaluate(_LAYOUT)
        finally:
            browser.close()
    return out


def csv_attachments(layout: Layout) -> list[tuple[str, int, object]]:
    """Each CSV link's text, its stated row count and the parsed table (a DataFrame)."""
    import base64
    import io

    import pandas as pd

    found = []
    for href, text in layout.screen["csv"]:
        prefix = "data:text/csv;base64,"
        assert href.startswith(prefix), href[:40]
        table = pd.read_csv(io.BytesIO(base64.b64decode(href[len(prefix):])))
        stated = int(re.search(r"\((\d+) rows?\)", text).group(1))
        found.append((text, stated, table))
    return found


# --- live servers (Voila, JupyterLab) driven in chromium --------------------------------

#: Set (as ``.ci/run`` does) to make a missing browser or package a failure, not a skip.
REQUIRE_BROWSER_ENV = "RAGNB_REQUIRE_BROWSER"


def needs(what: str) -> NoReturn:
    """Skip with ``what`` as the reason; fail instead under :data:`REQUIRE_BROWSER_ENV`."""
    import os

    import pytest

    if os.environ.get(REQUIRE_BROWSER_ENV):
        pytest.fail(what)
    pytest.skip(what)


def require_live(*modules: str) -> None:
    """Chromium and ``modules`` (e.g. playwright, voila) present, or :func:`needs`."""
    import importlib

    if not chromium_available():
        needs(CHROMIUM_MISSING)
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            needs(f"{name} is not installed (pip install -e '.[test]')")


def server_env() -> dict[str, str]:
    """This environment for a server whose kernels import this checkout's ragnb."""
    import os

    from ragnb.paths import PROJ_ROOT
    from ragnb.report.kernel import REPORT_ENV

    env = {k: v for k, v in os.environ.items() if k != REPORT_ENV}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PROJ_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    return env


@contextmanager
def served(argv: list[str], *, cwd: Path, env: dict[str, str], log: Path, name: str,
           startup_s: float) -> Iterator[int]:
    """Run ``argv`` with ``--port`` appended on a free 127.0.0.1 port; yield the port once it
    listens (fail with the log's tail if it exits or is silent for ``startup_s``); stop it
    (TERM, then KILL) afterwards."""
    import os
    import signal
    import socket
    import subprocess
    import time

    import pytest

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open(log, "w") as out:
        proc = subprocess.Popen([a.replace("{port}", str(port)) for a in argv], cwd=cwd, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{name} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{name} did not listen within {startup_s} s:\n"
                                f"{log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@contextmanager
def local_page(base: str, viewport: dict[str, int]
               ) -> Iterator[tuple[Any, list[str], list[str]]]:
    """A chromium page that may reach only ``base`` (http and ws), ``data:`` and ``blob:``.

    Yields ``(page, blocked, page_errors)``: every other request is aborted and its URL
    appended to ``blocked``; uncaught page errors are appended to ``page_errors``.
    """
    from playwright.sync_api import sync_playwright

    allowed = (base, base.replace("http", "ws", 1), "data:", "blob:")
    blocked: list[str] = []
    errors: list[str] = []

    def route(r) -> None:
        if r.request.url.startswith(allowed):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM),
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            context = chromium.new_context(viewport=viewport)
            context.route("**/*", route)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page, blocked, errors
        finally:
            chromium.close()
