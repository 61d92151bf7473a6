"""Names from other ecosystems: trec_eval's ndcg_cut_10 is linear gain; ragnb's ndcg@10 takes
the gain map it is given (exp by default, linear on TREC qrels files), and a name never
changes meaning with its letter case (NDCG@10, nDCG@10, ndcg@10 are one metric; issue 36 #1);
trec_eval's -l is one relevance level for every binary measure."""
from __future__ import annotations

import numpy as np
import pytest

from ragnb.metrics import parse_metric
from ragnb.metrics.registry import with_gain, with_relevance_level
from ragnb.metrics.score import score

QRELS = {"q1": {"d1": 1, "d2": 2, "d3": 0}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}   # the lower grade first


def _value(metric: str) -> float:
    return float(score(QRELS, RUN, [metric]).table["value"].iloc[0])


def test_a_name_means_one_thing_in_any_case():
    linear = (1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3))   # 0.8597
    exp = (1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3))      # 0.7967
    assert _value("ndcg_cut_10") == pytest.approx(linear)
    assert _value("ndcg@10(gain=linear)") == pytest.approx(linear)
    for name in ("ndcg@10", "NDCG@10", "nDCG@10", "Ndcg@10"):
        assert parse_metric(name).text == "ndcg@10"
        assert _value(name) == pytest.approx(exp)               # the map given: exp here
        assert _value(with_gain(name, "linear")) == pytest.approx(linear)


@pytest.mark.parametrize("ir_measures, ragnb", [
    ("R@2", "recall@2"), ("RR@10", "rr@10"), ("P@1", "p@1"), ("AP", "ap"), ("Judged@3", "judged@3"),
    ("RBP(p=0.8)", "rbp"), ("Bpref", "bpref"), ("nDCG@3", "ndcg@3"),
])
def test_ir_measures_names_parse_to_their_meaning(ir_measures, ragnb):
    assert str(parse_metric(ir_measures)) == ragnb


@pytest.mark.parametrize("given, level, expected", [
    ("P_10", 2, "p@10(rel=2)"), ("map", 2, "ap(rel=2)"), ("infAP", 2, "infap(rel=2)"),
    ("p@10(rel=1)", 2, "p@10"),                 # a metric that names its level keeps it
    ("ndcg_cut_10", 2, "ndcg_linear@10"),       # graded: no relevance level
    ("P_10", 1, "p@10"),
])
def test_relevance_level_reaches_every_binary_measure(given, level, expected):
    assert str(parse_metric(with_relevance_level(given, level))) == expected


def test_relevance_level_changes_the_value_as_trec_eval_l():
    # grade >= 2 is relevant: only d2 (rank 2) -> P@2 = 1/2, RR = 1/2
    assert _value(with_relevance_level("P_2", 2)) == pytest.approx(0.5)
    assert _value(with_relevance_level("recip_rank", 2)) == pytest.approx(0.5)
    assert _value("recip_rank") == pytest.approx(1.0)
    assert with_gain("nDCG@10", "exp") == "nDCG@10"


def test_trec_evals_dotted_name_is_answered_with_ours():
    from ragnb.errors import InputError

    with pytest.raises(InputError, match=r"-m ndcg_cut\.10 is written ndcg_cut_10 here"):
        parse_metric("ndcg_cut.10")
