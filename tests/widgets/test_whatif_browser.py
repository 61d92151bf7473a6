"""The what-if widget in a real browser: notebooks/03-strata.ipynb served by Voila (slow; CI).

Voila runs the stored notebook on 127.0.0.1 (outside a report, so the widget
is shown) and Debian's chromium, driven by playwright, changes widgets the way
a user does. Every wait is on the page's content — the pooled row of the
widget's table — never on a timer. Requests that leave 127.0.0.1 are blocked
and recorded: the only ones allowed are the two Font Awesome stylesheets that
Voila's own page template links from a CDN (the icons are bundled anyway).
The screenshot is kept in test-artifacts/whatif-voila.png. The server runs in
its own process group, ended in the fixture's teardown.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import browser
import pytest

from ragnb.metrics.score import score
from ragnb.paths import NOTEBOOKS_DIR, PROJ_ROOT
from ragnb.report.kernel import REPORT_ENV
from tests.conftest import REQUIRE_BROWSER_ENV
from tests.strata._workspaces import demo_comparison

pytestmark = pytest.mark.slow

NOTEBOOK = NOTEBOOKS_DIR / "03-strata.ipynb"
#: Linked by Voila's lab template itself (share/jupyter/voila/templates/lab/index.html.j2).
VOILA_TEMPLATE_CDN = ("https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@",)
STARTUP_S = 90
#: JS: the cells of the widget table's pooled row, as shown.
POOLED_ROW = """() => {
  const table = document.querySelector('.ragnb-whatif-table table');
  if (!table) return null;
  const heads = [...table.querySelectorAll('thead th')].map(th => th.innerText.trim());
  for (const tr of table.querySelectorAll('tbody tr')) {
    const cells = [...tr.querySelectorAll('td')].map(td => td.innerText.trim());
    if (cells[0] === 'pooled') return Object.fromEntries(heads.map((h, i) => [h, cells[i]]));
  }
  return null;
}"""


def _needs(what: str) -> None:
    if os.environ.get(REQUIRE_BROWSER_ENV):
        pytest.fail(what)
    pytest.skip(what)


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory):
    """Serve the stored notebook with Voila on a free 127.0.0.1 port; stop it afterwards."""
    if not browser.chromium_available():
        _needs(browser.CHROMIUM_MISSING)
    try:
        import playwright  # noqa: F401
        import voila  # noqa: F401
    except ImportError as exc:
        _needs(f"{exc.name} is not installed (pip install -e '.[test]')")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != REPORT_ENV}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PROJ_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "voila", str(NOTEBOOK), f"--port={port}", "--no-browser",
             "--Voila.ip=127.0.0.1", "--show_tracebacks=True"],
            cwd=NOTEBOOKS_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"voila exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"voila did not listen within {STARTUP_S} s:\n"
                                f"{log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/", log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def expected_pooled(metric: str, exclude=()) -> str:
    """The pooled Δ the table must show, from the per-query scores (points, 2 decimals)."""
    comp = demo_comparison()
    wide = score(comp.test_set, comp.runs, metric).table.pivot(
        index="query_id", columns="config", values="value")
    keep = comp.table.loc[~comp.table["query_type"].isin(exclude), "query_id"]
    d = (wide["round-40"] - wide["round-00"]).loc[list(keep)]
    return f"{d.mean() * 100:+.2f}"


def test_widget_changes_recompute_the_table_in_the_browser(voila_url):
    from playwright.sync_api import expect, sync_playwright

    url, server_log = voila_url
    blocked, errors = [], []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(browser.CHROMIUM),
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            context = chromium.new_context(viewport={"width": 1300, "height": 2400})

            def route(r):
                if r.request.url.startswith((url, "data:", "blob:")) or \
                        r.request.url.startswith(url.replace("http", "ws")):
                    r.continue_()
                else:
                    blocked.append(r.request.url)
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url, timeout=STARTUP_S * 1000)
            page.wait_for_function(f"({POOLED_ROW})() !== null", timeout=STARTUP_S * 1000)
            first = page.evaluate(POOLED_ROW)
            assert first["n"] == "200"
            assert first["Δ (points)"] == expected_pooled("ndcg@10")

            # exclude a stratum the way a user does: untick its checkbox
            page.get_by_role("checkbox", name="malformed (14)").uncheck()
            page.wait_for_function(f"(({POOLED_ROW})() || {{}}).n === '186'", timeout=30_000)
            excluded = page.evaluate(POOLED_ROW)
            assert excluded["Δ (points)"] == expected_pooled("ndcg@10", exclude=["malformed"])
            assert excluded["Δ (points)"] != first["Δ (points)"]
            log = page.locator(".ragnb-whatif-log")   # expect() waits for the content
            expect(log).to_contain_text("excluded 'malformed' (14 queries)")
            expect(log).to_contain_text("is not a pre-registered analysis")

            # switch the metric: the values change again, the caption names it
            page.get_by_label("metric").select_option("rr")
            page.wait_for_function(
                "() => (document.querySelector('.ragnb-whatif-table')||{}).dataset"
                "?.metric === 'rr@10'", timeout=30_000)
            switched = page.evaluate(POOLED_ROW)
            assert switched["n"] == "186"
            assert switched["Δ (points)"] == expected_pooled("rr@10", exclude=["malformed"])

            browser.ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
            page.locator(".ragnb-whatif").screenshot(
                path=str(browser.ARTIFACTS_DIR / "whatif-voila.png"))
        finally:
            chromium.close()
    assert errors == [], errors
    assert [u for u in blocked if not u.startswith(VOILA_TEMPLATE_CDN)] == [], blocked
    assert "Traceback" not in server_log.read_text()
