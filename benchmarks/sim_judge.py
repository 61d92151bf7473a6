"""PPI's coverage and width when a model judge fills the labels (issue 32's proof).

Run from the repository root::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/sim_judge.py            # 2,000 draws a cell
    PYTHONPATH=$PWD .venv/bin/python benchmarks/sim_judge.py --quick    # 400 a cell

Judges
    Confusion matrices ``P(judge grade | people grade)`` measured on LLMJudge 2024
    (``../shared/data/real/llmjudge-2024``, 4,423 pairs): a good judge
    (``willia-umbrela1``), a middling one (``NISTRetrieval-instruct0``), a poor one
    (``TREMA-nuggets``), and the good one favouring the challenger (its grade lifted one
    step, with probability 0.4, on passages only the challenger retrieves: seed 003's
    direction of bias).

Populations
    TREC CAsT 2021 (158 judged turns, grades 0-4, five baselines) and CODEC documents
    (42 topics, grades 0-2): per query, people's nDCG@10 (linear gain, as trec_eval) with
    the real qrels, and the judge's with labels drawn pair by pair from a confusion
    matrix for every pair people judged and every pair in a run's top 10 (a pair nobody
    judged is people's grade 0), :mod:`ragnb.judge.simulate`. ``DRAWS`` judge draws per
    judge and collection.

Tables
    1. Coverage (superpopulation): each draw samples ``n`` people-labelled and ``m``
       judge-only queries with replacement from the collection, a judge draw at random;
       how often the 95% interval holds the collection's mean (a run's mean, and a
       paired difference), for people only, judge only (biased) and PPI++.
       Binomial band (2 SD) at 2,000 draws and 95%: ±1.0%.
    2. Width of PPI++ over people only (mean ratio), with the judge's κ.
    3. Real runs, real labels: hide 70% of the queries' people labels at random, fill
       every query from a judge's confusion matrix, over 200 hides; how often each
       interval of a paired difference holds the fully judged value.
    4. Speed: agreement plus PPI for 20 runs x 1,000 queries x depth 100.

Seeds: ``SEED + cell index``; numpy Generators only.
"""
from __future__ import annotations

import argparse
import glob
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb.io import as_run, read_test_set
from ragnb.judge import agreement, attach_judge, judged_estimates
from ragnb.judge.ppi import ppi_mean, t_mean
from ragnb.judge.simulate import draw_judge, hide_queries
from ragnb.metrics.score import score
from ragnb.paths import REAL_DATA_DIR

SEED = 20261206
DRAWS = 12
JUDGES = {"good (willia-umbrela1)": "willia-umbrela1",
          "middling (NISTRetrieval-instruct0)": "NISTRetrieval-instruct0",
          "poor (TREMA-nuggets)": "TREMA-nuggets"}
FAVOURING = "good, favours the challenger"
METRIC = "ndcg_cut_10"


def confusions(real: Path = REAL_DATA_DIR) -> dict[str, tuple[np.ndarray, float]]:
    """Judge label -> (confusion counts, κ) measured on LLMJudge 2024."""
    people = read_test_set(real / "llmjudge-2024" / "qrels-human.txt")
    out = {}
    for label, name in JUDGES.items():
        a = agreement(attach_judge(people, real / "llmjudge-2024" / "judges" / f"{name}.txt",
                                   name=name), level=2, resamples=200)
        out[label] = (a.confusion.to_numpy(), a.kappa)
    return out


def collection(name: str, real: Path = REAL_DATA_DIR):
    """(test set, runs, baseline, challenger) of CAsT 2021 or CODEC, people-judged queries."""
    if name == "cast":
        root = real / "trec-cast-2021" / "2021"
        ts = read_test_set(root / "trec-cast-qrels-docs.2021.qrel")
        files = sorted(glob.glob(str(root / "baselines" / "document_runs" / "*.run.gz")))
        base, chal = "org_convdr", "org_manual_ance_bert"
    else:
        root = real / "codec"
        ts = read_test_set(root / "qrels" / "document_ndcg.qrels")
        files = sorted(glob.glob(str(root / "system_runs" / "runs" / "document_*.run.gz")))
        base, chal = "document_bm25-tuned", "document_bm25-tuned+t5-maxp"
    runs = [as_run(f) for f in files]
    keep = set(ts.query_ids.astype(str))
    runs = [replace(r, table=r.table[r.table["query_id"].astype(str).isin(keep)]
                    .reset_index(drop=True)) for r in runs if r.name in (base, chal)]
    return ts, runs, base, chal


