"""End-to-end scoring benchmark: ragnb against pytrec_eval and ranx.

Usage::

    python benchmarks/bench_metrics.py [--queries 100000 --depth 100 --workloads light,heavy
                                        --repeat 3 --tools ragnb,pytrec_eval,ranx]

Two workloads are measured in one run, interleaved (every repeat runs every
workload and tool in turn, so background load on a shared machine hits them
alike; medians are reported): ``light`` qrels, 20 judged passages per query
(85% of the retrieved passages unjudged plus 5 judged but not retrieved), and
``heavy``, 75 per query (30% unjudged plus 5).

What is timed, for each tool, in its own fresh subprocess (so that peak memory,
the child's own ``VmHWM``, is measured fairly): read a TREC qrels file and a
TREC run file from disk, then compute nDCG@10, RR@10, R@100 and P@10 per query
for every query. Import time is reported apart and not included.

- **ragnb**: ``read_test_set`` + ``read_run`` (all validation included) +
  ``score(...)`` returning the tidy per-query table. nDCG is ``ndcg_linear@10``
  (linear gain, trec_eval's ``ndcg_cut``) so the three tools compute the same thing.
- **ragnb_csv**: ragnb as its users call it, ``ragnb score --per-query --format csv
  --out FILE`` (``ragnb.cli.main`` in the child, imports done first): the same
  reading and scoring, then every per-query value written to a CSV file (read
  back after the clock stops for the agreement check).
- **pytrec_eval**: ``parse_qrel`` / ``parse_run`` as its users do, then one
  ``RelevanceEvaluator`` for ``ndcg_cut_10, recall_100, P_10``. trec_eval's
  ``recip_rank`` has no cut-off, so RR@10 is a second evaluator over the run cut
  at its top 10 (trec_eval's order); the cut is included in the time.
- **ranx**: ``Qrels.from_file`` / ``Run.from_file`` (construction included) and
  ``evaluate(..., ["ndcg@10", "mrr@10", "recall@100", "precision@10"],
  return_mean=False)``. Numba specialises on the id strings' width, so ranx is
  first run untimed on a small data set of the same kind, which fills numba's
  on-disk cache: JIT compilation is not counted against ranx.

The data (seeded ``numpy.random.Generator``) is written once and reused from the
cache folder: ``--queries`` queries, ``--depth`` passages each with distinct,
strictly decreasing scores (so every tool ranks the same way), a share
``--unjudged`` of the retrieved passages without a judgment, grades 0-3 that
fall with rank, and a few judged passages per query that the run did not retrieve.

**The floor** is pyarrow alone parsing the same two files (``pyarrow.csv.read_csv``
with the column names and the space delimiter, types inferred, multithreaded), in
its own fresh subprocess too; ``/ floor`` is a tool's seconds over the floor's.

After timing, every tool writes its per-query values for a seeded sample of
queries and its means over all queries; the parent checks they agree (1e-9).
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

METRICS = ("ndcg@10", "rr@10", "recall@100", "p@10")
#: ragnb as the command line runs it, per-query values written as CSV (issue 25).
CSV = "ragnb_csv"
TOOLS = ("ragnb", CSV, "pytrec_eval", "ranx")
FLOOR = "pyarrow"  # parsing only: the floor every tool is measured against
TOLERANCE = 1e-9
#: Share of the retrieved passages left unjudged: with depth 100 and 5 judged passages
#: per query outside the run, 20 (light) or 75 (heavy) judgments per query.
WORKLOADS = {"light": 0.85, "heavy": 0.3}
#: The targets of issue 14, each checked on every workload.
TARGET_FLOOR, TARGET_PYTREC, TARGET_RANX, TARGET_MEMORY = 2.5, 5.0, 10.0, 0.45


# ---------------------------------------------------------------- data ----

def make_tables(queries: int, depth: int, unjudged: float, extra: float, seed: int,
                qid_base: int = 0):
    """The qrels and run of ``queries`` queries as two arrow tables (seeded).

    Query ids are ``qid_base`` plus a distinct number below 10,000,000, so chunks
    made with different bases (the scale benchmark) never share a query.
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    corpus = 8_841_823  # MS MARCO passage collection size
    n_extra = rng.poisson(extra, size=queries)
    width = depth + int(n_extra.max())
    # distinct passages per query: redraw the few rows that repeat a passage
    pids = rng.integers(0, corpus, size=(queries, width))
    while True:
        s = np.sort(pids, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if not len(bad):
            break
        pids[bad] = rng.integers(0, corpus, size=(len(bad), width))
    qnum = rng.choice(10_000_000, size=queries, replace=False) + qid_base
    qid = np.char.mod("%d", qnum).astype(object)
    rank = np.tile(np.arange(1, depth + 1), queries)
    gaps = rng.uniform(0.01, 0.2, size=(queries, depth))
    score = np.round(25.0 - np.cumsum(gaps, axis=1), 6).ravel()
    # judged retrieved passages: grade falls with rank
    judged = rng.random((queries, depth)) >= unjudged
    judged[:, 0] |= ~judged.any(axis=1)  # every query has a judgment (ranx needs its key)
    p_rel = 0.05 + 0.55 * np.exp(-np.arange(depth) / 15.0)
    relevant = rng.random((queries, depth)) < p_rel
    level = rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1], size=(queries, depth))
    grade = np.where(relevant, level, 0)
    run_q = np.repeat(np.arange(queries), depth)
    run_p = pids[:, :depth].ravel()
    # judged but not retrieved (missed relevant passages, mostly)
    ex_mask = np.arange(width - depth)[None, :] < n_extra[:, None]
    ex_q = np.repeat(np.arange(queries), width - depth).reshape(queries, -1)[ex_mask]
    ex_p = pids[:, depth:][ex_mask]
    ex_g = rng.choice([0, 1, 2, 3], p=[0.3, 0.4, 0.2, 0.1], size=len(ex_q))
    jm = judged.ravel()
    qr_q = np.r_[run_q[jm], ex_q]
    qr_p = np.r_[run_p[jm], ex_p]
    qr_g = np.r_[grade.ravel()[jm], ex_g]
    # qrels sorted by query id (as distributed), judgments shuffled within a query;
    # the run lists queries in generation order, ranks within a query ascending
    shuffle = rng.permutation(len(qr_q))
    order = shuffle[np.argsort(qid[qr_q[shuffle]].astype(str), kind="stable")]
    def pid_str(a):
        return pa.array(np.char.mod("%d", a))

    qrels = pa.table({"q": pa.array(qid[qr_q[order]].astype(str)),
                      "it": pa.array(np.zeros(len(order), dtype=np.int8)),
                      "p": pid_str(qr_p[order]), "g": pa.array(qr_g[order])})
    run = pa.table({"q": pa.array(qid[run_q].astype(str)), "q0": pa.array(["Q0"] * len(run_q)),
                    "p": pid_str(run_p), "r": pa.array(rank), "s": pa.array(score),
                    "tag": pa.array(["bench"] * len(run_q))})
    return qrels, run


