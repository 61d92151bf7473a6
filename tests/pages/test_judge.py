"""Page 08-judge: the judge against people, and every difference three ways, on the demo
(which knows every grade, so the fully judged difference is known) and on small workspaces.
"""
from __future__ import annotations

import re
import tomllib

import numpy as np
import pytest

from ragnb.demo.judge import full_labels
from ragnb.judge.ppi import ESTIMATORS
from ragnb.metrics.score import score
from ragnb.pages import resolve, run
from ragnb.pages.judge import JudgeInputs
from ragnb.paths import DEMO_DIR
from ragnb.workspace import open_workspace
from tests.pages import missing_reason, small_workspace

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def finding():
    return run(resolve("08-judge", DEMO_DIR, resamples=300))


def test_resolve_reads_the_manifest_names():
    own = MANIFEST["report"]["judge"]
    inputs = resolve("judge", DEMO_DIR)
    assert isinstance(inputs, JudgeInputs)
    assert (inputs.split, inputs.baseline, inputs.challenger) == (
        own["test_set"], own["baseline"], own["challenger"])
    assert inputs.metric.startswith("ndcg@10") and inputs.k == 10


def test_a_workspace_without_a_judge_skips_the_page_with_the_reason(tmp_path):
    ws = small_workspace(tmp_path, '[test_sets.t]\npath = "qrels.txt"\nruns = "runs/*.trec"\n')
    assert missing_reason(ws, "08-judge") == (
        "no test set has model-judge labels ([test_sets.NAME] judge)")


def test_the_headline_reads_its_own_table(finding):
    e = finding.objects["estimates"]
    ppi = e.difference("m2_r1", ESTIMATORS[2])
    judged = e.difference("m2_r1", ESTIMATORS[1])
    answer = finding.headline.answer
    assert f"{ppi['estimate'] * 100:+.1f} [{ppi['low'] * 100:+.1f}, {ppi['high'] * 100:+.1f}]" \
        in answer
    assert f"The judge alone says {judged['estimate'] * 100:+.1f} points, a biased figure" \
        in finding.headline.why[0]
    assert finding.headline.verdict == ("better" if ppi["low"] > 0 else
                                        "worse" if ppi["high"] < 0 else "inconclusive at this n")
    assert len(re.findall(r"[.!?](\s|$)", answer)) == 1  # one sentence
    row = finding.display_table[(finding.display_table["config"].str.endswith("(m2_r1)"))
                                & (finding.display_table["reading"] == "PPI++")].iloc[0]
    assert row["estimate"] == f"{ppi['estimate'] * 100:+.1f}"


def test_ppi_holds_the_fully_judged_difference_and_the_judge_alone_does_not(finding):
    """The demo knows every grade: people's 49 queries and the judge's error give a PPI++
    interval holding the difference with all 164 queries judged by people (+6.9 points);
    the judge's own figure (+1.8) is biased and its interval misses it.
    """
    ws = open_workspace(DEMO_DIR)
    full = full_labels(DEMO_DIR / "labelbias")
    w = score(full, ws.runs("judged"), "ndcg@10").table.pivot(index="query_id",
                                                              columns="config", values="value")
    truth = float((w["m2_r1"] - w["m0_r1"]).mean())
    e = finding.objects["estimates"]
    ppi, judged = (e.difference("m2_r1", k) for k in (ESTIMATORS[2], ESTIMATORS[1]))
    assert ppi["low"] <= truth <= ppi["high"]
    assert not judged["low"] <= truth <= judged["high"]
    assert (e.n_labelled, e.n_judge_only) == (49, 115)


def test_people_judge_next_in_a_seeded_random_order(finding):
    e = finding.objects["estimates"]
    order = finding.objects["label_next"]
    unlabelled = set(e.values.loc[~e.values["labelled"], "query_id"])
    assert set(order["query_id"]) == unlabelled and len(order) == 115
    again = run(resolve("08-judge", DEMO_DIR, resamples=50)).objects["label_next"]
    assert order["query_id"].tolist() == again["query_id"].tolist()
    other = run(resolve("08-judge", DEMO_DIR, resamples=50, seed=1)).objects["label_next"]
    assert order["query_id"].tolist() != other["query_id"].tolist()


def test_the_agreement_section_and_checks(finding):
    a = finding.objects["agreement"]
    assert a.counts["both"] == 2674 and a.counts["judge_only_queries"] == 115
    text = finding.to_text()
    assert "Does the judge favour one config's passages?" in text
    assert f"{a.exact:.1%}" in text
    checks = dict(zip(finding.checks["check"], finding.checks["holds"]))
    assert checks["people judged whole queries"] and checks["judge's grades on the people's scale"]


