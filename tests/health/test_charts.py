"""Health charts: Vega-Lite specs built from the tables (checked through to_dict)."""
import numpy as np
import pandas as pd

from ragnb.health import (
    bucket_scores,
    coverage,
    holdout_check,
    source_mix,
    staleness,
    unanswerable_share,
    version_diff,
)
from ragnb.health.charts import (
    bucket_chart,
    coverage_chart,
    holdout_chart,
    shares_chart,
    staleness_chart,
    version_chart,
)
from ragnb.health.holdout import HoldoutSplit
from ragnb.io.run import validate_run
from ragnb.metrics.score import Scores

from ._data import corpus, make_test_set, q


def datasets(spec):
    return [row for rows in spec.get("datasets", {}).values() for row in rows]


def test_coverage_and_staleness_charts(tmp_path):
    ts = make_test_set(tmp_path, [q("q1", [("p1", 2, "2026-01-01")]),
                                  q("q2", [("p9", 2, "2026-01-01")]),
                                  q("q3", [], unanswerable=True)])
    build = corpus(tmp_path, [("p1", "2026-02-01")])
    spec = coverage_chart(coverage(ts, build)).to_dict()
    counts = {r["status"]: r["queries"] for r in datasets(spec)}
    assert counts == {"covered": 1, "answer not in corpus": 1, "no answering passage judged": 0,
                      "unanswerable": 1}
    assert "50.0% of 2 answerable" in spec["title"]
    rows = datasets(staleness_chart(staleness(ts, build)).to_dict())
    assert {(r["status"], r["kind"]): r["n"] for r in rows if r["n"]} == {
        ("stale", "relevant (grade >= 1)"): 1, ("removed", "relevant (grade >= 1)"): 1}


def test_shares_chart_adds_the_unanswerable_row(tmp_path):
    ts = make_test_set(tmp_path, [q(f"q{i}", [], unanswerable=i == 0,
                                    source="ticket" if i < 5 else "sales") for i in range(10)])
    spec = shares_chart(source_mix(ts, {"ticket": 0.5, "sales": 0.5}),
                        unanswerable_share(ts)).to_dict()
    rows = {r["source"]: r for r in datasets(spec)}
    assert set(rows) == {"ticket", "sales", "unanswerable (vs target)"}
    assert rows["unanswerable (vs target)"]["declared"] == 0.15
    assert rows["unanswerable (vs target)"]["share"] == 0.1


def test_bucket_holdout_and_version_charts(tmp_path):
    ids = [f"q{i}" for i in range(6)]
    s = Scores(pd.DataFrame({"config": "c", "query_id": ids, "metric": "ndcg@10",
                             "value": np.linspace(0, 1, 6)}), "lower", (), pd.Index([]))
    b = bucket_scores(s, pd.Series(["x", "x", "x", "y", "y", "y"], index=ids), config="c",
                      metric="ndcg@10", resamples=100)
    rows = datasets(bucket_chart(b, metric="ndcg@10", config="c").to_dict())
    assert [r["row"] for r in rows] == ["x  (n=3)", "y  (n=3)", "all queries  (n=6)"]
    split = HoldoutSplit(pd.Index(ids[:4]), pd.Index(ids[4:]), 0.2, "x")
    check = holdout_check(s, split, config="c", metric="ndcg@10", resamples=100)
    spec = holdout_chart(check).to_dict()
    assert [r["side"] for r in datasets(spec)] == ["tuning", "held back"]
    assert spec["title"].startswith("Tuning vs held-back queries: ")
    title = holdout_chart(check, "golden").to_dict()["title"]     # the split it ran on
    assert title.startswith("Tuning vs held-back queries of golden: ")
    ts = make_test_set(tmp_path, [q("q1", [("p1", 2)]), q("q2", [("p2", 2)])], name="one")
    run = validate_run(pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["p1", "p3"],
                                     "rank": [1, 1]}), "run", name="sys")
    spec = version_chart(version_diff(ts, ts, run, "rr@10", resamples=50)).to_dict()
    assert [(r["version"], r["mean"]) for r in datasets(spec)] == [("one", 0.5), ("one", 0.5)]


def test_bucket_and_version_charts_show_display_names(tmp_path):
    ids = [f"q{i}" for i in range(4)]
    s = Scores(pd.DataFrame({"config": "c", "query_id": ids, "metric": "ndcg@10",
                             "value": [0.0, 0.2, 0.4, 0.6]}), "lower", (), pd.Index([]))
    b = bucket_scores(s, pd.Series(["x", "x", "y", "y"], index=ids), config="c",
                      metric="ndcg@10", resamples=50)
    spec = bucket_chart(b, metric="ndcg@10", config="c",
                        display_names={"c": "July champion"}).to_dict()
    assert spec["layer"][0]["encoding"]["x"]["title"] == \
        "mean ndcg@10 (exp gain 2^g-1) of July champion (c) (points)"   # names the gain
    ts = make_test_set(tmp_path, [q("q1", [("p1", 2)]), q("q2", [("p2", 2)])], name="one")
    run = validate_run(pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["p1", "p3"],
                                     "rank": [1, 1]}), "run", name="sys")
    spec = version_chart(version_diff(ts, ts, run, "rr@10", resamples=50),
                         display_names={"sys": "reranker"}).to_dict()
    assert {r["config"] for r in datasets(spec)} == {"reranker (sys)"}
