"""Click to updated table and chart: the what-if widget in JupyterLab and Voila, in a browser.

JupyterLab (and then Voila, as ``ragnb app`` serves a notebook: ``--servers``)
serves a scratch folder on 127.0.0.1; chromium (Debian's, driven
by playwright) opens a two-cell notebook that shows the what-if widget
(:class:`ragnb.widgets.WhatIf`, as ``03-strata`` makes it: 10,000 resamples
per stratum, the offline Vega chart) on a workspace of 200 queries (the demo's
production split) and on one of 2,000 (synthetic, demo-shaped, made by
``bench_whatif.synthetic``), and runs it through Lab's own "run all cells"
(Voila runs every cell itself when the page is opened).

One click is the untick (or tick) of the smallest stratum's checkbox, done in
the page. The time is from that click to the last change of the widget's table
and of its chart in the page (a MutationObserver on each; the update is over
once both have changed and neither has changed for ``--settle`` ms, which is
not counted). Beside it: the kernel's own time for the same update
(:attr:`WhatIf.timings`, read from the status line), and the browser's share
(click to page updated, minus the kernel). Printed per size: median [min-max]
over ``--clicks`` clicks after two warm-up clicks, against the goals (issue
25: 0.5 s at 200 queries, 1 s at 2,000, on an idle machine), with the load.

Requests that leave 127.0.0.1 are aborted. The server runs in its own process
group and is stopped at the end.

Usage::

    python benchmarks/bench_widget_browser.py [--clicks 15] [--sizes 200,2000] [--servers lab,voila]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"
CHROMIUM = "/usr/bin/chromium"
GOALS = {200: 0.5, 2000: 1.0}

#: JS: watch the widget's table and chart; click a stratum's checkbox; resolve with the
#: times (ms after the click) of the last change to each once the page has settled.
CLICK = """async ([label, settle, limit]) => {
  const root = document.querySelector('.ragnb-whatif');
  const table = root.querySelector('.ragnb-whatif-table').parentElement;
  const chart = root.querySelector('.vega-embed').parentElement;
  const box = [...root.querySelectorAll('.widget-checkbox')].find(
      b => b.innerText.replace(/\\u200b/g, '').trim().startsWith(label + ' ('));
  if (!box) return {missing: [...root.querySelectorAll('.widget-checkbox')].map(
      b => b.innerText.trim())};
  const input = box.querySelector('input');
  let tableAt = null, chartAt = null, t0 = null;
  const watch = (el, set) => new MutationObserver(() => set(performance.now()))
      .observe(el, {childList: true, subtree: true, attributes: true, characterData: true});
  watch(table, t => { tableAt = t; });
  watch(chart, t => { chartAt = t; });
  t0 = performance.now();
  input.click();
  while (true) {
    await new Promise(r => setTimeout(r, 20));
    const now = performance.now();
    if (now - t0 > limit) return {timeout: true};
    if (tableAt !== null && chartAt !== null && now - Math.max(tableAt, chartAt) > settle) {
      const status = root.querySelector('[data-update-s]');
      return {table: tableAt - t0, chart: chartAt - t0,
              kernel: status ? parseFloat(status.dataset.updateS) * 1000 : null};
    }
  }
}"""

#: JS: every output of the open notebook, as JSON text (for a failure message).
OUTPUTS = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  const out = [];
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    for (let j = 0; j < c.outputs.length; j++)
      out.push(JSON.stringify(c.outputs.get(j).toJSON()).slice(0, 600));
  }
  return out;
}"""

NOTEBOOK_CODE = [
    "from ragnb.report import setup_notebook\n\nsetup_notebook()\n\n"
    "from ragnb.widgets.whatif import WhatIf\nfrom ragnb.workspace import open_workspace",
    "comparison = open_workspace({workspace!r}).comparison({split!r}, ['round-00', 'round-40'])\n"
    "whatif = WhatIf.from_comparison(comparison, baseline='round-00', challenger='round-40',\n"
    "                                spec='query_type')\n"
    "display(whatif.widget)",
]


