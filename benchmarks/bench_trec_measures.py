"""Scoring time of the trec_eval measures ragnb added, against pytrec_eval.

Usage::

    python benchmarks/bench_trec_measures.py [--queries 20000 --depth 100 --unjudged 0.3
                                              --repeat 3 --out DIR]

Data: the seeded synthetic qrels and run of ``bench_metrics.py`` (same
generator, same cache folder layout). Both tools read the files once, untimed;
what is timed (median of ``--repeat``) is the per-query evaluation of
``map, map_cut_10, Rprec, bpref, infAP, success_10`` for every query:

- **ragnb**: ``score(index, run, [...])`` from a built ``JudgmentIndex`` (the
  judgment join of the run is included) to the tidy per-query table;
- **pytrec_eval**: ``RelevanceEvaluator(qrels, {...}).evaluate(run)`` from its
  parsed dicts (evaluator construction included).

Afterwards every per-query value of both is compared (1e-9); a disagreement
fails the benchmark. Single process, so no peak-memory figure here.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_metrics import generate  # noqa: E402

MEASURES = ("map", "map_cut_10", "Rprec", "bpref", "infAP", "success_10")
TOLERANCE = 1e-9


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=20_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--unjudged", type=float, default=0.3)
    ap.add_argument("--extra", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=20260729)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "ragnb-bench")
    args = ap.parse_args(argv)

    import pytrec_eval

    from ragnb.io import read_run, read_test_set
    from ragnb.metrics import JudgmentIndex
    from ragnb.metrics.score import score

    folder = args.out / f"q{args.queries}-d{args.depth}-u{args.unjudged}-x{args.extra}"
    qrels_path, run_path = generate(folder, args.queries, args.depth, args.unjudged,
                                    args.extra, args.seed)
    index = JudgmentIndex.from_test_set(read_test_set(qrels_path))
    run = read_run(run_path, order="score")
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        trun = pytrec_eval.parse_run(fh)
    families = {m.rsplit("_", 1)[0] if m[-1].isdigit() else m for m in MEASURES}

    def ours():
        return score(index, run, list(MEASURES))

    def theirs():
        return pytrec_eval.RelevanceEvaluator(qrels, families).evaluate(trun)

    times = {}
    for name, fn in (("ragnb", ours), ("pytrec_eval", theirs)):
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = fn()
            runs.append(time.perf_counter() - t0)
        times[name] = (statistics.median(runs), result)
    s, t = times["ragnb"][1], times["pytrec_eval"][1]
    worst, checked = 0.0, 0
    for m in MEASURES:
        v = s.values(run.name, m)
        for qid, res in t.items():
            worst = max(worst, abs(v[qid] - res[m]))
            checked += 1
    n_q, n_rows = index.n_queries, len(run)
    print(f"{n_q:,} queries, {n_rows:,} ranked passages, measures {', '.join(MEASURES)}")
    for name, (sec, _) in times.items():
        print(f"  {name:12s} {sec:8.2f} s  (median of {args.repeat})")
    print(f"  ratio pytrec_eval / ragnb: {times['pytrec_eval'][0] / times['ragnb'][0]:.1f}x")
    print(f"  agreement: {checked:,} per-query values, max |difference| {worst:.2e}")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    raise SystemExit(main())
