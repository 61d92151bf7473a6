"""Expected maximum of N normals and the one selection-inflation formula, checked by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.stats import expected_max_normal, implied_se, selection_inflation
from ragnb.stats.inflation import selection_optimism, split_inflation


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


@pytest.mark.parametrize("n", [2, 4, 7, 41, 360, 5_000, 10**6])
def test_the_trapezoid_rule_agrees_with_adaptive_quadrature(n):
    """The same integral by scipy.integrate.quad (adaptive Gauss-Kronrod), the reference."""
    from scipy import integrate

    def integrand(x):
        return x * n * stats.norm.pdf(x) * stats.norm.cdf(x) ** (n - 1)

    centre = stats.norm.ppf((n - 0.375) / (n + 0.25))
    reference, _ = integrate.quad(integrand, centre - 12, centre + 12, points=[centre],
                                  epsabs=1e-13, limit=200)
    assert expected_max_normal(n) == pytest.approx(reference, abs=1e-9)


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


def test_forty_rounds_at_the_paired_se_of_0_0069_inflate_by_about_1_05_points():
    """SPEC sec. 4: per-config noise is the paired SE / sqrt(2), so 40 rounds at a
    paired SE of 0.0069 give 2.16 x 0.0069 / 1.414 = 0.0105 (not 2.16 x 0.0069 = 1.5
    points, which overstates by sqrt(2))."""
    inflation = selection_inflation(40, 0.0069)
    assert inflation == pytest.approx(2.16078 * 0.0069 / math.sqrt(2), rel=1e-4)
    assert round(inflation * 100, 2) == 1.05
    assert selection_inflation(0, 0.0069) == 0.0


def test_implied_se_inverts_the_formula():
    se = implied_se(0.016, 360)
    assert se == pytest.approx(0.016 * math.sqrt(2) / 2.94, rel=0.005)
    assert selection_inflation(360, se) == pytest.approx(0.016)


# --- validated by simulation ----------------------------------------------------------------


def equal_configs(rng, n, candidates, sigma=0.1):
    """Per-query scores: a shared query difficulty plus independent (exchangeable)
    per-config noise of SD sigma; every config's true mean is the mean difficulty."""
    difficulty = rng.normal(0.5, 0.2, (n, 1))
    return difficulty, difficulty + rng.normal(0, sigma, (n, candidates))


def test_best_of_ten_equal_configs_is_ahead_by_the_formula():
    """1,000 data sets of 10 equal configs on 200 queries. The winner's mean minus
    its true mean (the mean difficulty of the sampled queries) averages
    E[M_10] sigma / sqrt(n) = 1.539 x 0.1 / sqrt(200) = 0.01088; the paired SE is
    0.1 sqrt(2 / 200), so the formula gives exactly that from it. The excess has SD
    about 0.6 sigma / sqrt(n) = 0.0042, so its mean over 1,000 sets has SD 0.00013:
    4 SD is 0.0005, while the old paired-SE formula (0.0154) is 35 SD away."""
    rng = np.random.default_rng(11)
    excess = []
    for _ in range(1_000):
        difficulty, x = equal_configs(rng, 200, 10)
        excess.append(x.mean(axis=0).max() - difficulty.mean())
    formula = selection_inflation(10, 0.1 * math.sqrt(2 / 200))
    assert formula == pytest.approx(expected_max_normal(10) * 0.1 / math.sqrt(200))
    assert abs(np.mean(excess) - formula) < 0.0005
    assert abs(np.mean(excess) - expected_max_normal(10) * 0.1 * math.sqrt(2 / 200)) > 0.004


def test_keep_the_winner_for_forty_rounds_retains_the_running_maximum():
    """Issue 11: forty rounds of keep-the-winner retain about 1.51 paired SE, not
    2.16. The retained score is the best of the 41 configs seen: E[M_41] / sqrt(2) =
    1.535 paired SE. 4,000 runs of 41 configs; the retained excess in paired-SE units
    has SD about 0.42, so its mean has SD 0.007 and 0.03 is > 4 SD."""
    rng = np.random.default_rng(12)
    se_config = 0.1 / math.sqrt(200)
    paired = se_config * math.sqrt(2)
    retained = []
    for _ in range(4_000):
        scores = rng.normal(0, se_config, 41)
        champion = scores[0]
        for challenger in scores[1:]:
            if challenger > champion:  # keep the winner of each round  # noqa: PLR1730
                champion = challenger
        retained.append(champion / paired)
    assert np.mean(retained) == pytest.approx(selection_inflation(41, paired) / paired, abs=0.03)
    assert selection_inflation(41, paired) / paired == pytest.approx(1.535, abs=0.001)
    assert np.mean(retained) < 2.16 - 0.5


@pytest.mark.parametrize(
    "ahead, truth_points, within",
    [(None, 1.10, 0.15), (3.0, 0.04, 0.30), ("spread", 0.87, 0.15)],
    ids=["all-equal", "one-ahead-by-3-SE", "spread-over-2-SE"],
)
def test_bootstrapped_selection_optimism_tracks_the_true_optimism(ahead, truth_points, within):
    """10 candidates on 200 queries, 120 data sets, 200 resamples each. The true
    optimism is the winner's mean minus its true mean; the data-driven estimate
    must be within ``within`` points of the simulated truth (its mean over 200 sets
    has SD about 0.04 points), and where one candidate is truly ahead it must fall
    far below the formula (which assumes all equal: 1.09 points)."""
    rng = np.random.default_rng(13)
    n, k, sigma = 200, 10, 0.1
    paired = sigma * math.sqrt(2 / n)
    mu = np.zeros(k)
    if ahead == "spread":
        mu = np.linspace(0, 2 * paired, k)
    elif ahead is not None:
        mu[0] = ahead * paired
    truth, estimate = [], []
    for i in range(120):
        difficulty, x = equal_configs(rng, n, k, sigma)
        x = x + mu
        m = x.mean(axis=0)
        w = int(np.argmax(m))
        truth.append(m[w] - difficulty.mean() - mu[w])
        estimate.append(selection_optimism(x, resamples=200, seed=i))
    assert np.mean(truth) * 100 == pytest.approx(truth_points, abs=0.1)  # the scenario
    assert abs(np.mean(estimate) - np.mean(truth)) * 100 < within
    if ahead == 3.0:
        assert np.mean(estimate) < 0.4 * selection_inflation(k, paired)


def test_selection_optimism_is_reproducible_and_checks_its_input():
    x = np.random.default_rng(1).normal(size=(50, 4))
    assert selection_optimism(x, seed=3) == selection_optimism(x, seed=3)
    with pytest.raises(InputError, match=">= 2 candidates"):
        selection_optimism(x[:, :1])


def test_split_inflation_reads_the_same_sentence_everywhere():
    r = split_inflation("golden", 40, 0.0069, "calibrated SE of the paired difference b − a")
    assert r.points == pytest.approx(1.0543, abs=1e-4)
    assert r.describe() == (
        "selection inflation on golden: 1.05 points = E[max of 40 standard normals] 2.16 × "
        "per-config noise 0.49 points (paired SE 0.69 points / √2; configs' noise assumed "
        "exchangeable: per-config noise = paired SE / √2; SE: calibrated SE of the paired "
        "difference b − a)")


def test_bad_arguments():
    with pytest.raises(InputError, match="`n` must be a positive integer"):
        expected_max_normal(0)
    with pytest.raises(InputError, match="`paired_se` must be >= 0"):
        selection_inflation(10, -1.0)
