"""Page 05-ledger: inputs resolved from the manifest's names, every section from one run,
the ledger only read."""
from __future__ import annotations

import hashlib
import tomllib

import pytest

from ragnb.errors import InputError
from ragnb.ledger import Ledger
from ragnb.metrics.score import score
from ragnb.pages import resolve, run, skip_reason
from ragnb.pages.ledger import LedgerInputs
from ragnb.paths import DEMO_DIR
from ragnb.result import plain_markdown
from ragnb.workspace import open_workspace
from ragnb.workspace.inflation import workspace_inflation
from tests.pages import missing_reason, small_workspace

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))
LEDGER = DEMO_DIR / MANIFEST["workspace"]["ledger"]
GOLDEN = ('[test_sets.golden]\nrole = "golden"\npath = "qrels.txt"\nruns = "runs/*.trec"\n')


def _write(tmp_path, text):
    (tmp_path / "ledger").mkdir()
    return small_workspace(tmp_path, text)


def _hashes(folder):
    return {p.relative_to(folder): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def page():
    before = _hashes(LEDGER)
    finding = run(resolve("05-ledger", DEMO_DIR, resamples=200))
    return finding, before, _hashes(LEDGER)


def test_resolve_reads_the_manifest_names_and_given_values_win():
    own = MANIFEST["report"]["ledger"]
    inputs = resolve("05-ledger", DEMO_DIR)
    assert isinstance(inputs, LedgerInputs)
    assert inputs.guard_split == own["test_set"] == "golden"  # [report.ledger] test_set
    assert (inputs.runner_up, inputs.winner) == (own["runner_up"], own["winner"])
    assert inputs.metric.startswith(MANIFEST["report"]["metric"]) and inputs.alert_drop == 0.16
    given = resolve("ledger", DEMO_DIR, guard_split="production", runner_up="round-00",
                    metric="rr@10", alert_drop=0.2, seed=3)
    assert (given.guard_split, given.runner_up, given.winner) == ("production", "round-00",
                                                                  own["winner"])
    assert (given.metric, given.alert_drop, given.seed) == ("rr@10", 0.2, 3)


@pytest.mark.parametrize("text, reason", [
    (GOLDEN, "no split ledger ([workspace] ledger)"),
    ('[workspace]\nledger = "ledger"\n' + GOLDEN,
     "no candidates for the regression guard ([report.ledger] runner_up, winner)"),
    ('[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\nwinner = "b"\n'
     '[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n',
     "no split for the regression guard ([report.ledger] test_set, else the test set with "
     "role golden)"),
    ('[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\nwinner = "c"\n' + GOLDEN,
     "test set 'golden' has no run of c; its configs: a, b"),
])
def test_a_missing_input_is_named_by_resolve_and_is_the_skip_reason(tmp_path, text, reason):
    ws = _write(tmp_path, text)
    assert missing_reason(ws, "05-ledger") == reason


def test_the_guard_split_given_as_a_parameter_counts_as_report_ledger_test_set(tmp_path):
    ws = _write(tmp_path, '[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\n'
                          'winner = "b"\n[test_sets.main]\npath = "qrels.txt"\n'
                          'runs = "runs/*.trec"\n')
    assert skip_reason(ws, "ledger").startswith("no split for the regression guard")
    assert skip_reason(ws, "ledger", {"guard_split": "main"}) is None
    assert resolve("ledger", ws, guard_split="main").guard_split == "main"


def test_a_guard_split_the_ledger_does_not_know_is_named_when_run(tmp_path):
    ws = _write(tmp_path, '[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\n'
                          'winner = "b"\n' + GOLDEN)
    with pytest.raises(InputError, match=r"'golden' is not a split of the ledger"):
        run(resolve("ledger", ws, resamples=50))
    assert not any((tmp_path / "ledger").iterdir())   # nothing written


def test_run_shows_the_split_use_then_the_history_then_the_guard(page):
    finding, _, _ = page
    assert [s.kind for s in finding.sections] == ["chart", "table", "markdown", "chart",
                                                  "markdown", "table", "markdown", "table"]
    captions = [s.caption for s in finding.sections]
    assert captions[1] == "How often each split has been used to choose (split ledger)"
    assert captions[4] == "History" and captions[6] == "What a demoted split is still good for"
    assert captions[7].startswith("The regression guard on golden: the close ranking it refuses")
    assert all(s.content for s in finding.sections if s.kind == "markdown")  # no empty header
    h = finding.headline
    assert h.verdict == "refused" and h.answer == (
        "golden has been used to choose 40 times (budget 40); ranking two close candidates on "
        "it is refused.")
    assert h.why[0] == ("Choosing on it inflates its best score by about 0.23 points "
                        "(empirical-Bayes selection bootstrap).")
    assert "NaN" not in finding.to_text() and "nan" not in finding.to_text()


def test_the_split_table_carries_each_splits_count_and_one_inflation_figure(page):
    finding, _, _ = page
    table = finding.sections[1].content.set_index("split")
    manifests = Ledger(LEDGER).manifests()
    assert dict(table["selections against"]) == dict(zip(manifests["split"],
                                                         manifests["selections_against"]))
    assert table.loc["golden", "selections against"] == 40
    figure = workspace_inflation(open_workspace(DEMO_DIR), "golden",
                                 MANIFEST["report"]["metric"])
    assert f"{figure.points:.2f}" == "0.23"
    shown = table.loc["golden", "selection inflation (points)"]
    assert shown.startswith(f"{figure.points:.2f} (")
    assert finding.sections[1].note == ""           # no dash in the demo's table
    # the explanation and the method state the guard pair's one SE
    pair_se = f"{finding.objects['close'].se * 100:.2f}"
    assert f"SE {pair_se} points (" in plain_markdown(finding.sections[2].content)
    assert f"SE of its pair: {pair_se} points" in finding.description


def test_the_history_is_the_ledgers_every_event(page):
    finding, _, _ = page
    history = finding.sections[5].content
    expected = Ledger(LEDGER).history()
    assert len(history) == len(expected) == 47
    assert list(history["seq"]) == list(expected["seq"])
    assert list(history.columns) == ["seq", "ts", "split", "event", "actor", "summary"]


def test_the_guard_ranks_on_the_mean_per_query_scores_and_labels_its_illustration(page):
    finding, _, _ = page
    ws = open_workspace(DEMO_DIR)
    own = MANIFEST["report"]["ledger"]
    runner_up, winner = own["runner_up"], own["winner"]
    per = score(ws.test_set("golden"), [ws.run("golden", c) for c in (runner_up, winner)],
                MANIFEST["report"]["metric"]).table
    wide = per.pivot(index="query_id", columns="config", values="value")
    lead = wide[winner].mean() - wide[runner_up].mean()
    guard = finding.sections[7].content
    assert list(guard["outcome"]) == ["refused", "fires"]
    assert f"the lead is {lead * 100:+.2f} points" in guard.loc[0, "detail"]
    assert guard.loc[1, "check"] == "illustration: alert on a 16-point drop"
    assert guard.loc[1, "detail"].startswith("(illustration: a hypothetical drop, not a "
                                             "measured regression) ALERT")
    assert list(guard.columns) == ["check", "outcome", "detail", "selection bias", "margin"]
    assert guard.loc[0, "selection bias"] == 0.23       # the split table's figure, in points


def test_running_the_page_leaves_the_ledger_byte_identical(page):
    _, before, after = page
    assert before and after == before


def test_a_ledger_with_no_budget_and_a_split_outside_the_workspace_shows_dashes_said(tmp_path):
    ws = _write(tmp_path, '[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\n'
                          'winner = "b"\n' + GOLDEN)
    for name, miss in (("a", 3), ("b", 4)):   # ten queries, each run misses some
        (tmp_path / "runs" / f"{name}.trec").write_text("".join(
            f"q{q} Q0 d{99 if q % miss == 0 else q} 1 2.0 t\n" for q in range(1, 11)))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(1, 11)))
    test_set = open_workspace(ws).test_set("golden")
    judgments = test_set.judgments.drop(columns="line")
    ledger = Ledger(tmp_path / "ledger")
    ledger.register("golden", judgments, list(test_set.query_ids))        # no budget
    ledger.record_selection("golden", ["a", "b"], winner="b")
    ledger.register("other", judgments.assign(query_id=judgments["query_id"] + "x"), budget=3)
    ledger.record_selection("other", ["a", "b"], winner="b")             # not in the workspace
    before = _hashes(tmp_path / "ledger")
    finding = run(resolve("ledger", ws, resamples=100))
    assert _hashes(tmp_path / "ledger") == before
    assert finding.headline.answer.startswith("golden has been used to choose 1 time (no budget)")
    table = finding.sections[1].content.set_index("split")
    assert table.loc["golden", "budget"] == table.loc["other", "selection inflation (points)"] \
        == "—"
    note = finding.sections[1].note
    assert "under budget, no selection budget set" in note
    assert "under selection inflation (points), no figure" in note
    assert finding.sections[5].note == "A dash under actor: the event names no actor."
    text = finding.to_text()
    assert "no budget)" in text and not any(bad in text for bad in ("NaN", "<NA>", "None"))


