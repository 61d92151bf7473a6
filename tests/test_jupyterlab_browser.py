"""A notebook run top to bottom in JupyterLab, charts drawn offline (slow; CI).

JupyterLab serves a scratch copy of the notebooks on 127.0.0.1 (so nothing is
saved into the repository); chromium, driven by playwright, opens
``01-fit.ipynb`` and runs every cell through Lab's own command. The test waits
for the Vega chart to draw in the page — Altair's offline ``jupyter`` renderer,
set by ``ragnb.report.setup_notebook()`` — and fails on any error output.
Every request that leaves 127.0.0.1 is blocked and recorded: the chart must
draw without one.
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

from ragnb.paths import DATA_DIR, NOTEBOOKS_DIR, PROJ_ROOT
from ragnb.report.kernel import REPORT_ENV
from tests.conftest import REQUIRE_BROWSER_ENV

pytestmark = pytest.mark.slow

STARTUP_S = 120
NOTEBOOK = "01-fit.ipynb"
#: JS: code cells, how many ran, and the names of error outputs, from Lab's notebook model.
CELL_STATE = """() => {
  const widget = window.jupyterapp.shell.currentWidget;
  if (!widget || !widget.content || !widget.content.model) return null;
  const cells = widget.content.model.cells;
  let code = 0, executed = 0; const errors = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    code += 1;
    if (cell.executionCount) executed += 1;
    for (let j = 0; j < cell.outputs.length; j++) {
      const out = cell.outputs.get(j).toJSON();
      if (out.output_type === 'error') errors.push(out.ename + ': ' + out.evalue);
    }
  }
  return {code, executed, errors};
}"""


def _needs(what: str) -> None:
    if os.environ.get(REQUIRE_BROWSER_ENV):
        pytest.fail(what)
    pytest.skip(what)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free port over a scratch copy of notebooks/ (data/ linked)."""
    if not browser.chromium_available():
        _needs(browser.CHROMIUM_MISSING)
    try:
        import jupyterlab  # noqa: F401
        import playwright  # noqa: F401
    except ImportError as exc:
        _needs(f"{exc.name} is not installed (pip install -e '.[test]')")
    root = tmp_path_factory.mktemp("lab")
    (root / "notebooks").mkdir()
    (root / "notebooks" / NOTEBOOK).write_bytes((NOTEBOOKS_DIR / NOTEBOOK).read_bytes())
    (root / "data").symlink_to(DATA_DIR, target_is_directory=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != REPORT_ENV}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(PROJ_ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
    env["JUPYTER_CONFIG_DIR"] = str(root / ".jupyter")      # no user settings, no news prompt
    env["JUPYTERLAB_SETTINGS_DIR"] = str(root / ".lab-settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(root / ".lab-workspaces")
    log = root / "lab.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
             f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1",
             "--IdentityProvider.token=", "--ServerApp.password=",
             f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
             "--LabApp.news_url=None", "--LabApp.check_for_updates_class="
             "jupyterlab.NeverCheckForUpdate"],
            cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n"
                            f"{log.read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not listen in {STARTUP_S} s:\n"
                                f"{log.read_text()[-3000:]}")
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}", root, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_notebook_runs_in_jupyterlab_and_draws_its_chart_offline(lab):
    from playwright.sync_api import sync_playwright

    base, root, server_log = lab
    blocked, page_errors = [], []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(browser.CHROMIUM),
                                     args=["--no-sandbox", "--disable-gpu"])
        try:
            context = chromium.new_context(viewport={"width": 1400, "height": 2000})

            def route(r):
                url = r.request.url
                if url.startswith((base, base.replace("http", "ws"), "data:", "blob:")):
                    r.continue_()
                else:
                    blocked.append(url)
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.goto(f"{base}/lab/tree/notebooks/{NOTEBOOK}", timeout=STARTUP_S * 1000,
                      wait_until="domcontentloaded")
            page.wait_for_function(
                "() => window.jupyterapp && document.querySelector('.jp-Notebook')",
                timeout=STARTUP_S * 1000)
            # the kernel is connected before cells are sent to it
            page.wait_for_function(
                "() => { const w = window.jupyterapp.shell.currentWidget;"
                " const k = w && w.sessionContext && w.sessionContext.session"
                " && w.sessionContext.session.kernel;"
                " return k && k.connectionStatus === 'connected' && k.status === 'idle'; }",
                timeout=STARTUP_S * 1000)
            # Lab's own "run all cells" command, fired without awaiting its promise
            # (evaluate has no timeout of its own); the wait below has one
            page.evaluate("() => { window.jupyterapp.commands.execute("
                          "'notebook:run-all-cells'); return true; }")
            try:
                page.wait_for_function(f"() => {{ const s = ({CELL_STATE})(); "
                                       "return s && s.executed === s.code; }",
                                       timeout=STARTUP_S * 1000)
            except Exception:
                browser.ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(browser.ARTIFACTS_DIR / "jupyterlab-01-fit-fail.png"))
                raise AssertionError(
                    f"cells did not all run: {page.evaluate(CELL_STATE)}") from None
            state = page.evaluate(CELL_STATE)
            # the four-cell chart draws (Vega's SVG or canvas inside the widget)
            page.wait_for_function(
                "() => document.querySelectorAll('.vega-embed svg.marks, .vega-embed canvas')"
                ".length >= 1", timeout=STARTUP_S * 1000)
            browser.ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(browser.ARTIFACTS_DIR / "jupyterlab-01-fit.png"))
        finally:
            chromium.close()
    assert state["errors"] == [], state
    assert state["code"] >= 5
    assert blocked == [], blocked
    assert page_errors == [], page_errors
    assert (NOTEBOOKS_DIR / NOTEBOOK).read_bytes() != b""   # the repository copy untouched
    assert "Traceback" not in server_log.read_text()