def notebook(workspace: Path, split: str) -> dict:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": code.format(workspace=str(workspace), split=split)}
             for code in NOTEBOOK_CODE]
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3",
                                                        "display_name": "Python 3",
                                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(root: Path, server: str) -> tuple[subprocess.Popen, int]:
    """JupyterLab or Voila serving ``root`` on a free port of 127.0.0.1, once it listens."""
    port = free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, env.get("PYTHONPATH", "")
                                                                  .split(os.pathsep))])
    for key, sub in (("JUPYTER_CONFIG_DIR", ".jupyter"), ("JUPYTERLAB_SETTINGS_DIR", ".lab-s"),
                     ("JUPYTERLAB_WORKSPACES_DIR", ".lab-w")):
        env[key] = str(root / sub)
    if server == "voila":
        argv = [sys.executable, "-m", "voila", "--no-browser", f"--port={port}",
                "--Voila.ip=127.0.0.1", "--ServerApp.token=", f"--Voila.root_dir={root}",
                "--VoilaConfiguration.file_allowlist=['.*']", str(root)]
    else:
        argv = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
                f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1",
                "--IdentityProvider.token=", "--ServerApp.password=",
                f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    log = open(root / f"{server}.log", "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(argv, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"{server} exited: {(root / f'{server}.log').read_text()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"{server} did not listen within 120 s") from None
            time.sleep(0.2)


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


DRAWN = ("() => { const r = document.querySelector('.ragnb-whatif');"
         " return r && r.querySelector('.ragnb-whatif-table')"
         " && r.querySelector('.vega-embed svg.marks, .vega-embed canvas'); }")


def open_widget(page, base: str, name: str, server: str = "lab") -> None:
    wait = int(os.environ.get('BENCH_WIDGET_WAIT_MS', 180_000))
    if server == "voila":   # Voila runs the notebook as the page opens
        page.goto(f"{base}/voila/render/{name}", timeout=wait, wait_until="domcontentloaded")
        try:
            page.wait_for_function(DRAWN, timeout=wait)
        except Exception:
            page.screenshot(path=str(Path(tempfile.gettempdir()) / "bench-widget-fail.png"))
            raise SystemExit(f"{name}: Voila drew no widget within {wait / 1000:.0f} s; "
                             f"the page says {page.inner_text('body')[:1500]!r}") from None
        return
    page.goto(f"{base}/lab/tree/{name}", timeout=120_000, wait_until="domcontentloaded")
    page.wait_for_function(
        "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext && w.sessionContext.session"
        " && w.sessionContext.session.kernel;"
        " return k && k.connectionStatus === 'connected' && k.status === 'idle'; }",
        timeout=120_000)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells');"
                  " return true; }")
    try:
        page.wait_for_function(DRAWN, timeout=wait)
    except Exception:
        outputs = page.evaluate(OUTPUTS)
        page.screenshot(path=str(Path(tempfile.gettempdir()) / "bench-widget-fail.png"))
        outputs.append(page.evaluate(
            "() => [!!document.querySelector('.ragnb-whatif'),"
            " !!document.querySelector('.ragnb-whatif-table'),"
            " document.querySelectorAll('.vega-embed').length,"
            " document.querySelectorAll('.jupyter-widgets').length]"))
        raise SystemExit(f"{name}: the widget did not draw within 180 s; outputs: {outputs}"
                         ) from None


def measure(page, label: str, clicks: int, settle: int) -> list[dict]:
    out = []
    for i in range(clicks + 2):
        got = page.evaluate(CLICK, [label, settle, 30_000])
        if "missing" in got:
            raise SystemExit(f"no checkbox of stratum {label!r}; the widget shows "
                             f"{got['missing']}")
        if got.get("timeout"):
            raise SystemExit(f"click {i}: the table or chart did not change within 30 s")
        if i >= 2:  # two warm-up clicks
            out.append(got)
        time.sleep(0.3)
    return out


def summary(values: list[float]) -> str:
    return (f"{statistics.median(values) / 1000:5.2f} "
            f"[{min(values) / 1000:4.2f}-{max(values) / 1000:4.2f}]")


def browse(base: str, server: str, sizes: list[int], args) -> list[tuple]:
    """Each size's notebook opened in chromium on ``server``, and its clicks timed."""
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        context = chromium.new_context(viewport={"width": 1400, "height": 1800})
        allowed = (base, base.replace("http", "ws", 1), "data:", "blob:")
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(
            allowed) else r.abort())
        for n in sizes:
            page = context.new_page()
            open_widget(page, base, f"whatif-{n}.ipynb", server)
            load = os.getloadavg()[0]
            got = measure(page, "malformed", args.clicks, args.settle)
            rows.append((server, n, load, os.getloadavg()[0], got))
            if server == "lab":
                page.evaluate("() => window.jupyterapp.commands.execute("
                              "'kernelmenu:shutdown')")
            page.close()   # Voila shuts the page's kernel down when the page goes
        chromium.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=15, help="timed clicks per size (15)")
    parser.add_argument("--sizes", default="200,2000", help="query counts (200 = the demo)")
    parser.add_argument("--servers", default="lab,voila",
                        help="where the notebook runs: lab, voila or both (default)")
    parser.add_argument("--settle", type=int, default=400,
                        help="ms without a change that end an update (not counted; 400)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_whatif import synthetic

    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for n in sizes:
            if n == 200:
                ws, split = DEMO, "production"
            else:
                ws = root / f"ws{n}"
                ws.mkdir()
                synthetic(ws, n)
                (ws / "ragnb.toml").write_text(
                    '[test_sets.big]\npath = "big.jsonl"\nruns = "runs/big/*.jsonl"\n'
                    '[test_sets.big.strata]\npath = "big_strata.csv"\nby = "query_type"\n')
                split = "big"
            (root / f"whatif-{n}.ipynb").write_text(json.dumps(notebook(ws, split)))
        for server in args.servers.split(","):
            proc, port = start_server(root, server)
            base = f"http://127.0.0.1:{port}"
            try:
                rows += browse(base, server, sizes, args)
            finally:
                stop(proc)
    print(f"# {os.cpu_count()} cores; {args.clicks} clicks per size after 2 warm-up clicks; "
          "seconds, median [min-max]; click = untick/tick the smallest stratum")
    print(f"{'server':>6} {'queries':>7} {'click -> table+chart':>22} {'table':>17} {'chart':>17} "
          f"{'kernel (in-process)':>20} {'browser share':>17} {'goal':>5} {'load':>10}")
    for server, n, load0, load1, got in rows:
        done = [max(g["table"], g["chart"]) for g in got]
        kernel = [g["kernel"] for g in got if g["kernel"] is not None]
        rest = [d - k for d, k in zip(done, kernel)]
        goal = GOALS.get(n)
        print(f"{server:>6} {n:>7} {summary(done):>22} {summary([g['table'] for g in got]):>17} "
              f"{summary([g['chart'] for g in got]):>17} "
              f"{summary(kernel) if kernel else '—':>20} {summary(rest) if rest else '—':>17} "
              f"{goal if goal else '—':>5} {load0:4.2f}-{load1:4.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
