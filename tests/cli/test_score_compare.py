"""The score and compare commands: same numbers as the API, one-line errors, exit codes."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

from ragnb.cli import main
from ragnb.io import read_run, read_test_set
from ragnb.metrics import REGISTRY
from ragnb.metrics.score import score
from ragnb.paths import DEMO_DIR

GOLDEN = DEMO_DIR / "golden.jsonl"
RUN0 = DEMO_DIR / "runs" / "golden" / "round-00.jsonl"
RUN40 = DEMO_DIR / "runs" / "golden" / "round-40.jsonl"


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_score_per_query_csv_equals_the_api():
    code, out, _ = cli("score", "--judgments", GOLDEN, "--run", f"jan={RUN0}", "--metric",
                       "ndcg@10", "--per-query", "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["config", "query_id", "metric", "value"]
    api = score(read_test_set(GOLDEN), read_run(RUN0, name="jan"), "ndcg@10").values("jan",
                                                                                      "ndcg@10")
    assert table.set_index("query_id")["value"].to_dict() == pytest.approx(api.to_dict())


def test_score_means_json():
    code, out, err = cli("score", "--judgments", GOLDEN, "--run", f"jan={RUN0}", "--run",
                         f"champ={RUN40}", "--metric", "ndcg@10", "--metric", "mrr@10",
                         "--format", "json")
    assert code == 0 and "label policy lower" in err
    rows = {(r["config"], r["metric"]): r["mean"] for r in json.loads(out)}
    assert round(rows[("jan", "ndcg@10")], 3) == 0.512
    assert round(rows[("champ", "ndcg@10")] - rows[("jan", "ndcg@10")], 3) == pytest.approx(0.09,
                                                                                           abs=1e-3)


def test_help_documents_every_metric():
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit):
        main(["score", "--help"])
    for name in REGISTRY:
        assert f"  {name}" in out.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["--metric", "ndgc@10"], "unknown metric 'ndgc'"),
    (["--metric", "ndcg@10", "--run", "missing.run"], "missing.run: file not found"),
])
def test_bad_input_gives_one_line_and_exit_2(argv, message):
    base = ["score", "--judgments", GOLDEN, "--run", f"jan={RUN0}"]
    code, out, err = cli(*base, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_compare_by_a_test_set_column():
    code, out, err = cli("compare", "--judgments", DEMO_DIR / "production.jsonl",
                         "--baseline", f"jan={DEMO_DIR / 'runs/production/round-00.jsonl'}",
                         "--challenger", f"champ={DEMO_DIR / 'runs/production/round-40.jsonl'}",
                         "--metric", "ndcg@10", "--by", "intent", "--resamples", "500",
                         "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    pooled = table[table["stratum"] == "pooled"].iloc[0]
    assert round(pooled["delta"] * 100, 1) == 1.1
    assert table.loc[table["stratum"] != "pooled", "n"].sum() == 200
    assert "calibrated t-interval" in err and "the two-sided test each interval inverts" in err
    assert "p_holm" in table.columns


def test_compare_strata_file_wider_than_the_test_set_is_counted(tmp_path):
    strata = tmp_path / "s.csv"
    strata.write_text("query_id,kind\nnope,a\nnope2,b\n")
    code, _, err = cli("compare", "--judgments", GOLDEN, "--baseline", f"a={RUN0}",
                       "--challenger", f"b={RUN40}", "--metric", "ndcg@10", "--resamples", "200",
                       "--strata", strata, "--by", "kind", "--format", "csv")
    assert code == 0, err
    assert "strata_outside_test_set: 2" in err


@pytest.fixture
def demo_ledger(tmp_path):
    import shutil

    return shutil.copytree(DEMO_DIR / "ledger", tmp_path / "ledger")


def test_scores_on_a_split_show_its_selections_and_inflation(demo_ledger):
    from ragnb.stats import expected_max_normal

    code, out, err = cli("compare", "--judgments", GOLDEN, "--baseline", f"a={RUN0}",
                         "--challenger", f"b={RUN40}", "--metric", "ndcg@10", "--resamples",
                         "300", "--ledger", demo_ledger, "--format", "csv")
    assert code == 0
    assert "selections_against 40" in err and "regression_guard" in err
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert row["selections_against"] == 40
    # a ledger with no workspace beside it: only the count and the pair's SE are known,
    # so the worst case E[max of 40] x paired SE / sqrt(2), labelled so (0-1 in csv)
    assert row["inflation"] == pytest.approx(
        expected_max_normal(40) * row["se"] / 2**0.5, rel=1e-6)
    assert "worst case (all candidates equal)" in err
    # ... and the same figure, from the same comparison, as the four-cell page (01-fit)
    from ragnb.fit import four_cell
    from ragnb.workspace import open_workspace
    from ragnb.workspace.splits import score_splits

    ts, runs = open_workspace(DEMO_DIR).splits(["golden"], ["round-00", "round-40"])
    scores, _ = score_splits(ts, runs, "ndcg@10")
    fc = four_cell(scores.assign(split="golden").pipe(
        lambda t: pd.concat([t, t.assign(split="production")])), baseline="round-00",
        champion="round-40", resamples=200, selections={"golden": 40})
    page = fc.splits.set_index("split").loc["golden"]
    assert page["inflation"] == pytest.approx(row["inflation"], rel=1e-12)
    assert page["inflation_method"] == "worst case: all candidates equal"
    assert (f"selection inflation on golden after 40 selections: at most "
            f"{row['inflation'] * 100:.2f} points") in err


def test_a_sealed_split_is_scored_only_through_its_policy(tmp_path):
    from ragnb.ledger import Ledger

    prod = DEMO_DIR / "production.jsonl"
    runs = {c: DEMO_DIR / "runs" / "production" / f"{c}.jsonl" for c in ("round-20", "round-40")}
    ledger = Ledger(tmp_path / "ledger")
    test_set = read_test_set(prod)
    ledger.register("prod", test_set.judgments.drop(columns="line"), test_set.query_ids,
                    role="confirmation")
    argv = ["score", "--judgments", prod, "--run", f"round-20={runs['round-20']}",
            "--metric", "ndcg@10", "--ledger", ledger.root]
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and "prod is sealed" in err
    assert [e.event for e in ledger.events()] == ["registered"]   # a refusal records nothing
    ledger.unseal("prod", ["round-20", "round-40"])
    code, out, err = cli(*argv, "--format", "json")
    assert code == 0, err
    mean = json.loads(out)[0]["mean"]
    scored = ledger.events()[-1]
    assert scored.event == "scored" and scored.payload["config"] == "round-20"
    assert scored.payload["value"] == pytest.approx(mean, abs=1e-9)   # JSON keeps 10 digits
    assert scored.payload["under_unseal_run"] == 1
    code, out, err = cli(*argv)   # each candidate is scored once per run
    assert code == 2 and out == "" and "already been scored in run 1" in err
    # compare refuses too (round-20 is scored), and records nothing for round-40 either
    code, out, err = cli("compare", "--judgments", prod,
                         "--baseline", f"round-20={runs['round-20']}",
                         "--challenger", f"round-40={runs['round-40']}", "--metric", "ndcg@10",
                         "--metric", "map", "--resamples", 200, "--ledger", ledger.root)
    assert code == 2 and "'round-20' has already been scored" in err
    assert len(ledger.events()) == 3


def test_compare_several_metrics_one_holm_family_and_classic_tests():
    code, out, err = cli("compare", "--judgments", GOLDEN, "--baseline", f"a={RUN0}",
                         "--challenger", f"b={RUN40}", "--metric", "ndcg@10", "--metric", "map",
                         "--metric", "P_10", "--also", "ttest", "--also", "wilcoxon",
                         "--resamples", "300", "--format", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table["metric"]) == ["ndcg@10", "ap", "p@10"]
    assert "Holm over 3 tests: 3 metric(s) x 1 challenger(s) vs a" in err
    assert {"effect_size", "p_ttest", "p_wilcoxon", "n_zero"} <= set(table.columns)
    s = score(read_test_set(GOLDEN), [read_run(RUN0, name="a"), read_run(RUN40, name="b")],
              "map")
    d = s.values("b", "ap") - s.values("a", "ap")
    assert table.loc[1, "effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), abs=1e-9)


def test_compare_rejects_an_unknown_classic_test():
    err = io.StringIO()
    with redirect_stderr(err), pytest.raises(SystemExit) as exit_:
        main(["compare", "--judgments", str(GOLDEN), "--baseline", f"a={RUN0}",
              "--challenger", f"b={RUN40}", "--metric", "map", "--also", "sign"])
    assert exit_.value.code == 2 and "invalid choice: 'sign'" in err.getvalue()


def test_compare_refuses_to_rank_close_candidates_on_a_regression_guard(demo_ledger):
    from ragnb.ledger import Ledger
    from ragnb.ledger.views import guard_report

    run39 = DEMO_DIR / "runs" / "golden" / "round-39.jsonl"
    code, out, err = cli("compare", "--judgments", GOLDEN, "--baseline", f"round-39={run39}",
                         "--challenger", f"round-40={RUN40}", "--metric", "ndcg@10",
                         "--resamples", "200", "--ledger", demo_ledger)
    assert code == 2 and out == ""
    refusal = "golden is a regression guard and will not rank 'round-40' over 'round-39'"
    assert refusal in err and "after 40 selections" in err
    # the ledger page's guard refuses the same ranking with the same words
    s = score(read_test_set(GOLDEN), [read_run(run39, name="round-39"),
                                      read_run(RUN40, name="round-40")], "ndcg@10")
    means = s.means().set_index("config")["mean"].to_dict()
    d = s.values("round-40", "ndcg@10") - s.values("round-39", "ndcg@10")
    page = guard_report("golden", means, "round-40",
                        Ledger(demo_ledger).manifest("golden").selections_against,
                        d.std(ddof=1) / len(d) ** 0.5, 0.16)
    assert page.loc[0, "outcome"] == "refused" and page.loc[0, "detail"].startswith(refusal)
    # without a ledger nothing is known about the split: compare ranks as before
    code, _, _ = cli("compare", "--judgments", GOLDEN, "--baseline", f"round-39={run39}",
                     "--challenger", f"round-40={RUN40}", "--metric", "ndcg@10",
                     "--resamples", "200")
    assert code == 0


def test_a_workspace_ledger_holds_for_the_cli_without_ledger_option(tmp_path):
    import shutil

    from ragnb.ledger import Ledger

    (tmp_path / "runs").mkdir()
    shutil.copy(DEMO_DIR / "production.jsonl", tmp_path / "prod.jsonl")
    for c in ("round-00", "round-40"):
        shutil.copy(DEMO_DIR / "runs" / "production" / f"{c}.jsonl", tmp_path / "runs")
    (tmp_path / "ragnb.toml").write_text(
        '[workspace]\nname = "w"\nledger = "ledger"\n'
        '[test_sets.prod]\npath = "prod.jsonl"\nruns = "runs/*.jsonl"\n')
    ledger = Ledger(tmp_path / "ledger")
    ts = read_test_set(tmp_path / "prod.jsonl")
    ledger.register("prod", ts.judgments.drop(columns="line"), ts.query_ids, role="confirmation")
    argv = ["score", "--workspace", tmp_path, "--metric", "ndcg@10", "--metric", "rr@10"]
    code, out, err = cli(*argv)
    assert code == 2 and out == "" and "prod is sealed" in err
    ledger.unseal("prod", ["round-00", "round-40"])
    code, out, err = cli(*argv, "--format", "csv")
    assert code == 0, err
    assert len(pd.read_csv(io.StringIO(out))) == 4            # 2 configs x 2 metrics shown
    scored = [e.payload for e in ledger.events() if e.event == "scored"]
    assert [(p["config"], p["metric"], p["value"]) for p in scored] == [
        ("round-00", "ndcg@10, rr@10", None), ("round-40", "ndcg@10, rr@10", None)]


@pytest.mark.parametrize("flags", [(), ("--extra", "drop"), ("--missing", "empty"),
                                   ("--extra", "drop", "--missing", "empty"),
                                   ("--extra", "drop", "--missing", "drop")])
def test_a_run_of_another_test_set_exits_2_whatever_the_flags(flags):
    """Issue 23 #13: golden's run against production ended at 0.00 with exit 0."""
    code, out, err = cli("score", "--judgments", DEMO_DIR / "production.jsonl", "--run", RUN40,
                         "--metric", "ndcg@10", *flags)
    assert code == 2 and out == ""
    assert str(RUN40) in err
    assert "looks like it belongs to another test set" in err
    assert "shares 0 of the test set's 200 queries" in err


