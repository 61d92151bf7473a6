"""The query inspector in a real browser: notebooks/03-strata.ipynb served by Voila (slow; CI).

Same server fixture as the what-if browser test (Voila on 127.0.0.1, chromium
through playwright, every request off 127.0.0.1 blocked and recorded). A user
filters by stratum, re-sorts and picks a query; every wait is on the page's
content. Expected values come from the per-query scores computed here. The
screenshot is kept in test-artifacts/inspector-voila.png.
"""
from __future__ import annotations

import browser
import pytest

from ragnb.metrics.score import score
from ragnb.perquery import query_deltas, side_by_side
from tests.strata._workspaces import demo_comparison
from tests.widgets.test_whatif_browser import (  # noqa: F401
    POOLED_ROW,
    STARTUP_S,
    VOILA_TEMPLATE_CDN,
    voila_url,
)

pytestmark = pytest.mark.slow

#: JS: the inspector's shown query id, summary count and side-by-side table rows.
STATE = """() => {
  const root = document.querySelector('.ragnb-inspector');
  if (!root) return null;
  const q = root.querySelector('.ragnb-inspector-query');
  const s = root.querySelector('.ragnb-inspector-summary');
  const topDiv = root.querySelector('.ragnb-inspector-top');
  const table = topDiv ? topDiv.querySelector('table') : null;
  const select = root.querySelector('select[size]');
  const heads = table ? [...table.querySelectorAll('thead th')].map(th => th.innerText.trim()) : [];
  const rows = table ? [...table.querySelectorAll('tbody tr')].map(tr =>
      Object.fromEntries([...tr.querySelectorAll('td')]
        .map((td, i) => [heads[i], td.innerText.trim()]))) : [];
  return {query: q && topDiv && topDiv.dataset.queryId === q.dataset.queryId ?
            q.dataset.queryId : null, n: s ? s.dataset.n : null, rows,
          text: q ? q.innerText : '',
          first_option: select && select.options.length ? select.options[0].text : null};
}"""


@pytest.fixture(scope="module")
def expected():
    comp = demo_comparison()
    # the served workspace's strata report starts on rr@10 (test_whatif_browser.rr_workspace)
    s = score(comp.test_set, comp.runs, ["rr@10", "judged@10"], extra=comp.extra)
    strata = comp.table.set_index("query_id")["query_type"].astype(str)

    def deltas(**kw):
        return query_deltas(s, baseline="round-00", challenger="round-40", metric="rr@10",
                            strata=strata, **kw)

    def top(qid):
        return side_by_side(comp.test_set, comp.runs, qid, baseline="round-00",
                            challenger="round-40", k=10)

    return deltas, top, comp.test_set.queries.set_index("query_id")["query"]


def test_inspector_filters_sorts_and_shows_a_query_in_the_browser(voila_url, expected):  # noqa: F811
    url, server_log = voila_url
    deltas, top, texts = expected
    with browser.local_page(url, {"width": 1400, "height": 2400}) as (page, blocked, errors):
        page.goto(url, timeout=STARTUP_S * 1000)
        page.wait_for_function(f"(({STATE})() || {{}}).query", timeout=STARTUP_S * 1000)
        # the what-if widget above (and its chart) finishes drawing before we interact
        page.wait_for_function(f"({POOLED_ROW})() !== null", timeout=STARTUP_S * 1000)
        page.wait_for_function(
            "() => document.querySelector('.ragnb-whatif .vega-embed svg.marks, "
            ".ragnb-whatif .vega-embed canvas') !== null", timeout=STARTUP_S * 1000)
        first = page.evaluate(STATE)
        worst = deltas()["query_id"].iloc[0]
        assert first["n"] == "200" and first["query"] == worst
        assert texts[worst] in first["text"]
        want = top(worst)
        assert [r["round-40"] for r in first["rows"]] == list(want["round-40"])
        assert [r["round-40 grade"] for r in first["rows"]] == list(want["round-40 grade"])

        # filter by a stratum, the way a user does
        root = page.locator(".ragnb-inspector")
        root.get_by_label("stratum", exact=True).select_option("malformed")
        malformed = deltas(stratum="malformed")
        page.wait_for_function(
            f"(s => s && s.n === '14' && s.query === '{malformed['query_id'].iloc[0]}')"
            f"(({STATE})())", timeout=30_000)

        # wins first, then pick the third query of the list
        root.get_by_label("sort").select_option("wins first")
        wins = deltas(stratum="malformed", sort="wins first")
        page.wait_for_function(
            f"(s => s && (s.first_option || '').endsWith('{wins['query_id'].iloc[0]}'))"
            f"(({STATE})())", timeout=30_000)
        root.get_by_label("query").select_option(index=2)
        target = wins["query_id"].iloc[2]
        page.wait_for_function(f"(({STATE})() || {{}}).query === '{target}'",
                               timeout=30_000)
        picked = page.evaluate(STATE)
        want = top(target)
        assert [r["round-00"] for r in picked["rows"]] == list(want["round-00"])
        assert [r["round-00 grade"] for r in picked["rows"]] == list(want["round-00 grade"])
        assert [r["round-40 in other"] for r in picked["rows"]] == \
            list(want["round-40 in other"])

        browser.ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
        root.screenshot(path=str(browser.ARTIFACTS_DIR / "inspector-voila.png"))
    assert errors == [], errors
    assert [u for u in blocked if not u.startswith(VOILA_TEMPLATE_CDN)] == [], blocked
    assert "Traceback" not in server_log.read_text()
