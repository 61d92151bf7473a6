"""The model-judge story: people judged a random 30% of the queries, a model judge all.

Built on the label-bias demo (:mod:`ragnb.demo.labelbias`), whose v4 key plus its pooled
labels (v5) judge every passage of the six runs' top 20: those are the people's grades.
People judged 49 of the 164 queries, drawn at random (every pooled passage of each);
a model judge graded every pair of every query, its errors drawn pair by pair from a
real judge's confusion matrix (LLMJudge 2024, ``willia-umbrela1`` against people on
4,423 pairs, TREC DL 2023: exact agreement 0.53, quadratic κ 0.50), mapped from its 0-3
scale onto the demo's 0-2 (:mod:`ragnb.judge.simulate`). Written under ``judge/``:

``people.csv``
    ``query_id, passage_id, grade``: the people's labels of the 49 queries.
``judge.trec``
    TREC qrels: the judge's grade of every pair of the 164 queries.

Because the demo knows every grade, the fully judged difference is known too: the page's
PPI interval can be checked against it (``tests/demo/``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261206
#: The share of queries people judged.
PEOPLE_SHARE = 0.3
#: ``willia-umbrela1`` against people on LLMJudge 2024's 4,423 test pairs (rows: people's
#: grade 0-3, columns: the judge's), counted from ``../shared/data/real/llmjudge-2024``.
CONFUSION = np.array([[1690, 235, 41, 39],
                      [684, 382, 100, 67],
                      [255, 297, 157, 99],
                      [76, 115, 52, 134]])


def full_labels(labelbias_dir: Path):
    """Every grade the demo knows: the v4 key merged with its pooled labels (v5)."""
    from ragnb.io import read_test_set
    from ragnb.labelbias import merge_judgments

    v4 = read_test_set(labelbias_dir / "testset.jsonl")
    merged, _ = merge_judgments(v4, read_test_set(labelbias_dir / "pooled_labels.csv"))
    return merged


def generate(out_dir: Path, labelbias_dir: Path, seed: int = SEED) -> list[Path]:
    """Write ``people.csv`` and ``judge.trec`` under ``out_dir`` (byte-identical per seed)."""
    from ragnb.io import as_run
    from ragnb.judge.simulate import draw_judge

    rng = np.random.default_rng(seed)
    full = full_labels(Path(labelbias_dir))
    runs = [as_run(p) for p in sorted((Path(labelbias_dir) / "runs").glob("*.trec"))]
    judge = draw_judge(full, runs, CONFUSION, k=20, rng=rng, name="demo")
    queries = full.query_ids.astype(str).to_numpy()
    chosen = set(rng.choice(queries, size=int(round(PEOPLE_SHARE * len(queries))),
                            replace=False))
    people = full.judgments[full.judgments["query_id"].astype(str).isin(chosen)]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    people_path, judge_path = out_dir / "people.csv", out_dir / "judge.trec"
    people[["query_id", "passage_id", "grade"]].to_csv(people_path, index=False,
                                                      lineterminator="\n")
    order = pd.DataFrame({"query_id": judge["query_id"].astype(str),
                          "passage_id": judge["passage_id"].astype(str),
                          "grade": judge["grade"].to_numpy()})
    judge_path.write_text("".join(f"{q} 0 {p} {g}\n" for q, p, g in order.itertuples(
        index=False)), encoding="utf-8", newline="\n")
    return [people_path, judge_path]
