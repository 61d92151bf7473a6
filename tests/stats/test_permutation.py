"""Sign-flip randomization test: exact enumeration, Monte Carlo, many pairs, ranx."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.stats import sign_flip_test


def brute_force_p(d):
    """Enumerate all 2^n sign vectors (independent of the code's distinct-value shortcut)."""
    observed = abs(sum(d))
    hits = sum(
        abs(np.dot(s, d)) >= observed - 1e-12 for s in itertools.product((1, -1), repeat=len(d))
    )
    return hits / 2 ** len(d)


@pytest.mark.parametrize(
    "d",
    [
        [0.1, 0.1, 0.1],
        [0.1, -0.2, 0.3, 0.1, 0.0, 0.5, -0.1, 0.2],
        [
            1 / 2 - 1,
            1 / 3 - 1 / 2,
            0,
            0,
            1 - 1 / 4,
            1 / 2 - 1,
            1 - 1 / 2,
            1 / 3,
            1 / 3,
            -1 / 3,
            0.5,
        ],
    ],
)
def test_exact_path_equals_brute_force_enumeration(d):
    r = sign_flip_test(d)
    assert r.method == "exact"
    assert r.p_value == pytest.approx(brute_force_p(d), abs=1e-12)


def test_all_zero_differences_give_p_one():
    r = sign_flip_test(np.zeros(500))
    assert (r.p_value, r.method, r.delta) == (1.0, "exact", 0.0)


def test_monte_carlo_agrees_with_exact_within_binomial_error():
    d = np.random.default_rng(1).normal(0.05, 0.2, 16)  # 2^16 atoms: exact by default
    exact = sign_flip_test(d).p_value
    mc = sign_flip_test(d, exact_limit=1, permutations=40_000)
    assert mc.method == "monte carlo"
    assert abs(mc.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 40_000) + 1 / 40_001


def test_monte_carlo_p_is_never_zero():
    r = sign_flip_test(np.full(200, 0.3) + np.linspace(0, 0.01, 200), permutations=999)
    assert r.method == "monte carlo"
    assert r.p_value == pytest.approx(1 / 1000)


def test_many_pairs_at_once_equal_one_pair_at_a_time():
    """Every pair sees the same sign vectors, so batching changes nothing."""
    rng = np.random.default_rng(2)
    d = rng.normal(0.01, 0.2, (6, 300))
    batch = sign_flip_test(d, permutations=3_000, seed=9)
    single = [sign_flip_test(row, permutations=3_000, seed=9).p_value for row in d]
    assert batch.p_value.tolist() == single
    assert batch.delta == pytest.approx(d.mean(axis=1))


def test_dataframe_columns_name_the_pairs():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(0, 0.1, (100, 2)), columns=["b-a", "c-a"])
    out = sign_flip_test(frame, permutations=500).to_frame()
    assert out["pair"].tolist() == ["b-a", "c-a"]
    assert {"n", "delta", "p_value", "method", "permutations", "seed"} <= set(out.columns)


def test_nan_is_an_error_naming_the_query():
    frame = pd.DataFrame({"b-a": [0.1, np.nan, 0.2]}, index=["q1", "q2", "q3"])
    with pytest.raises(InputError, match=r"missing difference: q2"):
        sign_flip_test(frame)


def test_fixed_seed_reproduces():
    d = np.random.default_rng(4).normal(0, 0.2, 300)
    assert sign_flip_test(d, seed=1).p_value == sign_flip_test(d, seed=1).p_value
    assert sign_flip_test(d, seed=1).p_value != sign_flip_test(d, seed=2).p_value


def test_agrees_with_ranx_fisher_randomization_within_monte_carlo_error():
    ranx_fisher = pytest.importorskip("ranx.statistical_tests").fisher_randomization_test
    rng = np.random.default_rng(5)
    control = rng.beta(2, 3, 300)
    treatment = np.clip(control + rng.normal(0.015, 0.15, 300), 0, 1)
    theirs, _ = ranx_fisher(control, treatment, 20_000, 0.01, 42)
    ours = sign_flip_test(treatment - control, permutations=20_000).p_value
    assert 0.01 < theirs < 0.5
    assert abs(ours - theirs) < 4 * np.sqrt(2 * theirs * (1 - theirs) / 20_000) + 1e-4


def test_subset_sum_table_equals_the_direct_sign_sum(monkeypatch):
    """The 256-entry subset-sum tables and plainly unpacked sign bits see the same
    random bytes, so they must count the same extreme permutations."""
    from ragnb.stats import permutation

    d = np.random.default_rng(6).normal(0.01, 0.2, 1_003)  # not a multiple of 8
    with_table = sign_flip_test(d, permutations=5_000).p_value
    monkeypatch.setattr(permutation, "TABLE_BUDGET", 0)
    assert sign_flip_test(d, permutations=5_000).p_value == with_table
