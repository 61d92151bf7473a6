"""Page 04-label-bias: inputs resolved from the manifest's names, every section from one run."""
from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pytest

from ragnb.pages import resolve, run, skip_reason
from ragnb.pages.label_bias import LabelBiasInputs
from ragnb.paths import DEMO_DIR
from tests.pages import missing_reason, small_workspace

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))
CONFIGS = ("m0_r1", "m0_r2", "m1_r1", "m1_r2", "m2_r1", "m2_r2")


@pytest.fixture(scope="module")
def finding():
    return run(resolve("04-label-bias", DEMO_DIR, resamples=200))


_write = small_workspace


def test_resolve_reads_the_manifest_names_and_given_values_win():
    labels, own = MANIFEST["labels"], MANIFEST["report"]["label-bias"]
    inputs = resolve("label-bias", DEMO_DIR)
    assert isinstance(inputs, LabelBiasInputs)
    assert inputs.split == labels["test_set"] == "labelbias"
    assert (inputs.baseline, inputs.metric) == (own["baseline"], own["metric"])
    assert inputs.challenger == MANIFEST["report"]["challenger"]
    assert inputs.configs == CONFIGS
    assert inputs.labels.endswith(labels["path"]) and inputs.shards.endswith(labels["shards"])
    assert (inputs.shard, inputs.joint, inputs.judge_next_rows) == (labels["shard"], True, 15)
    given = resolve("04", DEMO_DIR, configs=["m0_r1", "m2_r1"], baseline="m2_r1",
                    metric="ndcg@10", joint=False, shard="shard2", judge_next_rows=5, seed=3)
    assert (given.configs, given.baseline, given.joint, given.shard, given.seed) == (
        ("m0_r1", "m2_r1"), "m2_r1", False, "shard2", 3)
    assert given.metric.startswith("ndcg@10") and given.judge_next_rows == 5
    # another test set: the pooled labels belong to labelbias, so none are read
    other = resolve("label-bias", DEMO_DIR, split="golden", baseline="round-00")
    assert other.split == "golden" and other.labels == other.shards == ""


@pytest.mark.parametrize("text, configs, reason", [
    ('[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n[report]\nbaseline = "a"\n',
     ("a",), "test set 'main' needs runs of at least two configs"),
    ('[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n', ("a", "b"),
     "no baseline config ([report] baseline)"),
    ('[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n[report]\nbaseline = "c"\n',
     ("a", "b"), "test set 'main' has no run of c; its configs: a, b"),
])
def test_a_missing_input_is_named_by_resolve_and_is_the_skip_reason(tmp_path, text, configs,
                                                                     reason):
    ws = _write(tmp_path, text, configs)
    assert missing_reason(ws, "04-label-bias") == reason
    if "baseline" in reason:   # a baseline given for the run is enough
        assert skip_reason(ws, "label-bias", {"baseline": "a"}) is None


def test_sections_run_from_the_verdict_to_the_split_ledger(finding):
    kinds = [(s.kind, s.appendix) for s in finding.sections]
    captions = [s.caption for s in finding.sections]
    assert kinds[:2] == [("chart", False), ("table", False)]   # the verdict under its headline
    assert finding.sections[2].content.startswith("**Rule.**")
    headings = [c for c, s in zip(captions, finding.sections) if s.kind == "markdown" and c]
    assert headings == ["How much could the missing labels change each score?",
                        "What to label next", "After labelling the pool",
                        "What one labelled shard predicted"]
    assert captions[-1].startswith("How often each split")
    assert [c for c, (k, a) in zip(captions, kinds) if a] == [
        "rr@10, every column, metric units (0-1)",
        "Projection from shard1, every column, metric units (0-1)"]
    assert sum(k == "chart" for k, _ in kinds) == 3               # verdict, bounds, shard
    # no heading without its content: every markdown section has text
    assert all(s.content.strip() for s in finding.sections if s.kind == "markdown")


def test_the_headline_is_the_three_way_verdicts(finding):
    from ragnb.result import finding as finding_of

    own = finding_of(finding.source, display_names=MANIFEST["display_names"], chart=False)
    assert finding.headline == own.headline
    assert finding.headline.question == "Is the answer key biased?"
    assert finding.headline.verdict == "labels decide: 1 of 5"
    verdicts = finding.sections[1].content.set_index("challenger")
    # issue 33 #5: KURE + reranker 1 is ahead under every labelling (conservative mean > 0),
    # so more queries, not labels, decide it; bge-m3 + reranker 1 is left to the labels
    assert verdicts.loc["KURE + reranker 1 (m2_r1)", "verdict"] == "more queries decide"
    assert verdicts.loc["bge-m3 + reranker 1 (m1_r1)", "verdict"] == "labels decide"
    assert "m1_r1" in finding.headline.answer


