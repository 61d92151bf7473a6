"""The statistics on real data: CODEC BM25 vs BM25 + T5 re-ranking, by domain stratum.

Per-query nDCG@10 comes from pytrec_eval (a peer reference), so this checks the
statistics alone, against CODEC's PROVENANCE note: "+0.146, 95% CI about [0.09, 0.21]".
"""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from ragnb.paths import REAL_DATA_DIR
from ragnb.stats import compare, paired_bootstrap, stratified_bootstrap

CODEC = REAL_DATA_DIR / "codec"
pytestmark = [
    pytest.mark.realdata,
    pytest.mark.skipif(not CODEC.is_dir(), reason=f"real data not found at {CODEC}"),
]


def _ndcg10(run_file: str) -> pd.Series:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict = {}
    for line in (CODEC / "qrels" / "document_ndcg.qrels").read_text().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    run: dict = {}
    with gzip.open(CODEC / "system_runs" / "runs" / run_file, "rt") as fh:
        for line in fh:
            qid, _, doc, _, score, _ = line.split()
            run.setdefault(qid, {})[doc] = float(score)
    scores = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(run)
    return pd.Series({q: v["ndcg_cut_10"] for q, v in scores.items()})


@pytest.fixture(scope="module")
def codec():
    domains = json.loads((CODEC / "topics" / "topics.json").read_text())
    strata = pd.Series({q: t["Domain"] for q, t in domains.items()})
    return (
        _ndcg10("document_bm25-tuned.run.gz"),
        _ndcg10("document_bm25-tuned+t5-maxp.run.gz"),
        strata,
    )


def test_codec_reranking_gain_matches_the_provenance_note(codec):
    bm25, t5, _ = codec
    r = paired_bootstrap(bm25, t5, method="bca")
    assert r.n == 42
    assert r.delta == pytest.approx(0.146, abs=0.0005)
    assert r.ci_low == pytest.approx(0.09, abs=0.015)
    assert r.ci_high == pytest.approx(0.21, abs=0.015)
    assert r.p_value < 0.001


def test_codec_by_domain(codec):
    bm25, t5, strata = codec
    s = stratified_bootstrap(bm25, t5, strata)
    t = s.table.set_index("stratum")
    assert t.loc[["finance", "history", "politics"], "n"].tolist() == [14, 14, 14]
    assert s.checks["holds"].all()
    assert t.loc["pooled", "delta"] == pytest.approx(0.146, abs=0.0005)


def test_codec_several_challengers_with_holm(codec):
    bm25, t5, strata = codec
    rm3 = _ndcg10("document_bm25+rm3-tuned+t5-maxp.run.gz")
    scores = pd.concat([
        pd.DataFrame({"config": name, "query_id": s.index, "metric": "ndcg@10", "value": s.values})
        for name, s in {"bm25": bm25, "bm25+t5": t5, "bm25+rm3+t5": rm3}.items()
    ])  # fmt: skip
    table = compare(scores, baseline="bm25", metric="ndcg@10", strata=strata, resamples=2_000)
    assert len(table) == 2 * 4
    assert (table["p_holm"] >= table["p_value"]).all()
