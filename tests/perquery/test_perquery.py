"""The per-query tables, chart and inspector widget in plain Python.

Hand-worked example: judgments q1: a=2, b=1, c=0; q2: x=1; q3: y=1. Run "base"
= q1 [a, c, u], q2 [x], q3 [z]; run "chal" = q1 [c, u, b], q2 [w, x], q3 [y]
(u, w, z unjudged). P@2: base q1 1/2, q2 1/2, q3 0; chal q1 0, q2 1/2, q3 1/2.
"""
import altair as alt
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.metrics.score import score
from ragnb.perquery import query_delta_chart, query_deltas, side_by_side
from ragnb.widgets.inspector import QueryInspector
from tests.metrics.test_kernels import make_run, make_test_set
from tests.strata._workspaces import codec_workspace, demo_comparison


@pytest.fixture
def case():
    ts = make_test_set([("q1", "a", 2), ("q1", "b", 1), ("q1", "c", 0), ("q2", "x", 1),
                        ("q3", "y", 1)])
    ts.queries["query"] = ["first <b>query</b>", "second", "third"]
    runs = [make_run({"q1": ["a", "c", "u"], "q2": ["x"], "q3": ["z"]}, "base"),
            make_run({"q1": ["c", "u", "b"], "q2": ["w", "x"], "q3": ["y"]}, "chal")]
    s = score(ts, runs, ["p@2", "rr"])
    strata = pd.Series({"q1": "A", "q2": "A", "q3": "B"})
    return ts, runs, s, strata


def test_deltas_sorted_and_filtered(case):
    _, _, s, strata = case
    d = query_deltas(s, baseline="base", challenger="chal", metric="p@2", strata=strata)
    assert list(d["query_id"]) == ["q1", "q2", "q3"]            # -1/2, 0, +1/2
    assert list(d["delta"]) == pytest.approx([-0.5, 0.0, 0.5])
    wins = query_deltas(s, baseline="base", challenger="chal", metric="P_2", strata=strata,
                        sort="wins first", stratum="A")
    assert list(wins["query_id"]) == ["q2", "q1"] and set(wins["stratum"]) == {"A"}
    with pytest.raises(InputError, match="no query in stratum 'C'"):
        query_deltas(s, baseline="base", challenger="chal", metric="p@2", strata=strata,
                     stratum="C")
    with pytest.raises(InputError, match="no p@2 scores for config 'nope'"):
        query_deltas(s, baseline="nope", challenger="chal", metric="p@2")


def test_side_by_side_marks_grades_unjudged_and_overlap(case):
    ts, runs, _, _ = case
    t = side_by_side(ts, runs, "q1", baseline="base", challenger="chal", k=3)
    assert list(t["base"]) == ["a", "c", "u"] and list(t["chal"]) == ["c", "u", "b"]
    assert list(t["base grade"]) == ["2", "0", "unjudged"]
    assert list(t["chal grade"]) == ["0", "unjudged", "1"]
    assert list(t["base in other"]) == ["no", "yes", "yes"]
    short = side_by_side(ts, runs, "q3", baseline="base", challenger="chal", k=2)
    assert list(short["base"]) == ["z", ""] and list(short["base grade"]) == ["unjudged", ""]


def test_chart_is_sorted_and_counts_outcomes(case):
    _, _, s, strata = case
    d = query_deltas(s, baseline="base", challenger="chal", metric="p@2", strata=strata,
                     sort="wins first")
    chart = query_delta_chart(d)
    assert isinstance(chart, alt.Chart)
    assert list(chart.data["delta"]) == pytest.approx([-0.5, 0.0, 0.5])
    assert list(chart.data["outcome"]) == ["baseline better", "tie", "challenger better"]
    assert "challenger better on 1, tie on 1, baseline better on 1" in \
        chart.title.subtitle[0]


