"""Per-query bounds: hand-worked cases for each metric family, and brute force.

The brute-force check enumerates every labelling of the pooled unjudged passages
and scores each with the core scorer (tests/labelbias/_brute.py), so it shares
no code with the bound functions.
"""
import math
from pathlib import Path

import numpy as np
import pytest

from ragnb.errors import InputError
from ragnb.labelbias import bounds_table, label_bounds
from ragnb.metrics import parse_metric
from ragnb.metrics.gains import register_gain_map

from ._brute import brute, make_run, make_test_set, random_case

L3, L11 = math.log2(3), math.log2(11)


def one(grades, rankings, metric, **kw):
    ts = make_test_set({"q": grades})
    runs = [make_run({"q": r}, name) for name, r in rankings.items()]
    b = label_bounds(ts, runs, metric, **kw)
    return b, {name: b.per_query[b.per_query["config"] == name].iloc[0] for name in rankings}


def test_ndcg_is_not_monotone_upper_is_not_a_bound():
    """STATS-REFERENCES §3: the only relevant passage at rank 1, an unjudged one at rank 10.
    Labelling it relevant lowers nDCG to (1 + 1/log2 11) / (1 + 1/log2 3) = 0.7904."""
    grades = {"a": 1, **{f"n{i}": 0 for i in range(2, 10)}}
    ranking = ["a", *[f"n{i}" for i in range(2, 10)], "u"]
    _, rows = one(grades, {"s": ranking}, "ndcg_linear@10")
    r = rows["s"]
    want_low = (1 + 1 / L11) / (1 + 1 / L3)
    assert want_low == pytest.approx(0.7904, abs=1e-4)
    assert r["lower"] == pytest.approx(1.0)
    assert r["upper"] == pytest.approx(want_low)     # the "upper" policy is the minimum here
    assert r["bound_min"] == pytest.approx(want_low)
    assert r["bound_max"] == pytest.approx(1.0)


def test_ndcg_interior_grade_maximum():
    """Grades 0..3 (gains 0, 1, 3, 7), k=2: a grade-1 passage at rank 1, another grade-1
    passage not retrieved, a grade-3 passage elsewhere in the key for another query so
    the scale tops at 3. The unjudged passage at rank 2 is best labelled 1: nDCG@2 = 1;
    at the top grade (the upper policy) (1 + 7/L3) / (7 + 1/L3) = 0.7098."""
    ts = make_test_set({"q": {"a": 1, "b": 1}, "other": {"z": 3}})
    run = make_run({"q": ["a", "u"], "other": ["z"]}, "s")
    b = label_bounds(ts, [run], "ndcg@2")
    r = b.per_query.set_index("query_id").loc["q"]
    assert r["upper"] == pytest.approx((1 + 7 / L3) / (7 + 1 / L3))
    assert r["bound_max"] == pytest.approx(1.0)
    assert r["bound_min"] == pytest.approx(1 / (1 + 1 / L3))


def test_rr_p_answer_recall_rbp_hand_worked():
    """Ranking [n(0), u1, a(2), u2], k=4, top grade 2: min labels both unjudged 0, max both 2."""
    grades = {"n": 0, "a": 2, "b": 1}
    ranking = ["n", "u1", "a", "u2"]
    cases = {
        "rr@4": (1 / 3, 1 / 2),                         # a at 3; u1 at 2
        "p@4": (1 / 4, 3 / 4),                          # a; a, u1, u2
        "answer_recall@4": (1.0, 1.0),                  # a (grade 2) is there anyway
        "rbp@4(p=0.5)": (0.5 * 0.25, 0.5 * (0.5 + 0.25 + 0.125)),
        "rr@4(rel=2)": (1 / 3, 1 / 2),
    }
    for metric, (lo, hi) in cases.items():
        _, rows = one(grades, {"s": ranking}, metric)
        assert rows["s"]["bound_min"] == pytest.approx(lo), metric
        assert rows["s"]["bound_max"] == pytest.approx(hi), metric


def test_recall_denominator_moves_with_other_configs_passages():
    """recall@2: s = [a(1), u1], t = [u2, n(0)]; judged relevant a, b (R = 2).
    s's min labels u1 0 and u2 (t's) relevant: 1 / 3; its max labels u1 relevant, u2 0:
    2 / 3. Alone (without t in the pool) the min is 1 / 2."""
    grades = {"a": 1, "b": 1, "n": 0}
    _, rows = one(grades, {"s": ["a", "u1"], "t": ["u2", "n"]}, "recall@2")
    assert rows["s"]["bound_min"] == pytest.approx(1 / 3)
    assert rows["s"]["bound_max"] == pytest.approx(2 / 3)
    _, alone = one(grades, {"s": ["a", "u1"]}, "recall@2")
    assert alone["s"]["bound_min"] == pytest.approx(1 / 2)


def test_other_configs_unjudged_passages_lower_ndcg_minimum():
    """s = [a(1)], fully judged; t = [u]. If u is relevant at the top grade 1 the ideal
    DCG@1 is unchanged (1) but at k=2 it is 1 + 1/L3: s's nDCG@2 min = 1 / (1 + 1/L3)."""
    _, rows = one({"a": 1}, {"s": ["a"], "t": ["u"]}, "ndcg_linear@2")
    assert rows["s"]["unjudged"] == 0
    assert rows["s"]["bound_max"] == pytest.approx(1.0)
    assert rows["s"]["bound_min"] == pytest.approx(1 / (1 + 1 / L3))


