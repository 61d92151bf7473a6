"""Coverage and null-rejection table of the headline interval and p-value (issue 11).

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/calibration.py            # 2,000 data sets a cell
    PYTHONPATH=$PWD .venv/bin/python benchmarks/calibration.py --quick    # 400 a cell

For each scenario (``tests/stats/_simulate.py``: nDCG-like, RR-like, sparse
(10% of queries change), tie-heavy P@5-like) and n = 5, 10, 30, 50, 200 it draws
``R`` data sets whose true mean difference is known and reports

* coverage of the 95% calibrated interval (:func:`ragnb.stats.interval.delta_interval`,
  the headline) and of the 95% percentile bootstrap (1,000 resamples), the old default;
* null rejection at 5% on the exchangeable version of the scenario (each query's
  two scores swapped with probability 1/2): the sign-flip test (headline, exact or
  2,000 Monte Carlo sign vectors), the shift bootstrap p (secondary) and
  "the calibrated interval excludes 0".

Binomial band: a cell's Monte Carlo SD is ``sqrt(c (1 - c) / R)``, 0.49% at
R = 2,000 and c = 0.95. Every data set has its own recorded seed
(``SEED + 1000 * n + scenario index``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from ragnb.stats import sign_flip_test
from ragnb.stats._resample import resample_sums, tie_tolerance
from ragnb.stats.bootstrap import interval, shift_p_value
from ragnb.stats.interval import MIN_QUERIES, delta_interval
from tests.stats._simulate import SCENARIOS, exchangeable

SEED = 20261201
SIZES = (5, 10, 30, 50, 200)


def _percentile(d: np.ndarray, resamples: int, seed: int) -> tuple[float, float]:
    """The percentile bootstrap interval, as ``paired_bootstrap(method="percentile")``."""
    reps = resample_sums(d, resamples, np.random.default_rng(seed))[0] / d.size
    return interval(reps, float(d.mean()), ci=0.95, method="percentile", accel=0.0, tol=0.0)


def cell(name: str, simulate, n: int, datasets: int, resamples: int) -> dict:
    rng = np.random.default_rng(SEED + 1000 * n + list(SCENARIOS).index(name))
    base, chal, truth = simulate(rng, (datasets, n))
    nb, nc, _ = exchangeable(simulate)(rng, (datasets, n))
    cov_t = cov_pct = rej_sf = rej_boot = rej_t = 0
    for i in range(datasets):
        d = chal[i] - base[i]
        r = delta_interval(d)
        cov_t += r.low <= truth <= r.high if n >= MIN_QUERIES else 0
        low, high = _percentile(d, resamples, i)
        cov_pct += low <= truth <= high
        d0 = nc[i] - nb[i]
        rej_sf += sign_flip_test(d0, permutations=2_000, seed=i).p_value <= 0.05
        reps = resample_sums(d0, resamples, np.random.default_rng(i))[0] / n
        rej_boot += shift_p_value(reps, float(d0.mean()), tie_tolerance(d0)) <= 0.05
        r0 = delta_interval(d0)
        rej_t += (r0.low > 0 or r0.high < 0) if n >= MIN_QUERIES else 0
    def frac(x):
        return x / datasets

    return {"scenario": name, "n": n, "truth": truth,
            "cover_t": frac(cov_t) if n >= MIN_QUERIES else float("nan"),
            "cover_pct": frac(cov_pct), "reject_signflip": frac(rej_sf),
            "reject_boot": frac(rej_boot),
            "reject_t": frac(rej_t) if n >= MIN_QUERIES else float("nan")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="400 data sets a cell")
    ap.add_argument("--datasets", type=int, default=None)
    ap.add_argument("--resamples", type=int, default=1_000)
    args = ap.parse_args(argv)
    datasets = args.datasets or (400 if args.quick else 2_000)
    print(f"R = {datasets} data sets a cell, {args.resamples} bootstrap resamples, seed {SEED}; "
          f"cells below n = {MIN_QUERIES} show no calibrated interval ('too few queries to say')")
    head = ("scenario", "n", "cover 95% calibrated", "cover 95% percentile",
            "null reject sign-flip", "null reject bootstrap p", "null reject interval")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    start = time.perf_counter()
    for name, simulate in SCENARIOS.items():
        for n in SIZES:
            c = cell(name, simulate, n, datasets, args.resamples)
            def pct(v):
                return "—" if math.isnan(v) else f"{v:.1%}"

            print(f"| {name} | {n} | {pct(c['cover_t'])} | {pct(c['cover_pct'])} | "
                  f"{pct(c['reject_signflip'])} | {pct(c['reject_boot'])} | "
                  f"{pct(c['reject_t'])} |", flush=True)
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
