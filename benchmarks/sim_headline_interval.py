"""Coverage of the headline interval (calibrated t with the betting guard) on skewed, sparse
and symmetric bounded differences, and how often its p-value rejects a true zero mean.

Run: ``python benchmarks/sim_headline_interval.py [--draws 1000]``. Prints one row per
scenario x n: coverage of the 95% interval, the share of draws in which the guard took over,
and the rejection rate at 0.05 of the p-value when the scenario's true mean is 0.
"""
from __future__ import annotations

import argparse

import numpy as np

from ragnb.stats.interval import delta_interval


def scenario(name: str, rng: np.random.Generator, n: int) -> tuple[np.ndarray, float]:
    """Draw ``n`` differences in [-1, 1] and return them with their true mean."""
    if name == "symmetric":  # normal noise, SD 0.15, mean +0.02
        return np.clip(rng.normal(0.02, 0.15, n), -1, 1), 0.02  # clip is rare at 0.15 SD
    if name == "skewed zero-mean":  # right-skewed gamma, recentred to mean 0
        x = np.minimum(rng.gamma(0.5, 0.12, n), 0.9)  # mean 0.06 (the cap moves it < 1e-9)
        return x - 0.06, 0.0
    if name == "sparse stress":  # most small negatives, a few large positives; mean 0
        big = rng.random(n) < 0.1
        return np.where(big, 0.45, -0.05), 0.0
    if name == "70% zeros, right-skewed":
        nz = rng.random(n) < 0.3
        return np.where(nz, rng.beta(1, 3, n), 0.0), 0.3 * 0.25
    if name == "94% zeros, right-skewed":
        nz = rng.random(n) < 0.06
        return np.where(nz, rng.beta(1, 2, n), 0.0), 0.06 / 3
    raise KeyError(name)


SCENARIOS = ["symmetric", "skewed zero-mean", "sparse stress", "70% zeros, right-skewed",
             "94% zeros, right-skewed"]


def run(draws: int, sizes=(6, 8, 12, 20, 30, 50, 100), seed: int = 20261202) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for name in SCENARIOS:
        for n in sizes:
            cover = guarded = reject = 0
            for _ in range(draws):
                d, mu = scenario(name, rng, n)
                r = delta_interval(d)
                cover += r.low <= mu <= r.high
                guarded += bool(r.guard)
                if mu == 0:
                    if r.guard:
                        reject += r.p_guard <= 0.05
                    else:
                        reject += not (r.low <= 0 <= r.high)
            rows.append({"scenario": name, "n": n, "coverage": cover / draws,
                         "guarded": guarded / draws,
                         "false rejection": reject / draws if name in (
                             "skewed zero-mean", "sparse stress") else float("nan")})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--draws", type=int, default=1000)
    args = ap.parse_args()
    print(f"{'scenario':28} {'n':>4} {'coverage':>9} {'guarded':>8} {'false rej.':>10}")
    for r in run(args.draws):
        print(f"{r['scenario']:28} {r['n']:4d} {r['coverage']:9.3f} {r['guarded']:8.2f} "
              f"{r['false rejection']:10.3f}")


if __name__ == "__main__":
    main()
