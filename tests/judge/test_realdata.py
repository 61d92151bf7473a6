"""PPI++ on real runs and real judges' errors (the CI-sized cut of benchmarks/sim_judge.py).

Judges' errors follow confusion matrices measured on LLMJudge 2024; the runs and people's
labels are TREC CAsT 2021's. Seeds are fixed, so every figure below is reproducible;
the bands allow the Monte Carlo error of the draws (2 SD ≈ 1.4% at 1,000 draws).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from ragnb.paths import PROJ_ROOT

sys.path.insert(0, str(PROJ_ROOT / "benchmarks"))
import sim_judge as S  # noqa: E402


@pytest.fixture(scope="module")
def cast(real_data):
    confs = S.confusions(real_data)
    ts, runs, base, chal = S.collection("cast", real_data)
    return confs, ts, runs, base, chal


@pytest.mark.parametrize("judge, boost", [("good (willia-umbrela1)", False),
                                          ("poor (TREMA-nuggets)", False),
                                          ("good (willia-umbrela1)", True)])
def test_coverage_at_10_and_50_people_judged_queries(cast, judge, boost):
    confs, ts, runs, base, chal = cast
    rng = np.random.default_rng(S.SEED)
    y, f = S.populations(ts, runs, base, chal, confs[judge][0], rng=rng, draws=6,
                         boost={chal: 0.4} if boost else None)
    table = S.table_coverage({("cast", judge): (y, f, confs[judge][1])}, 1000,
                             [(10, 200), (50, 500)])
    assert table["PPI++"].between(0.925, 0.975).all(), table
    # the judge alone is biased: its interval of a run's mean misses people's almost always
    # (a difference's bias can cancel: the favouring judge's covers 87% here, by luck)
    means = table[table["estimand"] == "run mean"]
    assert (means["judge only (biased)"] < 0.05).all(), table
    # never wider than people only beyond a percent; narrower where the judge is good
    assert (table["PPI++ / people width"] < 1.015).all()
    if confs[judge][1] >= 0.4:
        assert (table["PPI++ / people width"] < 0.95).all()


def test_hidden_labels_filled_by_a_judge(cast):
    confs, ts, runs, base, chal = cast
    row = S.table_hides("cast", ts, runs, base, chal, confs["good (willia-umbrela1)"][0],
                        hides=30)
    assert row["PPI++"] >= 0.9 and row["PPI refused"] <= 2
    assert row["judge only (biased)"] <= 0.2
