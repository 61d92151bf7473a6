"""The ledger's policy in the core: scoring a sealed split and ranking on a guard, through the
API (a workspace's split), whatever surface asks."""
from __future__ import annotations

import pandas as pd
import pytest

from ragnb.errors import PolicyError
from ragnb.ledger import Ledger
from ragnb.ledger.policy import admit_scoring, check_choice, find_split
from ragnb.workspace import Workspace

QRELS = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "passage_id": ["p1", "p2", "p3"],
                      "grade": [1, 1, 1]})
# three queries; "a" finds q1's passage, "b" q1's and q2's, "c" all three
RUNS = {"a": {"q1": {"p1": 1.0}, "q2": {"x": 1.0}, "q3": {"x": 1.0}},
        "b": {"q1": {"p1": 1.0}, "q2": {"p2": 1.0}, "q3": {"x": 1.0}},
        "c": {"q1": {"p1": 1.0}, "q2": {"p2": 1.0}, "q3": {"p3": 1.0}}}


@pytest.fixture
def sealed(tmp_path):
    ledger = Ledger(tmp_path / "ledger")
    ledger.register("prod", QRELS, role="confirmation")
    return ledger


def workspace(ledger) -> Workspace:
    return Workspace.from_data({"prod": QRELS}, {"prod": RUNS}, ledger=ledger.root)


def test_find_split_matches_by_content(sealed, tmp_path):
    ws = workspace(sealed)
    assert ws.split_manifest("prod").split_id == sealed.manifest("prod").split_id
    assert find_split(sealed.root, ws.test_set("prod")).sealed
    assert find_split("", ws.test_set("prod")) is None
    other = Workspace.from_data({"prod": QRELS.iloc[:2]}, {"prod": RUNS}, ledger=sealed.root)
    assert other.split_manifest("prod") is None            # other content: not this split


def test_a_workspace_refuses_to_read_a_sealed_splits_runs(sealed):
    ws = workspace(sealed)
    with pytest.raises(PolicyError, match="prod is sealed and can be scored only through its "
                                          "unseal policy"):
        ws.runs("prod", ["a", "b"])
    with pytest.raises(PolicyError, match="prod is sealed"):
        ws.run("prod", "a")
    with pytest.raises(PolicyError, match="prod is sealed"):
        ws.comparison("prod", ["a", "b"])            # what the what-if widget is built from
    with pytest.raises(PolicyError, match="prod is sealed"):
        ws.splits(["prod"], ["a", "b"])              # what the notebooks score
    assert [e.event for e in sealed.events()] == ["registered"]   # refusals record nothing
    ws.test_set("prod")                              # the judgments alone score nothing


def test_an_unseal_run_admits_its_candidates_once_and_records_each(sealed):
    sealed.unseal("prod", ["a", "b"], reason="confirm")
    ws = workspace(sealed)
    with pytest.raises(PolicyError, match="'c' was not declared"):
        ws.runs("prod", ["a", "c"])
    assert len(sealed.events()) == 2                 # nothing recorded for "a" either
    runs = ws.runs("prod", ["a", "b"])
    assert [r.name for r in runs] == ["a", "b"]
    scored = [e.payload for e in sealed.events() if e.event == "scored"]
    assert [(p["config"], p["under_unseal_run"]) for p in scored] == [("a", 1), ("b", 1)]
    assert ws.runs("prod", ["a", "b"])[0] is runs[0]   # the same scoring: nothing new
    assert len(sealed.events()) == 4
    with pytest.raises(PolicyError, match="'a' has already been scored in run 1"):
        workspace(sealed).runs("prod", ["a"])        # another session: a second scoring
    sealed.seal("prod")                              # both published: the run closes
    with pytest.raises(PolicyError, match="prod is sealed"):
        workspace(sealed).runs("prod", ["a"])


def test_admit_scoring_records_values_and_leaves_other_roles_alone(sealed, tmp_path):
    sealed.unseal("prod", ["a", "b"])
    m = sealed.manifest("prod")
    after = admit_scoring(sealed.root, m, ["a", "b"], metric="ndcg@10",
                          values={"a": 0.25, "b": 0.5}, note="test")
    assert after.scoring_runs_used == 1
    got = [(e.payload["config"], e.payload["value"], e.payload["metric"])
           for e in sealed.events() if e.event == "scored"]
    assert got == [("a", 0.25, "ndcg@10"), ("b", 0.5, "ndcg@10")]
    with pytest.raises(PolicyError, match="already been scored"):
        admit_scoring(sealed.root, m, ["b"])
    with pytest.raises(PolicyError, match="already been scored"):   # twice in one call
        admit_scoring(sealed.root, m, ["a", "a"])
    working = Ledger(tmp_path / "w")
    w = working.register("golden", QRELS, role="working")
    assert admit_scoring(working.root, w, ["a", "b"]) == w          # scored freely ...
    assert [e.event for e in working.events()] == ["registered"]    # ... and not recorded
    assert admit_scoring("", None, ["a"]) is None


