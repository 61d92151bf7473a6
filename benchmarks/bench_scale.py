"""Scale benchmark: 1,000,000 queries x depth 100 against the 100,000-query figures.

Usage::

    python benchmarks/bench_scale.py [--queries 1000000 --base 100000 --depth 100
                                      --cache /tmp/ragnb-bench-scale --resamples 10000]

(``make bench-scale``; opt-in: the data take about 8 GB of disk under the temp
dir and the run takes tens of minutes on 2 cores.)

Data: the light workload of ``bench_metrics.py`` (20 judgments per query),
generated once, in chunks of 100,000 queries, into a cache folder under the temp
dir (never the repository): a qrels file (20M lines at 1M queries), run ``a``
(100M lines) and run ``b``, which is ``a`` with the passages of a seeded half
of the queries reshuffled (so the two runs differ). One chunk is generated and
written ten times with its query ids prefixed ``0_`` .. ``9_`` (distinct
queries; every chunk scores alike, which a scale test does not mind), so the
100,000-query files are the first chunk of the same data.

Measured, each in its own fresh subprocess, for both sizes in one run:

- ``score``: ``read_test_set`` + ``read_run`` + ``score`` with ``ndcg_linear@10,
  rr@10, recall@100, p@10`` (what ``bench_metrics.py`` times);
- ``compare``: the ``ragnb compare`` command (in process) of ``b`` against ``a``
  on ``ndcg_linear@10`` with ``--resamples`` paired bootstrap resamples (and as
  many sign vectors), reading every file itself.

Reported: seconds, peak resident memory (the child's own ``VmHWM``) and the
child's swapped memory (``VmSwap``; 0 means no page of it was swapped out),
with the ratios of the large size to the base size. Targets (issue 14): time
<= 11x and memory <= 10x the base score figures; compare within that memory.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_metrics import WORKLOADS, WRITE_OPTIONS, make_tables

CHUNK = 100_000
METRICS = ["ndcg_linear@10", "rr@10", "recall@100", "p@10"]
TARGET_TIME, TARGET_MEMORY = 11.0, 10.0


def generate(folder: Path, queries: int, depth: int, seed: int) -> dict[str, Path]:
    """Qrels and runs ``a``/``b`` of ``queries`` queries (cached), written chunk by chunk.

    One chunk of :data:`CHUNK` queries is generated (as ``bench_metrics.py`` does);
    chunk ``c`` is that chunk with every query id prefixed ``c_``, so the queries
    are distinct and the chunks cost no further generation.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    folder.mkdir(parents=True, exist_ok=True)
    paths = {k: folder / f"{k}" for k in ("qrels", "a.run", "b.run")}
    stamp = folder / "params.json"
    params = {"queries": queries, "depth": depth, "seed": seed, "chunk": CHUNK, "version": 2}
    if all(p.exists() for p in paths.values()) and stamp.exists() \
            and json.loads(stamp.read_text()) == params:
        return paths
    stamp.unlink(missing_ok=True)
    t0 = time.perf_counter()
    n = min(CHUNK, queries)
    qrels, run = make_tables(n, depth, WORKLOADS["light"], 5.0, seed)
    # run b: a seeded half of the queries get their passages reshuffled
    rng = np.random.default_rng(seed)
    order = np.arange(n * depth).reshape(n, depth)
    moved = rng.random(n) < 0.5
    order[moved] = rng.permuted(order[moved], axis=1)
    run_b = run.set_column(2, "p", run.column("p").take(pa.array(order.ravel())))
    del order
    base = {"qrels": qrels, "a.run": run, "b.run": run_b}
    opts = pacsv.WriteOptions(**WRITE_OPTIONS)
    writers = {k: pacsv.CSVWriter(str(paths[k]), t.schema, write_options=opts)
               for k, t in base.items()}
    try:
        for c in range(-(-queries // CHUNK)):
            rows = min(CHUNK, queries - c * CHUNK)
            for key, table in base.items():
                if rows < n:
                    table = table.filter(pc.less(pc.cast(table.column(0), pa.int64()),
                                                 _threshold(table.column(0), rows)))
                q = pc.binary_join_element_wise(f"{c}_", table.column(0), "")
                writers[key].write_table(table.set_column(0, table.schema.names[0], q))
            print(f"  chunk {c + 1}/{-(-queries // CHUNK)} written "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    finally:
        for w in writers.values():
            w.close()
    stamp.write_text(json.dumps(params))
    return paths


def _threshold(qids, rows: int) -> int:
    """The query number below which ``rows`` distinct queries lie (a partial last chunk)."""
    import pyarrow.compute as pc

    numbers = np.sort(pc.unique(qids).cast("int64").to_numpy())
    return int(numbers[rows - 1]) + 1


# ---------------------------------------------------------------- children --

def status_kb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return float(line.split()[1])
    return float("nan")


def child(task: str, qrels: str, a: str, b: str, resamples: int, result: str) -> None:
    # imports are not timed
    import ragnb.cli.compare
    import ragnb.metrics.kernels
    import ragnb.stats.family  # noqa: F401
    from ragnb.cli import main as cli
    from ragnb.io import read_run, read_test_set
    from ragnb.metrics.score import score

    t0 = time.perf_counter()
    if task == "score":
        scores = score(read_test_set(qrels), read_run(a), METRICS)
        detail = {m: float(v) for m, v in scores.means().set_index("metric")["mean"].items()}
    else:
        out = Path(result).with_suffix(".csv")
        code = cli(["compare", "--judgments", qrels, "--baseline", f"a={a}",
                    "--challenger", f"b={b}", "--metric", "ndcg_linear@10",
                    "--resamples", str(resamples), "--format", "csv", "--out", str(out)])
        if code:
            raise SystemExit(code)
        detail = {"output": out.read_text()[-600:]}
    seconds = time.perf_counter() - t0
    Path(result).write_text(json.dumps({
        "seconds": seconds, "peak_mb": status_kb("VmHWM") / 1024,
        "swap_mb": status_kb("VmSwap") / 1024, "detail": detail}))


def measure(task: str, paths: dict[str, Path], resamples: int, folder: Path) -> dict:
    result = folder / f"result_{task}.json"
    result.unlink(missing_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1]) + os.pathsep + env.get(
        "PYTHONPATH", "")
    cmd = [sys.executable, __file__, "--child", task, str(paths["qrels"]), str(paths["a.run"]),
           str(paths["b.run"]), str(resamples), str(result)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{task} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(result.read_text())


def ram_gb() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30


def swap_total_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("SwapTotal:"):
            return float(line.split()[1]) / 1024
    return float("nan")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=1_000_000)
    p.add_argument("--base", type=int, default=100_000, help="the size the ratios refer to")
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--seed", type=int, default=20240)
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=1, help="timings per size and task (median)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "ragnb-bench-scale",
                   help="data folder (default: under the temp dir)")
    p.add_argument("--tasks", default="score,compare",
                   help="comma-separated, from score,compare (default both); score is always "
                        "measured at the base size, which the ratios refer to")
    p.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        task, qrels, a, b, resamples, result = args.child
        child(task, qrels, a, b, int(resamples), result)
        return 0

    tasks = [t for t in ("score", "compare") if t in args.tasks.split(",")]
    if not tasks:
        p.error("--tasks names neither score nor compare")
    plan = {args.base: list(dict.fromkeys(["score", *tasks])), args.queries: tasks}
    sizes = [args.base, args.queries]
    load_before = os.getloadavg()[0]
    data = {n: generate(args.cache / f"{n}x{args.depth}", n, args.depth, args.seed)
            for n in sizes}
    results = {(n, t): [] for n in sizes for t in plan[n]}
    for i in range(args.repeat):
        for n in sizes:
            for task in plan[n]:
                r = measure(task, data[n], args.resamples, args.cache / f"{n}x{args.depth}")
                results[(n, task)].append(r)
                print(f"  [{i + 1}/{args.repeat}] {n:>9,} {task:8s} {r['seconds']:8.1f} s  peak "
                      f"{r['peak_mb']:7.0f} MB  swapped {r['swap_mb']:.0f} MB",
                      file=sys.stderr, flush=True)
    med = {k: {f: statistics.median(r[f] for r in v) for f in ("seconds", "peak_mb", "swap_mb")}
           for k, v in results.items()}
    lines = {n: sum(os.path.getsize(data[n][k]) for k in ("qrels", "a.run")) / 2**30
             for n in sizes}
    print(f"\nscale: light workload (20 judgments per query), depth {args.depth}; "
          f"{os.cpu_count()} cores, {ram_gb():.0f}"
          f" GB RAM, swap {swap_total_mb():.0f} MB; median of {args.repeat}; 1-minute load "
          f"average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"score: read qrels + run, {', '.join(METRICS)}; compare: `ragnb compare` b vs a, "
          f"ndcg_linear@10, {args.resamples:,} resamples\n")
    print(f"{'queries':>10s} {'files GB':>9s} {'task':8s} {'seconds':>9s} {'peak MB':>9s} "
          f"{'swap MB':>8s} {'time x':>7s} {'memory x':>9s}")
    base = med[(args.base, "score")]
    for n in sizes:
        for task in plan[n]:
            m = med[(n, task)]
            print(f"{n:>10,} {lines[n]:9.2f} {task:8s} {m['seconds']:9.1f} {m['peak_mb']:9.0f} "
                  f"{m['swap_mb']:8.0f} {m['seconds'] / base['seconds']:6.1f}x "
                  f"{m['peak_mb'] / base['peak_mb']:8.1f}x")
    print(f"\n('time x', 'memory x': against the {args.base:,}-query score figures)")
    checks = []
    if "score" in tasks:
        big_s = med[(args.queries, "score")]
        checks += [
            (f"score time {big_s['seconds'] / base['seconds']:.1f}x", f"<= {TARGET_TIME:g}x",
             big_s["seconds"] / base["seconds"] <= TARGET_TIME),
            (f"score memory {big_s['peak_mb'] / base['peak_mb']:.1f}x",
             f"<= {TARGET_MEMORY:g}x", big_s["peak_mb"] / base["peak_mb"] <= TARGET_MEMORY)]
    if "compare" in tasks:
        big_c = med[(args.queries, "compare")]
        checks.append((f"compare memory {big_c['peak_mb'] / base['peak_mb']:.1f}x",
                       f"<= {TARGET_MEMORY:g}x",
                       big_c["peak_mb"] / base["peak_mb"] <= TARGET_MEMORY))
    swapped = max(med[(args.queries, t)]["swap_mb"] for t in tasks)
    checks.append((f"swapped {swapped:.0f} MB", "0", swapped == 0))
    for what, target, ok in checks:
        print(f"  {what:26s} target {target:7s} {'met' if ok else 'NOT met'}")
    print(f"\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
