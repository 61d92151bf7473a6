"""Truth table of the headline rules: scenario x n -> right / inconclusive / wrong (issue 23).

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/truth_table.py              # 200 draws a cell
    PYTHONPATH=$PWD .venv/bin/python benchmarks/truth_table.py --draws 50

Strata headline (``ragnb.strata.finding.strata_claims``): *wrong* when any confident
sentence is false against the scenario's truth (``tests/truth/_scenarios.py``), *right*
when the verdict is the true one ("strata differ" / "strata agree") or, in a null, no
claim at all; otherwise *inconclusive*. Four-cell (``ragnb.fit.four_cell``): *wrong* when
a resolved part of the reading contradicts the truth (``tests/truth/test_fit_truth.py``),
*right* when the reading is the true one (for the noise-only champion: anything but
"carried over" that is not inconclusive), otherwise *inconclusive*. Trajectory
(``ragnb.trajectory.trajectory``, ``tests/truth/test_trajectory_truth.py``): dating a
divergence is *wrong* where both lines gain alike or neither moves, *right* for a fit after
round 10 when dated at rounds 5-15. The pass mark is a wrong share of at most 5% per cell
(Monte Carlo SD ``sqrt(p (1-p) / R)``).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np

from ragnb.fit import four_cell
from ragnb.strata.breakdown import breakdown
from ragnb.strata.finding import strata_claims
from tests._four_cell_sim import SCENARIOS, simulate
from tests.truth._scenarios import STRATA_SCENARIOS, strata_draw, wrong_strata
from tests.truth.test_fit_truth import wrong_reading
from tests.truth.test_trajectory_truth import draw as trajectory_draw

SEED = 20261202


def _strata_right(claims, gains) -> bool:
    differ = len(set(gains)) > 1
    if differ:
        return claims.differ
    if all(g == 0 for g in gains):
        return not (claims.gains or claims.losses or claims.differ or claims.pooled)
    return claims.agree


def strata_rows(draws: int):
    for k, (name, (sizes, gains)) in enumerate(STRATA_SCENARIOS.items()):
        rng = np.random.default_rng(SEED + k)
        c = Counter()
        for i in range(draws):
            scores, strata = strata_draw(rng, sizes, gains)
            claims = strata_claims(breakdown(scores, strata, "stratum", baseline="base",
                                             challenger="chal", resamples=500, seed=i))
            c["wrong" if wrong_strata(claims, sizes, gains)
              else "right" if _strata_right(claims, gains) else "inconclusive"] += 1
        yield name, sum(sizes), c


def fit_rows(draws: int, sizes=(30, 50, 200)):
    for k, name in enumerate(SCENARIOS):
        correct = SCENARIOS[name][3]
        for n in sizes:
            rng = np.random.default_rng(SEED + 100 * k + n)
            c = Counter()
            for i in range(draws):
                reading = four_cell(simulate(name, rng, n=n), baseline="base",
                                    champion="champ", resamples=1000, seed=i).reading
                if wrong_reading(reading, correct):
                    c["wrong"] += 1
                elif "inconclusive" in reading:
                    c["inconclusive"] += 1
                elif correct is None or reading == correct:
                    c["right"] += 1
                else:  # a level gap left unresolved with the gain part right
                    c["right (level unresolved)"] += 1
            yield name, n, c


#: Trajectory scenarios: name -> the divergence rounds a right reading may give (None: none).
TRAJECTORY = {"transfer": None, "no change": None, "fit after round 10": range(5, 16)}


def trajectory_rows(draws: int):
    """Per scenario: draws dated as diverged, and those dated where the truth allows."""
    from ragnb.trajectory import trajectory

    for k, (name, allowed) in enumerate(TRAJECTORY.items()):
        rng = np.random.default_rng(SEED + 1000 + k)
        found = [trajectory(*trajectory_draw(rng, name), resamples=100, seed=i).divergence_round
                 for i in range(draws)]
        dated = [r for r in found if r is not None]
        right = len(dated) if allowed is None else sum(r in allowed for r in dated)
        yield name, len(dated), (draws - len(dated) if allowed is None else right)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=200)
    ap.add_argument("--only", choices=("strata", "fit", "trajectory"))
    args = ap.parse_args(argv)
    d = args.draws
    if args.only in (None, "strata"):
        print(f"Strata headline, {d} draws a scenario, seed {SEED}")
        print("| scenario | queries | right | inconclusive | wrong |")
        print("|---|---:|---:|---:|---:|")
        for name, n, c in strata_rows(d):
            print(f"| {name} | {n} | {c['right'] / d:.1%} | {c['inconclusive'] / d:.1%} | "
                  f"{c['wrong'] / d:.1%} |", flush=True)
    if args.only in (None, "trajectory"):
        print(f"\nTrajectory divergence (40 rounds, 300 golden / 200 production queries), {d} "
              f"draws a scenario, seed {SEED + 1000}")
        print("| scenario | dated a divergence | right |")
        print("|---|---:|---:|")
        for name, dated, right in trajectory_rows(d):
            print(f"| {name} | {dated / d:.1%} | {right / d:.1%} |", flush=True)
    if args.only not in ("strata", "trajectory"):
        print(f"\nFour-cell reading, {d} draws a cell (n queries per set), seed {SEED}")
        print("| scenario | n | right | right, level unresolved | inconclusive | wrong |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, n, c in fit_rows(d):
            print(f"| {name} | {n} | {c['right'] / d:.1%} | "
                  f"{c['right (level unresolved)'] / d:.1%} | {c['inconclusive'] / d:.1%} | "
                  f"{c['wrong'] / d:.1%} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