def test_the_bounds_are_the_scores_under_each_policy(finding):
    from ragnb.metrics.score import score

    objects = finding.objects
    body = next(s for s in finding.sections
                if s.kind == "table" and "unjudged share of the top k" in s.caption)
    assert list(body.content.columns) == ["config", "unjudged_share", "lower", "condensed",
                                          "upper", "bound_min", "bound_max"]
    assert body.units["lower"] == "points" and body.units["unjudged_share"] == "percent"
    data = objects["table"].set_index("config")
    # the baseline leads, shown with its display name
    assert body.content["config"].iloc[0] == "e5 + reranker 1 (m0_r1)"
    for policy in ("lower", "condensed", "upper"):
        means = score(objects["test_set"], objects["runs"], "rr@10", policy=policy).means()
        means = means.set_index("config")["mean"]
        assert np.allclose(data.loc[list(CONFIGS), policy], means.loc[list(CONFIGS)]), policy
    assert (data["bound_min"] <= data["lower"] + 1e-12).all()
    assert (data["upper"] <= data["bound_max"] + 1e-12).all()
    assert f"{data.loc['m2_r1', 'lower'] * 100:.1f}" in finding.to_text()


def test_the_judge_next_list_is_cut_at_its_parameter(finding):
    section = next(s for s in finding.sections if s.caption.startswith("Judge next"))
    every = finding.objects["judge_next"]
    assert len(section.content) == len(every) == 1218 and section.max_rows == 15
    assert f"{len(every) - 15} more rows not shown" in finding.to_text()
    assert "1218 passages to judge in all" in finding.to_text()
    small = run(resolve("04-label-bias", DEMO_DIR, resamples=50, judge_next_rows=4))
    cut = next(s for s in small.sections if s.caption.startswith("Judge next"))
    assert cut.max_rows == 4


def test_the_shard_table_says_what_each_row_moves(finding):
    section = next(s for s in finding.sections if s.caption.startswith("Effect of labelling"))
    table = section.content
    projection = finding.objects["projection"]
    assert "effect on" in table and len(table) == len(projection) == 11
    # no two rows alike: a config's mean and its difference to the baseline are told apart
    assert not table[["config", "effect on"]].duplicated().any()
    kure = table[table["config"] == "KURE + reranker 1 (m2_r1)"].set_index("effect on")
    assert list(kure.index) == ["its mean", "its difference to e5 + reranker 1 (m0_r1)"]
    raw = projection.set_index("target")
    assert kure.loc["its mean", "effect_full"] == raw.loc["m2_r1", "effect_full"]
    assert (kure.loc["its difference to e5 + reranker 1 (m0_r1)", "projected"]
            == raw.loc["m2_r1 - m0_r1", "projected"])
    assert section.units["projected"] == "signed points"
    assert f"{raw.loc['m2_r1', 'projected'] * 100:+.1f} projected" in finding.to_text()


def test_after_merging_the_bounds_collapse_and_nothing_reads_nan(finding):
    after = finding.objects["bounds_after"].summary()
    assert np.allclose(after["bound_min"], after["bound_max"])
    assert (finding.objects["merge_counts"].added, finding.objects["merge_counts"].new_relevant
            ) == (2105, 42)
    ledger = finding.sections[-1].content.set_index("split")
    assert ledger.loc["labelbias", "role"] == "not registered"
    assert finding.objects["inflation"] is None
    text = finding.to_text()
    assert "NaN" not in text and "nan" not in text.split()
    assert isinstance(finding.objects["table"], pd.DataFrame)


def test_without_pooled_labels_the_page_has_no_heading_for_them():
    finding = run(resolve("04-label-bias", DEMO_DIR, split="golden",
                          configs=["round-00", "round-40"], baseline="round-00", resamples=50))
    headings = [s.caption for s in finding.sections if s.kind == "markdown" and s.caption]
    assert headings == ["How much could the missing labels change each score?",
                        "What to label next"]
    assert "projection" not in finding.objects and "merged" not in finding.objects
    ledger = finding.sections[-1].content.set_index("split")
    assert ledger.loc["golden", "selections against"] == 40       # the demo ledger's count
    assert "NaN" not in finding.to_text()