def per_query(ts, runs, base: str, chal: str) -> pd.DataFrame:
    w = score(ts, runs, METRIC).table.pivot(index="query_id", columns="config",
                                            values="value")
    return pd.DataFrame({"mean": w[chal], "diff": w[chal] - w[base]})


def populations(ts, runs, base, chal, conf, *, rng, draws=DRAWS, boost=None):
    """People's per-query values (y) and ``draws`` judge draws of them (f: draws x queries)."""
    y = per_query(ts, runs, base, chal)
    fs = []
    for _ in range(draws):
        j = draw_judge(ts, runs, conf, rng=rng, boost=boost)
        judged = replace(ts, judgments=j)
        fs.append(per_query(judged, runs, base, chal).reindex(y.index).to_numpy())
    return y.to_numpy(), np.stack(fs)


def coverage(y, f, n, m, *, reps, rng, col):
    """Share of ``reps`` intervals holding the population mean; mean widths."""
    target = y[:, col].mean()
    hits = np.zeros(3)
    width = np.zeros(3)
    q = len(y)
    for _ in range(reps):
        d = rng.integers(len(f))
        idx = rng.integers(q, size=n + m)
        yl, fl, fu = y[idx[:n], col], f[d, idx[:n], col], f[d, idx[n:], col]
        if yl.std() == 0:
            yl = yl + 0.0
        out = [t_mean(yl), t_mean(np.r_[fl, fu]), ppi_mean(yl, fl, fu)]
        for i, o in enumerate(out):
            hits[i] += o["low"] <= target <= o["high"]
            width[i] += o["high"] - o["low"]
    return hits / reps, width / reps


def table_coverage(pops, reps, cells, seed=SEED):
    rows = []
    for ci, ((coll, judge), (y, f, kappa)) in enumerate(pops.items()):
        for cj, (n, m) in enumerate(cells):
            for col, what in ((0, "run mean"), (1, "paired difference")):
                rng = np.random.default_rng(seed + 1000 * ci + 10 * cj + col)
                cov, width = coverage(y, f, n, m, reps=reps, rng=rng, col=col)
                rows.append({"collection": coll, "judge": judge, "κ": round(kappa, 2),
                             "n people": n, "m judge": m, "estimand": what,
                             "people only": cov[0], "judge only (biased)": cov[1],
                             "PPI++": cov[2], "PPI++ / people width": width[2] / width[0],
                             "draws": reps})
    return pd.DataFrame(rows)


def table_hides(coll, ts, runs, base, chal, conf, *, hides, seed=SEED, boost=None):
    rng = np.random.default_rng(seed)
    truth = per_query(ts, runs, base, chal)["diff"].mean()
    hits = {"people only": 0, "judge only (biased)": 0, "PPI++": 0}
    refused = 0
    for _ in range(hides):
        j = draw_judge(ts, runs, conf, rng=rng, boost=boost)
        full = replace(ts, judge=replace(ts, judgments=j, name="simulated"))
        est = judged_estimates(hide_queries(full, 0.7, rng), runs, METRIC, baseline=base,
                               extra="drop")
        if est.refused:
            refused += 1
        for k in hits:
            if k == "PPI++" and est.refused:
                continue
            r = est.difference(chal, k)
            hits[k] += bool(r["low"] <= truth <= r["high"])
    done = hides - refused
    return {"collection": coll, "pair": f"{chal} - {base}", "truth (points)": truth * 100,
            "hides": hides, "PPI refused": refused,
            **{k: v / (done if k == "PPI++" else hides) for k, v in hits.items()}}


