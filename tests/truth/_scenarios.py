"""Simulated data with known truth for every branch of the headline rules (issue 23).

Each scenario draws per-query scores of a baseline and a challenger in ``[0, 1]``
whose true per-stratum gains are set; :func:`wrong_strata` says whether a
headline's claims are false against that truth. ``benchmarks/truth_table.py``
prints the full table (more draws); the tests run fewer, with a binomial band
(:func:`allowed_wrong`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

#: Per-query noise of a config's score around the query's difficulty (SD).
NOISE = 0.12
#: Null with 19 small strata (CAsT 2021's conversations: 3-11 turns each).
CAST_SIZES = (3, 4, 5, 5, 6, 6, 7, 7, 8, 8, 8, 9, 9, 10, 10, 11, 11, 11, 5)

#: name -> (stratum sizes, true gain per stratum); points are 0.01.
STRATA_SCENARIOS = {
    "null, 19 small strata": (CAST_SIZES, (0.0,) * len(CAST_SIZES)),
    "one stratum gains": ((40, 40, 40, 40), (0.15, 0.0, 0.0, 0.0)),
    "equal gains everywhere": ((40, 40, 40, 40), (0.08,) * 4),
    "two strata differ": ((60, 60), (0.14, 0.0)),
    "equal large gains, two strata": ((60, 60), (0.14, 0.14)),
    "equal large losses, two strata": ((60, 60), (-0.14, -0.14)),
}


def allowed_wrong(draws: int, rate: float = 0.05, risk: float = 0.005) -> int:
    """Most wrong draws a rule whose true error rate is ``rate`` shows with prob. ``1-risk``."""
    return int(stats.binom.ppf(1 - risk, draws, rate))


def strata_draw(rng: np.random.Generator, sizes, gains) -> tuple[pd.DataFrame, pd.Series]:
    """Tidy scores ``config, query_id, value`` and the strata ``query_id -> stratum``.

    A query's difficulty is Beta(2, 2); each config adds its own noise (SD
    :data:`NOISE`), the challenger its stratum's gain; scores are clipped to [0, 1]
    (so differences are bounded and, near the ends, skewed, as real ones are).
    """
    labels = np.repeat([f"s{h}" for h in range(len(sizes))], sizes)
    gain = np.repeat(np.asarray(gains, dtype=float), sizes)
    n = labels.size
    difficulty = rng.beta(2, 2, n)
    base = np.clip(difficulty + rng.normal(0, NOISE, n), 0, 1)
    chal = np.clip(difficulty + gain + rng.normal(0, NOISE, n), 0, 1)
    ids = [f"q{i}" for i in range(n)]
    scores = pd.DataFrame({"config": np.repeat(["base", "chal"], n), "query_id": ids * 2,
                           "value": np.r_[base, chal]})
    return scores, pd.Series(labels, index=ids, name="stratum")


def wrong_strata(claims, sizes, gains) -> list[str]:
    """The false sentences among a headline's claims, against the scenario's truth."""
    gains = dict(zip((f"s{h}" for h in range(len(sizes))), gains))
    differ = len(set(gains.values())) > 1
    wrong = []
    wrong += [f"gain claimed in {s}" for s in claims.gains if gains[s] <= 0]
    wrong += [f"loss claimed in {s}" for s in claims.losses if gains[s] >= 0]
    if claims.differ and not differ:
        wrong.append("strata claimed to differ")
    if claims.agree and differ:
        wrong.append("strata claimed to agree")
    pooled = sum(n * g for n, g in zip(sizes, gains.values()))
    if claims.pooled and np.sign(pooled) != claims.pooled:
        wrong.append("pooled sign claimed")
    return wrong
