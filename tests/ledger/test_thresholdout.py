"""Thresholdout: seeded, budget spent only on large gaps, noise as stated."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from ragnb.errors import InputError, PolicyError
from ragnb.ledger import Ledger
from ragnb.ledger.thresholdout import Thresholdout, ThresholdoutParams, thresholdout_answer

T, SIGMA = 0.04, 0.01


def _p_spend(gap: float) -> float:
    """P(|gap| > T + gamma + eta), gamma ~ Lap(2 sigma), eta ~ Lap(4 sigma): by integration."""
    g, e = stats.laplace(scale=2 * SIGMA), stats.laplace(scale=4 * SIGMA)
    value, _ = integrate.quad(lambda x: g.pdf(x) * e.cdf(abs(gap) - T - x), -1, 1,
                              points=[0.0], limit=200)
    return value


@pytest.mark.parametrize("gap", [0.0, 0.03, 0.06, 0.12])
def test_probability_of_spending_matches_the_mechanism(gap):
    n = 4000
    spent = sum(
        thresholdout_answer(0.5, 0.5 + gap, ThresholdoutParams(budget=1, seed=s),
                            spent=0, index=0).from_holdout
        for s in range(n))
    p = _p_spend(gap)
    assert stats.binomtest(spent, n, p).pvalue > 1e-3


def test_budget_is_spent_on_large_gaps_not_small_ones():
    # the figures quoted in the module docstring, at the default T and sigma
    assert [round(_p_spend(g), 2) for g in (0.0, 0.04, 0.12, 0.2)] == [0.22, 0.5, 0.91, 0.99]
    t = Thresholdout(ThresholdoutParams(budget=1000, seed=3))
    small = [t.query([0.5] * 50, [0.5] * 50).from_holdout for _ in range(300)]
    large = [t.query([0.9] * 50, [0.5] * 50).from_holdout for _ in range(300)]
    assert sum(small) < 0.35 * 300 and sum(large) > 0.99 * 300
    assert t.spent == sum(small) + sum(large)


def test_working_answers_are_exact_and_holdout_answers_carry_laplace_noise():
    t = Thresholdout(ThresholdoutParams(budget=5000, seed=8))
    working, holdout = np.full(20, 0.7), np.full(20, 0.3)
    noise = []
    for _ in range(3000):
        a = t.query(working, holdout)
        if a.from_holdout:
            noise.append(a.value - 0.3)
        else:
            assert a.value == 0.7
    assert len(noise) > 2900
    # the stated noise: xi ~ Laplace(0, sigma)
    assert stats.kstest(noise, stats.laplace(scale=SIGMA).cdf).pvalue > 1e-3
    assert stats.kstest(noise, stats.laplace(scale=2 * SIGMA).cdf).pvalue < 1e-6


def test_same_seed_same_answers_other_seed_other_answers():
    rng = np.random.default_rng(0)
    queries = [(rng.uniform(0.3, 0.7, 30), rng.uniform(0.3, 0.7, 30)) for _ in range(40)]

    def answers(seed):
        t = Thresholdout(ThresholdoutParams(budget=100, seed=seed))
        return [t.query(w, h) for w, h in queries]

    assert answers(5) == answers(5)
    assert answers(5) != answers(6)


def test_budget_runs_out():
    t = Thresholdout(ThresholdoutParams(budget=3, seed=1))
    for _ in range(3):
        assert t.query([1.0] * 5, [0.0] * 5).from_holdout  # a 100-point gap always spends
    with pytest.raises(PolicyError, match="budget of 3 answers"):
        t.query([1.0] * 5, [0.0] * 5)


def test_ledger_replays_the_same_answers_as_the_notebook_object(tmp_path, qrels):
    params = ThresholdoutParams(budget=4, seed=21)
    led = Ledger(tmp_path / "l")
    led.register("prod", qrels, role="confirmation", reusable_holdout=params)
    t = Thresholdout(params)
    rng = np.random.default_rng(1)
    for k in range(12):
        w, h = rng.uniform(0, 1, 25), rng.uniform(0, 1, 25)
        if t.spent == params.budget:
            break
        assert led.holdout_query("prod", f"c{k}", w, h) == t.query(w, h)


@pytest.mark.parametrize("bad", [[], [[0.5]], [0.5, 1.2], [0.5, float("nan")]])
def test_scores_must_be_per_query_values_in_unit_interval(bad):
    with pytest.raises(InputError, match="working_scores"):
        Thresholdout(ThresholdoutParams(budget=1, seed=0)).query(bad, [0.5])
