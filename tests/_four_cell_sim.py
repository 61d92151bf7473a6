"""Simulated golden/production score tables whose four-cell truth is known (issue 11).

Each scenario draws ``n`` queries per set. A query's baseline score is its
difficulty, Beta(2, 2) (SD 0.22), shifted down by ``level`` on production; a
config's score adds its gain and its own per-query noise (SD 0.12, independent
across configs). The gains are the seed's figures (+9 golden; +1.1 production
when the gain collapsed, here +1). Scenarios (points = 0.01):

=====================  =======  ============  ===============  ===========================
scenario               level    golden gain   production gain  correct reading
=====================  =======  ============  ===============  ===========================
transfer               0        +9            +9               carried over
fit                    0        +9            +1               fit
harder-and-transfer    -10      +9            +9               difficulty, gain carried over
harder-and-collapse    -10      +9            +1               difficulty and fit
noise-only selection   0        0 (best of 40 equal configs on golden)   not "carried over"
=====================  =======  ============  ===============  ===========================
"""

from __future__ import annotations

import numpy as np
import pandas as pd

NOISE = 0.12
SCENARIOS = {
    "transfer": (0.0, 0.09, 0.09, "carried over"),
    "fit": (0.0, 0.09, 0.01, "fit"),
    "harder-and-transfer": (-0.10, 0.09, 0.09, "difficulty, gain carried over"),
    "harder-and-collapse": (-0.10, 0.09, 0.01, "difficulty and fit"),
    "noise-only selection": (0.0, None, 0.0, None),
}


def _frame(split: str, base: np.ndarray, champ: np.ndarray) -> pd.DataFrame:
    ids = [f"{split[0]}{i}" for i in range(base.size)]
    return pd.DataFrame({
        "split": split, "config": np.repeat(["base", "champ"], base.size),
        "query_id": ids * 2, "value": np.r_[base, champ],
    })  # fmt: skip


def simulate(scenario: str, rng: np.random.Generator, n: int = 200,
             candidates: int = 40) -> pd.DataFrame:
    """A tidy ``split, config, query_id, value`` table for one draw of ``scenario``."""
    level, gain_g, gain_p, _ = SCENARIOS[scenario]
    diff_g, diff_p = rng.beta(2, 2, n), rng.beta(2, 2, n) + level
    base_g = diff_g + rng.normal(0, NOISE, n)
    base_p = diff_p + rng.normal(0, NOISE, n)
    if gain_g is None:  # keep the best of `candidates` equal configs on golden
        configs_g = diff_g[:, None] + rng.normal(0, NOISE, (n, candidates))
        best = int(np.argmax(configs_g.mean(axis=0)))
        champ_g = configs_g[:, best]
    else:
        champ_g = diff_g + gain_g + rng.normal(0, NOISE, n)
    champ_p = diff_p + gain_p + rng.normal(0, NOISE, n)
    return pd.concat([_frame("golden", base_g, champ_g), _frame("production", base_p, champ_p)],
                     ignore_index=True)
