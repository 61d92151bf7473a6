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

import sys

import browser
import pytest

from ragnb.paths import DATA_DIR, NOTEBOOKS_DIR

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


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on a free port over a scratch copy of notebooks/ (data/ linked)."""
    browser.require_live("jupyterlab", "playwright")
    root = tmp_path_factory.mktemp("lab")
    (root / "notebooks").mkdir()
    (root / "notebooks" / NOTEBOOK).write_bytes((NOTEBOOKS_DIR / NOTEBOOK).read_bytes())
    (root / "data").symlink_to(DATA_DIR, target_is_directory=True)
    env = browser.server_env()
    env["JUPYTER_CONFIG_DIR"] = str(root / ".jupyter")      # no user settings, no news prompt
    env["JUPYTERLAB_SETTINGS_DIR"] = str(root / ".lab-settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(root / ".lab-workspaces")
    log = root / "lab.log"
    argv = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
            "--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1",
            "--IdentityProvider.token=", "--ServerApp.password=",
            f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None", "--LabApp.check_for_updates_class="
            "jupyterlab.NeverCheckForUpdate"]
    with browser.served(argv, cwd=root, env=env, log=log, name="jupyter lab",
                        startup_s=STARTUP_S) as port:
        yield f"http://127.0.0.1:{port}", root, log


def test_notebook_runs_in_jupyterlab_and_draws_its_chart_offline(lab):
    base, root, server_log = lab
    with browser.local_page(base, {"width": 1400, "height": 2000}) as (page, blocked, page_errors):
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
    assert state["errors"] == [], state
    assert state["code"] >= 3   # 01 is thin: imports, parameters, resolve-run-show
    assert blocked == [], blocked
    assert page_errors == [], page_errors
    assert (NOTEBOOKS_DIR / NOTEBOOK).read_bytes() != b""   # the repository copy untouched
    assert "Traceback" not in server_log.read_text()
