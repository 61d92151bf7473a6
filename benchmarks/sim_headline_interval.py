"""The headline interval on real-shaped differences: coverage, power, width, p agreement.

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sim_headline_interval.py            # 400 draws
    PYTHONPATH=$PWD .venv/bin/python benchmarks/sim_headline_interval.py --draws 200

Populations (``benchmarks/sim_gate_scenarios.py``): the per-query nDCG@10 differences of a
real pair of runs on TREC CAsT 2021 and CODEC (``../shared/data/real``; skipped, and said
so, where absent), made symmetric (``{d, -d}``), kept skewed (``d - mean(d)``), or made
sparse: 80%, 90% or 95% of queries unchanged, the rest the real non-zero differences
centred among themselves. A true gain of +2 or +5 points moves every query of the first
two and only the changed queries of the sparse ones (a sparse change stays sparse).

Per cell (population x true gain x n = 6 ... 300), with seeds ``SEED + cell``:

- coverage of the 95% interval: the headline (:func:`ragnb.stats.interval.delta_interval`:
  floored t where Cochran's rule holds, else the skew-corrected t, else betting), the
  floored t with no guard, and the plain paired t;
- power: the share of draws whose lower end is above 0, for the same three;
- width: the headline's mean width over the floored t's;
- 1.15 t: coverage of the floored t widened 1.15 times (:data:`WIDEN`), the widest an
  interval may be where the t covers >= 94%: where it falls below 93% (sparse cells at
  +2 points), no interval that narrow keeps the coverage the headline must;
- guard: the share of draws sent to the skew-corrected (``skew``) and betting (``bet``)
  constructions;
- disagree: draws whose printed p (``DeltaInterval.p``) and interval disagree at 0.05
  (p <= 0.05 but 0 inside, or the reverse); 0 by construction, counted to show it.

The binomial 2-SD band of a 95% coverage at 400 draws is +-2.2%.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import special

sys.path.insert(0, str(Path(__file__).parent))
import sim_gate_scenarios as real  # noqa: E402

from ragnb.stats.interval import BETTING, SKEW, delta_interval, floored_sd  # noqa: E402

SEED = 20261207
SIZES = (6, 10, 20, 30, 50, 100, 300)
GAINS = (0.0, 0.02, 0.05)
TIES = (0.8, 0.9, 0.95)
#: The widest interval the issue allows where the t-interval covers: its coverage says
#: whether any interval that narrow can keep 93% where the t does not.
WIDEN = 1.15


def populations(d: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (values, changed mask), each of mean exactly 0."""
    moved = d[d != 0]
    out = {"symmetric": (np.concatenate([d, -d]), np.ones(2 * d.size, dtype=bool)),
           "skewed": (d - d.mean(), np.ones(d.size, dtype=bool))}
    for ties in TIES:
        size = int(round(moved.size / (1 - ties)))
        values, changed = np.zeros(size), np.zeros(size, dtype=bool)
        values[:moved.size], changed[:moved.size] = moved - moved.mean(), True
        out[f"sparse {ties:.0%} ties"] = (values, changed)
    return out


def t_ends(d: np.ndarray, sd: float, widen: float = 1.0) -> tuple[float, float]:
    half = widen * float(special.stdtrit(d.size - 1, 0.975)) * sd / math.sqrt(d.size)
    return float(d.mean()) - half, float(d.mean()) + half


def cell(population: np.ndarray, n: int, draws: int, rng: np.random.Generator) -> dict:
    mu = float(population.mean())
    keys = ("headline", "floored t", "plain t", "1.15 floored t")
    cover = dict.fromkeys(keys, 0)
    power = dict.fromkeys(keys, 0)
    width = dict.fromkeys(keys, 0.0)
    skew = bet = disagree = 0
    for _ in range(draws):
        d = rng.choice(population, n)
        r = delta_interval(d)
        ends = {"headline": (r.low, r.high), "floored t": t_ends(d, floored_sd(d)),
                "plain t": t_ends(d, float(d.std(ddof=1))),
                "1.15 floored t": t_ends(d, floored_sd(d), WIDEN)}
        for k, (lo, hi) in ends.items():
            cover[k] += lo <= mu <= hi
            power[k] += lo > 0
            width[k] += hi - lo
        skew += r.guard == SKEW
        bet += r.guard == BETTING
        disagree += (r.p <= 0.05) != (not r.low <= 0 <= r.high)
    return {"cover": {k: v / draws for k, v in cover.items()},
            "power": {k: v / draws for k, v in power.items()},
            "width": width["headline"] / width["floored t"] if width["floored t"] else math.nan,
            "skew": skew / draws, "bet": bet / draws, "disagree": disagree}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--draws", type=int, default=400, help="draws a cell (default 400)")
    args = p.parse_args(argv)
    started = time.perf_counter()
    print(f"# the headline interval on real-shaped populations; seed {SEED}, 95%")
    number = 0
    for name in real.PAIRS:
        d = real.differences(name)
        if d is None:
            print(f"\n## {name}: skipped (real data absent under ../shared/data/real)")
            continue
        print(f"\n## {name} ({d.size} queries), {args.draws:,} draws a cell\n")
        print("| population | gain | n | coverage (headline / floored t / t) | power "
              "(headline / floored t / t) | width vs floored t | skew / bet | disagree |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for pname, pop in populations(d).items():
            for gain in GAINS:
                values = real.shifted(pop, gain) if gain else pop[0]
                for n in SIZES:
                    rng = np.random.default_rng(SEED + number)
                    number += 1
                    c = cell(values, n, args.draws, rng)
                    cov, pw = c["cover"], c["power"]
                    print(f"| {pname} | {gain * 100:+.0f} | {n} | "
                          f"{cov['headline']:.1%} / {cov['floored t']:.1%} / {cov['plain t']:.1%}"
                          f" | {pw['headline']:.1%} / {pw['floored t']:.1%} / {pw['plain t']:.1%}"
                          f" | {c['width']:.2f} | {cov['1.15 floored t']:.1%}"
                          f" | {c['skew']:.0%} / {c['bet']:.0%} | "
                          f"{c['disagree']} |", flush=True)
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
