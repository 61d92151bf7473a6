"""Charts return altair objects built from the tidy tables (checked through to_dict)."""
import altair as alt

from ragnb.labelbias import label_bounds, three_way
from ragnb.labelbias.charts import bounds_chart, shard_chart, verdict_chart

from ._brute import make_run, make_test_set


def small():
    ts = make_test_set({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}})
    runs = [make_run({"q1": ["a", "u"], "q2": ["x", "b"], "q3": ["c"]}, "base"),
            make_run({"q1": ["u", "a"], "q2": ["b", "y"], "q3": ["z", "c"]}, "new")]
    return label_bounds(ts, runs, "rr@2")


def test_bounds_chart():
    b = small()
    spec = bounds_chart(b.summary()).to_dict()
    layers = spec["layer"]
    assert layers[0]["encoding"]["x"]["field"] == "bound_min"
    assert layers[0]["encoding"]["x2"]["field"] == "bound_max"
    assert layers[1]["encoding"]["shape"]["field"] == "policy"


def test_charts_show_display_names_on_axes_and_titles():
    b = small()
    names = {"base": "BM25", "new": "dense retriever"}
    spec = bounds_chart(b.summary(), display_names=names).to_dict()
    shown = {v["config"] for data in spec["datasets"].values() for v in data}
    assert shown == {"BM25 (base)", "dense retriever (new)"}
    spec = verdict_chart(three_way(b, "base", resamples=200), display_names=names).to_dict()
    (values,) = spec["datasets"].values()
    assert {v["challenger"] for v in values} == {"dense retriever (new)"}
    assert spec["title"]["text"] == "Three-way verdict against BM25 (base)"


def test_verdict_and_shard_charts():
    b = small()
    result = three_way(b, "base", resamples=200)
    chart = verdict_chart(result)
    assert isinstance(chart, alt.FacetChart)
    spec = chart.to_dict()
    assert spec["facet"]["row"]["field"] == "challenger"
    import pandas as pd
    t = pd.DataFrame({"config": ["a"], "target": ["a"], "effect_full": [0.01],
                      "projected": [0.04], "ci_low": [0.0], "ci_high": [0.08]})
    assert shard_chart(t).to_dict()["layer"][1]["encoding"]["x2"]["field"] == "ci_high"