def test_inspector_state_follows_the_controls(case):
    ts, runs, s, strata = case
    qi = QueryInspector(ts, runs, s, baseline="base", challenger="chal", metric="p@2",
                        strata=strata, k=3)
    assert qi.selected == "q1"                                   # the largest loss
    assert list(qi.top["chal grade"]) == ["0", "unjudged", "1"]
    assert qi.scores_shown.set_index("metric").loc["rr", "delta"] == pytest.approx(1 / 3 - 1)
    # the query text from the data is escaped
    assert "first &lt;b&gt;query&lt;/b&gt;" in qi.query_html.value
    assert "<b>query</b>" not in qi.query_html.value
    assert "unjudged: base 1, chal 1" in qi.top_html.value
    # points (metric x 100) in the list, the summary and the score table (issue 23 #10):
    # p@2 deltas -1/2, 0, +1/2 (mean 0); q1's rr 1 -> 1/3
    assert [label for label, _ in qi.query_w.options] == ["-50.00  q1", "+0.00  q2",
                                                          "+50.00  q3"]
    assert "mean Δ +0.00 points" in qi.summary_html.value
    assert ">33.3<" in qi.scores_html.value and ">-66.7<" in qi.scores_html.value  # one decimal
    assert "0.3333" not in qi.scores_html.value and "in points" in qi.scores_html.value
    qi.sort_w.value = "wins first"
    assert list(qi.deltas["query_id"]) == ["q3", "q2", "q1"] and qi.selected == "q1"  # kept
    qi.stratum_w.value = "B"
    assert list(qi.deltas["query_id"]) == ["q3"] and qi.selected == "q3"
    assert 'data-n="1"' in qi.summary_html.value
    assert list(qi.top["chal"]) == ["y", "", ""]
    qi.stratum_w.value = "all strata"
    qi.select("q2")
    assert qi.selected == "q2" and 'data-query-id="q2"' in qi.query_html.value
    qi.k_w.value = 5
    assert len(qi.top) == 5
    with pytest.raises(InputError, match="not in the list shown"):
        qi.stratum_w.value = "B"
        qi.select("q1")


def test_inspector_on_the_demo_comparison():
    comp = demo_comparison()
    s = score(comp.test_set, comp.runs, ["ndcg@10", "judged@10"], extra=comp.extra)
    qi = QueryInspector.from_comparison(comp, s, baseline="round-00", challenger="round-40",
                                        metric="ndcg@10", stratum="query_type")
    wide = s.wide("ndcg@10")
    d = wide["round-40"] - wide["round-00"]
    assert qi.deltas["delta"].iloc[0] == pytest.approx(d.min())
    qi.stratum_w.value = "malformed"
    assert len(qi.deltas) == int((comp.table["query_type"] == "malformed").sum()) == 14
    assert qi.deltas["delta"].mean() == pytest.approx(d[list(qi.deltas["query_id"])].mean())


@pytest.mark.realdata
def test_unjudged_marks_match_judged_at_10_on_codec(real_data, tmp_path):
    """CODEC's first-stage runs leave part of the top 10 unjudged: for every query the
    inspector's unjudged marks equal 10 x (1 - judged@10) from the scorer."""
    comp = codec_workspace(real_data, tmp_path).comparison(
        "codec", ["document_bm25-tuned", "document_ance-maxp"])
    s = score(comp.test_set, comp.runs, ["ndcg_cut_10", "judged@10"], extra=comp.extra,
              missing="empty")
    qi = QueryInspector.from_comparison(comp, s, baseline="document_bm25-tuned",
                                        challenger="document_ance-maxp",
                                        metric="ndcg_cut_10", stratum="Domain")
    judged = s.wide("judged@10")
    marks = 0
    for qid in qi.deltas["query_id"]:
        qi.select(qid)
        for config in ("document_bm25-tuned", "document_ance-maxp"):
            n = int((qi.top[f"{config} grade"] == "unjudged").sum())
            assert n == round(10 * (1 - judged.loc[qid, config])), (qid, config)
            marks += n
    assert marks > 0
    assert set(qi.stratum_w.options) == {"all strata", *set(qi.deltas["stratum"])}
