"""Four-cell reading: share of each verdict per simulated scenario (issue 11).

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/four_cell.py              # 400 draws a scenario
    PYTHONPATH=$PWD .venv/bin/python benchmarks/four_cell.py --draws 100

Scenarios are those of ``tests/_four_cell_sim.py`` (n = 200 queries per set;
golden gain +9 points; production gain +9 or +1; production 10 points harder
or not; a noise-only champion picked as the best of 40 equal configs). Each
draw runs :func:`ragnb.fit.four_cell` with 1,000 resamples and its own seed.
Targets: >= 90% correct in each of the first four, "carried over" <= 5% for
noise-only selection. A share's Monte Carlo SD is ``sqrt(p (1 - p) / R)``
(1.1% at p = 0.95, R = 400).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

import numpy as np

from ragnb.fit import READINGS, four_cell
from tests._four_cell_sim import SCENARIOS, simulate

SEED = 20261201


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--resamples", type=int, default=1_000)
    args = ap.parse_args(argv)
    shown = [r for r in READINGS if not r.startswith("easier")] + ["easier, ..."]
    print(f"{args.draws} draws a scenario, n = 200 per set, {args.resamples} resamples, "
          f"seed {SEED}")
    print("| scenario | correct | " + " | ".join(shown) + " |")
    print("|" + "---|" * (len(shown) + 2))
    for k, name in enumerate(SCENARIOS):
        rng = np.random.default_rng(SEED + k)
        counts = Counter()
        for i in range(args.draws):
            fc = four_cell(simulate(name, rng), baseline="base", champion="champ",
                           resamples=args.resamples, seed=i)
            counts["easier, ..." if fc.reading.startswith("easier") else fc.reading] += 1
        correct = SCENARIOS[name][3]
        share = (counts[correct] / args.draws if correct
                 else 1 - counts["carried over"] / args.draws)
        label = f"{share:.1%}" + ("" if correct else " not 'carried over'")
        print(f"| {name} | {label} | "
              + " | ".join(f"{counts[r] / args.draws:.1%}" for r in shown) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
