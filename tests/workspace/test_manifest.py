"""The workspace manifest: the demo's, hand-written ones, and errors that name the key."""
from __future__ import annotations

import pytest

from ragnb.errors import InputError
from ragnb.pages import skip_reason
from ragnb.paths import DEMO_DIR
from ragnb.workspace import open_workspace, parse_manifest


def write(tmp_path, text, files=("qrels.txt", "runs/a.trec", "runs/b.trec")):
    for f in files:
        p = tmp_path / f
        p.parent.mkdir(parents=True, exist_ok=True)
        if f.startswith("runs/"):
            p.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n")
        else:
            p.write_text("q1 0 d1 1\nq2 0 d3 2\n")
    (tmp_path / "ragnb.toml").write_text(text)
    return tmp_path / "ragnb.toml"


BASE = """
[test_sets.main]
path = "qrels.txt"
runs = "runs/*.trec"
"""


def test_demo_manifest_holds_the_demo_values():
    ws = open_workspace(DEMO_DIR)
    assert (ws.role("golden"), ws.role("production")) == ("golden", "production")
    assert ws.configs("labelbias") == ["m0_r1", "m0_r2", "m1_r1", "m1_r2", "m2_r1", "m2_r2"]
    assert len(ws.configs("golden")) == 41
    assert ws.setting("strata", "reported") == "+1.1"
    assert ws.setting("fit", "reported") == ""           # only the strata report has a figure
    assert ws.setting("label-bias", "metric") == "rr@10"
    assert ws.setting("label-bias", "metric", "ndcg@5") == "ndcg@5"   # given wins
    assert ws.gain == "exp" and '\ngain = "exp"' in ws.manifest.path.read_text()  # said, seed 004
    assert ws.display_name("round-00") == "January baseline"
    assert ws.display_name("round-13") == "round-13"
    assert ws.display_names["round-40"] == "July champion"
    assert ws.display_name("m1_r1") == "bge-m3 + reranker 1"
    assert ws.spec_path("production").endswith("data/demo/specs/production_query_type.toml")
    assert all(skip_reason(ws, s) is None for s in
               ("fit", "trajectory", "strata", "label-bias", "ledger", "health", "code-tasks"))


def test_a_small_manifest_reads_configs_from_file_names(tmp_path):
    ws = open_workspace(write(tmp_path, BASE))
    assert ws.configs("main") == ["a", "b"]
    assert ws.test_set_for("strata") == "main"
    assert ws.run("main", "a").order == "score"
    assert ws.manifest.extra == "error" and ws.manifest.order == "score"
    assert skip_reason(ws, "fit").startswith("needs two test sets")
    assert (skip_reason(ws, "strata")
            == "test set 'main' has no strata file ([test_sets.main.strata] path)")
    assert skip_reason(ws, "ledger") == "no split ledger ([workspace] ledger)"
    ws.test_set("main")
    assert [p.name for p in ws.files_read()] == ["ragnb.toml", "a.trec", "qrels.txt"]  # read order


@pytest.mark.parametrize("text, key, message", [
    ("[workspace]\norder = 'rnak'\n" + BASE, "workspace.order", "must be one of score, rank"),
    ("[workspace]\nledgr = 'x'\n" + BASE, "workspace.ledgr", "unknown key"),
    ("[test_sets.main]\npath = 'nope.txt'\n", "test_sets.main.path", "no such file"),
    ("[test_sets.main]\nrole = 'golden'\n", "test_sets.main.path", "is required"),
    ("[test_sets.main]\npath = 'qrels.txt'\nrole = 'gold'\n", "test_sets.main.role",
     "must be one of golden"),
    ("[test_sets.main]\npath = 'qrels.txt'\nruns = 'x/*.trec'\n", "test_sets.main.runs",
     "no file matches"),
    (BASE + "[test_sets.main.strata]\npath = 'qrels.txt'\nkey = 'qid'\ncolumns = ['a', 'b']\n",
     "test_sets.main.strata.key", "not one of the columns"),
    (BASE + "[report]\nbaseline = 3\n", "report.baseline", "must be a str"),
    (BASE + "[report.strata]\nreportd = '+1'\n", "report.strata.reportd", "unknown key"),
    # issue 34: a section no page reads is an error naming the closest and the sections
    (BASE + "[report.stratta]\nby = 'kind'\n", "report.stratta",
     r"no page reads this section \(did you mean \[report.strata\]\?\); sections: fit, "
     "trajectory, strata, label-bias, ledger, health, code-tasks, judge, gate, watch$"),
    (BASE + "[labels]\ntest_set = 'other'\n", "labels.test_set", "no test set 'other'"),
    (("[test_sets.a]\npath = 'qrels.txt'\nrole = 'golden'\n"
     "[test_sets.b]\npath = 'qrels.txt'\nrole = 'golden'\n"), "test_sets.b.role",
     "role 'golden' is given to"),
    ("", "test_sets", "name at least one test set"),
    ("[workspace]\nrelevance_level = 0\n" + BASE, "workspace.relevance_level",
     "must be an integer grade of at least 1, got 0"),
    (BASE + "[test_sets.main.queries]\npath = 'ids.txt'\n", "test_sets.main.queries.path",
     "no such file"),
    (BASE.replace("runs =", "queries = 3\nruns =", 1), "test_sets.main.queries",
     r"must be a path \(a file of query ids\) or a table"),
])
def test_errors_name_the_manifest_and_the_key(tmp_path, text, key, message):
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as err:
        parse_manifest(tmp_path)
    assert err.value.key == key and err.value.source == str(path.resolve())


def test_not_toml_and_no_manifest(tmp_path):
    with pytest.raises(InputError, match="ragnb init"):
        parse_manifest(tmp_path)
    (tmp_path / "ragnb.toml").write_text("[workspace\n")
    with pytest.raises(InputError, match="not valid TOML"):
        parse_manifest(tmp_path / "ragnb.toml")


def test_relevance_level_and_query_lists_reach_the_workspace(tmp_path):
    (tmp_path / "ids.txt").write_text("q2\nq9\n")
    write(tmp_path, "[workspace]\nrelevance_level = 2\n" + BASE.replace(
        "runs =", "queries = 'ids.txt'\nruns =", 1))
    ws = open_workspace(tmp_path)
    assert ws.metric("P_10") == "P_10(rel=2)" and ws.metric("ndcg_cut_10") == "ndcg_cut_10"
    test_set = ws.test_set("main")
    assert list(test_set.query_ids) == ["q2"]                       # q9 is not judged:
    assert [(n.kind, n.count) for n in test_set.notes] == [("listed_unjudged", 1)]  # counted
