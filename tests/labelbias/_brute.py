"""Reference values by brute force: enumerate every labelling and score it with ragnb.metrics.score.

Each labelling becomes its own query (``L0``, ``L1``, ...) of one test set, with
the case's judgments plus the labelled passages, and every config's ranking
copied to it; one call of the core scorer then gives the metric under every
labelling. Nothing here uses :mod:`ragnb.labelbias`.
"""
from __future__ import annotations

import itertools

import pandas as pd

from ragnb.io.run import validate_run
from ragnb.io.testset import TestSet, validate_judgments
from ragnb.metrics.score import score


def make_test_set(judgments: dict[str, dict[str, int]]) -> TestSet:
    rows = [(q, p, g) for q, js in judgments.items() for p, g in js.items()]
    j = validate_judgments(pd.DataFrame(rows, columns=["query_id", "passage_id", "grade"]), "j")
    return TestSet(pd.DataFrame({"query_id": list(judgments)}), j, name="t", source="j")


def make_run(rankings: dict[str, list[str]], name: str):
    rows = [(q, p, r) for q, ps in rankings.items() for r, p in enumerate(ps, start=1)]
    return validate_run(pd.DataFrame(rows, columns=["query_id", "passage_id", "rank"]), name,
                        name=name)


def random_case(rng, *, configs=2, k=5, top=2, judged=6, unjudged=4):
    """One query: judged passages (one at the top grade, maybe unranked) and rankings."""
    grades = {f"j{i}": int(rng.integers(0, top + 1)) for i in range(judged)}
    grades["j0"] = top
    pool = list(grades) + [f"u{i}" for i in range(unjudged)]
    rankings = {}
    for c in range(configs):
        rankings[f"c{c}"] = [pool[i] for i in rng.choice(len(pool), k, replace=False)]
    return grades, rankings


def brute(grades: dict, rankings: dict, metric: str, top: int, k: int):
    """Per config (min, max) of the metric, and per pair of configs (min, max) of the
    difference, over every labelling (0..top) of the unjudged passages in some ranking's
    top k (the pooling assumption: the other unjudged passages are not relevant)."""
    items = sorted({p for r in rankings.values() for p in r[:k] if p not in grades})
    labellings = list(itertools.product(range(top + 1), repeat=len(items)))
    judgments = {f"L{i}": {**grades, **dict(zip(items, lab))}
                 for i, lab in enumerate(labellings)}
    ts = make_test_set(judgments)
    runs = [make_run(dict.fromkeys(judgments, r), name) for name, r in rankings.items()]
    s = score(ts, runs, metric)
    values = {name: s.values(name, metric).to_numpy() for name in rankings}
    single = {name: (v.min(), v.max()) for name, v in values.items()}
    pairs = {}
    for b in rankings:
        for c in rankings:
            if b != c:
                d = values[c] - values[b]
                pairs[(b, c)] = (d.min(), d.max())
    return single, pairs
