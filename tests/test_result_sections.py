"""A Finding's ordered sections and how every surface renders them (terminal, JupyterLab)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.fit import four_cell
from ragnb.result import (
    Finding,
    Headline,
    Section,
    checks_frame,
    finding,
    markdown_section,
    markdown_text,
    plain_markdown,
    table_section,
    text_table,
)

HEADLINE = Headline("Is it better?", "Yes: +2.0 [+0.5, +3.5] points.", "Ship it.", "better")


def _finding(**kw) -> Finding:
    table = pd.DataFrame({"config": ["a", "<script>b</script>"], "Δ (points)": ["+2.0", None],
                          "n": [30.0, float("nan")]})
    return Finding(HEADLINE, table, caption="ndcg@10 in points", **kw)


def test_default_sections_are_the_chart_then_the_table():
    f = _finding(chart="CHART")
    assert [(s.kind, s.caption) for s in f.sections] == [("chart", "ndcg@10 in points"),
                                                         ("table", "ndcg@10 in points")]
    assert f.sections[1].content is f.display_table
    assert [s.kind for s in _finding().sections] == ["table"]          # no chart, no section


def test_given_sections_keep_their_order_and_objects_stay_reachable():
    a = markdown_section("first", "A")
    b = table_section(pd.DataFrame({"x": ["1"]}), "B", appendix=True)
    f = _finding(sections=(a, b), objects={"scores": [1, 2]})
    assert f.sections == (a, b) and f.objects["scores"] == [1, 2]


def test_a_section_kind_outside_the_three_is_an_error():
    with pytest.raises(InputError, match="table, chart or markdown, not 'plot'"):
        Section("c", "plot", None)


def test_text_table_aligns_and_shows_a_dash_for_missing_values():
    lines = text_table(pd.DataFrame({"name": ["a", "bbb"], "v": [1.5, float("nan")]})).split("\n")
    assert lines == ["name    v", "----  ---", "a     1.5", "bbb     —"]


def test_a_long_cell_becomes_a_numbered_note_under_the_table():
    why = "zero-width interval: cannot move by construction (nothing to retrieve)"
    lines = text_table(pd.DataFrame({"s": ["a", "b"], "note": ["", why]})).split("\n")
    assert lines[:4] == ["s  note", "-  ----", "a", "b  [1]"]
    assert lines[4:] == [f"[1] {why}"]


def test_to_text_leads_with_the_headline_and_lists_sections_in_order():
    chart_first = Section("the chart", "chart", object())
    notes = markdown_section(markdown_text("**Reading:** {x}", x="a_b (c)"), "Reading")
    wide = table_section(pd.DataFrame({"k": ["v"]}), "Wide table", appendix=True,
                         note="A dash: not defined.")
    f = _finding(sections=(wide, chart_first, notes),
                 checks=checks_frame([("sizes add up", False, "199 of 200"), ("sign", True, "")]),
                 description="10 resamples")
    text = f.to_text()
    assert text.startswith("Is it better?\nYes: +2.0 [+0.5, +3.5] points.\nNext: Ship it.\n"
                           "Verdict: better\n")
    # body first in order, the appendix last; charts by caption only
    assert text.index("Chart: the chart") < text.index("Reading: a_b (c)") \
        < text.index("Wide table (appendix)") < text.index("A dash: not defined.")
    assert "Checks: 1 of 2 checks holds; failing: sizes add up (199 of 200)" in text
    assert text.rstrip().endswith("Method: 10 resamples")
    assert "NaN" not in _finding().to_text() and "None" not in _finding().to_text()


def test_to_text_wraps_long_lines():
    long = Headline("Q?", "word " * 80, "next " * 80)
    text = Finding(long, pd.DataFrame()).to_text()
    assert max(len(line) for line in text.splitlines()) <= 100


def test_plain_markdown_undoes_the_escaping_of_markdown_text():
    assert plain_markdown(markdown_text("**{a}** *{b}*", a="x_1 <s>", b="[l](u)")) \
        == "x_1 <s> [l](u)"          # emphasis gone, the data kept as it was


def test_rich_display_escapes_every_text():
    f = _finding(sections=(markdown_section("<b>bold</b>", "M"),
                           table_section(_finding().display_table, "T <i>")))
    page = f._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "&lt;b&gt;bold" in page and "T &lt;i&gt;" in page and "<i>" not in page
    assert "Is it better?" in page and "Ship it." in page


def test_an_adapted_result_keeps_its_one_table_and_chart_as_sections():
    rng = np.random.default_rng(3)
    rows = [("golden" if s else "production", c, f"q{q}", "m", rng.uniform())
            for s in (0, 1) for c in ("b", "c") for q in range(12)]
    scores = pd.DataFrame(rows, columns=["split", "config", "query_id", "metric", "value"])
    f = finding(four_cell(scores, baseline="b", champion="c", resamples=50, seed=1),
                chart=False)
    assert [s.kind for s in f.sections] == ["table"]
    assert f.sections[0].content is f.display_table and f.sections[0].caption == f.caption
    assert f.to_text().splitlines()[0] == "Is the gain real or fit?"