#: TREC files: space-separated, no header, no quoting.
WRITE_OPTIONS = {"include_header": False, "delimiter": " ", "quoting_style": "none"}


def generate(folder: Path, queries: int, depth: int, unjudged: float, extra: float,
             seed: int) -> tuple[Path, Path]:
    """Write ``bench.qrels`` and ``bench.run`` into ``folder`` (skipped when present)."""
    import pyarrow.csv as pacsv

    folder.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = folder / "bench.qrels", folder / "bench.run"
    stamp = folder / "params.json"
    params = {"queries": queries, "depth": depth, "unjudged": unjudged, "extra": extra,
              "seed": seed, "version": 1}
    if qrels_path.exists() and run_path.exists() and stamp.exists() \
            and json.loads(stamp.read_text()) == params:
        return qrels_path, run_path
    t0 = time.perf_counter()
    qrels, run = make_tables(queries, depth, unjudged, extra, seed)
    opts = pacsv.WriteOptions(**WRITE_OPTIONS)
    pacsv.write_csv(qrels, str(qrels_path), write_options=opts)
    pacsv.write_csv(run, str(run_path), write_options=opts)
    stamp.write_text(json.dumps(params))
    print(f"generated {len(qrels):,} judgments and {len(run):,} run lines in "
          f"{time.perf_counter() - t0:.1f} s into {folder}", file=sys.stderr)
    return qrels_path, run_path


