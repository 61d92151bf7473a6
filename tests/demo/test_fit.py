"""The demo data tells seed 000's story, checked with the scorer (not the generator)."""
import filecmp

import numpy as np
import pandas as pd
import pytest

from ragnb.demo import fit
from ragnb.io import read_run, read_strata, read_test_set
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR


@pytest.fixture(scope="module")
def ndcg():
    out = {}
    for split in ("golden", "production"):
        ts = read_test_set(DEMO_DIR / f"{split}.jsonl")
        runs = [read_run(DEMO_DIR / "runs" / split / f"round-{r:02d}.jsonl") for r in range(41)]
        out[split] = score(ts, runs, "ndcg@10").wide("ndcg@10")
    return out


def test_split_sizes_and_format():
    golden = read_test_set(DEMO_DIR / "golden.jsonl")
    production = read_test_set(DEMO_DIR / "production.jsonl")
    assert len(golden.queries) == 300 and len(production.queries) == 200
    for ts in (golden, production):
        assert {"query", "source", "intent", "answer", "unanswerable"} <= set(ts.queries.columns)
        assert ts.judgments["doc_version"].notna().all()
    assert int(production.queries["unanswerable"].sum()) == 27


def test_four_cells_match_seed_000(ndcg):
    g, p = ndcg["golden"], ndcg["production"]
    assert round(g["round-00"].mean(), 3) == 0.512
    assert round(p["round-00"].mean(), 3) == 0.498
    assert round(100 * (g["round-40"] - g["round-00"]).mean(), 1) == 9.0
    assert round(100 * (p["round-40"] - p["round-00"]).mean(), 1) == 1.1


def test_golden_curve_only_rises_and_production_goes_flat(ndcg):
    g = ndcg["golden"].mean().to_numpy()
    p = ndcg["production"].mean().to_numpy()
    assert (np.diff(g) > 0).all()                     # keep-the-winner: each champion won
    assert p[9] - p[0] > 0.008                        # rounds 1-9 moved production too
    assert p[10:].max() - p[10:].min() < 0.006        # then it wanders inside 0.6 points


def test_strata_sizes_and_deltas(ndcg):
    strata = read_strata(DEMO_DIR / "production_strata.csv").set_index("query_id")["query_type"]
    assert strata.value_counts().to_dict() == {"in_scope_single_turn": 118, "follow_up": 41,
                                               "out_of_scope": 27, "malformed": 14}
    p = ndcg["production"]
    delta = (p["round-40"] - p["round-00"]).groupby(strata.reindex(p.index)).mean() * 100
    assert delta.round(1).to_dict() == {"in_scope_single_turn": 1.5, "follow_up": 1.2,
                                        "out_of_scope": 0.0, "malformed": -0.3}
    oos = strata[strata == "out_of_scope"].index
    assert (p.loc[oos] == 0).all().all()              # nothing relevant: exactly zero


def test_data_text_holds_markup_for_the_escaping_checks():
    production = read_test_set(DEMO_DIR / "production.jsonl")
    assert production.queries["query"].str.contains("<script>", regex=False).any()


@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path):
    fit.generate(tmp_path)
    from ragnb.demo import ledger
    ledger.generate(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")
                     if p.is_file() and not p.name.endswith(".lock"))
    assert len(written) > 80
    for rel in written:
        assert filecmp.cmp(tmp_path / rel, DEMO_DIR / rel, shallow=False), rel
    rounds = pd.read_csv(DEMO_DIR / "rounds.csv")
    assert rounds["date"].iloc[-1] == "2026-07-02"   # seed 000's retired_for_selection_at