METRICS = ["rr@5", "rr@5(rel=2)", "p@5", "recall@5", "ndcg@5", "ndcg_linear@5", "rbp@5(p=0.8)",
           "answer_recall@5", "ndcg@3", "success@5", "success@3(rel=2)",
           "ndcg@5(gain=steep)"]

# a gain map steeper than 2^g - 1, for the brute-force check of gain maps
register_gain_map("steep", {0: 0, 1: 1, 2: 5, 3: 20})


@pytest.mark.parametrize("metric", METRICS)
def test_bounds_equal_brute_force(metric):
    """Random one-query cases, 2-3 configs, grades 0..2 or 0..3: the bounds are the
    exact min and max over every labelling, and lower/upper lie inside them."""
    rng = np.random.default_rng(abs(hash(metric)) % 2**32)
    for _ in range(12):
        top = int(rng.integers(2, 4))
        grades, rankings = random_case(rng, configs=int(rng.integers(2, 4)), k=5, top=top,
                                       judged=int(rng.integers(3, 8)), unjudged=4)
        single, _ = brute(grades, rankings, metric, top, parse_metric(metric).k)
        _, rows = one(grades, rankings, metric)
        for name, (lo, hi) in single.items():
            r = rows[name]
            assert r["bound_min"] == pytest.approx(lo, abs=1e-12), (name, grades, rankings)
            assert r["bound_max"] == pytest.approx(hi, abs=1e-12), (name, grades, rankings)
            assert lo - 1e-12 <= r["lower"] <= hi + 1e-12
            assert lo - 1e-12 <= r["upper"] <= hi + 1e-12


def test_table_means_strata_and_unjudged_share():
    ts = make_test_set({"q1": {"a": 1}, "q2": {"b": 1}})
    s = make_run({"q1": ["u", "a"], "q2": ["b", "x"]}, "s")
    b = label_bounds(ts, [s], "rr@2")
    t = bounds_table(b, strata=__import__("pandas").Series({"q1": "A", "q2": "B"}))
    overall = t[t["stratum"] == "all"].iloc[0]
    assert overall["unjudged_share"] == pytest.approx(2 / 4)   # u and x of 4 slots
    assert overall["lower"] == pytest.approx((1 / 2 + 1) / 2)
    assert overall["bound_max"] == pytest.approx(1.0)
    a = t[t["stratum"] == "A"].iloc[0]
    assert (a["n"], a["bound_min"], a["bound_max"]) == (1, 0.5, 1.0)
    assert list(t["stratum"]) == ["all", "A", "B"]


@pytest.mark.parametrize("metric", ["ap@5", "map_cut_5"])
def test_metrics_without_an_exact_bound_say_so(metric):
    ts = make_test_set({"q": {"a": 2}})
    run = make_run({"q": ["a", "u"]}, "s")
    with pytest.raises(InputError, match="no exact bound for metric 'ap@5'"):
        label_bounds(ts, [run], metric)


def test_errors_name_the_problem():
    ts = make_test_set({"q": {"a": 2}})
    run = make_run({"q": ["a", "u"]}, "s")
    with pytest.raises(InputError, match="top_grade 1 is below the highest judged grade 2"):
        label_bounds(ts, [run], "rr@2", top_grade=1)
    with pytest.raises(InputError, match="two runs share a config name"):
        label_bounds(ts, [run, run], "rr@2")
    with pytest.raises(InputError, match="unknown metric"):
        label_bounds(ts, [run], "nope@2")


def test_a_new_dcg_metric_gets_no_other_metrics_bounds():
    """Issue 34 #2: a metric registered with a gain map (dcg@10) was given nDCG's bounds,
    inferred from the gain, and page 04 printed verdicts its own checks refused. Bounds are
    declared on the MetricSpec; a DCG that declares none is refused by name. Registered
    before ragnb.labelbias is imported, as a block in ragnb/metrics/kernels.py would be."""
    import subprocess
    import sys

    code = """
import numpy as np
from ragnb.metrics.gains import gain_map
from ragnb.metrics.registry import register

@register("dcg", summary="DCG", formula="sum gain / log2(i + 1)",
          gain=lambda params: gain_map("linear"))
def dcg(view):
    return np.zeros(view.n)

from ragnb.errors import InputError
from ragnb.labelbias import label_bounds
from ragnb.labelbias.bounds import dcg_families
from tests.labelbias._brute import make_run, make_test_set

assert "dcg" not in dcg_families() and "ndcg" in dcg_families(), dcg_families()
ts = make_test_set({"q": {"a": 2}})
try:
    label_bounds(ts, [make_run({"q": ["a", "u"]}, "s")], "dcg@10")
except InputError as e:
    print(e)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert out.returncode == 0, out.stderr
    assert "no exact bound for metric 'dcg@10'" in out.stdout


def test_the_brute_force_check_covers_every_metric_with_bounds():
    """Over the whole metric registry: every family that has exact bounds (declared on its
    MetricSpec) is in METRICS above, so its lower and upper policy values are checked
    against brute force; every other family is refused by name (no silent bounds)."""
    from ragnb.labelbias.bounds import BOUND_FUNCS
    from ragnb.metrics import REGISTRY

    assert set(BOUND_FUNCS) <= {parse_metric(m).spec.name for m in METRICS}
    ts = make_test_set({"q": {"a": 1}})
    run = make_run({"q": ["a", "u"]}, "s")
    for name, spec in REGISTRY.items():
        if name in BOUND_FUNCS or not spec.uses_policy:
            continue
        text = f"{name}@2" if spec.cutoff else name
        with pytest.raises(InputError, match="no exact bound for metric"):
            label_bounds(ts, [run], text)
