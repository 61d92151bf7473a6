"""Benchmark ragnb.stats against scipy.stats.bootstrap and ranx's Fisher randomization test.

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_stats.py            # full size
    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_stats.py --quick    # a smaller smoke run

Times are the best of ``--repeat`` runs (scipy BCa: one run), as wall clock
and as process CPU time; on a shared machine the CPU time is the steadier
figure (for ranx's multi-threaded kernel it adds up both threads).

Every case runs in its own subprocess, so each peak-memory figure belongs to
that case alone: ``rss`` is the process's peak resident set
(``VmHWM``, including the interpreter, numpy, scipy and pandas), ``+rss``
the growth of that peak during the timed call,
and ``traced`` the peak of Python/numpy allocations during the call
(``tracemalloc``; run as a separate, untimed pass).

Cases (defaults follow issue 3):

* paired bootstrap, n = 100,000 queries, 10,000 resamples, continuous
  nDCG-like scores (all differences distinct, so ragnb uses the index path):
  ragnb percentile vs ``scipy.stats.bootstrap(paired=True,
  method="percentile", batch=...)``; ragnb BCa vs scipy BCa (same batch).
  Plus ragnb on RR@10-like deltas (few distinct values: the counts path).
* randomization test, 1,000 queries, 5 runs, 10,000 permutations: ranx's
  ``compare(..., stat_test="fisher")`` end to end (it also computes the metric
  and tests each of the 10 pairs twice, once per order), ranx's own
  ``fisher_randomization_test`` called on the same per-query nDCG@10 scores
  for the 10 distinct pairs, and ``ragnb.stats.sign_flip_test`` on those 10
  pairs at once. ranx's kernel is numba-compiled and parallel (both cores);
  it is warmed up before timing so compilation is not counted.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from itertools import combinations
from pathlib import Path

import numpy as np

SEED = 20260729


def _maxrss_mb() -> float:
    """Peak resident set of this process in MB.

    ``VmHWM`` from /proc (Linux) belongs to the current program image; the
    ``ru_maxrss`` fallback survives ``exec`` and can report the parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bootstrap_data(n: int, kind: str):
    rng = np.random.default_rng(1)
    if kind == "rr":
        rr = np.r_[1 / np.arange(1, 11), 0.0]
        base = rr[rng.integers(0, 11, n)]
        chal = np.where(rng.random(n) < 0.6, base, rr[rng.integers(0, 11, n)])
    else:
        base = rng.beta(2, 3, n)
        chal = np.clip(base + rng.normal(0.01, 0.15, n), 0, 1)
    return base, chal


def ranx_inputs(n_queries: int, n_runs: int):
    from ranx import Qrels, Run

    rng = np.random.default_rng(2)
    docs = [f"d{j}" for j in range(100)]
    qrels = {
        f"q{i}": {d: int(rng.integers(1, 3)) for d in rng.choice(docs, 5, replace=False)}
        for i in range(n_queries)
    }
    runs = []
    for r in range(n_runs):
        run = {
            f"q{i}": {
                d: float(s) for d, s in zip(docs, rng.random(len(docs)) + 0.05 * r, strict=True)
            }
            for i in range(n_queries)
        }
        runs.append(Run(run, name=f"run{r}"))
    return Qrels(qrels), runs


def save_ranx_scores(args) -> None:
    """Per-query nDCG@10 of each run, computed by ranx itself (shared by the sign-flip cases)."""
    from ranx import evaluate

    qrels, runs = ranx_inputs(args.queries, args.runs)
    np.save(args.scores, np.stack([evaluate(qrels, r, "ndcg@10", return_mean=False) for r in runs]))


def _stat(x, y, axis=-1):
    return np.mean(y, axis=axis) - np.mean(x, axis=axis)


def make_case(name: str, args):
    """Return a zero-argument callable doing the timed work (setup done here)."""
    n, b = args.n, args.resamples
    if name.startswith(("ragnb-percentile", "ragnb-bca", "scipy-")):
        base, chal = bootstrap_data(n, "rr" if name.endswith("-rr") else "nd")
    if name in ("ragnb-percentile", "ragnb-bca", "ragnb-percentile-rr"):
        from ragnb.stats import paired_bootstrap

        method = "bca" if name == "ragnb-bca" else "percentile"
        return lambda: paired_bootstrap(base, chal, resamples=b, seed=SEED, method=method)
    if name in ("scipy-percentile", "scipy-bca"):
        from scipy import stats

        method = "BCa" if name == "scipy-bca" else "percentile"
        return lambda: stats.bootstrap(
            (base, chal), _stat, paired=True, vectorized=True, method=method,
            n_resamples=b, batch=args.batch, rng=np.random.default_rng(SEED),
        )  # fmt: skip

    pairs = list(combinations(range(args.runs), 2))
    if name == "ragnb-signflip":  # reads ranx's per-query scores from a file: no ranx import here
        from ragnb.stats import sign_flip_test

        scores = np.load(args.scores)
        diffs = np.stack([scores[j] - scores[i] for i, j in pairs])
        return lambda: sign_flip_test(diffs, permutations=args.permutations, seed=SEED)

    from ranx import compare
    from ranx.statistical_tests import fisher_randomization_test

    qrels, runs = ranx_inputs(args.queries, args.runs)
    # warm the numba kernels (compiled and cached on first use) outside the timing
    fisher_randomization_test(np.random.random(10), np.random.random(10), 10, 0.05, 42)
    scores = np.load(args.scores)
    if name == "ranx-compare":
        return lambda: compare(
            qrels, runs, metrics="ndcg@10", stat_test="fisher",
            n_permutations=args.permutations, max_p=0.05, random_seed=42,
        )  # fmt: skip
    if name == "ranx-fisher":
        return lambda: [
            fisher_randomization_test(scores[i], scores[j], args.permutations, 0.05, 42)
            for i, j in pairs
        ]
    raise SystemExit(f"unknown case {name}")


