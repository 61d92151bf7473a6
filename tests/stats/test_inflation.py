"""Expected maximum of N normals and selection inflation (seed 000 figures)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.stats import expected_max_normal, implied_se, selection_inflation


def test_closed_forms_for_two_and_three():
    """E[max of 2] = 1/sqrt(pi); E[max of 3] = 3/(2 sqrt(pi)) (Harter 1961)."""
    assert expected_max_normal(1) == 0.0
    assert expected_max_normal(2) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-10)
    assert expected_max_normal(3) == pytest.approx(1.5 / math.sqrt(math.pi), abs=1e-10)


@pytest.mark.parametrize(
    "n, expected",
    [(5, 1.16296), (10, 1.53875), (20, 1.86748), (40, 2.16078), (100, 2.50759), (1000, 3.24144)],
)
def test_harter_table_values(n, expected):
    """Harter (1961), Table 1; STATS-REFERENCES quotes 1.54, 1.87, 2.16, 2.51."""
    assert expected_max_normal(n) == pytest.approx(expected, abs=5e-5)


def test_n_360_matches_a_simulation_and_is_not_the_loose_bound():
    rng = np.random.default_rng(0)
    sim = rng.standard_normal((20_000, 360)).max(axis=1)
    assert expected_max_normal(360) == pytest.approx(2.94, abs=0.005)
    assert abs(expected_max_normal(360) - sim.mean()) < 4 * sim.std() / math.sqrt(sim.size)
    assert math.sqrt(2 * math.log(40)) == pytest.approx(2.72, abs=0.005)
    assert expected_max_normal(40) < math.sqrt(2 * math.log(40)) - 0.5


@pytest.mark.parametrize("n, within", [(10, 0.01), (40, 0.01), (100, 0.01), (360, 0.02), (5, 0.02)])
def test_blom_approximation_is_close(n, within):
    """STATS-REFERENCES: Blom's Phi^-1((N - .375)/(N + .25)) is within 0.01; that holds
    for 10 <= N <= 100 and drifts to 0.013 at N = 360 and 0.017 at N = 5."""
    blom = stats.norm.ppf((n - 0.375) / (n + 0.25))
    assert abs(expected_max_normal(n) - blom) < within


def test_seed000_forty_rounds_inflate_by_about_a_point_and_a_half():
    """40 rounds at a paired SE of 0.0069: 2.16 x 0.0069 = 0.0149, 'a little over two'
    standard errors, about 1.5 points; the observed +9 is 0.09 / 0.0069 = 13 SE."""
    inflation = selection_inflation(40, 0.0069)
    assert inflation == pytest.approx(0.0149, abs=0.0001)
    assert round(inflation * 100, 1) == 1.5
    assert 2 < inflation / 0.0069 < 2.5
    assert 0.09 / 0.0069 > 12
    assert 0.09 - inflation > 0.07  # luck explains at most a sixth of the +9


def test_seed000_360_configurations_on_500_queries():
    """Chapter 4 (seed 000): 360 configurations on 500 queries manufacture about 1.6
    points. E[max of 360] = 2.94, so the implied SE is 0.016 / 2.94 = 0.0054, i.e. a
    per-query SD of 0.0054 x sqrt(500) = 0.12."""
    se = implied_se(0.016, 360)
    assert se == pytest.approx(0.00545, abs=0.00005)
    assert se * math.sqrt(500) == pytest.approx(0.122, abs=0.001)
    assert selection_inflation(360, se) == pytest.approx(0.016)


def test_bad_arguments():
    with pytest.raises(InputError, match="`n` must be a positive integer"):
        expected_max_normal(0)
    with pytest.raises(InputError, match="`se` must be >= 0"):
        selection_inflation(10, -1.0)
