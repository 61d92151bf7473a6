"""The what-if widget in a real browser: notebooks/03-strata.ipynb served by ``ragnb app``
(Voila; slow; CI).

``ragnb app 03-strata --workspace W`` runs the stored notebook on 127.0.0.1
(outside a report, so the widget is shown) on a workspace W that is the demo
but for one key, ``[report.strata] metric = "rr@10"``: the widget starting on
rr@10 shows that the workspace reached the kernel. Debian's chromium, driven
by playwright, changes widgets the way a user does. Every wait is on the
page's content — the pooled row of the widget's table — never on a timer.
Requests that leave 127.0.0.1 are blocked and recorded: the only ones allowed
are the two Font Awesome stylesheets that Voila's own page template links from
a CDN (the icons are bundled anyway). The screenshot is kept in
test-artifacts/whatif-voila.png. The server runs in its own process group,
ended in the fixture's teardown.
"""
from __future__ import annotations

import sys

import browser
import pytest

from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from tests.strata._workspaces import demo_comparison

pytestmark = pytest.mark.slow

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


def rr_workspace(root):
    """The demo's files (linked) under a manifest whose strata report starts on rr@10."""
    ws = root / "ws"
    ws.mkdir()
    for entry in DEMO_DIR.iterdir():
        if entry.name != "ragnb.toml":
            (ws / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    text = (DEMO_DIR / "ragnb.toml").read_text()
    assert text.count("[report.strata]\n") == 1
    (ws / "ragnb.toml").write_text(text.replace("[report.strata]\n",
                                                '[report.strata]\nmetric = "rr@10"\n'))
    return ws


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory):
    """``ragnb app 03-strata`` on a free 127.0.0.1 port; stopped afterwards."""
    browser.require_live("playwright", "voila")
    root = tmp_path_factory.mktemp("voila")
    ws, log = rr_workspace(root), root / "voila.log"
    with browser.served([sys.executable, "-m", "ragnb.cli", "app", "03-strata",
                         "--workspace", str(ws), "--port={port}", "--no-browser"],
                        cwd=root, env=browser.server_env(), log=log, name="ragnb app",
                        startup_s=STARTUP_S) as port:
        yield f"http://127.0.0.1:{port}/", log


def expected_pooled(metric: str, exclude=()) -> str:
    """The pooled Δ the table must show, from the per-query scores (points, one decimal)."""
    comp = demo_comparison()
    wide = score(comp.test_set, comp.runs, metric).table.pivot(
        index="query_id", columns="config", values="value")
    keep = comp.table.loc[~comp.table["query_type"].isin(exclude), "query_id"]
    d = (wide["round-40"] - wide["round-00"]).loc[list(keep)]
    return f"{d.mean() * 100:+.1f}"


def test_widget_changes_recompute_the_table_in_the_browser(voila_url):
    from playwright.sync_api import expect

    url, server_log = voila_url
    with browser.local_page(url, {"width": 1300, "height": 2400}) as (page, blocked, errors):
        page.goto(url, timeout=STARTUP_S * 1000)
        page.wait_for_function(f"({POOLED_ROW})() !== null", timeout=STARTUP_S * 1000)
        first = page.evaluate(POOLED_ROW)
        assert first["n"] == "200"
        # the workspace's metric: it reached the kernel through `ragnb app --workspace`
        assert page.evaluate("() => document.querySelector('.ragnb-whatif-table')"
                             ".dataset.metric") == "rr@10"
        assert first["Δ (points)"] == expected_pooled("rr@10")

        # exclude a stratum the way a user does: untick its checkbox
        page.get_by_role("checkbox", name="malformed (14)").uncheck()
        page.wait_for_function(f"(({POOLED_ROW})() || {{}}).n === '186'", timeout=30_000)
        excluded = page.evaluate(POOLED_ROW)
        assert excluded["Δ (points)"] == expected_pooled("rr@10", exclude=["malformed"])
        assert excluded["Δ (points)"] != first["Δ (points)"]
        log = page.locator(".ragnb-whatif-log")   # expect() waits for the content
        expect(log).to_contain_text("excluded 'malformed' (14 queries)")
        expect(log).to_contain_text("is not a pre-registered analysis")

        # switch the metric: the values change again, the caption names it
        page.get_by_label("metric").select_option("ndcg")
        page.wait_for_function(
            "() => (document.querySelector('.ragnb-whatif-table')||{}).dataset"
            "?.metric === 'ndcg@10'", timeout=30_000)
        switched = page.evaluate(POOLED_ROW)
        assert switched["n"] == "186"
        assert switched["Δ (points)"] == expected_pooled("ndcg@10", exclude=["malformed"])

        browser.ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
        page.locator(".ragnb-whatif").screenshot(
            path=str(browser.ARTIFACTS_DIR / "whatif-voila.png"))
    assert errors == [], errors
    assert [u for u in blocked if not u.startswith(VOILA_TEMPLATE_CDN)] == [], blocked
    assert "Traceback" not in server_log.read_text()
