"""A sweep of many runs: ``ragnb score`` serial, ``--jobs N`` and a dask LocalCluster, compared.

Data (generated once under the temp dir, never the repository): the workload of
``bench_metrics.py`` (TREC qrels and run, 30% of the top ranks unjudged) at
``--queries`` queries and ``--depth`` passages a query, plus ``--distinct - 1``
variants of the run with seeded noise added to its scores (so their rankings
differ); the ``--runs`` runs of the sweep cycle through those files (symbolic
links under distinct names: every run is read and scored in full, and the disk
holds only the distinct files).

Measured, each in a fresh subprocess: ``ragnb.score`` of every run (four metrics,
the per-query table written as CSV, as ``ragnb score --per-query --format csv``
does) with ``jobs`` = 1, each of ``--jobs``, and on a ``LocalCluster`` of
``--cluster-workers`` single-threaded worker processes (``cluster=``, the
``ragnb[dask]`` extra; its start-up, printed apart, is not in the wall time, as
a team's cluster is up before the sweep), once more written run by run into a
Parquet score table instead of the CSV (``score_into``, ``--out FOLDER/``; read
back and written as CSV after the clock, for the check). Printed: wall seconds, the
speed-up over serial, peak resident memory of the main process and of the
largest worker (``ru_maxrss`` of the waited children), the machine's load, and
whether the CSV is byte-identical to the serial one (sha256).

Usage::

    python benchmarks/bench_sweep.py [--runs 40 --queries 100000 --depth 20 --jobs 2]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

METRICS = ("ndcg@10", "rr@10", "recall@100", "p@10")


def variants(folder: Path, run: Path, distinct: int, seed: int) -> list[Path]:
    """``run`` and ``distinct - 1`` copies with seeded noise on the scores."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    from bench_metrics import WRITE_OPTIONS

    out = [run]
    names = ["qid", "q0", "pid", "rank", "score", "tag"]
    table = None
    for v in range(1, distinct):
        path = folder / f"variant{v}.run"
        if not path.exists():
            if table is None:
                table = pacsv.read_csv(str(run), read_options=pacsv.ReadOptions(
                    column_names=names), parse_options=pacsv.ParseOptions(delimiter=" "))
            rng = np.random.default_rng(seed + v)
            noisy = table["score"].to_numpy() + rng.normal(0, 0.5, len(table))
            pacsv.write_csv(table.set_column(4, "score", pa.array(noisy)), str(path),
                            write_options=pacsv.WriteOptions(**WRITE_OPTIONS))
        out.append(path)
    return out


def sweep(folder: Path, files: list[Path], runs: int) -> list[Path]:
    """``runs`` links named ``run00`` .. cycling through ``files``."""
    links = []
    for i in range(runs):
        link = folder / f"sweep-{runs}" / f"run{i:03d}"
        link.parent.mkdir(exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(files[i % len(files)])
        links.append(link)
    return links


def child(qrels: str, runs: list[str], jobs: str, out: str, result: str) -> None:
    """One measurement: ``jobs`` is a count, or ``cluster:N`` (a LocalCluster of N), or
    ``cluster:N:table`` (the same, written run by run into a Parquet score table).
    """
    from ragnb.metrics.score import score
    from ragnb.metrics.store import read_scores, score_into

    up = 0.0
    if jobs.startswith("cluster:"):
        from distributed import LocalCluster

        t0 = time.perf_counter()
        cluster = LocalCluster(n_workers=int(jobs.split(":")[1]), threads_per_worker=1,
                               processes=True, dashboard_address=":0", host="127.0.0.1")
        up = time.perf_counter() - t0
        options = {"cluster": cluster.scheduler_address}
    else:
        cluster, options = None, {"jobs": int(jobs)}
    t0 = time.perf_counter()
    if jobs.endswith(":table"):
        folder = Path(out).with_suffix(".table")
        score_into(folder, qrels, runs, list(METRICS), **options)
        wall = time.perf_counter() - t0
        read_scores(folder).table.to_csv(out, index=False)   # for the check, off the clock
        import shutil

        shutil.rmtree(folder)
    else:
        s = score(qrels, runs, list(METRICS), **options)
        s.table.to_csv(out, index=False)
        wall = time.perf_counter() - t0
    if cluster is not None:
        cluster.close()   # its workers are waited for: their peak is in RUSAGE_CHILDREN
    main_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if jobs != "1" else 0
    Path(result).write_text(json.dumps({"wall": wall, "main_kb": main_kb,
                                        "workers_kb": workers_kb, "up": up}))


def measure(qrels: Path, runs: list[Path], jobs: str, folder: Path) -> dict:
    tag = jobs.replace(":", "-")
    out, result = folder / f"scores-{tag}.csv", folder / f"result-{tag}.json"
    load = os.getloadavg()[0]
    subprocess.run([sys.executable, __file__, "--child", str(qrels), str(jobs), str(out),
                    str(result), *map(str, runs)], check=True)
    got = json.loads(result.read_text())
    with open(out, "rb") as f:
        got["sha256"] = hashlib.file_digest(f, "sha256").hexdigest()
    got["load"] = (load, os.getloadavg()[0])
    out.unlink()
    return got


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        qrels, jobs, out, result, *runs = argv[1:]
        child(qrels, runs, jobs, out, result)
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=40)
    p.add_argument("--queries", type=int, default=100_000)
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--distinct", type=int, default=4, help="distinct run files (default 4)")
    p.add_argument("--jobs", default="2", help="comma-separated job counts against serial")
    p.add_argument("--cluster-workers", type=int, default=2,
                   help="workers of the LocalCluster row (default 2; 0: no cluster row)")
    p.add_argument("--seed", type=int, default=20261207)
    p.add_argument("--cache", type=Path,
                   default=Path(tempfile.gettempdir()) / "ragnb-bench-sweep")
    args = p.parse_args(argv)
    from bench_metrics import generate

    folder = args.cache / f"q{args.queries}-d{args.depth}"
    qrels, run = generate(folder, args.queries, args.depth, 0.3, 0.0, args.seed)
    files = variants(folder, run, args.distinct, args.seed)
    runs = sweep(folder, files, args.runs)
    counts = ["1", *(str(int(j)) for j in args.jobs.split(","))]
    if args.cluster_workers:
        counts += [f"cluster:{args.cluster_workers}", f"cluster:{args.cluster_workers}:table"]
    print(f"# {args.runs} runs x {args.queries:,} queries x depth {args.depth} "
          f"({args.distinct} distinct files), {len(METRICS)} metrics, per-query CSV; "
          f"{os.cpu_count()} cores")
    print("| scored by | wall s | speed-up | peak RSS main / largest worker MB | identical | "
          "load |")
    print("|---:|---:|---:|---:|---|---|")
    serial = None
    for jobs in counts:
        got = measure(qrels, runs, jobs, folder)
        serial = serial or got
        worker = f"{got['workers_kb'] / 1024:.0f}" if got["workers_kb"] else "—"
        label = (f"LocalCluster, {jobs.split(':')[1]} workers (up in {got['up']:.1f} s)"
                 if jobs.startswith("cluster:") else f"--jobs {jobs}")
        if jobs.endswith(":table"):
            label += ", into a Parquet table (--out FOLDER/)"
        print(f"| {label} | {got['wall']:.1f} | {serial['wall'] / got['wall']:.2f}x | "
              f"{got['main_kb'] / 1024:.0f} / {worker} | "
              f"{'yes' if got['sha256'] == serial['sha256'] else 'NO'} | "
              f"{got['load'][0]:.2f}-{got['load'][1]:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
