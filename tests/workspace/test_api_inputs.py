"""Test sets and runs from DataFrames and pytrec_eval/ranx dicts, validated like files."""
from __future__ import annotations

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io import as_run, as_test_set, read_run, read_test_set
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR
from ragnb.workspace import Workspace, open_workspace

LB = DEMO_DIR / "labelbias"


def long_judgments(ts):
    return ts.judgments[["query_id", "passage_id", "grade"]].astype({"query_id": object,
                                                                     "passage_id": object})


def qrels_dict(ts):
    out = {}
    for q, p, g in zip(ts.judgments["query_id"], ts.judgments["passage_id"],
                       ts.judgments["grade"]):
        out.setdefault(str(q), {})[str(p)] = int(g)
    return out


def run_dict(run):
    out = {}
    for q, p, s in zip(run.table["query_id"], run.table["passage_id"], run.table["score"]):
        out.setdefault(str(q), {})[str(p)] = float(s)
    return out


def test_a_workspace_from_dataframes_and_dicts_scores_as_the_files_do():
    files = open_workspace(DEMO_DIR)
    ts = files.test_set("labelbias")
    configs = ["m0_r1", "m2_r1"]
    runs = {c: files.run("labelbias", c) for c in configs}
    frames = Workspace.from_data(
        {"lb": long_judgments(ts)},
        {"lb": {c: r.table[["query_id", "passage_id", "rank", "score"]].astype(
            {"query_id": object, "passage_id": object}) for c, r in runs.items()}})
    dicts = Workspace.from_data({"lb": qrels_dict(ts)},
                                {"lb": {c: run_dict(r) for c, r in runs.items()}})
    expected = score(ts, list(runs.values()), ["rr@10", "ndcg@10"]).table
    for ws in (frames, dicts):
        got = score(ws.test_set("lb"), ws.runs("lb", configs), ["rr@10", "ndcg@10"]).table
        pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                      expected.reset_index(drop=True), check_dtype=False)
    # score() itself takes the same shapes
    direct = score(qrels_dict(ts), {c: run_dict(r) for c, r in runs.items()}, "rr@10").table
    assert direct["value"].tolist() == expected.loc[expected["metric"] == "rr@10",
                                                    "value"].tolist()


def test_dict_run_is_ranked_in_trec_eval_order_and_list_runs_by_position():
    run = as_run({"q1": {"b": 1.0, "a": 1.0, "c": 3.0}}, name="x")
    assert run.table["passage_id"].tolist() == ["c", "b", "a"]     # tie: docno descending
    listed = as_run({"q1": ["a", "c"]}, name="y")
    assert listed.order == "rank" and listed.table["passage_id"].tolist() == ["a", "c"]


@pytest.mark.parametrize("obj, message, where", [
    (pd.DataFrame({"query_id": ["q1"], "passage_id": ["a"]}),
     r"missing grade \(found query_id, passage_id\)", None),
    (pd.DataFrame({"query_id": ["q1", "q1"], "passage_id": ["a", "b"], "grade": [1, -1]}),
     "negative grade -1", 2),
    ({"q1": [1, 2]}, "must map to {passage_id: grade}", None),
    ({"q1": {"a": "high"}}, "grade 'high' is not an integer", 1),
    (42, "a test set must be a path, a DataFrame or a dict", None),
])
def test_bad_test_set_inputs_name_table_row_and_problem(obj, message, where):
    with pytest.raises(InputError, match=message) as err:
        as_test_set(obj, name="mine")
    assert "mine" in str(err.value)
    if where is not None:
        assert err.value.line == where


@pytest.mark.parametrize("obj, message", [
    (pd.DataFrame({"query_id": ["q1"], "passage_id": ["a"]}), "needs a rank and/or a score"),
    (pd.DataFrame({"query_id": ["q1", "q1"], "passage_id": ["a", "a"], "score": [1.0, 2.0]}),
     "appears more than once"),
    ({"q1": {"a": "x"}}, "score 'x' of passage 'a' is not a number"),
    ({"q1": 3}, "must map to {passage_id: score}"),
    ([1, 2], "a run must be a path, a DataFrame or a dict"),
])
def test_bad_run_inputs_are_errors_not_attribute_errors(obj, message):
    with pytest.raises(InputError, match=message):
        as_run(obj, name="mine")


def test_paths_pass_through_to_the_readers():
    assert len(as_test_set(LB / "testset.jsonl").judgments) == \
        len(read_test_set(LB / "testset.jsonl").judgments)
    run_file = LB / "runs" / "m0_r1.trec"
    assert as_run(run_file).table.equals(read_run(run_file).table)
