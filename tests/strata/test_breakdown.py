"""The breakdown on hand-made data, seed 000's reconciliation figure, the demo and real data."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.metrics.score import score
from ragnb.strata import StrataSpec, breakdown
from tests.strata._workspaces import cast_workspace, codec_workspace, demo_comparison


def scores_table(rows):
    """[(query_id, baseline, challenger)] -> tidy scores of configs b and c."""
    out = []
    for qid, b, c in rows:
        out += [("b", qid, "m", b), ("c", qid, "m", c)]
    return pd.DataFrame(out, columns=["config", "query_id", "metric", "value"])


@pytest.fixture(scope="module")
def hand():
    """A: 4 queries, d = .1 .2 .3 .2 (mean .2); Z: 3 queries, d = 0; U: 1 unlabelled, d = .4."""
    rows = [("a1", .1, .2), ("a2", .3, .5), ("a3", .2, .5), ("a4", .4, .6),
            ("z1", 0, 0), ("z2", 0, 0), ("z3", 0, 0), ("u1", .5, .9)]
    strata = pd.DataFrame({"query_id": ["a1", "a2", "a3", "a4", "z1", "z2", "z3"],
                           "kind": ["A"] * 4 + ["Z"] * 3})
    return scores_table(rows), strata


def test_sizes_means_and_deltas_by_hand(hand):
    scores, strata = hand
    bd = breakdown(scores, strata, "kind", baseline="b", challenger="c", resamples=500)
    t = bd.table.set_index("stratum")
    assert list(bd.table["stratum"]) == ["A", "Z", "unclassified", "pooled", "equal-weight"]
    assert t.loc[["A", "Z", "unclassified", "pooled"], "n"].tolist() == [4, 3, 1, 8]
    assert t.loc["A", ["baseline_mean", "challenger_mean", "delta"]].tolist() == \
        pytest.approx([0.25, 0.45, 0.2])
    assert t.loc["unclassified", "delta"] == pytest.approx(0.4)
    # pooled = (4 * .2 + 3 * 0 + 1 * .4) / 8 = 0.15: the size-weighted average
    assert t.loc["pooled", "delta"] == pytest.approx(0.15)
    # equal-weight = (.2 + 0 + .4) / 3
    assert t.loc["equal-weight", "delta"] == pytest.approx(0.2)
    assert t.loc["A", "share"] == pytest.approx(0.5)


def test_zero_width_and_unclassified_are_explained(hand):
    scores, strata = hand
    bd = breakdown(scores, strata, "kind", baseline="b", challenger="c", resamples=500)
    z = bd.table.set_index("stratum").loc["Z"]
    # three queries: no interval or MDE, and zeros merely observed are not a zero width
    # (and no p-value either: "too few queries to say" is the whole row, issue 23 #14)
    assert np.isnan(z["ci_low"]) and np.isnan(z["mde"]) and np.isnan(z["p_value"])
    assert "too few queries to say (n = 3 < 6)" in z["note"]
    assert "zero-width" not in z["note"]
    shown = bd.display_table().set_index("stratum")
    assert shown.loc["Z", "95% interval"] == "too few queries to say"
    assert "queries with no stratum value" in bd.table.set_index("stratum").loc[
        "unclassified", "note"]
    assert bd.completeness == (
        "Completeness: 8 queries scored = A: 4 + Z: 3 + unclassified: 1 in 3 strata (8 in all). "
        "1 queries have no 'kind' value and are the 'unclassified' stratum, shown. "
        "The sizes add up.")


def test_exclusions_are_counted_not_dropped(hand):
    scores, strata = hand
    bd = breakdown(scores, strata, StrataSpec("kind", exclude=("Z",)), baseline="b",
                   challenger="c", resamples=500)
    t = bd.table.set_index("stratum")
    assert t.loc["pooled", "n"] == 5
    assert t.loc["pooled", "delta"] == pytest.approx((4 * .2 + .4) / 5)
    assert t.loc["Z", "kind"] == "excluded" and t.loc["Z", "n"] == 3
    assert np.isnan(t.loc["Z", "delta"])
    assert "A: 4 + unclassified: 1 compared (5 in 2 strata) + Z: 3 excluded by the spec " \
           "(8 in all)" in bd.completeness
    assert bd.checks.set_index("check").loc["completeness", "holds"]


def holm_by_hand(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, (len(p) - rank) * p[i])
        out[i] = min(1.0, running)
    return out


def test_holm_is_over_the_strata_shown_only():
    rng = np.random.default_rng(3)
    rows, labels = [], {}
    for name, n, gain in (("big", 60, 0.08), ("mid", 40, 0.05), ("flat", 30, 0.0),
                          ("one", 1, 0.1)):
        b = rng.uniform(0.2, 0.6, n)
        c = b + gain + rng.normal(0, 0.1, n)
        for i in range(n):
            rows.append((f"{name}{i}", b[i], c[i]))
            labels[f"{name}{i}"] = name
    bd = breakdown(scores_table(rows), pd.Series(labels), StrataSpec("kind"), baseline="b",
                   challenger="c", resamples=2000)
    strata = bd.strata.set_index("stratum")
    tested = strata[strata["p_value"].notna()]
    assert list(tested.index) == ["big", "mid", "flat"]   # n = 1 has no p-value
    # one family: the three strata's tests and the test that the strata differ (issue 23 #2)
    family = holm_by_hand([*tested["p_value"].tolist(), bd.heterogeneity.p_value])
    assert tested["p_holm"].tolist() == pytest.approx(family[:3])
    assert bd.p_heterogeneity_holm == pytest.approx(family[3])
    assert np.isnan(strata.loc["one", "p_holm"])
    assert bd.table.loc[bd.table["kind"] != "stratum", "p_holm"].isna().all()
    assert "Holm over the 3 strata shown and the test that the strata differ" in bd.description
    assert "too few queries to say (n = 1 < 6)" in strata.loc["one", "note"]


def test_mde_is_t_quantiles_times_the_standard_error():
    """40 queries, every difference nonzero (the share floor does not bind):
    SE = sd(d, ddof=1)/sqrt(40), MDE = (t_.975,39 + t_.8,39) SE = 2.87 SE, by hand."""
    d = 0.01 + 0.05 * np.sin(np.arange(1, 41))
    rows = [(f"a{i}", 0.5, 0.5 + d[i]) for i in range(40)]
    bd = breakdown(scores_table(rows), pd.Series("A", index=[r[0] for r in rows]), "kind",
                   baseline="b", challenger="c", resamples=500)
    a = bd.table.set_index("stratum").loc["A"]
    assert a["se"] == pytest.approx(np.std(d, ddof=1) / np.sqrt(40))
    assert a["mde"] == pytest.approx((stats.t.ppf(0.975, 39) + stats.t.ppf(0.8, 39)) * a["se"])
    assert a["mde"] > 0 and a["queries_needed"] >= 2


SIMPSON = "pooled and equal-weight averages do not resolve opposite signs"


def test_pooled_and_equal_weight_of_opposite_sign_are_flagged():
    # big: 90 queries at +0.05, small: 20 at -0.12 -> pooled +0.0191, equal-weight -0.035;
    # both intervals resolve their sign (pooled SD ~0.065 over 110 queries; strata SD 0.01)
    rows = [(f"g{i}", 0.5, 0.55 + (0.01 if i % 2 else -0.01)) for i in range(90)]
    rows += [(f"s{i}", 0.5, 0.38 + (0.01 if i % 2 else -0.01)) for i in range(20)]
    labels = pd.Series({q: q[0] for q, _, _ in rows})
    bd = breakdown(scores_table(rows), labels, "kind", baseline="b", challenger="c",
                   resamples=500)
    t = bd.table.set_index("stratum")
    assert t.loc["pooled", "delta"] == pytest.approx((90 * 0.05 - 20 * 0.12) / 110)
    assert t.loc["equal-weight", "delta"] == pytest.approx(-0.035)
    assert t.loc["pooled", "ci_low"] > 0 > t.loc["equal-weight", "ci_high"]
    check = bd.checks.set_index("check").loc[SIMPSON]
    assert not check["holds"] and "Simpson's paradox" in check["detail"]
    assert not bd.ok


def test_opposite_signs_on_noise_are_not_a_paradox():
    """Issue 23 #3: big (n=40, small differences) + tiny (n=5, differences 0/1) gave an
    equal-weight +25.5 [+25.25, +25.75] (the tiny stratum's missing SE summed as 0) and a
    Simpson's-paradox flag. The tiny stratum has no variance: the row is refused."""
    rng = np.random.default_rng(23)
    d_big = rng.normal(-0.005, 0.02, 40)
    rows = [(f"b{i}", 0.5, 0.5 + d) for i, d in enumerate(d_big)]
    rows += [(f"t{i}", 0.0, float(v)) for i, v in enumerate([0, 1, 1, 0, 1])]
    labels = pd.Series({q: ("big" if q[0] == "b" else "tiny") for q, _, _ in rows})
    bd = breakdown(scores_table(rows), labels, "kind", baseline="b", challenger="c",
                   resamples=500)
    macro = bd.table.set_index("stratum").loc["equal-weight"]
    assert macro["delta"] == pytest.approx((d_big.mean() + 0.6) / 2)
    assert np.isnan(macro["ci_low"]) and np.isnan(macro["ci_high"]) and np.isnan(macro["se"])
    assert "tiny (n = 5) has too few queries for a variance" in macro["note"]
    assert bd.checks.set_index("check").loc[SIMPSON, "holds"]


def test_differences_that_cancel_on_paper_give_an_exact_zero():
    # p@5-like: +-0.2 computed from different values, whose float mean is ~1e-18, not 0
    # (ragnb.stats treats a mean within the tie tolerance of zero as zero)
    vals = [(0.4, 0.6), (0.8, 0.6)] * 3
    rows = [(f"q{i}", b, c) for i, (b, c) in enumerate(vals)]
    rows += [(f"r{i}", 0.2, 0.4 if i < 4 else 0.2) for i in range(10)]
    labels = pd.Series({q: q[0] for q, _, _ in rows})
    d = np.array([c - b for _, b, c in rows[:6]])
    assert d.mean() != 0   # the float mean is not zero...
    bd = breakdown(scores_table(rows), labels, "kind", baseline="b", challenger="c",
                   resamples=500)
    q = bd.table.set_index("stratum").loc["q"]
    assert q["delta"] == 0.0 and q["queries_needed"] == np.inf   # ...the breakdown's is
    assert q["baseline_mean"] == pytest.approx(np.mean([b for b, _ in vals]))
    # pooled: 4 queries at +0.2 among 16
    assert bd.table.set_index("stratum").loc["pooled", "delta"] == pytest.approx(0.8 / 16)


# ------------------------------------------------------- seed 000's figures
SEED000 = {"in_scope_single_turn": (118, 1.4), "follow_up": (41, 0.6),
           "out_of_scope": (27, 0.0), "malformed": (14, -0.3)}


@pytest.fixture(scope="module")
def seed000():
    """Per-query scores whose stratum deltas are seed 000's printed figures, in points."""
    rng = np.random.default_rng(0)
    rows, labels = [], {}
    for name, (n, points) in SEED000.items():
        if name == "out_of_scope":
            b, d = np.zeros(n), np.zeros(n)
        else:
            b = rng.uniform(0.3, 0.7, n)
            d = rng.normal(0, 0.08, n)
            d = d - d.mean() + points / 100
        for i in range(n):
            rows.append((f"{name}-{i}", b[i], b[i] + d[i]))
            labels[f"{name}-{i}"] = name
    return scores_table(rows), pd.Series(labels)


def test_seed000_weighted_strata_against_reported_1_1_is_flagged(seed000):
    scores, labels = seed000
    bd = breakdown(scores, labels, "query_type", baseline="b", challenger="c",
                   reported_points="+1.1", resamples=1000)
    r = bd.reconciliation
    # (118 * 1.4 + 41 * 0.6 + 27 * 0 + 14 * -0.3) / 200 = 185.6 / 200 = 0.928 points
    assert r.weighted == pytest.approx(0.928, abs=1e-9)
    assert r.residual == pytest.approx(0.172, abs=1e-9)
    assert r.tolerance == pytest.approx(0.05)   # half a unit of the printed "+1.1"
    assert r.flagged
    assert bd.reconciliation_line.startswith(
        "Reconciliation: the size-weighted stratum deltas give +0.93 points over 200 queries "
        "against a reported +1.1; residual +0.17 points")
    assert "FLAGGED" in bd.reconciliation_line
    check = bd.checks.set_index("check").loc["reconciles with reported pooled"]
    assert not check["holds"]
    assert check["detail"] == ("size-weighted stratum deltas +0.93 points against a reported "
                               "+1.1: residual +0.17 points, rounding explains at most ±0.05")
    zero = bd.table.set_index("stratum").loc["out_of_scope"]
    # a tidy table does not say these queries have nothing to retrieve: the zeros are
    # observed, so the interval is not zero width (the demo test below passes Scores)
    assert zero["ci_low"] < 0 < zero["ci_high"]
    assert "all 27 differences are 0 in this sample" in zero["note"]


def test_seed000_reported_to_two_decimals_reconciles(seed000):
    scores, labels = seed000
    bd = breakdown(scores, labels, "query_type", baseline="b", challenger="c",
                   reported_points="0.93", resamples=200)
    assert bd.reconciliation.tolerance == pytest.approx(0.005)
    assert not bd.reconciliation.flagged and "within rounding" in bd.reconciliation_line


def test_tidy_table_and_scores_object_agree():
    comp = demo_comparison()
    sc = score(comp.test_set, comp.runs, ["ndcg@10", "rr@10"])
    a = breakdown(sc, comp.table, "intent", baseline="round-00", challenger="round-40",
                  metric="rr@10", resamples=300)
    b = breakdown(sc.table, comp.table, "intent", baseline="round-00",
                  challenger="round-40", metric="rr@10", resamples=300)
    pd.testing.assert_frame_equal(a.table, b.table)
    with pytest.raises(InputError, match="several metrics"):
        breakdown(sc, comp.table, "intent", baseline="round-00", challenger="round-40")


def test_breakdown_pooled_row_prints_compare_s_numbers_whatever_the_names():
    """Issue 11 (same comparison, same numbers): the seed comes from the score vectors,
    so 03-strata's pooled row and ``ragnb compare`` with configs renamed agree exactly
    (p from the same sign vectors; the calibrated interval is deterministic)."""
    from ragnb.stats import compare

    comp = demo_comparison()
    sc = score(comp.test_set, comp.runs, "ndcg@10")
    bd = breakdown(sc, comp.table, "query_type", baseline="round-00", challenger="round-40",
                   resamples=2000)
    renamed = sc.table.replace({"config": {"round-00": "jan", "round-40": "champ"}})
    row = compare(renamed, baseline="jan", metric="ndcg@10", resamples=2000).iloc[0]
    pooled = bd.pooled
    for col in ("n", "delta", "ci_low", "ci_high", "se", "mde", "p_value", "seed"):
        assert pooled[col] == row[col], col


# ------------------------------------------------------------- demo data
def test_demo_query_types_match_the_data_readme():
    comp = demo_comparison()
    sc = score(comp.test_set, comp.runs, "ndcg@10")
    bd = breakdown(sc, comp.table, "query_type", baseline="round-00", challenger="round-40",
                   reported_points="+1.1", resamples=500)
    t = bd.table.set_index("stratum")
    # data/README.md: 118/41/27/14; in-scope +1.5, follow-up +1.2, out-of-scope exactly 0,
    # malformed -0.3, pooled +1.1 points
    assert t.loc[["in_scope_single_turn", "follow_up", "out_of_scope", "malformed"],
                 "n"].tolist() == [118, 41, 27, 14]
    assert (t["delta"] * 100).round(1).loc[
        ["in_scope_single_turn", "follow_up", "out_of_scope", "malformed", "pooled"]
    ].tolist() == [1.5, 1.2, 0.0, -0.3, 1.1]
    assert t.loc["out_of_scope", "ci_high"] - t.loc["out_of_scope", "ci_low"] == 0
    assert "cannot move by construction" in t.loc["out_of_scope", "note"]
    assert not bd.reconciliation.flagged
    assert bd.ok


@pytest.mark.parametrize("column", ["intent", "source", "turn", "unanswerable"])
def test_any_demo_column_adds_up(column):
    comp = demo_comparison()
    sc = score(comp.test_set, comp.runs, "ndcg@10")
    bd = breakdown(sc, comp.table, column, baseline="round-00", challenger="round-40",
                   resamples=200)
    assert bd.strata["n"].sum() == 200 and bd.pooled["n"] == 200
    assert bd.completeness.endswith("The sizes add up.")
    assert bd.pooled["delta"] == pytest.approx(
        (bd.strata["n"] * bd.strata["delta"]).sum() / 200, abs=1e-15)


# ------------------------------------------------------------- real data
@pytest.mark.realdata
def test_codec_by_domain(real_data, tmp_path):
    comp = codec_workspace(real_data, tmp_path).comparison(
        "codec", ["document_bm25-tuned", "document_bm25-tuned+t5-maxp"])
    sc = score(comp.test_set, comp.runs, "ndcg_linear@10", extra=comp.extra)
    bd = breakdown(sc, comp.table, "Domain", baseline="document_bm25-tuned",
                   challenger="document_bm25-tuned+t5-maxp", resamples=1000)
    # PROVENANCE.md: 14 topics in each of finance, history, politics; BM25+T5 vs BM25 +0.146
    assert dict(zip(bd.strata["stratum"], bd.strata["n"])) == \
        {"finance": 14, "history": 14, "politics": 14}
    assert bd.pooled["delta"] == pytest.approx(0.146, abs=0.0005)
    assert bd.ok


@pytest.mark.realdata
def test_cast_by_turn_depth(real_data, tmp_path):
    comp = cast_workspace(real_data, tmp_path).comparison("cast", ["org_convdr", "org_manual_bm25"])
    sc = score(comp.test_set, comp.runs, "ndcg_linear@10", extra=comp.extra)
    bd = breakdown(sc, comp.table, "turn_depth", baseline="org_convdr",
                   challenger="org_manual_bm25", resamples=500)
    # PROVENANCE.md: 158 judged turns, by depth 1-2: 38, 3-6: 73, >=7: 47 (in turn order)
    assert dict(zip(bd.strata["stratum"], bd.strata["n"])) == \
        {"1-2": 38, "3-6": 73, ">=7": 47}
    assert bd.pooled["n"] == 158 and bd.ok


def test_effect_size_per_row_by_hand(hand):
    scores, strata = hand
    bd = breakdown(scores, strata, "kind", baseline="b", challenger="c", resamples=200)
    t = bd.table.set_index("stratum")["effect_size"]
    # A: 4 queries (d = .1 .2 .3 .2, d_z = sqrt(6) by hand) is under the 6 a row needs:
    # "too few queries to say", so no effect size either (issue 23 #14)
    assert np.isnan(t["A"])
    # pooled: mean .15, sum of squared deviations .16 over 7
    assert t["pooled"] == pytest.approx(0.15 / np.sqrt(0.16 / 7))
    # every difference 0 (sd 0) or one query: undefined, shown as a dash
    assert np.isnan(t["Z"]) and np.isnan(t["unclassified"]) and np.isnan(t["equal-weight"])
    shown = bd.display_table().set_index("stratum")["effect size"]
    assert shown["A"] == "—" and shown["Z"] == "—" and shown["pooled"] == "+0.99"
