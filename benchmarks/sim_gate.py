"""The gate's and the watch's error rates by simulation (issue 26's proof).

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sim_gate.py            # 1,000 draws a cell
    PYTHONPATH=$PWD .venv/bin/python benchmarks/sim_gate.py --quick    # 200 a cell

Real-shaped differences
    The population is the per-query nDCG@10 differences of two TREC CAsT 2021
    baselines (``org_manual_ance_bert`` - ``org_manual_bm25``, the 158 judged
    turns; ``../shared/data/real``), made exactly null by symmetrising: the
    population is ``{d_i, -d_i}``, mean 0. A config with a true effect of
    ``delta`` draws ``clip(s_i + c, -1, 1)`` from that population, the shift
    ``c`` solved by bisection so that the population mean is exactly
    ``delta``. When the real data are absent the demo's production differences
    (round-40 - round-00) stand in, and the output says so.

Tables
    1. No change (delta = 0): how often each gate fails a config that did not
       change (``no_regression``, margin 0: fail when a drop is shown) and
       passes it as better (``superiority``): the gate (``ragnb gate``: sign-flip
       bounds for superiority, guarded t or betting otherwise),
       the paired percentile bootstrap and the t-interval read the same way.
    2. Power: the superiority gate's pass rate at +1, +2, +5 points.
    3. Non-inferiority at the margin: pass rate of ``non_inferiority`` with a
       2-point margin when the change is exactly 2 points worse (<= alpha).
    4. Watching: 1,000 streams of 30 batches of 10 queries; the miss rate of
       the betting confidence sequence (any batch excluding the truth) beside a
       fixed-n 95% t-interval looked at after every batch.
    5. The watch's stop rule: the batch at which "gain below zero established"
       or "gain at least the margin (0) established" is reached, for configs
       5 and 2 points better and worse over 30 batches, and 2 points over 300.

Every cell says its draws; binomial band at 1,000 draws and 5%: +-1.4% (2 SD).
Seeds: ``SEED + cell index``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from scipy import special

from ragnb.gate.decide import rule
from ragnb.stats.betting import betting_sequence

SEED = 20261202
ALPHA = 0.05


def population() -> tuple[np.ndarray, str]:
    """The per-query differences the simulation draws from, and where they come from."""
    from ragnb.io import read_run, read_test_set
    from ragnb.metrics.score import score
    from ragnb.paths import DEMO_DIR, REAL_DATA_DIR

    cast = REAL_DATA_DIR / "trec-cast-2021" / "2021"
    if (cast / "trec-cast-qrels-docs.2021.qrel").is_file():
        ts = read_test_set(cast / "trec-cast-qrels-docs.2021.qrel")
        runs = [read_run(cast / "baselines" / "document_runs" / f"{name}.run.gz", name=name)
                for name in ("org_manual_bm25", "org_manual_ance_bert")]
        s = score(ts, runs, ["ndcg@10"], extra="drop", missing="empty")
        wide = s.wide("ndcg@10")
        return ((wide["org_manual_ance_bert"] - wide["org_manual_bm25"]).to_numpy(),
                "TREC CAsT 2021 nDCG@10, org_manual_ance_bert - org_manual_bm25")
    ts = read_test_set(DEMO_DIR / "production.jsonl")
    runs = [read_run(DEMO_DIR / "runs" / "production" / f"{c}.jsonl", name=c)
            for c in ("round-00", "round-40")]
    wide = score(ts, runs, ["ndcg@10"]).wide("ndcg@10")
    return ((wide["round-40"] - wide["round-00"]).to_numpy(),
            "demo production nDCG@10, round-40 - round-00 (real data absent)")


def shifted(sym: np.ndarray, delta: float) -> np.ndarray:
    """``clip(sym + c)`` with ``c`` such that its mean is exactly ``delta``."""
    lo, hi = -1.0, 1.0
    for _ in range(100):
        c = (lo + hi) / 2
        if np.clip(sym + c, -1, 1).mean() < delta:
            lo = c
        else:
            hi = c
    return np.clip(sym + (lo + hi) / 2, -1, 1)


def t_bounds(d: np.ndarray, alpha: float) -> tuple[float, float]:
    """Two-sided ``1 - 2 alpha`` t-interval (each end one-sided ``1 - alpha``)."""
    half = special.stdtrit(d.size - 1, 1 - alpha) * d.std(ddof=1) / math.sqrt(d.size)
    return d.mean() - half, d.mean() + half


def boot_bounds(d: np.ndarray, alpha: float, rng, resamples: int = 2000) -> tuple[float, float]:
    """Percentile paired bootstrap, ``alpha`` and ``1 - alpha`` quantiles of the mean."""
    idx = rng.integers(0, d.size, (resamples, d.size))
    means = d[idx].mean(axis=1)
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return float(lo), float(hi)


def band(p: float, draws: int) -> float:
    return 2 * math.sqrt(p * (1 - p) / draws)


def table_no_change(sym, draws, sizes):
    print(f"\n## 1. No change (true difference 0): how often the gate errs ({draws:,} draws a "
          f"cell, alpha {ALPHA}; 2-SD band {band(ALPHA, draws) * 100:.1f}%)\n")
    print("| n | gate | ragnb gate | percentile bootstrap | t-interval |")
    print("|---:|---|---:|---:|---:|")
    for i, n in enumerate(sizes):
        rng = np.random.default_rng(SEED + i)
        ff = {"betting": 0, "boot": 0, "t": 0}
        fp = {"betting": 0, "boot": 0, "t": 0}
        for _ in range(draws):
            d = rng.choice(sym, n)
            ff["betting"] += not rule(d, "no_regression", 0, ALPHA)[2]
            fp["betting"] += rule(d, "superiority", 0, ALPHA)[2]
            blo, bhi = boot_bounds(d, ALPHA, rng)
            tlo, thi = t_bounds(d, ALPHA)
            ff["boot"] += bhi < 0
            fp["boot"] += blo > 0
            ff["t"] += thi < 0
            fp["t"] += tlo > 0
        print(f"| {n} | no_regression: false fail | {ff['betting'] / draws:.1%} | "
              f"{ff['boot'] / draws:.1%} | {ff['t'] / draws:.1%} |")
        print(f"| {n} | superiority: false pass | {fp['betting'] / draws:.1%} | "
              f"{fp['boot'] / draws:.1%} | {fp['t'] / draws:.1%} |")


def table_power(sym, draws, sizes, effects=(1, 2, 5)):
    print(f"\n## 2. Power: superiority gate (margin 0) pass rate ({draws:,} draws a cell)\n")
    print("| n | " + " | ".join(f"+{e} pts ragnb gate | +{e} pts t" for e in effects) + " |")
    print("|---:|" + "---:|" * (2 * len(effects)))
    for i, n in enumerate(sizes):
        cells = []
        for j, e in enumerate(effects):
            pop = shifted(sym, e / 100)
            rng = np.random.default_rng(SEED + 100 + 10 * i + j)
            bet = t = 0
            for _ in range(draws):
                d = rng.choice(pop, n)
                bet += rule(d, "superiority", 0, ALPHA)[2]
                t += t_bounds(d, ALPHA)[0] > 0
            cells += [f"{bet / draws:.1%}", f"{t / draws:.1%}"]
        print(f"| {n} | " + " | ".join(cells) + " |")


def table_margin(sym, draws, sizes, margin=2.0):
    print(f"\n## 3. Non-inferiority at the margin: true difference -{margin:g} points, margin "
          f"{margin:g} ({draws:,} draws a cell): pass rate must be <= {ALPHA:.0%}\n")
    print("| n | ragnb gate | t-interval |")
    print("|---:|---:|---:|")
    pop = shifted(sym, -margin / 100)
    for i, n in enumerate(sizes):
        rng = np.random.default_rng(SEED + 200 + i)
        bet = t = 0
        for _ in range(draws):
            d = rng.choice(pop, n)
            bet += rule(d, "non_inferiority", margin, ALPHA)[2]
            t += t_bounds(d, ALPHA)[0] > -margin / 100
        print(f"| {n} | {bet / draws:.1%} | {t / draws:.1%} |")


def table_watch(sym, streams, batches=30, size=10):
    print(f"\n## 4. Watching {streams:,} streams of {batches} batches x {size} queries (true "
          "difference 0): share of streams whose interval ever excludes the truth\n")
    rng = np.random.default_rng(SEED + 300)
    looks = np.arange(1, batches + 1) * size
    miss_cs = miss_naive = 0
    for _ in range(streams):
        d = rng.choice(sym, batches * size)
        cs = betting_sequence(d, alpha=ALPHA).iloc[looks - 1]
        miss_cs += bool(((cs["low"] > 0) | (cs["high"] < 0)).any())
        naive = False
        for t in looks:
            x = d[:t]
            half = special.stdtrit(t - 1, 1 - ALPHA / 2) * x.std(ddof=1) / math.sqrt(t)
            naive |= abs(x.mean()) > half
        miss_naive += naive
    print("| interval, looked at after every batch | miss rate |")
    print("|---|---:|")
    print(f"| betting confidence sequence (ragnb watch) | {miss_cs / streams:.1%} |")
    print(f"| fixed-n 95% t-interval | {miss_naive / streams:.1%} |")


def table_stop(sym, streams, size=10, cells=((5.0, 30), (-5.0, 30), (2.0, 30), (-2.0, 30),
                                              (2.0, 300), (-2.0, 300))):
    print(f"\n## 5. Stopping: batch ({size} queries each) at which the watch stops, "
          f"{streams:,} streams a row\n")
    print("| true difference | batches | stopped | mean stopping batch (stopped) | "
          "right call |")
    print("|---:|---:|---:|---:|---:|")
    for k, (e, batches) in enumerate(cells):
        pop = shifted(sym, e / 100)
        rng = np.random.default_rng(SEED + 400 + k)
        stops, right = [], 0
        looks = np.arange(1, batches + 1) * size - 1
        for _ in range(streams if batches <= 30 else max(streams // 5, 40)):
            d = rng.choice(pop, batches * size)
            cs = betting_sequence(d, alpha=ALPHA).iloc[looks]
            out = ((cs["low"] > 0) | (cs["high"] < 0)).to_numpy()
            if out.any():
                b = int(np.argmax(out))
                stops.append(b + 1)
                right += (cs["low"].iloc[b] > 0) == (e > 0)
        n = streams if batches <= 30 else max(streams // 5, 40)
        print(f"| {e:+g} points | {batches} | {len(stops) / n:.1%} | "
              f"{np.mean(stops) if stops else float('nan'):.1f} | "
              f"{right / max(len(stops), 1):.1%} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="200 draws a cell instead of 1,000")
    args = p.parse_args(argv)
    draws = 200 if args.quick else 1000
    sizes = (30, 100, 300)
    start = time.perf_counter()
    d, source = population()
    sym = np.r_[d, -d]
    print(f"# gate and watch simulation: {source}; {d.size} queries, symmetrised to mean 0 "
          f"(SD {sym.std():.3f}); seed {SEED}; alpha {ALPHA}")
    table_no_change(sym, draws, sizes)
    table_power(sym, draws, sizes)
    table_margin(sym, draws, sizes)
    table_watch(sym, draws)
    table_stop(sym, max(draws // 2, 100))
    print(f"\n({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
