"""Where strata come from: metadata + strata files, CODEC domains, CAsT turn depth, loaders."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.paths import DEMO_DIR
from ragnb.strata import codec_domains, load_comparison, stratum_columns, turn_depth
from ragnb.strata.data import join_strata


def test_demo_table_joins_metadata_and_the_strata_file():
    comp = load_comparison("demo", DEMO_DIR, ["round-00", "round-40"])
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
    comp = load_comparison("demo", DEMO_DIR, ["round-00", "round-40"])
    wider = pd.DataFrame({"query_id": ["nope", "p0001", "other"], "x": ["a", "b", "c"]})
    joined = join_strata(comp.table, wider)
    assert len(joined) == len(comp.table)            # the test set's queries, no more
    assert joined.set_index("query_id").loc["p0001", "x"] == "b"
    assert [(n.kind, n.count) for n in joined.attrs["notes"]] == [("strata_outside_test_set", 2)]
    with pytest.raises(InputError, match=r"\['intent'\] are in both") as err:
        join_strata(comp.table, pd.DataFrame({"query_id": ["p0001"], "intent": ["a"]}))
    assert err.value.key == "intent"


def test_codec_domains_reads_the_domain_field(tmp_path):
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"economics-1": {"Domain": "finance", "Query": "q"},
                                "history-2": {"Domain": "history"}}))
    assert codec_domains(path).to_dict("records") == [
        {"query_id": "economics-1", "domain": "finance"},
        {"query_id": "history-2", "domain": "history"}]
    path.write_text(json.dumps({"economics-1": {"Query": "q"}}))
    with pytest.raises(InputError, match="no string field 'Domain'") as err:
        codec_domains(path)
    assert (err.value.source, err.value.key) == (str(path), "economics-1")


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


def test_loader_errors(tmp_path):
    with pytest.raises(InputError, match="dataset must be one of demo, codec, cast"):
        load_comparison("msmarco", tmp_path, ["a"])
    with pytest.raises(InputError, match="no such folder"):
        load_comparison("demo", tmp_path / "missing", ["a"])


@pytest.mark.realdata
def test_unknown_real_run_lists_the_runs(real_data):
    with pytest.raises(InputError, match="runs here: .*document_bm25-tuned,") as err:
        load_comparison("codec", real_data / "codec", ["bm25"])
    assert err.value.key == "bm25"


@pytest.mark.realdata
def test_real_tables_hold_the_derived_strata(real_data):
    codec = load_comparison("codec", real_data / "codec", ["document_bm25-tuned"])
    assert codec.table["domain"].value_counts().to_dict() == \
        {"finance": 14, "history": 14, "politics": 14}
    cast = load_comparison("cast", real_data / "trec-cast-2021", ["org_convdr"])
    assert len(cast.table) == 158 and cast.extra == "drop"
    assert "turn_depth" in cast.columns