def _judged_workspace(tmp_path, judge_text: str):
    ws = small_workspace(tmp_path, '[test_sets.t]\npath = "qrels.txt"\nruns = "runs/*.trec"\n'
                                   'judge = "judge.txt"\n')
    (tmp_path / "judge.txt").write_text(judge_text)
    return ws


def test_judge_labels_nobody_retrieved_or_judged_are_counted(tmp_path):
    ws = _judged_workspace(tmp_path, "q1 0 d1 1\nq2 0 d3 2\nq2 0 zz 1\nq1 0 yy 0\n")
    f = run(resolve("08-judge", ws, resamples=50))  # no baseline: agreement only
    assert f.headline.verdict == "almost perfect"
    assert "agrees exactly with people on 100% of 2 pairs" in f.headline.answer
    text = (tmp_path / "ragnb.toml").read_text() + '[report]\nbaseline = "a"\nchallenger = "b"\n'
    (tmp_path / "ragnb.toml").write_text(text)
    f = run(resolve("08-judge", ws, resamples=50))
    assert "judge_unused: 2 — judge labels of pairs no run retrieved and no person judged" \
        in f.to_text()
    assert "from people alone on 2 queries; the judge's labels are not used" in f.headline.answer
    assert "PPI is not given: only 2 people-labelled queries: PPI needs at least 3" \
        in f.headline.why[0]


def test_an_identical_judge_is_said_not_celebrated(tmp_path):
    ws = _judged_workspace(tmp_path, "q1 0 d1 1\nq2 0 d3 2\n")
    f = run(resolve("08-judge", ws, resamples=50))
    assert f.headline.verdict == "no judge"
    assert "not a copy of the qrels" in f.headline.next_step


def test_the_judge_file_is_named_in_a_bad_grade(tmp_path):
    from ragnb.errors import InputError

    ws = _judged_workspace(tmp_path, "q1 0 d1 1\nq2 0 d3 7\n")
    with pytest.raises(InputError, match=r"judge.txt:2: judge 'judge' gives grade 7"):
        run(resolve("08-judge", ws, resamples=50))


def test_the_random_sample_check_refuses_a_selected_overlap():
    """People judged the 49 queries where the judge scores the baseline highest: PPI is
    refused with the reason, people only and judge only still shown.
    """
    from dataclasses import replace

    from ragnb.judge import judged_estimates

    ws = open_workspace(DEMO_DIR)
    runs = ws.runs("judged")
    full = full_labels(DEMO_DIR / "labelbias")
    judge = ws.test_set("judged").judge
    ts = replace(full, judge=judge)
    first = judged_estimates(replace(ts, judge=judge), runs, "ndcg@10", baseline="m0_r1")
    assert first.refused.startswith("0 queries only the judge labelled")
    f = first.values[first.values["config"] == "m0_r1"].sort_values("judge")
    top = set(f["query_id"].tail(49))
    keep = ts.judgments["query_id"].isin(top).to_numpy()
    chosen = replace(ts, judgments=ts.judgments[keep].reset_index(drop=True),
                     queries=ts.queries[ts.queries["query_id"].isin(top)].reset_index(drop=True))
    est = judged_estimates(chosen, runs, "ndcg@10", baseline="m0_r1", extra="drop")
    assert "not like the others" in est.refused and "Mann–Whitney" in est.refused
    assert ESTIMATORS[2] not in set(est.table["estimator"])
    assert np.isfinite(est.difference("m2_r1", ESTIMATORS[0])["low"])


def test_label_bias_reads_the_judge_beside_its_exact_bounds():
    """Page 04 on the judged split: over all 164 queries the exact bounds are wide (115
    queries carry no people's label), every PPI++ estimate sits inside them, and the
    judge with its error carried decides exactly the differences whose interval excludes 0.
    """
    f = run(resolve("04-label-bias", DEMO_DIR, split="judged", baseline="m0_r1",
                    metric="ndcg@10", resamples=300))
    e = f.objects["judge_estimates"]
    table = next(s.content for s in f.sections
                 if s.kind == "table" and s.caption.startswith("Each difference over all 164"))
    assert set(table["PPI++ estimate inside the bounds"]) == {"yes"}
    for row in table.to_dict("records"):
        config = row["challenger"].rsplit("(", 1)[1].rstrip(")")
        ppi = e.difference(config, ESTIMATORS[2])
        decided = ppi["low"] > 0 or ppi["high"] < 0
        assert row["decides"] == ("the judge (PPI++)" if decided else "neither")
        low, high = (float(x) for x in row["exact bounds"].strip("[]").split(", "))
        assert high - low > 80  # points: what people's labels alone leave open
    sentence = next(s.content for s in f.sections if s.caption == "Filled by the model judge")
    assert sentence.startswith("People's labels decide none; the judge with its error "
                               "carried decides")