def sample_queries(qrels_path: Path, n: int, seed: int) -> list[str]:
    """A seeded sample of query ids (read from the qrels, outside any timing)."""
    import pyarrow.csv as pacsv

    t = pacsv.read_csv(str(qrels_path), read_options=pacsv.ReadOptions(column_names=list("qipg")),
                       parse_options=pacsv.ParseOptions(delimiter=" "),
                       convert_options=pacsv.ConvertOptions(include_columns=["q"],
                                                            column_types={"q": "string"}))
    qids = np.unique(t["q"].to_numpy(zero_copy_only=False).astype(str))
    rng = np.random.default_rng(seed + 1)
    return sorted(rng.choice(qids, size=min(n, len(qids)), replace=False).tolist())


# ---------------------------------------------------------------- tools ---

def run_ragnb(qrels: str, run: str) -> dict[str, dict[str, float]]:
    from ragnb.io import read_run, read_test_set
    from ragnb.metrics.score import score

    names = {"ndcg_linear@10": "ndcg@10", "rr@10": "rr@10", "recall@100": "recall@100",
             "p@10": "p@10"}
    test_set = read_test_set(qrels)
    scores = score(test_set, read_run(run), list(names))
    return _Deferred(lambda: {
        names[m]: dict(zip(g["query_id"].astype(str), g["value"].to_numpy()))
        for m, g in scores.table.groupby("metric", sort=False)})


def run_ragnb_csv(qrels: str, run: str):
    """As a user calls it: ``ragnb score --per-query --format csv --out FILE`` (in process,
    imports done): read, validate, score, and write every per-query value as CSV."""
    from ragnb.cli import main

    out = str(Path(run).with_name("per-query.csv"))
    argv = ["score", "--judgments", qrels, "--run", f"run={run}", "--per-query",
            "--format", "csv", "--out", out]
    for m in ("ndcg_linear@10", "rr@10", "recall@100", "p@10"):
        argv += ["--metric", m]
    if main(argv) != 0:
        raise SystemExit("ragnb score failed")

    def values():  # read back after the clock stops, for the agreement check
        import pyarrow.csv as pacsv

        t = pacsv.read_csv(out, convert_options=pacsv.ConvertOptions(
            column_types={"query_id": "string"})).to_pandas()
        names = {"ndcg_linear@10": "ndcg@10"}
        return {names.get(m, m): dict(zip(g["query_id"], g["value"].to_numpy(dtype=float)))
                for m, g in t.groupby("metric", sort=False)}
    return _Deferred(values)


def run_pytrec_eval(qrels: str, run: str):
    import pytrec_eval

    with open(qrels) as fh:
        qrel = pytrec_eval.parse_qrel(fh)
    with open(run) as fh:
        ranking = pytrec_eval.parse_run(fh)
    main = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_10", "recall_100", "P_10"})
    values = main.evaluate(ranking)
    # recip_rank has no cut-off: evaluate the run cut at its top 10 (score, then docno desc)
    top10 = {q: dict(sorted(d.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:10])
             for q, d in ranking.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrel, {"recip_rank"}).evaluate(top10)
    return _Deferred(lambda: {
        "ndcg@10": {q: v["ndcg_cut_10"] for q, v in values.items()},
        "rr@10": {q: v["recip_rank"] for q, v in rr.items()},
        "recall@100": {q: v["recall_100"] for q, v in values.items()},
        "p@10": {q: v["P_10"] for q, v in values.items()}})


def run_ranx(qrels: str, run: str):
    from ranx import Qrels, Run, evaluate

    q = Qrels.from_file(qrels, kind="trec")
    r = Run.from_file(run, kind="trec")
    names = {"ndcg@10": "ndcg@10", "mrr@10": "rr@10", "recall@100": "recall@100",
             "precision@10": "p@10"}
    out = evaluate(q, r, list(names), return_mean=False)
    return _Deferred(lambda: {
        names[m]: dict(zip(r.get_query_ids(), np.asarray(v, dtype=float)))
        for m, v in out.items()})


