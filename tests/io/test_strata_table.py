"""Where strata come from: metadata + strata files, CODEC domains, CAsT turn depth, loaders."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io import read_strata
from ragnb.io.strata_table import join_strata
from ragnb.strata import stratum_columns, turn_depth
from tests.strata._workspaces import cast_workspace, codec_workspace, demo_comparison


def test_demo_table_joins_metadata_and_the_strata_file():
    comp = demo_comparison()
    t = comp.table
    assert len(t) == 200 and t["query_id"].is_unique
    assert {"intent", "source", "query_type", "turn"} <= set(t.columns)
    assert not {"query", "answer", "line"} & set(t.columns)   # free text is never a stratum
    # data/README.md: 118 / 41 / 27 / 14
    assert t["query_type"].value_counts().to_dict() == {
        "in_scope_single_turn": 118, "follow_up": 41, "out_of_scope": 27, "malformed": 14}
    assert comp.columns == ["source", "intent", "unanswerable", "query_type", "turn"]
    assert [p.rsplit("/", 1)[-1] for p in comp.score_inputs] == \
        ["production.jsonl", "round-00.jsonl", "round-40.jsonl"]


def test_stratum_columns_skip_ids_constants_and_free_text():
    t = pd.DataFrame({"query_id": list("abcd"), "one": ["x"] * 4, "two": list("xxyy"),
                      "many": list("abcd")})
    assert stratum_columns(t, max_levels=3) == ["two"]


def test_join_counts_ids_outside_the_test_set_and_checks_column_clashes():
    comp = demo_comparison()
    wider = pd.DataFrame({"query_id": ["nope", "p0001", "other"], "x": ["a", "b", "c"]})
    joined = join_strata(comp.table, wider)
    assert len(joined) == len(comp.table)            # the test set's queries, no more
    assert joined.set_index("query_id").loc["p0001", "x"] == "b"
    assert [(n.kind, n.count) for n in joined.attrs["notes"]] == [("strata_outside_test_set", 2)]
    with pytest.raises(InputError, match=r"column\(s\) intent are in both") as err:
        join_strata(comp.table, pd.DataFrame({"query_id": ["p0001"], "intent": ["a"]}))
    assert err.value.key == "intent"


def test_a_topics_json_keyed_by_query_id_is_a_strata_file(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"economics-1": {"Domain": "finance", "Query": "q"},
                                "history-2": {"Domain": "history"}}, indent=1))
    table = read_strata(path)
    assert table[["query_id", "Domain"]].to_dict("records") == [
        {"query_id": "economics-1", "Domain": "finance"},
        {"query_id": "history-2", "Domain": "history"}]


def test_turn_depth_buckets_in_turn_order():
    t = turn_depth(["106_1", "106_2", "106_3", "106_6", "106_7", "131_12"])
    assert t["turn"].tolist() == [1, 2, 3, 6, 7, 12]
    assert t["turn_depth"].astype(str).tolist() == ["1-2", "1-2", "3-6", "3-6", ">=7", ">=7"]
    assert list(t["turn_depth"].cat.categories) == ["1-2", "3-6", ">=7"]
    assert t["topic"].tolist() == ["106", "106", "106", "106", "106", "131"]
    assert turn_depth(["a_1", "a_4"], bins=((1, 1), (2, None)))["turn_depth"].astype(
        str).tolist() == ["1", ">=2"]


def test_turn_depth_errors_name_the_query():
    with pytest.raises(InputError, match="does not match") as err:
        turn_depth(["106_1", "oops"])
    assert err.value.key == "oops"
    with pytest.raises(InputError, match="turn 9 is in no bin"):
        turn_depth(["x_9"], bins=((1, 2),))


def test_workspace_errors_name_the_key(tmp_path):
    from ragnb.workspace import open_workspace

    with pytest.raises(InputError, match="no workspace manifest"):
        open_workspace(tmp_path / "missing")


@pytest.mark.realdata
def test_unknown_real_run_lists_the_runs(real_data, tmp_path):
    ws = codec_workspace(real_data, tmp_path)
    with pytest.raises(InputError, match="configs: .*document_bm25-tuned,") as err:
        ws.comparison("codec", ["bm25"])
    assert err.value.key == "test_sets.codec.runs"


@pytest.mark.realdata
def test_real_tables_hold_the_derived_strata(real_data, tmp_path):
    codec = codec_workspace(real_data, tmp_path / "c").comparison("codec", ["document_bm25-tuned"])
    assert codec.table["Domain"].value_counts().to_dict() == \
        {"finance": 14, "history": 14, "politics": 14}
    cast = cast_workspace(real_data, tmp_path).comparison("cast", ["org_convdr"])
    assert len(cast.table) == 158 and cast.extra == "drop"
    assert "turn_depth" in cast.columns
