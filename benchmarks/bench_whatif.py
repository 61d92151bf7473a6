"""How long one what-if update takes, at 200 queries (the demo) and at 2,000 (synthetic).

An update is what happens in the kernel when a control changes: the strata are
re-applied, the stratified bootstrap re-runs (10,000 resamples per stratum by
default), the table is rendered to HTML and the chart spec rebuilt. Scores are
cached per (metric, policy), so a strata change does not re-score; the first
use of a metric does, and is timed separately. Times are the kernel's; in a
browser the chart is then drawn client-side (``chart="vega"``), or has already
been drawn in the kernel (``chart="svg"``).

Printed per case: median and max over the repeats of the whole update and of
its parts, and the ratio of the median to the goal at that size (issue 35: 0.5 s at 200
queries, 1 s at 2,000; other sizes have none). It also
prints the uncached cost (re-scoring on every change) for comparison.

Usage::

    python benchmarks/bench_whatif.py [--repeats 15] [--resamples 10000] [--big 2000]
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from ragnb.widgets.whatif import WhatIf
from ragnb.workspace import open_workspace

#: Goal of one update in seconds, by query count.
GOALS = {200: 0.5, 2000: 1.0}
STRATA = (("in_scope_single_turn", 0.59), ("follow_up", 0.205), ("out_of_scope", 0.135),
          ("malformed", 0.07))


def synthetic(folder: Path, n: int, seed: int = 7) -> None:
    """A demo-shaped data set with ``n`` queries: 20 judged candidates, two top-10 runs."""
    rng = np.random.default_rng(seed)
    names = [s for s, _ in STRATA]
    kinds = rng.choice(names, size=n, p=[p for _, p in STRATA])
    with open(folder / "big.jsonl", "w") as ts, open(folder / "big_strata.csv", "w") as st:
        st.write("query_id,query_type\n")
        runs = {"round-00": {}, "round-40": {}}
        for i in range(n):
            qid = f"q{i:05d}"
            grades = np.zeros(20, dtype=int)
            if kinds[i] != "out_of_scope":
                grades[rng.choice(20, size=3, replace=False)] = rng.integers(1, 3, size=3)
            judgments = [{"passage_id": f"{qid}-{j}", "grade": int(g), "doc_version": "v1"}
                         for j, g in enumerate(grades)]
            ts.write(json.dumps({"query_id": qid, "query": f"query {i}", "source": "bench",
                                 "intent": "x", "answer": "", "unanswerable":
                                 bool(kinds[i] == "out_of_scope"), "judgments": judgments})
                     + "\n")
            st.write(f"{qid},{kinds[i]}\n")
            for config, skill in (("round-00", 1.0), ("round-40", 1.1)):
                key = skill * grades + rng.normal(0, 1.2, 20)
                runs[config][qid] = [f"{qid}-{j}" for j in np.argsort(-key)[:10]]
    (folder / "runs" / "big").mkdir(parents=True)
    for config, rankings in runs.items():
        with open(folder / "runs" / "big" / f"{config}.jsonl", "w") as fh:
            for qid, ranking in rankings.items():
                fh.write(json.dumps({qid: ranking}) + "\n")


def timed_updates(w: WhatIf, label: str, repeats: int) -> dict[str, list[float]]:
    """Toggle the smallest stratum ``repeats`` times; collect each update's parts."""
    out: dict[str, list[float]] = {}
    box = w.checkbox(label)
    for _ in range(repeats):
        t0 = time.perf_counter()
        box.value = not box.value
        wall = time.perf_counter() - t0
        for k, v in {**w.timings, "wall": wall}.items():
            out.setdefault(k, []).append(v)
    return out


def against(wall: float, n: int) -> str:
    """The update's share of the goal at ``n`` queries ("" where there is none)."""
    goal = GOALS.get(n)
    return f"  {wall / goal:.2f} of the {goal:g} s goal" if goal else ""


def report(case: str, times: dict[str, list[float]], n: int) -> None:
    med = {k: statistics.median(v) for k, v in times.items()}
    parts = ", ".join(f"{k} {med[k] * 1000:.0f}" for k in ("bootstrap", "table", "chart"))
    print(f"{case:<44} median {med['wall'] * 1000:6.0f} ms (max {max(times['wall']) * 1000:5.0f})"
          f"  [{parts} ms]{against(med['wall'], n)}")


def bench(comparison, n: int, resamples: int, repeats: int) -> None:
    print(f"\n{n:,} queries, {resamples:,} resamples per stratum")
    for chart in ("vega", "svg"):
        w = WhatIf.from_comparison(comparison, baseline="round-00", challenger="round-40",
                                   spec="query_type", resamples=resamples, chart=chart)
        report(f"strata change, chart={chart}", timed_updates(w, "malformed", repeats), n)
    w = WhatIf.from_comparison(comparison, baseline="round-00", challenger="round-40",
                               spec="query_type", resamples=resamples, chart="vega")
    for metric, what in (("rr", "first use of a metric (scores it)"),
                         ("ndcg", "back to a cached metric")):
        t0 = time.perf_counter()
        w.metric_w.value = metric
        wall = time.perf_counter() - t0
        print(f"{what:<44} {wall * 1000:6.0f} ms (scoring {w.timings['scores'] * 1000:.0f} ms)"
              f"{against(wall, n)}")
    t0 = time.perf_counter()
    for _ in range(3):
        score(comparison.test_set, comparison.runs, "ndcg@10", extra=comparison.extra)
    rescore = (time.perf_counter() - t0) / 3
    print(f"{'(uncached: re-scoring alone would add)':<44} {rescore * 1000:6.0f} ms per update")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--big", type=int, default=2_000, help="queries of the large case")
    args = parser.parse_args()
    comparison = open_workspace(DEMO_DIR).comparison("production", ["round-00", "round-40"])
    bench(comparison, 200, args.resamples, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        synthetic(Path(tmp), args.big)
        (Path(tmp) / "ragnb.toml").write_text(
            '[test_sets.big]\npath = "big.jsonl"\nruns = "runs/big/*.jsonl"\n'
            '[test_sets.big.strata]\npath = "big_strata.csv"\nby = "query_type"\n')
        big = open_workspace(tmp).comparison("big", ["round-00", "round-40"])
        print(f"\n(synthetic data set of {args.big:,} queries made in "
              f"{time.perf_counter() - t0:.1f} s)")
        bench(big, args.big, args.resamples, max(3, args.repeats // 3))


if __name__ == "__main__":
    main()
