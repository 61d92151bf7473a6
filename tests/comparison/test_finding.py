"""The comparison's headline: a truth table of its rules, and the API equal to ``ragnb compare``."""
from __future__ import annotations

import math

import pandas as pd
import pytest

import ragnb
from ragnb.comparison import comparison_finding, comparison_headline
from ragnb.paths import DEMO_DIR
from tests.cli.test_workspace_option import cli


def _row(challenger, low, high, p_holm, *, delta=None, needed=400.0, statement=""):
    return {"baseline": "base", "challenger": challenger, "metric": "ndcg@10",
            "stratum": "pooled", "n": 50, "baseline_mean": 0.5,
            "challenger_mean": 0.5 + (delta if delta is not None else (low + high) / 2),
            "delta": (low + high) / 2 if delta is None else delta, "ci_low": low,
            "ci_high": high, "p_holm": p_holm, "queries_needed": needed, "ci": 0.95,
            "statement": statement}


@pytest.mark.parametrize("rows, verdict, words", [
    ([_row("a", 0.01, 0.05, 0.01)], "better", ["a gains +3.0 [+1.0, +5.0] points"]),
    ([_row("a", -0.05, -0.01, 0.01)], "worse", ["a loses -3.0 [-5.0, -1.0] points"]),
    # an interval above 0 is not enough: Holm must agree (several challengers)
    ([_row("a", 0.001, 0.05, 0.08)], "inconclusive at this n",
     ["a shows no difference beyond the noise", "about 400 would resolve"]),
    ([_row("a", -0.01, 0.05, 0.5, needed=math.inf)], "inconclusive at this n",
     ["Collect more queries before deciding."]),
    ([_row("a", 0.01, 0.05, 0.01), _row("b", -0.02, 0.01, 0.6)], "1 of 2 better, 0 worse",
     ["a gains", "b shows no difference"]),
    ([_row("a", float("nan"), float("nan"), float("nan"), statement="too few queries to say")],
     "inconclusive at this n", ["a on ndcg@10: too few queries to say"]),
])
def test_the_verdict_follows_interval_and_holm_together(rows, verdict, words):
    h = comparison_headline(pd.DataFrame(rows), {})
    assert h.verdict == verdict
    for w in words:
        assert w in h.answer or w in h.next_step, w


def test_the_table_is_in_points_with_a_dash_and_its_reason_only_when_needed():
    ok = comparison_finding(pd.DataFrame([_row("a", 0.01, 0.05, 0.01)]))
    assert ok.display_table["Δ (points)"].tolist() == ["+3.0"] and ok.sections[0].note == ""
    few = comparison_finding(pd.DataFrame([_row("a", float("nan"), float("nan"),
                                                float("nan"), statement="too few")]))
    assert few.display_table["p (Holm)"].tolist() == ["—"] and "A dash" in few.sections[0].note
    assert "NaN" not in few.to_text()


def test_the_api_returns_the_finding_ragnb_compare_prints_first():
    files = [DEMO_DIR / "runs" / "golden" / f"round-{r:02d}.jsonl" for r in (0, 40)]
    test_set = ragnb.read_test_set(DEMO_DIR / "golden.jsonl")
    finding = ragnb.compare(test_set, [ragnb.read_run(f) for f in files], "ndcg@10",
                            baseline="round-00", resamples=300)
    code, out, err = cli("compare", "--judgments", DEMO_DIR / "golden.jsonl", "--baseline",
                         files[0], "--challenger", files[1], "--metric", "ndcg@10",
                         "--resamples", "300")
    assert code == 0, err
    assert out.startswith(finding.headline_text() + "\n\n")
    assert finding.headline.verdict == "better"        # the demo's +9.0 [+7.2, +10.8] on golden
    scores = finding.objects["scores"]
    diff = scores.values("round-40", "ndcg@10") - scores.values("round-00", "ndcg@10")
    assert f"{diff.mean() * 100:+.1f}" in finding.headline.answer


def test_a_confident_verdict_is_rare_when_the_configs_do_not_differ():
    # known truth: per-query differences symmetric around 0; "better"/"worse" is then wrong
    import numpy as np

    from ragnb.stats.family import compare_metrics

    rng = np.random.default_rng(20260729)
    draws, wrong = 200, 0
    for _ in range(draws):
        base = rng.uniform(0.3, 0.7, 30)
        chal = base + rng.choice([-1, 1], 30) * rng.uniform(0, 0.2, 30)
        table = pd.DataFrame({"config": ["b"] * 30 + ["c"] * 30,
                              "query_id": [f"q{i}" for i in range(30)] * 2,
                              "metric": "m", "value": np.concatenate([base, chal])})
        verdict = comparison_headline(compare_metrics(table, baseline="b", metrics=["m"],
                                                      resamples=200), {}).verdict
        wrong += verdict in ("better", "worse")
    assert wrong / draws <= 0.05 + 2 * (0.05 * 0.95 / draws) ** 0.5   # 5% plus binomial slack


def _stratum(name, low, high, p_holm, n=20):
    return {**_row("a", low, high, p_holm), "stratum": name, "n": n}


@pytest.mark.parametrize("rows, said, unsaid", [
    # a stratum whose interval and Holm p agree is named, with its n; the pooled row decides
    ([_row("a", -0.08, 0.016, 0.9), _stratum("1", 0.094, 0.377, 0.03, n=19)],
     ["by stratum, on its own (Holm over every row): 1 gains +23.5 [+9.4, +37.7] (n = 19)"],
     []),
    # an interval off 0 without Holm's agreement names nothing
    ([_row("a", -0.08, 0.016, 0.9), _stratum("1", 0.01, 0.3, 0.2)], [], ["by stratum"]),
    # never a word about strata differing: that test is 03-strata's
    ([_row("a", 0.01, 0.05, 0.01), _stratum("x", -0.3, -0.1, 0.01)],
     ["x loses -20.0 [-30.0, -10.0]"], ["differ in", "concentrated"]),
])
def test_a_stratum_is_named_only_when_it_resolves_on_its_own(rows, said, unsaid):
    h = comparison_headline(pd.DataFrame(rows), {})
    for w in said:
        assert w in h.answer, (w, h.answer)
    for w in unsaid:
        assert w not in h.answer, w
    assert ("ragnb report 03-strata" in h.next_step) == bool(said)


def test_under_no_effect_a_stratum_is_rarely_named():
    # known truth: no stratum differs from 0 (8 strata of 15); Holm keeps naming any to ~5%
    import numpy as np

    from ragnb.stats.family import compare_metrics

    rng = np.random.default_rng(20261202)
    draws, named = 150, 0
    ids = [f"q{i}" for i in range(120)]
    strata = pd.Series([f"s{i % 8}" for i in range(120)], index=ids)
    for _ in range(draws):
        base = rng.uniform(0.3, 0.7, 120)
        chal = base + rng.normal(0, 0.1, 120)
        table = pd.DataFrame({"config": ["b"] * 120 + ["c"] * 120, "query_id": ids * 2,
                              "metric": "m", "value": np.concatenate([base, chal])})
        rows = compare_metrics(table, baseline="b", metrics=["m"], strata=strata,
                               resamples=200)
        named += "by stratum" in comparison_headline(rows, {}).answer
    assert named / draws <= 0.05 + 2 * (0.05 * 0.95 / draws) ** 0.5
