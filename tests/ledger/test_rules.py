"""The ledger's rules, exercised through the public API."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from ragnb.errors import InputError, PolicyError
from ragnb.ledger import Ledger, ThresholdoutParams, UnsealPolicy, read_manifest
from ragnb.ledger.ledger import LedgerIntegrityError

from .conftest import StepClock


def _prod(qrels: pd.DataFrame) -> pd.DataFrame:
    return qrels.assign(query_id=qrels["query_id"].str.replace("q", "prod-q"))


# -- selections and the budget ---------------------------------------------------------------
def test_each_selection_increments_the_count(ledger, qrels):
    ledger.register("golden", qrels)
    for n in range(1, 6):
        assert ledger.record_selection("golden", ["a", "b"], winner="b").selections_against == n


def test_demotion_happens_exactly_at_the_budget(tmp_path, qrels):
    clock = StepClock()  # day 1 = 2026-01-05 is registration, selection k is on day k + 1
    led = Ledger(tmp_path / "l", clock=clock)
    led.register("golden", qrels, budget=40)
    for k in range(1, 40):
        m = led.record_selection("golden", ["champion", f"round-{k}"], winner=f"round-{k}")
        assert (m.role, m.retired_for_selection_at) == ("working", None), k
        assert m.budget_left == 40 - k
    m = led.record_selection("golden", ["champion", "round-40"], winner="round-40")
    assert (m.role, m.selections_against, m.budget_left) == ("regression_guard", 40, 0)
    assert m.retired_for_selection_at == "2026-02-14"  # 2026-01-05 + 40 days
    last = led.events("golden")[-1]
    assert last.event == "selection"
    assert last.payload["demotion"] == {"to": "regression_guard", "date": "2026-02-14",
                                        "reason": "selection 40 reached the budget of 40 "
                                                  "selections"}
    assert "DEMOTED" in led.history("golden")["summary"].iloc[-1]


def test_no_budget_counts_but_never_demotes(ledger, qrels):
    ledger.register("golden", qrels)
    for _ in range(60):
        m = ledger.record_selection("golden", ["a", "b"], winner="a")
    assert (m.role, m.selections_against, m.budget_left) == ("working", 60, None)


@pytest.mark.parametrize(("candidates", "winner", "match"), [
    (["a"], "a", "at least 2"),
    (["a", "a"], "a", "twice"),
    (["a", "b"], "c", "not among the candidates"),
    ("ab", "a", "list of configuration names"),
])
def test_malformed_selection(ledger, qrels, candidates, winner, match):
    ledger.register("golden", qrels)
    with pytest.raises(InputError, match=match):
        ledger.record_selection("golden", candidates, winner)
    assert ledger.manifest("golden").selections_against == 0  # nothing was recorded


# -- sealed confirmation splits -----------------------------------------------------------------
def test_sealed_split_refuses_scoring_outside_its_policy(ledger, qrels):
    m = ledger.register("prod-2026Q2", _prod(qrels), role="confirmation")
    assert m.sealed and m.unseal_policy == UnsealPolicy() and m.budget == 1
    with pytest.raises(PolicyError, match="sealed and can be scored only through its unseal"):
        ledger.score("prod-2026Q2", "champion", value=0.5)
    with pytest.raises(PolicyError, match="sealed confirmation split"):
        ledger.record_selection("prod-2026Q2", ["a", "b"], winner="a")
    with pytest.raises(PolicyError, match="4 candidates declared"):
        ledger.unseal("prod-2026Q2", ["a", "b", "c", "d"])

    ledger.unseal("prod-2026Q2", ["a", "b", "c"], reason="end of Q2 selection")
    with pytest.raises(PolicyError, match="already unsealed"):
        ledger.unseal("prod-2026Q2", ["a"])
    with pytest.raises(PolicyError, match="'d' was not declared"):
        ledger.score("prod-2026Q2", "d", value=0.5)
    ledger.score("prod-2026Q2", "a", metric="ndcg@10", value=0.49)
    with pytest.raises(PolicyError, match="already been scored in run 1"):
        ledger.score("prod-2026Q2", "a", value=0.52)
    with pytest.raises(PolicyError, match=r"publishes results whatever they say.*b, c have none"):
        ledger.seal("prod-2026Q2")
    ledger.score("prod-2026Q2", "b", value=0.51)
    ledger.score("prod-2026Q2", "c", value=0.50)
    m = ledger.seal("prod-2026Q2")
    assert (m.sealed, m.scoring_runs_used) == (True, 1)
    with pytest.raises(PolicyError, match=r"cannot be unsealed again.*1 used"):
        ledger.unseal("prod-2026Q2", ["e"])
    with pytest.raises(PolicyError, match="scored only through its unseal policy"):
        ledger.score("prod-2026Q2", "e", value=0.5)
    # every scoring that happened is recorded, with its value
    scored = [(e.payload["config"], e.payload["value"]) for e in ledger.events("prod-2026Q2")
              if e.event == "scored"]
    assert scored == [("a", 0.49), ("b", 0.51), ("c", 0.50)]


def test_confirmation_selection_uses_the_run_and_spends_the_split(ledger, qrels):
    ledger.register("prod", _prod(qrels), role="confirmation")
    ledger.unseal("prod", ["a", "b", "c"])
    for c, v in [("a", 0.49), ("b", 0.51)]:
        ledger.score("prod", c, value=v)
    with pytest.raises(PolicyError, match=r"\); not scored: c$"):
        ledger.record_selection("prod", ["a", "b", "c"], winner="b")
    ledger.score("prod", "c", value=0.50)
    m = ledger.record_selection("prod", ["a", "b", "c"], winner="b")
    assert (m.role, m.selections_against, m.sealed) == ("regression_guard", 1, False)


def test_policy_with_more_runs(ledger, qrels):
    policy = UnsealPolicy(max_scoring_runs=2, max_candidates=1, publish_whatever_they_say=False,
                          text="twice, one candidate each")
    ledger.register("prod", _prod(qrels), role="confirmation", unseal_policy=policy, budget=5)
    for run in (1, 2):
        ledger.unseal("prod", ["x"])
        m = ledger.seal("prod")  # allowed unscored: this policy does not force publication
        assert m.scoring_runs_used == run
    with pytest.raises(PolicyError, match="twice, one candidate each"):
        ledger.unseal("prod", ["x"])


def test_only_a_fresh_split_can_be_sealed(ledger, qrels):
    ledger.register("fresh", qrels)
    m = ledger.seal("fresh")
    assert (m.role, m.sealed, m.budget) == ("confirmation", True, 1)
    with pytest.raises(PolicyError, match="already sealed"):
        ledger.seal("fresh")
    ledger.register("used", _prod(qrels))
    ledger.score("used", "a", value=0.3)
    with pytest.raises(PolicyError, match="only a split nobody has looked at"):
        ledger.seal("used")


# -- demotion by hand and regression guards -----------------------------------------------------
def test_demote_by_hand(tmp_path, qrels):
    led = Ledger(tmp_path / "l", clock=StepClock())
    led.register("golden", qrels)
    led.record_selection("golden", ["a", "b"], winner="b")
    m = led.demote("golden", reason="composition no longer matches production")
    assert (m.role, m.retired_for_selection_at, m.selections_against) == (
        "regression_guard", "2026-01-07", 1)
    with pytest.raises(PolicyError, match="already a regression guard"):
        led.demote("golden", reason="again")
    with pytest.raises(InputError, match="say why"):
        led.demote(led.register("other", _prod(qrels)).name, reason=" ")


def test_guard_accepts_scoring_on_every_change(ledger, qrels):
    ledger.register("golden", qrels, role="regression_guard")
    for k in range(5):
        ledger.score("golden", f"change-{k}", metric="ndcg@10", value=0.5)
    assert len([e for e in ledger.events("golden") if e.event == "scored"]) == 5


def test_guard_needs_scores_to_rank(ledger, qrels):
    ledger.register("golden", qrels, role="regression_guard")
    with pytest.raises(PolicyError, match="ranks candidates only on a clear lead"):
        ledger.record_selection("golden", ["a", "b"], winner="b")


def test_guard_refuses_a_close_ranking_and_accepts_a_clear_one(ledger, qrels):
    pytest.importorskip("ragnb.stats.inflation",
                        reason="ragnb.stats.inflation is written in the statistics branch")
    from ragnb.stats.inflation import selection_inflation

    ledger.register("golden", qrels, budget=40)
    for _ in range(40):
        ledger.record_selection("golden", ["a", "b"], winner="b")
    se = 0.0069
    # the margin stated in the docs: inflation + 1.96 SE_d
    margin = selection_inflation(40, se) + 1.96 * se
    assert 0.01 < margin < 0.05  # "a few points", far below a 15-point alert
    with pytest.raises(PolicyError, match="the bias is the size of the signal"):
        ledger.record_selection("golden", ["a", "b"], winner="b",
                                scores={"a": 0.50, "b": 0.50 + margin * 0.9}, se=se)
    assert ledger.manifest("golden").selections_against == 40
    m = ledger.record_selection("golden", ["a", "b"], winner="b",
                                scores={"a": 0.50, "b": 0.50 + margin * 1.1}, se=se)
    assert m.selections_against == 41


# -- registration ---------------------------------------------------------------------------------
def test_register_is_idempotent_for_identical_content(ledger, qrels):
    a = ledger.register("golden", qrels, budget=40)
    b = ledger.register("golden", qrels.iloc[::-1], budget=40)
    assert a == b and len(ledger.events()) == 1
    with pytest.raises(PolicyError, match="cannot change those"):
        ledger.register("golden", qrels, budget=10)


def test_changed_content_under_the_same_name_is_refused(ledger, qrels):
    ledger.register("golden", qrels)
    with pytest.raises(PolicyError, match="a changed split is a new split.*golden-v2"):
        ledger.register("golden", qrels.assign(grade=[2, 1, 1, 2]))


def test_same_content_under_another_name_is_refused(ledger, qrels):
    ledger.register("golden", qrels)
    ledger.record_selection("golden", ["a", "b"], winner="b")
    with pytest.raises(PolicyError, match=r"already registered as 'golden' \(selections_against 1"):
        ledger.register("golden-fresh", qrels)


def test_split_can_be_named_by_its_full_id(ledger, qrels):
    m = ledger.register("golden", qrels)
    assert ledger.manifest(m.split_id) == m
    with pytest.raises(InputError, match="content has changed"):
        ledger.manifest("golden@sha256:" + "0" * 64)
    with pytest.raises(InputError, match=r"no split 'nope' in the ledger \(registered: golden\)"):
        ledger.record_selection("nope", ["a", "b"], winner="a")


# -- the state is derived from the log -----------------------------------------------------------
def test_manifest_is_derived_from_the_log_and_exported(tmp_path, qrels):
    root = tmp_path / "l"
    led = Ledger(root)
    led.register("golden", qrels, budget=2)
    led.record_selection("golden", ["a", "b"], winner="b")
    export = root / "manifests" / "golden.json"
    assert read_manifest(export) == led.manifest("golden")
    # a stale export changes nothing: the log is the truth
    export.write_text(json.dumps(dict(json.loads(export.read_text()), selections_against=0)))
    assert led.manifest("golden").selections_against == 1
    # a deleted one takes the head it recorded with it: refused until written again
    export.unlink()
    with pytest.raises(LedgerIntegrityError, match=r"no manifest export for 1 split\(s\) in "
                                                   r"the log \(golden\)"):
        led.record_selection("golden", ["b", "c"], winner="c")
    assert led.export() == [export]
    m = led.record_selection("golden", ["b", "c"], winner="c")
    assert m.role == "regression_guard" and read_manifest(export) == m
    assert led.export() == [export]


def test_manifests_table(ledger, qrels):
    ledger.register("golden", qrels, budget=40)
    ledger.register("prod", _prod(qrels), role="confirmation")
    t = ledger.manifests()
    assert list(t["split"]) == ["golden", "prod"] == ledger.splits()
    assert list(t["sealed"]) == [False, True]


# -- reusable holdout through the ledger ------------------------------------------------------
def test_holdout_answers_are_recorded_and_budgeted(ledger, qrels):
    params = ThresholdoutParams(budget=2, seed=11)
    ledger.register("prod", _prod(qrels), role="confirmation", reusable_holdout=params)
    with pytest.raises(PolicyError, match="answers through Thresholdout"):
        ledger.unseal("prod", ["a"])
    with pytest.raises(PolicyError, match="use holdout_query"):
        ledger.score("prod", "a", value=0.4)
    same = [0.5] * 10
    answers = [ledger.holdout_query("prod", "cfg-0", same, same)]
    # a 40-point gap is far above T + noise (P(below) < 1e-4): each such answer spends
    while sum(a.from_holdout for a in answers) < 2:
        answers.append(ledger.holdout_query("prod", f"cfg-{len(answers)}", [0.9] * 10, same))
        assert answers[-1].from_holdout
    assert [a.index for a in answers] == list(range(len(answers)))
    assert answers[-1].budget_left == 0
    assert ledger.manifest("prod").holdout_spent == 2
    with pytest.raises(PolicyError, match="budget of 2 answers .* is spent"):
        ledger.holdout_query("prod", "cfg-x", [0.9] * 10, same)
    recorded = [e.payload["value"] for e in ledger.events("prod") if e.event == "holdout_answered"]
    assert recorded == [a.value for a in answers]
    with pytest.raises(PolicyError, match="not a confirmation split in reusable-holdout mode"):
        ledger.register("golden", qrels)
        ledger.holdout_query("golden", "x", same, same)


def test_manifests_table_shows_the_implied_inflation(ledger, qrels):
    pytest.importorskip("ragnb.stats.inflation",
                        reason="ragnb.stats.inflation is written in the statistics branch")
    ledger.register("golden", qrels)
    ledger.register("prod", _prod(qrels))
    for _ in range(40):
        ledger.record_selection("golden", ["a", "b"], winner="b")
    t = ledger.manifests(se={"golden": 0.0069})
    # E[max of 40 standard normals] = 2.16 (STATS-REFERENCES section 4), per-config SE_d / sqrt 2
    assert t.loc[0, "inflation"] == pytest.approx(2.16 * 0.0069 / 2**0.5, abs=1e-4)
    # never selected against: no inflation, whether or not its SE is known
    assert t["inflation"].isna().tolist() == [False, False] and t.loc[1, "inflation"] == 0.0
    assert ledger.manifests(se=0.01).loc[1, "inflation"] == 0.0  # never selected against


def test_a_new_label_version_of_the_same_queries_keeps_their_selection_count(ledger, qrels):
    ledger.register("golden", qrels, budget=10)
    for i in range(3):
        ledger.record_selection("golden", [f"c{i}", f"c{i + 1}"], winner=f"c{i + 1}")
    relabelled = qrels.assign(grade=[2, 1, 1, 2])        # one passage re-judged
    v2 = ledger.register("golden-v2", relabelled)
    assert v2.split_id != ledger.manifest("golden").split_id
    assert v2.selections_against == 3                     # the queries were used 3 times
    ledger.record_selection("golden-v2", ["a", "b"], winner="b")
    assert ledger.manifest("golden-v2").selections_against == 4
    assert "carries over its 3 selections" in ledger.history("golden-v2")["summary"].iloc[0]


def test_a_new_label_version_of_a_spent_split_is_retired_too(tmp_path, qrels):
    led = Ledger(tmp_path / "l", clock=StepClock())
    led.register("golden", qrels, budget=2)
    led.record_selection("golden", ["a", "b"], winner="b")
    spent = led.record_selection("golden", ["b", "c"], winner="c")
    assert spent.role == "regression_guard"
    v2 = led.register("golden-v2", qrels.assign(grade=[1, 0, 1, 2]), budget=40)
    assert v2.role == "regression_guard" and v2.selections_against == 2
    assert v2.retired_for_selection_at == spent.retired_for_selection_at


def test_other_queries_start_fresh(ledger, qrels):
    ledger.register("golden", qrels)
    ledger.record_selection("golden", ["a", "b"], winner="b")
    fresh = ledger.register("other", qrels.assign(query_id=["x1", "x1", "x2", "x3"]))
    assert fresh.selections_against == 0
