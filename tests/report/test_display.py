"""Notebook-side helpers: renderer choice, escaping, provenance bundles."""
from __future__ import annotations

from html.parser import HTMLParser

import altair as alt
import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError, RagnbError
from ragnb.report.display import (
    escape_markdown,
    markdown_text,
    provenance_bundle,
    setup_notebook,
    table_html,
    text_html,
)
from ragnb.report.kernel import PACKAGE_DIR_ENV, REPORT_ENV
from ragnb.report.provenance import PROVENANCE_MIMETYPE

EVIL = "<script>alert(1)</script>"


class Elements(HTMLParser):
    """Tags and text of an HTML fragment, as a browser's parser sees them."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture
def renderer():
    before = alt.renderers.active
    yield
    alt.renderers.enable(before)


def test_setup_notebook_picks_svg_in_a_report_kernel(monkeypatch, renderer):
    from ragnb.paths import PACKAGE_DIR

    monkeypatch.setenv(REPORT_ENV, "1")
    monkeypatch.setenv(PACKAGE_DIR_ENV, str(PACKAGE_DIR))
    setup_notebook()
    assert alt.renderers.active == "svg"


def test_setup_notebook_picks_offline_jupyter_renderer_elsewhere(monkeypatch, renderer):
    monkeypatch.delenv(REPORT_ENV, raising=False)
    setup_notebook()
    assert alt.renderers.active == "jupyter"
    assert alt.renderers.options == {"offline": True}


def test_setup_notebook_refuses_another_ragnb(monkeypatch, tmp_path, renderer):
    monkeypatch.setenv(REPORT_ENV, "1")
    monkeypatch.setenv(PACKAGE_DIR_ENV, str(tmp_path))
    with pytest.raises(RagnbError, match="imported ragnb from"):
        setup_notebook()


def test_table_html_escapes_values_labels_and_caption():
    df = pd.DataFrame({EVIL: [EVIL, "a & b"], "score": [0.51234, 0.5]}, index=[EVIL, "q2"])
    html = table_html(df, caption=EVIL, float_format=".2f")
    parsed = Elements(html)
    assert "script" not in parsed.tags
    text = "".join(parsed.text)
    assert text.count(EVIL) == 4  # caption, column label, index label, cell
    assert "a & b" in text and "0.51" in text and "0.51234" not in text


def test_pandas_styler_is_the_trap_table_html_avoids():
    """Why the helper exists: a Styler without escape= puts the markup in the page."""
    df = pd.DataFrame({"q": [EVIL]})
    assert "script" in Elements(df.style.to_html()).tags
    assert "script" not in Elements(table_html(df)).tags


def test_text_html_shows_text():
    parsed = Elements(text_html(EVIL + "\nline 2"))
    assert parsed.tags == ["div"] and "".join(parsed.text) == EVIL + "\nline 2"


def test_markdown_values_are_escaped_but_template_formats():
    from nbconvert.filters.markdown import markdown2html

    md = markdown_text("**Query:** {q} ({n} hits)",
                       q=EVIL + " *not bold* [x](javascript:alert(1))", n=3)
    parsed = Elements(markdown2html(md))
    assert "script" not in parsed.tags and "a" not in parsed.tags and "em" not in parsed.tags
    assert "strong" in parsed.tags  # the template's own formatting stays
    assert ("".join(parsed.text).strip()
            == f"Query: {EVIL} *not bold* [x](javascript:alert(1)) (3 hits)")


def test_escape_markdown_leaves_plain_words_alone():
    assert escape_markdown("ndcg 10") == "ndcg 10"
    assert escape_markdown("a_b") == "a\\_b"


def test_provenance_bundle_normalises_values():
    bundle = provenance_bundle(
        "Splits",
        {"split_id": "golden", "n": np.int64(3), "x": np.float64(0.5), "bad": float("nan"),
         "ok": True, "ids": (1, 2), "none": None},
    )
    facts = bundle[PROVENANCE_MIMETYPE]["facts"]
    assert facts == {"split_id": "golden", "n": 3, "x": 0.5, "bad": "nan", "ok": True,
                     "ids": [1, 2], "none": None}
    assert type(facts["n"]) is int
    assert bundle["text/plain"].startswith("[provenance: Splits] split_id='golden'")
    # what JupyterLab and Voila show: one small wrapped line, never the raw bracket form
    shown = bundle["text/html"]
    assert "overflow-wrap: anywhere" in shown and "[provenance:" not in shown
    assert "Provenance · Splits: split_id golden, n 3" in shown


def test_provenance_refuses_objects():
    with pytest.raises(InputError, match=r"\[frame\]: a provenance fact must be"):
        provenance_bundle("Notes", {"frame": pd.DataFrame()})
    with pytest.raises(InputError, match="section"):
        provenance_bundle("", {})


def test_table_shows_no_nan_and_attaches_the_whole_table_as_csv():
    import base64
    import io
    import re

    df = pd.DataFrame({"id": ["a", "b", "c"], "x": [0.5, np.nan, 1.25],
                       "n": pd.array([1, pd.NA, 3], dtype="Int64"), "ok": [True, False, True],
                       "text": ["line one\nline two", EVIL, "literal \\n here"]})
    html = table_html(df, index=False, caption="Cap", max_rows=2)
    text = "".join(Elements(html).text)
    assert "NaN" not in text and "<NA>" not in text and "\\n" not in text
    assert "—" in text and "yes" in text
    assert "1 more row not shown (all rows in the CSV)." in text
    href = re.search(r'href="data:text/csv;base64,([^"]+)"', html).group(1)
    back = pd.read_csv(io.BytesIO(base64.b64decode(href)))
    assert list(back["id"]) == ["a", "b", "c"] and back["x"].iloc[2] == 1.25
    assert "CSV (3 rows)" in html
    assert '<td class="num">0.5</td>' in html and '<td class="txt">a</td>' in html


def test_units_format_metric_values_in_points_and_shares_in_percent():
    from ragnb.report.display import format_unit

    assert format_unit(0.5123, "points") == "51.2"
    assert format_unit(0.01234, "signed points:2") == "+1.23"
    assert format_unit(0.135, "percent") == "13.5%"
    assert format_unit(float("nan"), "points") == "—"
    with pytest.raises(InputError, match="unknown unit 'pts'"):
        format_unit(0.1, "pts")


def test_wide_tables_and_checks_go_to_the_appendix(monkeypatch):
    from ragnb.report import display as d

    shown = []
    monkeypatch.setattr(d, "_display_bundle", lambda b, m=None: shown.append((b, m)))
    d.show_table(pd.DataFrame([range(9)], columns=list("abcdefghi")), index=False, caption="W")
    d.show_table(pd.DataFrame([range(8)], columns=list("abcdefgh")), index=False)
    assert shown[0][1] == {d.PLACE_KEY: "appendix", "caption": "W", "columns": 9}
    assert not shown[1][1]
    shown.clear()
    d.show_checks(pd.DataFrame({"check": ["a", "b"], "ok": [True, False], "detail": ["", "off"]}))
    assert "1 of 2 checks holds; failing: b (off)" in shown[0][0]["text/html"]
    assert shown[1][1][d.PLACE_KEY] == "appendix"


def test_config_columns_show_display_names_and_the_csv_keeps_codes():
    import base64
    import re

    df = pd.DataFrame({"config": ["m0_r1", "m9"], "challenger": ["m1_r1", "m0_r1"],
                       "query": ["m0_r1", "x"]})
    html = table_html(df, index=False, display_names={"m0_r1": "e5 + reranker 1"})
    cells = re.findall(r'<td class="txt">(.*?)</td>', html)
    assert cells == ["e5 + reranker 1 (m0_r1)", "m1_r1", "m0_r1",
                     "m9", "e5 + reranker 1 (m0_r1)", "x"]  # only config columns are named
    csv = base64.b64decode(re.search(r"base64,([^\"]+)", html).group(1)).decode()
    assert "e5" not in csv


def test_an_appendix_markdown_section_goes_to_the_appendix_as_escaped_html(monkeypatch):
    from ragnb.report import display
    from ragnb.result import markdown_section, markdown_text

    shown = []
    monkeypatch.setattr(display, "_display_bundle", lambda b, m=None: shown.append((b, m)))
    text = markdown_text("note: {n}", n="<script>x</script> a_b")
    display.show_section(markdown_section(text, "Notes", appendix=True))
    display.show_section(markdown_section("**body**", "Reading"))
    (appendix, meta), (body, none) = shown
    assert meta[display.PLACE_KEY] == "appendix" and meta["caption"] == "Notes"
    assert "&lt;script&gt;x&lt;/script&gt; a_b" in appendix["text/html"]
    assert "<script>" not in appendix["text/html"]
    assert body["text/markdown"] == "## Reading\n\n**body**" and none is None
