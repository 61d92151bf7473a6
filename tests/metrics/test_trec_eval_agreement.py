"""Agreement with trec_eval (through pytrec_eval) on real data, per query, to 1e-9.

Where definitions coincide: linear-gain nDCG@k = ``ndcg_cut_k``, ``P_k``,
``recall_k``, reciprocal rank on the run cut at k = ``recip_rank`` of the cut
run, and the condensed policy = ``judged_docs_only_flag``. trec_eval ranks by
score with ties broken by docno descending, so the runs are read with
``order="score"``.
"""
import gzip

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is a test extra")

from ragnb.io import read_run, read_test_set  # noqa: E402
from ragnb.metrics.score import score  # noqa: E402

pytestmark = pytest.mark.realdata

CASES = {
    "codec": ("codec/qrels/document_ndcg.qrels", "codec/system_runs/runs",
              ["document_bm25-tuned.run.gz", "document_ance-maxp.run.gz",
               "document_bm25-tuned+t5-maxp.run.gz"]),
    "cast": ("trec-cast-2021/2021/trec-cast-qrels-docs.2021.qrel",
             "trec-cast-2021/2021/baselines/document_runs",
             ["org_convdr.run.gz", "org_manual_bm25.run.gz"]),
}
MEASURES = {"ndcg_linear@10": "ndcg_cut_10", "ndcg_linear@5": "ndcg_cut_5", "p@10": "P_10",
            "p@5": "P_5", "recall@100": "recall_100", "recall@10": "recall_10"}


def trec_order_top(ranking: dict, k: int) -> dict:
    return dict(sorted(ranking.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:k])


def cases():
    for name, (qrels, folder, runs) in CASES.items():
        for run in runs:
            yield pytest.param(qrels, f"{folder}/{run}", id=f"{name}-{run.split('.run')[0]}")


@pytest.fixture(scope="module")
def loaded(real_data):
    out = {}
    for qrels, _, _ in CASES.values():
        with open(real_data / qrels) as fh:
            out[qrels] = (read_test_set(real_data / qrels), pytrec_eval.parse_qrel(fh))
    return out


@pytest.mark.parametrize("condensed", [False, True], ids=["lower", "condensed"])
@pytest.mark.parametrize("qrels, run_path", list(cases()))
def test_per_query_agreement(real_data, loaded, qrels, run_path, condensed):
    test_set, qrel_dict = loaded[qrels]
    run = read_run(real_data / run_path, order="score")
    policy = "condensed" if condensed else "lower"
    ours = score(test_set, run, [*MEASURES, "rr@10"], policy=policy, extra="drop",
                 missing="empty")
    with gzip.open(real_data / run_path, "rt") as fh:
        run_dict = {q: d for q, d in pytrec_eval.parse_run(fh).items() if q in qrel_dict}
    ev = pytrec_eval.RelevanceEvaluator(qrel_dict, set(MEASURES.values()),
                                        judged_docs_only_flag=condensed)
    theirs = ev.evaluate(run_dict)
    if condensed:  # RR on the condensed list cut at 10
        judged = {q: {d: s for d, s in r.items() if d in qrel_dict[q]} for q, r in run_dict.items()}
        cut = {q: trec_order_top(r, 10) for q, r in judged.items()}
    else:
        cut = {q: trec_order_top(r, 10) for q, r in run_dict.items()}
    rr = pytrec_eval.RelevanceEvaluator(qrel_dict, {"recip_rank"}).evaluate(cut)
    assert set(theirs) == set(ours.table["query_id"])
    checked = 0
    for metric, measure in [*MEASURES.items(), ("rr@10", "recip_rank")]:
        values = ours.values(run.name, metric)
        source = rr if measure == "recip_rank" else theirs
        for qid, result in source.items():
            assert values[qid] == pytest.approx(result[measure], abs=1e-9), (metric, qid)
            checked += 1
    assert checked >= 7 * 40