def speed(seed=SEED):
    """Seconds for agreement plus PPI on 20 runs x 1,000 queries x depth 100."""
    rng = np.random.default_rng(seed)
    q, depth, nruns = 1000, 100, 20
    qids = np.repeat([f"q{i}" for i in range(q)], depth)
    pids = np.array([f"p{i}" for i in range(400)])
    runs = []
    for r in range(nruns):
        pick = np.concatenate([rng.choice(400, depth, replace=False) for _ in range(q)])
        runs.append(as_run(pd.DataFrame({"query_id": qids, "passage_id": pids[pick],
                                         "rank": np.tile(np.arange(1, depth + 1), q)}),
                           name=f"run{r:02d}"))
    pool = pd.concat([r.table[["query_id", "passage_id"]] for r in runs]).drop_duplicates()
    grade = rng.choice(4, size=len(pool), p=[0.6, 0.2, 0.15, 0.05])
    people_q = set(rng.choice(q, 300, replace=False).astype(str))
    people = pool.assign(grade=grade)[pool["query_id"].str[1:].isin(people_q)]
    judge = pool.assign(grade=np.clip(grade + rng.integers(-1, 2, len(pool)), 0, 3))
    t0 = time.perf_counter()
    ts = attach_judge(read_like(people), judge, name="j")
    agreement(ts, resamples=2000)
    judged_estimates(ts, runs, METRIC, baseline="run00", extra="drop")
    return time.perf_counter() - t0


def read_like(frame):
    from ragnb.io import as_test_set

    return as_test_set(frame, name="people")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="400 draws a cell, 50 hides")
    args = p.parse_args(argv)
    if not REAL_DATA_DIR.is_dir():
        raise SystemExit(f"real data absent at {REAL_DATA_DIR}: nothing to simulate on")
    reps, hides = (400, 50) if args.quick else (2000, 200)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    confs = confusions()
    pops = {}
    rng = np.random.default_rng(SEED)
    for coll in ("cast", "codec"):
        ts, runs, base, chal = collection(coll)
        for label, (conf, kappa) in confs.items():
            y, f = populations(ts, runs, base, chal, conf, rng=rng)
            pops[coll, label] = (y, f, kappa)
        conf, kappa = confs["good (willia-umbrela1)"]
        y, f = populations(ts, runs, base, chal, conf, rng=rng, boost={chal: 0.4})
        pops[coll, FAVOURING] = (y, f, kappa)
    cells = [(10, 50), (10, 1000), (25, 100), (25, 1000), (50, 200), (50, 1000),
             (100, 500), (100, 1000)]
    t = table_coverage(pops, reps, cells)
    print("1. Coverage of 95% intervals (superpopulation), and 2. PPI++ width / people only")
    shown = t.copy()
    for c in ("people only", "judge only (biased)", "PPI++"):
        shown[c] = (shown[c] * 100).map("{:.1f}%".format)
    shown["PPI++ / people width"] = shown["PPI++ / people width"].map("{:.3f}".format)
    print(shown.to_string(index=False))
    ppi = t["PPI++"]
    print(f"\nPPI++ coverage over {len(t)} cells: min {ppi.min():.1%}, max {ppi.max():.1%}, "
          f"mean {ppi.mean():.1%}; Monte Carlo SD per cell at {reps:,} draws: "
          f"{np.sqrt(0.95 * 0.05 / reps):.1%}")
    print(f"width ratio: max {t['PPI++ / people width'].max():.3f}; with κ >= 0.4: max "
          f"{t.loc[t['κ'] >= 0.4, 'PPI++ / people width'].max():.3f}")
    print(f"\n3. Real runs: 70% of queries hidden from people, judge-filled, {hides} hides")
    rows = []
    for coll in ("cast", "codec"):
        ts, runs, base, chal = collection(coll)
        for label in ("good (willia-umbrela1)", "poor (TREMA-nuggets)"):
            rows.append({"judge": label, **table_hides(coll, ts, runs, base, chal,
                                                       confs[label][0], hides=hides)})
    print(pd.DataFrame(rows).to_string(index=False))
    print(f"\n4. Speed: agreement + PPI, 20 runs x 1,000 queries x depth 100: {speed():.2f} s")


if __name__ == "__main__":
    main()
