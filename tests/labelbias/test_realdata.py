"""On real data: hide judgments, bound, and the truth lies inside the bounds.

For CODEC (42 topics, grades 0-2) and TREC CAsT 2021 (158 judged turns, grades
0-4): hide a random part of the judgments of passages inside the compared
configs' top 10 (the pooling assumption covers exactly those), compute the
bounds on the reduced key, and check that the value under the full judgments
lies in [bound_min, bound_max] for every query and config, and the true
difference in [joint_min, joint_max] for every pair.
"""
import numpy as np
import pytest

from ragnb.io import read_run, read_test_set
from ragnb.labelbias import joint_bounds, label_bounds
from ragnb.metrics.score import score

pytestmark = pytest.mark.realdata

CASES = {
    "codec": ("codec/qrels/document_ndcg.qrels", "codec/system_runs/runs",
              ["document_bm25-tuned.run.gz", "document_ance-maxp.run.gz",
               "document_bm25-tuned+t5-maxp.run.gz", "document_ance-maxp+t5-maxp.run.gz"]),
    "cast": ("trec-cast-2021/2021/trec-cast-qrels-docs.2021.qrel",
             "trec-cast-2021/2021/baselines/document_runs",
             ["org_convdr.run.gz", "org_manual_bm25.run.gz", "org_convdr_bert.run.gz"]),
}
METRICS = ["ndcg@10", "ndcg_linear@10", "rr@10", "recall@10", "p@10", "rbp@10(p=0.8)"]


@pytest.fixture(scope="module", params=list(CASES))
def case(request, real_data):
    qrels, folder, names = CASES[request.param]
    ts = read_test_set(real_data / qrels)
    runs = [read_run(real_data / folder / n, order="score") for n in names]
    return request.param, ts, runs


def hide(ts, runs, share, rng):
    """Drop ``share`` of the judgments of passages in some run's top 10."""
    j = ts.judgments
    tops = set()
    for r in runs:
        t = r.table
        pos = t.groupby("query_id", sort=False).cumcount()
        tops |= set(zip(t.loc[pos < 10, "query_id"], t.loc[pos < 10, "passage_id"]))
    inside = np.array([(q, p) in tops for q, p in zip(j["query_id"], j["passage_id"])])
    drop = inside & (rng.random(len(j)) < share)
    return ts.with_judgments(j.loc[~drop]), int(drop.sum())


@pytest.mark.slow
@pytest.mark.parametrize("share", [0.3, 0.8])
def test_truth_inside_bounds(case, share):
    name, ts, runs = case
    rng = np.random.default_rng(20260729)
    hidden, n_hidden = hide(ts, runs, share, rng)
    assert n_hidden > 100
    for metric in METRICS:
        truth = score(ts, runs, metric, extra="drop").table
        b = label_bounds(hidden, runs, metric, top_grade=ts.top_grade, extra="drop")
        t = b.per_query.merge(truth, on=["config", "query_id"])
        assert len(t) == len(b.per_query) == len(truth)
        low_ok = t["bound_min"] <= t["value"] + 1e-12
        high_ok = t["value"] <= t["bound_max"] + 1e-12
        assert low_ok.all() and high_ok.all(), (name, metric, t[~(low_ok & high_ok)].head())
        assert (t["bound_max"] - t["bound_min"]).max() > 0       # the test can fail
        wide = truth.pivot(index="query_id", columns="config", values="value")
        base = runs[0].name
        for other in runs[1:]:
            j = joint_bounds(b, base, other.name).set_index("query_id")
            d = (wide[other.name] - wide[base]).reindex(j.index)
            assert (j["joint_min"] <= d + 1e-12).all() and (d <= j["joint_max"] + 1e-12).all(), \
                (name, metric, other.name)
            assert (j["separate_min"] <= j["joint_min"] + 1e-12).all()
            assert (j["joint_max"] <= j["separate_max"] + 1e-12).all()
