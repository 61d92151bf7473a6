"""Holm adjustment and the several-challengers comparison table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.stats import compare, holm, paired_bootstrap
from ragnb.stats._resample import comparison_seed


def test_holm_hand_worked_example():
    """m = 4, sorted p = .005, .01, .03, .04:
    4 x .005 = .02; 3 x .01 = .03; 2 x .03 = .06; 1 x .04 = .04 -> max(.06, .04) = .06."""
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_is_capped_at_one_and_skips_nan():
    assert holm([0.5, 0.6]).tolist() == [1.0, 1.0]
    out = holm(pd.Series([0.02, np.nan, 0.04], index=["a", "b", "c"]))
    assert out.index.tolist() == ["a", "b", "c"]
    assert np.isnan(out["b"]) and out[["a", "c"]].tolist() == pytest.approx([0.04, 0.04])


def test_holm_is_monotone_in_the_raw_p_values():
    p = np.random.default_rng(0).random(50) ** 3
    adj = holm(p)
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0)
    assert np.all(adj >= p) and np.all(adj <= 1)


def test_holm_rejects_values_outside_zero_one():
    with pytest.raises(InputError, match=r"p-values must lie in \[0, 1\]"):
        holm([0.1, 1.2])


def score_table(seed=0, n=120):
    rng = np.random.default_rng(seed)
    base = rng.beta(2, 3, n)
    gains = {"january": 0.0, "champion": 0.05, "inert": 0.0, "worse": -0.03}
    rows = []
    for config, gain in gains.items():
        values = base if config == "january" else np.clip(base + gain + rng.normal(0, 0.1, n), 0, 1)
        rows.append(pd.DataFrame({"config": config, "query_id": [f"q{i}" for i in range(n)],
                                  "metric": "ndcg@10", "value": values}))  # fmt: skip
        rows.append(pd.DataFrame({"config": config, "query_id": [f"q{i}" for i in range(n)],
                                  "metric": "rr@10", "value": rng.random(n)}))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def test_compare_rows_reproduce_with_the_row_seed_and_holm_is_applied():
    scores = score_table()
    table = compare(scores, baseline="january", metric="ndcg@10", resamples=2_000)
    assert list(table["challenger"]) == ["champion", "inert", "worse"]
    assert (table["p_holm"] >= table["p_value"]).all()
    assert table["p_holm"].tolist() == pytest.approx(holm(table["p_value"].to_numpy()).tolist())
    assert set(table["holm_family"]) == {"Holm over 3 tests: 3 challenger(s) vs january"}
    wide = scores[scores["metric"] == "ndcg@10"].pivot(
        index="query_id", columns="config", values="value"
    )
    for _, row in table.iterrows():
        assert row["seed"] == comparison_seed(20260729, wide["january"], wide[row["challenger"]])
        r = paired_bootstrap(
            wide["january"], wide[row["challenger"]], resamples=2_000, seed=row["seed"]
        )
        assert (r.delta, r.ci_low, r.ci_high, r.p_value) == (
            row["delta"], row["ci_low"], row["ci_high"], row["p_value"])  # fmt: skip
    assert {"method", "ci", "resamples", "n", "seed", "mde", "queries_needed"} <= set(table.columns)
    assert table["method"].unique().tolist() == ["calibrated t"]


def test_a_challenger_row_does_not_depend_on_the_other_challengers():
    scores = score_table()
    all3 = compare(scores, baseline="january", metric="ndcg@10", resamples=500).set_index(
        "challenger"
    )
    one = compare(
        scores, baseline="january", challengers=["worse"], metric="ndcg@10", resamples=500
    )
    assert one.iloc[0]["ci_low"] == all3.loc["worse", "ci_low"]
    assert one.iloc[0]["p_holm"] == one.iloc[0]["p_value"]  # a family of one


def test_compare_with_strata_has_challenger_x_stratum_rows():
    scores = score_table()
    strata = pd.Series(np.where(np.arange(120) < 80, "in_scope", "follow_up"),
                       index=[f"q{i}" for i in range(120)])  # fmt: skip
    table = compare(scores, baseline="january", metric="ndcg@10", strata=strata, resamples=500)
    assert len(table) == 3 * 3
    assert table.groupby("challenger")["stratum"].apply(list).tolist() == [
        ["in_scope", "follow_up", "pooled"]] * 3  # fmt: skip
    assert set(table["holm_family"]) == {
        "Holm over 9 tests: 3 challenger(s) vs january x 3 rows (2 strata + pooled)"}  # fmt: skip
    checks = pd.DataFrame(table.attrs["checks"])
    assert set(checks["challenger"]) == {"champion", "inert", "worse"}
    assert checks.loc[checks["check"] == "stratum sizes add up", "holds"].all()
    both = pd.concat([table, table])  # plain-data attrs survive concatenation
    assert len(both) == 18


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"metric": "ndcg@5"}, r"metric 'ndcg@5' is not in the score table \(has ndcg@10, rr@10\)"),
        (
            {"metric": "ndcg@10", "challengers": ["nope"]},
            r"config\(s\) 'nope' have no ndcg@10 scores",
        ),
        ({"metric": "ndcg@10", "challengers": ["january"]}, r"at least one challenger other than"),
    ],
)
def test_compare_errors_name_the_problem(kwargs, message):
    with pytest.raises(InputError, match=message):
        compare(score_table(), baseline="january", resamples=10, **kwargs)


def test_compare_refuses_a_table_with_two_splits():
    scores = score_table()
    doubled = pd.concat([scores.assign(split="golden"), scores.assign(split="production")])
    with pytest.raises(InputError, match=r"scored more than once for ndcg@10: .*filter the table"):
        compare(doubled, baseline="january", metric="ndcg@10", resamples=10)


def test_the_pooled_row_with_strata_prints_the_unstratified_numbers():
    """Issue 11 (same comparison, same numbers): the calibrated interval is computed
    from all the differences and the sign-flip p from the comparison's one seed, so
    stratifying the table changes no pooled figure."""
    scores = score_table()
    strata = pd.Series(np.where(np.arange(120) < 80, "in_scope", "follow_up"),
                       index=[f"q{i}" for i in range(120)])  # fmt: skip
    plain = compare(scores, baseline="january", metric="ndcg@10", resamples=500)
    by = compare(scores, baseline="january", metric="ndcg@10", strata=strata, resamples=500)
    pooled = by[by["stratum"] == "pooled"].set_index("challenger")
    cols = ["n", "delta", "ci_low", "ci_high", "se", "mde", "p_value", "seed"]
    for _, row in plain.iterrows():
        assert row[cols].tolist() == pooled.loc[row["challenger"], cols].tolist()