def worker(name: str, args) -> None:
    if name == "save-ranx-scores":
        save_ranx_scores(args)
        print("{}")
        return
    work = make_case(name, args)
    if args.trace:
        tracemalloc.start()
        work()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(json.dumps({"traced_mb": peak}))
        return
    before = _maxrss_mb()
    walls, cpus = [], []
    for _ in range(1 if name == "scipy-bca" else args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    summary = {
        "seconds": min(walls),
        "cpu_seconds": min(cpus),
        "rss_mb": _maxrss_mb(),
        "rss_growth_mb": _maxrss_mb() - before,
    }
    if hasattr(result, "confidence_interval"):
        summary["ci"] = [
            float(result.confidence_interval.low),
            float(result.confidence_interval.high),
        ]
    elif hasattr(result, "ci_low"):
        summary["ci"] = [result.ci_low, result.ci_high]
        summary["path"] = result.path
    elif hasattr(result, "p_value") and not isinstance(result, list):
        summary["p"] = np.round(np.atleast_1d(result.p_value), 4).tolist()
    elif isinstance(result, list):
        summary["p"] = [round(float(p), 4) for p, _ in result]
    print(json.dumps(summary))


def run_case(name: str, args, trace: bool) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name,
           "--n", str(args.n), "--resamples", str(args.resamples), "--batch", str(args.batch),
           "--queries", str(args.queries), "--runs", str(args.runs),
           "--permutations", str(args.permutations), "--scores", args.scores,
           "--repeat", str(args.repeat)] + (["--trace"] if trace else [])  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker")
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--quick", action="store_true", help="n=20,000 and 2,000 resamples")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--batch", type=int, default=50, help="scipy's batch= (resamples per batch)"
    )
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--scores", help=argparse.SUPPRESS)
    parser.add_argument(
        "--repeat", type=int, default=3, help="best of this many timed runs (scipy BCa: one)"
    )
    parser.add_argument("--skip-scipy-bca", action="store_true", help="it is quadratic in n")
    parser.add_argument("--cases", nargs="+", help="run only these cases (default: all)")
    args = parser.parse_args()
    if args.quick and not args.worker:
        args.n, args.resamples, args.permutations = 20_000, 2_000, 2_000
    if args.worker:
        worker(args.worker, args)
        return
    tmp = tempfile.TemporaryDirectory()
    args.scores = str(Path(tmp.name) / "ranx_scores.npy")
    run_case("save-ranx-scores", args, trace=False)

    cases = ["ragnb-percentile", "ragnb-bca", "ragnb-percentile-rr", "scipy-percentile"]
    cases += [] if args.skip_scipy_bca else ["scipy-bca"]
    cases += ["ragnb-signflip", "ranx-fisher", "ranx-compare"]
    cases = [c for c in cases if c in args.cases] if args.cases else cases
    results = {}
    print(
        f"paired bootstrap: n={args.n:,} queries, {args.resamples:,} resamples, "
        f"scipy batch={args.batch}"
    )
    print(
        f"randomization: {args.queries:,} queries, {args.runs} runs, "
        f"{args.permutations:,} permutations"
    )
    print(f"{'case':<22}{'wall s':>9}{'cpu s':>9}{'peak rss MB':>13}{'+rss MB':>9}"
          f"{'traced MB':>11}  detail")  # fmt: skip
    for name in cases:
        r = run_case(name, args, trace=False)
        if name.startswith("ragnb") or name == "scipy-percentile":
            r.update(run_case(name, args, trace=True))
        results[name] = r
        detail = {k: v for k, v in r.items() if k in ("ci", "p", "path")}
        traced = f"{r['traced_mb']:.1f}" if "traced_mb" in r else "-"
        print(f"{name:<22}{r['seconds']:>9.2f}{r['cpu_seconds']:>9.2f}{r['rss_mb']:>13.0f}"
              f"{r['rss_growth_mb']:>9.0f}{traced:>11}  {json.dumps(detail)[:80]}",
              flush=True)  # fmt: skip

    def ratio(slow, fast, key="seconds"):
        return results[slow][key] / results[fast][key]

    print("\nratios (peer time / ragnb time, wall clock; CPU time in brackets) and targets")
    checks = [("scipy-percentile", "ragnb-percentile", 3), ("scipy-bca", "ragnb-bca", 10),
              ("ranx-fisher", "ragnb-signflip", 50),
              ("ranx-compare", "ragnb-signflip", 50)]  # fmt: skip
    for slow, fast, target in checks:
        if slow in results and fast in results:
            x = ratio(slow, fast)
            print(
                f"  {fast} vs {slow}: {x:,.1f}x [{ratio(slow, fast, 'cpu_seconds'):,.1f}x] "
                f"(target >= {target}x: {'met' if x >= target else 'NOT met'})"
            )
    ours = [results[c]["rss_mb"] for c in results if c.startswith("ragnb")]
    if ours:
        peak = max(ours)
        print(
            f"  ragnb peak RSS across cases: {peak:.0f} MB "
            f"(target <= 300 MB: {'met' if peak <= 300 else 'NOT met'})"
        )


if __name__ == "__main__":
    main()