def run_pyarrow(qrels: str, run: str):
    """The floor: pyarrow parses both files (types inferred), nothing else."""
    import pyarrow.csv as pacsv

    for path, n in ((qrels, 4), (run, 6)):
        names = [f"c{i}" for i in range(n)]
        pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names),
                       parse_options=pacsv.ParseOptions(delimiter=" "))
    return _Deferred(dict)


class _Deferred:
    """Conversion to plain dicts, done after the clock stops."""

    def __init__(self, fn):
        self.fn = fn


RUNNERS = {"ragnb": run_ragnb, CSV: run_ragnb_csv, "pytrec_eval": run_pytrec_eval,
           "ranx": run_ranx, FLOOR: run_pyarrow}
IMPORTS = {"ragnb": "ragnb.metrics.score", CSV: "ragnb.metrics.score",
           "pytrec_eval": "pytrec_eval", "ranx": "ranx", FLOOR: "pyarrow.csv"}


def peak_rss_kb() -> float:
    """This process's own peak resident memory in KiB.

    ``VmHWM`` from ``/proc/self/status`` where available: ``ru_maxrss`` of a child
    started by fork/vfork + exec starts from the *parent's* high-water mark on
    Linux (it is carried in the signal struct across exec), so a fat parent
    would inflate every child's figure alike.
    """
    import resource

    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1])
    except OSError:
        pass
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def child(tool: str, qrels: str, run: str, sample_file: str, result_file: str) -> None:
    import importlib

    t0 = time.perf_counter()
    importlib.import_module(IMPORTS[tool])
    if tool in ("ragnb", CSV):
        importlib.import_module("ragnb.io")
        importlib.import_module("ragnb.metrics.kernels")
    if tool == CSV:
        for name in ("ragnb.cli", "ragnb.cli._common", "ragnb.cli.score", "pyarrow.csv"):
            importlib.import_module(name)
    imported = time.perf_counter() - t0
    rss_before = peak_rss_kb()
    t1 = time.perf_counter()
    deferred = RUNNERS[tool](qrels, run)
    seconds = time.perf_counter() - t1
    peak_kb = peak_rss_kb()
    values = deferred.fn()
    sample = json.loads(Path(sample_file).read_text())
    out = {
        "tool": tool, "seconds": seconds, "import_seconds": imported,
        "peak_mb": peak_kb / 1024, "after_import_mb": rss_before / 1024,
        "n_queries": {m: len(v) for m, v in values.items()},
        "means": {m: float(np.mean(list(v.values()))) for m, v in values.items()},
        "sample": {m: {q: float(v[q]) if q in v else None for q in sample}
                   for m, v in values.items()},
    }
    Path(result_file).write_text(json.dumps(out))


# ---------------------------------------------------------------- parent --

def measure(tool: str, qrels: Path, run: Path, folder: Path, sample_file: Path) -> dict:
    result = folder / f"result_{tool}.json"
    result.unlink(missing_ok=True)
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, __file__, "--child", tool, "--child-args", str(qrels), str(run),
           str(sample_file), str(result)]
    proc = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{tool} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(result.read_text())


def agreement(results: dict[str, list[dict]], sample: list[str]) -> list[str]:
    lines = []
    tools = [t for t in results if t != FLOOR]
    ref = results[tools[0]][0]
    for tool in tools[1:]:
        other = results[tool][0]
        worst, checked, missing = 0.0, 0, 0
        for m in METRICS:
            for q in sample:
                a, b = ref["sample"][m].get(q), other["sample"][m].get(q)
                if a is None or b is None:
                    missing += 1
                    continue
                worst = max(worst, abs(a - b))
                checked += 1
        mean_diff = max(abs(ref["means"][m] - other["means"][m]) for m in METRICS)
        ok = worst <= TOLERANCE and missing == 0 and mean_diff <= TOLERANCE
        lines.append(f"  {tools[0]} vs {tool}: {'AGREE' if ok else 'DISAGREE'} on {checked} "
                     f"sampled (query, metric) values, max |diff| {worst:.2e}; means over all "
                     f"queries max |diff| {mean_diff:.2e}"
                     + (f"; {missing} values missing" if missing else ""))
    return lines