def test_relevance_level_is_trec_evals_l_for_every_binary_measure(tmp_path):
    # q1: d1 grade 1 ranked first, d2 grade 2 second; at level 2 only d2 is relevant
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq1 0 d2 2\n")
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--judgments", str(tmp_path / "q.qrels"), "--run",
                     str(tmp_path / "r.run"), "--metric", "P_2", "--metric", "recip_rank",
                     "--metric", "p@2(rel=1)", "--relevance-level", "2", "--format", "json"])
    assert code == 0, err.getvalue()
    means = {r["metric"]: r["mean"] for r in json.loads(out.getvalue())}
    assert means == {"p@2(rel=2)": 0.5, "rr(rel=2)": 0.5, "p@2": 1.0}


def test_compare_text_is_answer_table_then_notes_with_a_dash_and_its_reason(tmp_path):
    # issue 24: the answer first, then the table (a dash where a row has no test, never NaN,
    # and the reason right under it), then the notes, wrapped to 100 columns
    ids = list(read_test_set(DEMO_DIR / "production.jsonl").query_ids)
    strata = tmp_path / "s.csv"
    strata.write_text("query_id,kind\n" + "".join(f"{q},{'tiny' if i < 3 else 'big'}\n"
                                                 for i, q in enumerate(ids)))
    code, out, err = cli("compare", "--judgments", DEMO_DIR / "production.jsonl",
                         "--baseline", f"jan={DEMO_DIR / 'runs/production/round-00.jsonl'}",
                         "--challenger", f"champ={DEMO_DIR / 'runs/production/round-40.jsonl'}",
                         "--metric", "ndcg@10", "--resamples", "300", "--strata", strata,
                         "--by", "kind")
    assert code == 0, err
    # issue 33 #5: the default output is the Finding (headline, its table in points, method,
    # short notes); the raw 16-column frame is behind --format csv|tsv|json
    lines = out.splitlines()
    verdict = next(i for i, line in enumerate(lines) if line.startswith("Verdict: "))
    assert lines[verdict + 2].startswith("Challenger − baseline in points (metric × 100)")
    head = lines[verdict + 3]
    assert head.split() == ["challenger", "metric", "stratum", "baseline", "challenger", "mean",
                            "Δ", "(points)", "n", "95%", "interval", "p", "(Holm)"]
    rows = {line.split()[2]: line.split() for line in lines[verdict + 5: verdict + 8]}
    assert set(rows) == {"big", "tiny", "pooled"} and rows["tiny"][6] == "3"
    assert rows["tiny"][-1] == "—" and "NaN" not in out and "nan" not in out.lower().split()
    assert lines[verdict + 8] == "A dash: no test for the row (too few queries to say)."
    assert "queries_needed" not in out and "p_bootstrap " not in out and "# " not in out
    notes = lines[lines.index("Also noted:") + 1:]
    assert all(len(line) <= 100 for line in notes)
    assert not any("stratum sizes add up: ok" in line for line in notes)  # counted in Checks
    assert "Checks: 6 of 7 checks hold; failing: champ: strata under 10 queries (tiny (n=3))" \
        in lines
    assert notes[0] == "[1] check [champ] strata under 10 queries: FLAGGED — tiny (n=3)"
    assert rows["tiny"][-2] == "—"                                  # no interval: one dash
    assert lines[-1] == "The full table (values 0-1, every column): --format csv, tsv or json."
    code, raw, _ = cli("compare", "--judgments", DEMO_DIR / "production.jsonl",
                       "--baseline", f"jan={DEMO_DIR / 'runs/production/round-00.jsonl'}",
                       "--challenger", f"champ={DEMO_DIR / 'runs/production/round-40.jsonl'}",
                       "--metric", "ndcg@10", "--resamples", "300", "--strata", strata,
                       "--by", "kind", "--format", "csv")
    assert code == 0 and "queries_needed" in raw.splitlines()[0]
