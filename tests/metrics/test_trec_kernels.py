"""The measures added from trec_eval on the hand-worked example of test_kernels.

Judgments: q1: a=2, b=1, c=0, d=1 (R = 3 relevant, N = 1 non-relevant);
q2: x=0; q3: e=2. Run: q1 = [c, u1, a, b] (u1 unjudged), q2 = [x, u2], q3 none.
"""
import pytest

from ragnb.errors import InputError
from ragnb.metrics import parse_metric
from ragnb.metrics.incomplete import INFAP_EPSILON as EPS
from tests.metrics.test_kernels import example, make_run, make_test_set, values  # noqa: F401

ZERO = {"q2": 0.0, "q3": 0.0}


@pytest.mark.parametrize("metric, expected", [
    # relevant at ranks 3 and 4: (P@3 + P@4) / R = (1/3 + 1/2) / 3
    ("ap", {"q1": (1 / 3 + 1 / 2) / 3, **ZERO}),
    ("map", {"q1": (1 / 3 + 1 / 2) / 3, **ZERO}),
    ("ap@3", {"q1": (1 / 3) / 3, **ZERO}),                 # trec_eval map_cut_3
    ("rprec", {"q1": 1 / 3, **ZERO}),                      # top R = 3: c, u1, a
    ("success@3", {"q1": 1.0, **ZERO}),
    ("success@2", {"q1": 0.0, **ZERO}),
    ("recip_rank", {"q1": 1 / 3, **ZERO}),
    # a and b each have c (the only non-relevant, N = 1) above: 1 - 1/1 = 0
    ("bpref", {"q1": 0.0, **ZERO}),
    # a at j=2: r=0, n=1 -> 1/3 + (2/3)(1/2)(eps/(1+2eps)); b at j=3: r=1, n=1 ->
    # 1/4 + (3/4)(2/3)((1+eps)/(2+2eps)) = 1/2
    ("infap", {"q1": (1 / 3 + (1 / 3) * EPS / (1 + 2 * EPS) + 1 / 2) / 3, **ZERO}),
])
def test_lower_policy(example, metric, expected):  # noqa: F811
    assert values(*example, metric) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("metric, expected", [
    ("ap", {"q1": (1 / 2 + 2 / 3) / 3, **ZERO}),           # [c, a, b]
    ("rprec", {"q1": 2 / 3, **ZERO}),
    ("bpref", {"q1": 0.0, **ZERO}),                        # unchanged by -J
    # a at j=1: 1/2 + (1/2)(1)(eps/(1+2eps)); b at j=2: 1/3 + (2/3)(1)(1/2)
    ("infap", {"q1": (1 / 2 + 0.5 * EPS / (1 + 2 * EPS) + 2 / 3) / 3, **ZERO}),
])
def test_condensed_policy(example, metric, expected):  # noqa: F811
    assert values(*example, metric, "condensed") == pytest.approx(expected, abs=1e-12)


def test_upper_policy_grows_r_like_recall(example):  # noqa: F811
    # u1 relevant: ranks 2, 3, 4 relevant, R = 3 + 1
    got = values(*example, "ap", "upper")
    assert got["q1"] == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 4)
    assert got["q2"] == pytest.approx((1 / 2) / 1)          # u2 at rank 2, R = 1
    assert values(*example, "rprec", "upper")["q1"] == pytest.approx(3 / 4)


@pytest.mark.parametrize("metric", ["bpref", "infap"])
def test_bpref_and_infap_refuse_the_upper_policy(example, metric):  # noqa: F811
    with pytest.raises(InputError, match=f"metric {metric} is not defined under the 'upper'"):
        values(*example, metric, "upper")


def test_bpref_counts_nonrelevant_above():
    ts = make_test_set([("q", "a", 1), ("q", "b", 1), ("q", "c", 1), ("q", "n1", 0),
                        ("q", "n2", 0)])
    run = make_run({"q": ["a", "n1", "u", "b", "n2", "c"]})
    # R = 3, N = 2, min(N, R) = 2: a -> 1; b (1 above) -> 1/2; c (2 above) -> 0
    assert values(ts, run, "bpref")["q"] == pytest.approx((1 + 0.5 + 0) / 3)


@pytest.mark.parametrize("trec, ours", [
    ("map", "ap"), ("map_cut_10", "ap@10"), ("P_10", "p@10"), ("P_5(rel=2)", "p@5(rel=2)"),
    ("recall_100", "recall@100"), ("ndcg_cut_10", "ndcg_linear@10"), ("recip_rank", "rr"),
    ("Rprec", "rprec"), ("bpref", "bpref"), ("infAP", "infap"), ("success_10", "success@10"),
])
def test_trec_eval_names_parse_to_canonical_names(trec, ours):
    assert str(parse_metric(trec)) == ours


@pytest.mark.parametrize("text, message", [
    ("P_10@5", "already has its cut-off"), ("rprec@10", "takes no cut-off"),
    ("bpref@10", "takes no cut-off"),
])
def test_trec_name_errors(text, message):
    with pytest.raises(InputError, match=message):
        parse_metric(text)