def test_a_demoted_split_is_scored_freely_but_ranks_only_a_clear_lead(tmp_path):
    ledger = Ledger(tmp_path / "ledger")
    ledger.register("golden", QRELS, budget=2)
    ledger.record_selection("golden", ["x", "y"], winner="y")
    guard = ledger.record_selection("golden", ["y", "z"], winner="z")
    assert guard.role == "regression_guard"
    ws = Workspace.from_data({"golden": QRELS}, {"golden": RUNS}, ledger=ledger.root)
    assert len(ws.runs("golden")) == 3 and len(ledger.events()) == 3
    # E[max of 2 normals] = 1/sqrt(pi) = 0.5642; margin = 0.5642 x se / sqrt(2) + 1.96 se
    se = 0.01
    margin = 0.5641895835 * se / 2 ** 0.5 + 1.96 * se
    assert check_choice(guard, {"y": 0.50, "z": 0.50 + margin + 1e-6}, se) == pytest.approx(margin)
    with pytest.raises(PolicyError, match=r"golden is a regression guard and will not rank "
                                          r"'z' over 'y': the lead is \+2\.00 points"):
        check_choice(guard, {"y": 0.50, "z": 0.52}, se)
    with pytest.raises(PolicyError, match="no spread"):
        check_choice(guard, {"y": 0.5, "z": 0.5}, 0.0)
    # the same refusal as a recorded selection on the guard
    with pytest.raises(PolicyError) as recorded:
        ledger.record_selection("golden", ["y", "z"], winner="z", scores={"y": 0.50, "z": 0.52},
                                se=se)
    with pytest.raises(PolicyError) as checked:
        check_choice(guard, {"y": 0.50, "z": 0.52}, se)
    assert str(recorded.value) == str(checked.value)
    working = Ledger(tmp_path / "w").register("w", QRELS)
    assert check_choice(working, {"y": 0.50, "z": 0.52}, se) is None   # a working split ranks


def test_init_checks_a_sealed_splits_runs_without_scoring_them(sealed, tmp_path):
    from ragnb.cli import main

    (tmp_path / "prod.qrels").write_text("q1 0 p1 1\nq2 0 p2 1\nq3 0 p3 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for config, ranking in RUNS.items():
        (runs / f"{config}.run").write_text("".join(
            f"{q} Q0 {p} 1 1.0 {config}\n" for q, top in ranking.items() for p in top))
    code = main(["init", str(tmp_path / "ws"), "--test-set", f"prod={tmp_path / 'prod.qrels'}",
                 "--runs", str(runs / "*.run"), "--ledger", str(sealed.root)])
    assert code == 0
    assert [e.event for e in sealed.events()] == ["registered"]     # read and checked only
    from ragnb.workspace import open_workspace

    ws = open_workspace(tmp_path / "ws")
    assert ws.split_manifest("prod").sealed                         # the same content
    with pytest.raises(PolicyError, match="prod is sealed"):
        ws.runs("prod")


def test_a_test_sets_content_is_hashed_once_and_is_split_contents(monkeypatch):
    """A command matches its split, checks how (queries_note) and a workspace matches it
    again for the inflation figure: one hash per test set object, the same as
    split_content's, and another object (other judgments) is hashed afresh."""
    import gc

    from ragnb.io import read_test_set
    from ragnb.ledger import content, policy
    from ragnb.paths import DEMO_DIR

    calls = []
    real = content.split_content
    monkeypatch.setattr(content, "split_content",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    ts = read_test_set(DEMO_DIR / "golden.jsonl")
    first = policy.test_set_content(ts)
    assert policy.test_set_content(ts) is first and len(calls) == 1
    expected = real("lookup", ts.judgments.drop(columns="line"), list(ts.query_ids))
    assert first == expected
    (manifest, how) = policy.match_split(DEMO_DIR / "ledger", ts)
    assert how == "content" and policy.queries_note(manifest, ts) == "" and len(calls) == 1
    other = read_test_set(DEMO_DIR / "production.jsonl")
    assert policy.test_set_content(other).split_id != first.split_id and len(calls) == 2
    key = id(other)
    del other
    gc.collect()
    assert key not in policy._CONTENT  # forgotten with its test set