def test_a_guard_pair_without_an_se_is_named_when_run(tmp_path):
    ws = _write(tmp_path, '[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\n'
                          'winner = "b"\n' + GOLDEN)
    test_set = open_workspace(ws).test_set("golden")                     # two queries
    Ledger(tmp_path / "ledger").register("golden", test_set.judgments.drop(columns="line"),
                                         list(test_set.query_ids))
    with pytest.raises(InputError, match=r"difference between a and b, and its 2 queries "
                                         r"give none"):
        run(resolve("ledger", ws, resamples=50))


def test_a_working_split_is_never_called_a_regression_guard(tmp_path):
    # a split still under its budget ranks candidates; a close pair on it is "not told
    # apart", never "refused" (only a demoted split refuses), and the page says so
    ws = _write(tmp_path, '[workspace]\nledger = "ledger"\n[report.ledger]\nrunner_up = "a"\n'
                          'winner = "b"\n' + GOLDEN)
    for name, miss in (("a", 3), ("b", 4)):
        (tmp_path / "runs" / f"{name}.trec").write_text("".join(
            f"q{q} Q0 d{99 if q % miss == 0 else q} 1 2.0 t\n" for q in range(1, 13)))
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(1, 13)))
    test_set = open_workspace(ws).test_set("golden")
    ledger = Ledger(tmp_path / "ledger")
    ledger.register("golden", test_set.judgments.drop(columns="line"),
                    list(test_set.query_ids), budget=40)
    ledger.record_selection("golden", ["a", "b"], winner="b")
    finding = run(resolve("ledger", ws, resamples=200))
    guard = finding.objects["guard"].iloc[0]
    # b misses q4, q8, q12 and a misses q3, q6, q9, q12: per-query differences +1 x 3,
    # -1 x 2, 0 x 7, so the lead is +1/12 = 8.33 points and SE_d = sqrt(s^2 / 12) = 19.3
    # points (s^2 = (5 - 12 (1/12)^2) / 11): the margin (bias + 1.96 SE_d) is far wider
    assert guard["outcome"] == "not told apart"
    assert guard["margin_points"] > 1.96 * 19.3 * 0.8 > 100 / 12
    h = finding.headline
    assert "regression guard" not in h.answer + h.next_step + guard["detail"]
    assert "not told apart" in h.answer and h.verdict == "not told apart"
    assert h.next_step.startswith("golden may still rank candidates that lead clearly")
