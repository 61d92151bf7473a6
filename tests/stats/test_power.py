"""MDE and queries needed, against normal/t theory and seed 000."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.stats import mde, queries_needed, se_from_interval


def paired_t_power(n, delta, sd, alpha=0.05):
    """Exact power of the two-sided paired t-test, from the noncentral t distribution."""
    df, nc = n - 1, delta / sd * math.sqrt(n)
    crit = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc)


def test_mde_multiplier_is_z975_plus_z80():
    assert mde(1.0) == pytest.approx(1.959964 + 0.841621, abs=1e-6)
    assert mde(0.01, alpha=0.01, power=0.9) == pytest.approx((2.575829 + 1.281552) * 0.01, abs=1e-8)


@pytest.mark.parametrize("sd, delta", [(0.1, 0.02), (0.25, 0.1), (0.2, 0.15), (0.1, 0.014)])
def test_queries_needed_reaches_the_power_by_the_exact_t_test(sd, delta):
    """The iterated t formula is an approximation; the exact noncentral-t power at the
    returned n must be about 0.80 and the normal formula alone must not be larger."""
    n = queries_needed(sd, delta)
    assert paired_t_power(n, delta, sd) == pytest.approx(0.80, abs=0.01)
    assert n >= math.ceil(((1.959964 + 0.841621) * sd / delta) ** 2)


def test_queries_needed_edge_cases():
    assert queries_needed(0.1, 0.0) == math.inf
    assert queries_needed(0.0, 0.01) == 2
    assert queries_needed(0.1, -0.02) == queries_needed(0.1, 0.02)
    with pytest.raises(InputError, match="`alpha` must be between 0 and 1"):
        queries_needed(0.1, 0.02, alpha=5)
    with pytest.raises(InputError, match="`sd_diff` must be >= 0"):
        queries_needed(-0.1, 0.02)


def test_seed000_118_queries_cannot_resolve_a_gain_of_1_4_points():
    """Seed 000: +1.4 points, 95% interval (-0.4, +3.2), 118 in-scope queries.

    By hand: SE = 3.6 / (2 x 1.96) = 0.918 points; sd of the per-query differences
    = 0.918 x sqrt(118) = 9.97 points; MDE(118) = 2.80 x 0.918 = 2.57 points > 1.4;
    n = (2.80 x 9.97 / 1.4)^2 = 398 by the normal formula, a few more with t."""
    se = se_from_interval(-0.4, 3.2)
    assert se == pytest.approx(0.918, abs=0.001)
    sd = se * math.sqrt(118)
    assert sd == pytest.approx(9.97, abs=0.01)
    assert mde(se) == pytest.approx(2.57, abs=0.01)
    assert mde(se) > 1.4
    n = queries_needed(sd, 1.4)
    assert 398 <= n <= 405
    assert n > 3 * 118
    assert paired_t_power(118, 1.4, sd) < 0.4  # what 118 queries actually buy


def test_a_target_indistinguishable_from_zero_needs_infinitely_many_queries():
    # float noise of exact ties (p@5's +-0.2 cancelling) must not overflow
    assert queries_needed(0.1, 1e-17) == float("inf")
    assert queries_needed(0.1, 1e-18) == float("inf")


def test_differences_that_cancel_on_paper_have_a_zero_delta():
    import numpy as np
    import pandas as pd

    from ragnb.stats import paired_bootstrap, stratified_bootstrap

    base = pd.Series([0.4, 0.8] * 3, index=[f"q{i}" for i in range(6)])
    chal = pd.Series([0.6, 0.6] * 3, index=base.index)
    assert (chal - base).mean() != 0                 # float noise, not zero
    r = paired_bootstrap(base, chal, resamples=500)
    assert r.delta == 0.0 and r.queries_needed(r.delta) == float("inf")
    s = stratified_bootstrap(base, chal, pd.Series("a", index=base.index), resamples=500)
    assert (s.table["delta"] == 0.0).all() and np.isinf(s.table["queries_needed"]).all()