def medians(runs: list[dict]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs)
            for k in ("seconds", "peak_mb", "import_seconds")}


def report(name: str, unjudged: float, args, qrels: Path, run: Path,
           results: dict[str, list[dict]], sample: list[str]) -> list[dict]:
    """Print one workload's table and targets; return its rows for the summary."""
    tools = list(results)
    med = {t: medians(results[t]) for t in tools}
    def size(f):
        return f.stat().st_size / 2**20

    with open(qrels, "rb") as fh:
        judged = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 24), b""))
    judged /= args.queries
    print(f"\n== {name}: {args.queries:,} queries x depth {args.depth}, {judged:.0f} judged per "
          f"query ({unjudged:.0%} of retrieved passages unjudged); qrels {size(qrels):.0f} MB, "
          f"run {size(run):.0f} MB ({os.cpu_count()} cores, median of {args.repeat})")
    print("end-to-end: read TREC qrels + run, nDCG@10, RR@10, R@100, P@10 per query\n")
    has_ragnb, has_floor = "ragnb" in tools, FLOOR in tools
    head = f"{'tool':12s} {'seconds':>9s} {'peak MB':>9s} {'import s':>9s}"
    if has_ragnb:
        head += f" {'vs ragnb':>9s} {'ragnb mem':>10s}"
    if has_floor:
        head += f" {'/ floor':>8s}"
    print(head)
    rows = []
    for t in tools:
        m = med[t]
        row = {"workload": name, "tool": t, **m}
        line = f"{t:12s} {m['seconds']:9.2f} {m['peak_mb']:9.0f} {m['import_seconds']:9.2f}"
        if has_ragnb:
            row["vs_ragnb"] = m["seconds"] / med["ragnb"]["seconds"]
            row["ragnb_memory"] = med["ragnb"]["peak_mb"] / m["peak_mb"]
            line += f" {row['vs_ragnb']:8.1f}x {row['ragnb_memory']:9.2f}x"
        if has_floor:
            row["floor_ratio"] = m["seconds"] / med[FLOOR]["seconds"]
            line += f" {row['floor_ratio']:7.2f}x"
        print(line)
        rows.append(row)
    print("\n('vs ragnb' = tool seconds / ragnb seconds; 'ragnb mem' = ragnb peak / tool peak; "
          f"'/ floor' = tool seconds / {FLOOR} parse seconds)")
    if has_ragnb:
        checks = []
        if has_floor:
            r = med["ragnb"]["seconds"] / med[FLOOR]["seconds"]
            checks.append((f"ragnb / floor {r:.2f}x", f"<= {TARGET_FLOOR}x", r <= TARGET_FLOOR))
        if "pytrec_eval" in tools:
            s = med["pytrec_eval"]["seconds"] / med["ragnb"]["seconds"]
            m = med["ragnb"]["peak_mb"] / med["pytrec_eval"]["peak_mb"]
            checks.append((f"vs pytrec_eval {s:.1f}x faster", f">= {TARGET_PYTREC:g}x",
                           s >= TARGET_PYTREC))
            if CSV in tools:
                s = med["pytrec_eval"]["seconds"] / med[CSV]["seconds"]
                checks.append((f"{CSV} vs pytrec_eval {s:.1f}x faster",
                               f">= {TARGET_PYTREC:g}x", s >= TARGET_PYTREC))
            checks.append((f"memory vs pytrec_eval {m:.2f}x", f"<= {TARGET_MEMORY}x",
                           m <= TARGET_MEMORY))
        if "ranx" in tools:
            s = med["ranx"]["seconds"] / med["ragnb"]["seconds"]
            checks.append((f"vs ranx {s:.1f}x faster", f">= {TARGET_RANX:g}x", s >= TARGET_RANX))
        for what, target, ok in checks:
            print(f"  {what:34s} target {target:8s} {'met' if ok else 'NOT met'}")
    if "pytrec_eval" in tools:
        print("pytrec_eval's recip_rank has no cut-off: RR@10 is a second evaluator on the run "
              "cut at its top 10 (included in its time).")
    scorers = [t for t in tools if t != FLOOR]
    if len(scorers) > 1:
        print(f"\nper-query agreement ({len(sample)} sampled queries, tolerance {TOLERANCE:g}):")
        for line in agreement({t: results[t] for t in scorers}, sample):
            print(line)
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=100_000)
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--workloads", default=",".join(WORKLOADS),
                   help=f"comma-separated, from {list(WORKLOADS)} (default: both)")
    p.add_argument("--extra", type=float, default=5.0,
                   help="mean number of judged passages per query that the run misses")
    p.add_argument("--seed", type=int, default=20240)
    p.add_argument("--out", type=Path, default=None,
                   help="data and result folder (default: cache folders in the temp dir)")
    p.add_argument("--repeat", type=int, default=3, help="timings per tool (median reported)")
    p.add_argument("--tools", default=",".join(TOOLS),
                   help=f"from {list(TOOLS)}; the {FLOOR} floor is always measured")
    p.add_argument("--sample", type=int, default=2000, help="queries checked for agreement")
    p.add_argument("--child", choices=(*TOOLS, FLOOR), help=argparse.SUPPRESS)
    p.add_argument("--child-args", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.child, *args.child_args)
        return 0

    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(tools) - set(TOOLS)
    if unknown:
        p.error(f"unknown tools {sorted(unknown)}; choose from {TOOLS}")
    tools.append(FLOOR)
    workloads = [w.strip() for w in args.workloads.split(",") if w.strip()]
    if set(workloads) - set(WORKLOADS):
        p.error(f"unknown workloads {sorted(set(workloads) - set(WORKLOADS))}; "
                f"choose from {list(WORKLOADS)}")
    data = {}
    for w in workloads:
        unjudged = WORKLOADS[w]
        folder = (args.out / w if args.out else Path(tempfile.gettempdir()) / (
            f"ragnb-bench-{args.queries}x{args.depth}-u{unjudged}-s{args.seed}"))
        qrels, run = generate(folder, args.queries, args.depth, unjudged, args.extra, args.seed)
        sample = sample_queries(qrels, args.sample, args.seed)
        sample_file = folder / "sample.json"
        sample_file.write_text(json.dumps(sample))
        data[w] = (folder, qrels, run, sample, sample_file)
        if "ranx" in tools:  # fill numba's cache for these id widths (untimed)
            warm = folder / "warm"
            wq, wr = generate(warm, 200, args.depth, unjudged, args.extra, args.seed)
            measure("ranx", wq, wr, warm, sample_file)

    results = {w: {t: [] for t in tools} for w in workloads}
    for i in range(args.repeat):  # interleaved, so background load hits every tool alike
        for w in workloads:
            folder, qrels, run, _, sample_file = data[w]
            for tool in tools:
                r = measure(tool, qrels, run, folder, sample_file)
                results[w][tool].append(r)
                print(f"  [{i + 1}/{args.repeat}] {w:6s} {tool:12s} {r['seconds']:7.2f} s  "
                      f"peak {r['peak_mb']:7.0f} MB", file=sys.stderr, flush=True)

    summary = []
    for w in workloads:
        folder, qrels, run, sample, _ = data[w]
        summary += report(w, WORKLOADS[w], args, qrels, run, results[w], sample)
    print(f"\n== summary (median of {args.repeat}; seconds exclude imports)\n")
    print(f"{'workload':9s} {'tool':12s} {'seconds':>8s} {'peak MB':>8s} {'vs ragnb':>9s} "
          f"{'ragnb mem':>10s} {'/ floor':>8s}")
    for r in summary:
        print(f"{r['workload']:9s} {r['tool']:12s} {r['seconds']:8.2f} {r['peak_mb']:8.0f} "
              f"{r.get('vs_ragnb', float('nan')):8.1f}x {r.get('ragnb_memory', float('nan')):9.2f}x"
              f" {r.get('floor_ratio', float('nan')):7.2f}x")
    print(f"\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
