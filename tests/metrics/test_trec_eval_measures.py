"""trec_eval's own names for the measures ragnb added (MAP, R-precision, bpref,
infAP, success, whole-ranking reciprocal rank), checked per query against
trec_eval through pytrec_eval on real data (CODEC, TREC CAsT 2021), to 1e-9.

Runs are read with ``order="score"`` (trec_eval's order: score descending, ties
by docno descending). The condensed policy is trec_eval's ``judged_docs_only_flag``.
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
# trec_eval measure names, passed to ragnb as they are: the parser maps them.
MEASURES = ["map", "map_cut_10", "map_cut_100", "Rprec", "bpref", "infAP", "success_1",
            "success_5", "success_10", "recip_rank", "P_10", "recall_100", "ndcg_cut_10"]


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
def test_trec_eval_names_agree_per_query(real_data, loaded, qrels, run_path, condensed):
    test_set, qrel_dict = loaded[qrels]
    run = read_run(real_data / run_path, order="score")
    ours = score(test_set, run, MEASURES, policy="condensed" if condensed else "lower",
                 extra="drop", missing="empty")
    with gzip.open(real_data / run_path, "rt") as fh:
        run_dict = {q: d for q, d in pytrec_eval.parse_run(fh).items() if q in qrel_dict}
    families = {m.rsplit("_", 1)[0] if m[-1].isdigit() else m for m in MEASURES}
    theirs = pytrec_eval.RelevanceEvaluator(
        qrel_dict, families, judged_docs_only_flag=condensed).evaluate(run_dict)
    assert set(theirs) == set(ours.table["query_id"])
    checked = differ = 0
    for measure in MEASURES:
        values = ours.values(run.name, measure)
        for qid, result in theirs.items():
            assert values[qid] == pytest.approx(result[measure], abs=1e-9), (measure, qid)
            checked += 1
            differ += values[qid] != 0
    assert checked == len(MEASURES) * len(theirs) and differ > len(theirs)
