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


# --------------------------------------------------------------------------------------
# trec_eval's own regression suite (its test/ folder, ../shared/data/real/trec_eval-test):
# each case is what trec_eval's Makefile runs, with the file it diffs against.
# (qrels, run, trec_eval's printed output, relevance level -l, -c: queries without results)
SUITE = [
    ("qrels.test", "results.test", "out.test", 1, False),
    ("qrels.test.with-comments", "results.test", "out.test", 1, False),  # '#' lines
    ("qrels.comment.test", "results.comment.test", "out.comment.test", 1, False),
    ("qrels.test", "results.test", "out.test.aq", 1, False),             # -m all_trec -q
    ("qrels.test", "results.trunc", "out.test.aqc", 1, True),            # -q -c, text after tag
    ("qrels.rel_level", "results.test", "out.test.aql", 2, False),       # -q -l2, grade -1
]
#: Names trec_eval prints that ragnb also accepts as its own measure, checked as trec_eval
#: defines them where the definitions meet: ragnb's ``rbp`` is binary with p = 0.8,
#: trec_eval's has p = 0.9 and scales graded gains to [0, 1], so on binary qrels it is
#: ``rbp(p=0.9)``; on graded qrels they differ. (trec_eval's ``ndcg`` is checked as a
#: TREC-initialised workspace scores it: linear gain.)
OWN_MEANING = {"rbp": "rbp(p=0.9)"}


def _printed(path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        out.setdefault(measure, {})[qid] = value
    return out


@pytest.mark.parametrize("qrels, run_file, printed, level, all_queries", SUITE,
                         ids=[f"{o}-{q}" for q, _, o, _, _ in SUITE])
def test_trec_eval_regression_suite(real_data, qrels, run_file, printed, level, all_queries):
    """Every value trec_eval's own test prints, for every trec_eval name ragnb accepts, to the
    printed 4 decimals: read as trec_eval reads (comments, text after the tag, grade -1),
    ``-l`` as ``with_relevance_level``, ``-c`` as ``missing="empty"`` (else queries without
    results are left out, as trec_eval does)."""
    from ragnb.errors import InputError
    from ragnb.metrics import parse_metric
    from ragnb.metrics.registry import with_gain, with_relevance_level

    folder = real_data / "trec_eval-test"
    if not folder.is_dir():
        pytest.skip(f"trec_eval's test suite not found at {folder}")
    expected = _printed(folder / printed)
    run = read_run(folder / run_file, order="score")
    test_set = read_test_set(folder / qrels)
    binary = test_set.top_grade == 1
    names = []
    for name in expected:
        try:
            parse_metric(name)
        except InputError:
            continue  # a measure ragnb does not have (gm_map, iprec_at_recall_0.10, ...)
        if name not in OWN_MEANING or binary:
            names.append(name)
    metrics = {n: with_relevance_level(with_gain(OWN_MEANING.get(n, n), "linear"), level)
               for n in names}
    ours = score(test_set, run, list(metrics.values()), extra="drop",
                 missing="empty" if all_queries else "drop")
    checked = 0
    for name, metric in metrics.items():
        values = ours.values(run.name, metric)
        for qid, text in expected[name].items():
            value = values.mean() if qid == "all" else values[qid]
            assert value == pytest.approx(float(text), abs=5e-5 + 1e-12), (name, qid, metric)
            checked += 1
    # every accepted name of the file was checked, per query where trec_eval printed them
    per_query = printed.startswith("out.test.a")
    assert len(names) == (45 + binary if per_query else 13) and checked == (
        sum(len(expected[n]) for n in names))
    assert checked >= (180 if per_query else 13)
