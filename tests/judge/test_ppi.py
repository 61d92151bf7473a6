"""PPI++: the estimator equals its formula, is people only when the judge says nothing,
exact when the judge is right, and its 95% intervals cover about 95% (theory, by simulation).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.judge.ppi import SHRINK, ppi_mean, t_mean


def test_the_estimate_and_its_variance_follow_the_formula():
    rng = np.random.default_rng(1)
    y = rng.normal(0.5, 0.2, 30)
    fl = y + rng.normal(0.1, 0.1, 30)
    fu = rng.normal(0.6, 0.22, 200)
    out = ppi_mean(y, fl, fu)
    n, m = 30, 200
    c = np.cov(y, fl)[0, 1]
    lam = (c / n) / (fu.var(ddof=1) / m + fl.var(ddof=1) / n) * n / (n + SHRINK)
    est = lam * fu.mean() + (y - lam * fl).mean()
    a, b = lam**2 * fu.var(ddof=1) / m, (y - lam * fl).var(ddof=2) / n
    df = (a + b) ** 2 / (a**2 / (m - 1) + b**2 / (n - 2))
    half = stats.t.ppf(0.975, df) * np.sqrt(a + b)
    assert out["lam"] == pytest.approx(lam)
    assert (out["estimate"], out["low"], out["high"]) == (
        pytest.approx(est), pytest.approx(est - half), pytest.approx(est + half))
    plain = ppi_mean(y, fl, fu, tuned=False)  # lambda = 1: the judge's mean, rectified
    assert plain["estimate"] == pytest.approx(fu.mean() + (y - fl).mean())


def test_a_judge_that_says_nothing_leaves_people_only():
    rng = np.random.default_rng(2)
    y = rng.normal(0.4, 0.2, 40)
    out = ppi_mean(y, np.full(40, 0.3), np.full(100, 0.3))
    people = t_mean(y)
    assert out["lam"] == 0 and out["estimate"] == pytest.approx(people["estimate"])


def test_too_few_people_labels_is_an_error():
    with pytest.raises(InputError, match="at least 3 people-labelled"):
        ppi_mean([0.1, 0.2], [0.1, 0.2], [0.3, 0.4, 0.5])


@pytest.mark.parametrize("n, m", [(10, 200), (50, 500)])
def test_coverage_of_a_biased_judge_is_about_95_percent(n, m):
    """A judge biased by +0.15 and noisy: PPI++ covers the true mean at 93-97% over 2,000
    draws (binomial 2 SD band about 1%), while the judge alone almost never does.
    """
    rng = np.random.default_rng(20261206 + n)
    hits = judge_hits = 0
    draws = 2000
    for _ in range(draws):
        y_all = rng.beta(2, 3, n + m)                 # true mean 0.4
        f_all = np.clip(y_all + 0.15 + rng.normal(0, 0.15, n + m), 0, 1)
        out = ppi_mean(y_all[:n], f_all[:n], f_all[n:])
        hits += out["low"] <= 0.4 <= out["high"]
        j = t_mean(f_all)
        judge_hits += j["low"] <= 0.4 <= j["high"]
    assert 0.93 <= hits / draws <= 0.97
    assert judge_hits / draws < 0.05
