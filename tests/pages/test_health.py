"""Page 06-health: inputs resolved from the manifest's names, every section from one run."""
from __future__ import annotations

import csv
import json
import re
import tomllib

import pytest

from ragnb.pages import resolve, run, skip_reason
from ragnb.pages.health import HealthInputs
from ragnb.paths import DEMO_DIR
from tests.pages import missing_reason, small_workspace

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def finding():
    return run(resolve("06-health", DEMO_DIR, resamples=200))


def _write(tmp_path, text, *, corpus=True):
    (tmp_path / "held.trec").write_text("q1 Q0 d1 1 2.0 t\n")
    if corpus:
        (tmp_path / "corpus.csv").write_text("passage_id,doc_id,doc_version\nd1,d,1\n")
    return small_workspace(tmp_path, text)


SPLIT = '[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n'
CORPUS = '[workspace]\ncorpus = "corpus.csv"\n'
NO_MIX = '[health]\nholdout_split = "main"\nholdout_run = "held.trec"\n'
HELD = NO_MIX + 'declared_sources = { ticket = 1.0 }\n'


def test_resolve_reads_the_manifest_names_and_given_values_win():
    health, report = MANIFEST["health"], MANIFEST["report"]
    inputs = resolve("health", DEMO_DIR)
    assert isinstance(inputs, HealthInputs)
    assert (inputs.split, inputs.holdout_split_name) == (health["test_set"],
                                                          health["holdout_split"])
    assert inputs.holdout_salt == health["holdout_split"]       # the split's name
    assert (inputs.baseline, inputs.config) == (report["baseline"], report["challenger"])
    assert dict(inputs.declared_sources) == health["declared_sources"]
    assert inputs.bucket_column == health["bucket_column"]
    assert inputs.holdout_run.endswith(health["holdout_run"])
    assert inputs.old_version.endswith(health["old_version"])
    assert inputs.rejudged_split == MANIFEST["labels"]["test_set"]
    assert inputs.rejudged_metric == MANIFEST["report"]["label-bias"]["metric"]
    given = resolve("06", DEMO_DIR, split="golden", config="round-39", holdout_salt="v1",
                    declared_sources={"ticket": 1.0}, bucket_column="source", seed=3)
    assert (given.split, given.config, given.holdout_salt, given.seed) == ("golden", "round-39",
                                                                          "v1", 3)
    assert dict(given.declared_sources) == {"ticket": 1.0} and given.bucket_column == "source"


@pytest.mark.parametrize("manifest, given, grade", [
    ("", -1, 2),                            # neither: the top of a 0/1/2 scale
    ("answer_grade = 1\n", -1, 1),          # [health] answer_grade (was never read)
    ("answer_grade = 1\n", 3, 3),           # the parameter wins
])
def test_the_answer_grade_comes_from_the_parameter_then_the_manifest(tmp_path, manifest,
                                                                      given, grade):
    ws = _write(tmp_path, CORPUS + SPLIT + HELD + manifest
                + '[report]\nbaseline = "a"\nchallenger = "b"\n')
    assert resolve("06-health", ws, answer_grade=given).answer_grade == grade


@pytest.mark.parametrize("text, corpus, reason", [
    (SPLIT + HELD, False, "no corpus build ([workspace] corpus)"),
    (CORPUS + SPLIT, True, "no held-back check inputs ([health] holdout_split, holdout_run)"),
    (CORPUS + SPLIT + '[health]\nholdout_split = "main"\n', True,
     "no held-back check inputs ([health] holdout_split, holdout_run)"),
    (CORPUS + SPLIT + NO_MIX, True, "no declared source mix ([health] declared_sources)"),
    (CORPUS + SPLIT + HELD, True, "no config to score per bucket ([report] challenger)"),
    (CORPUS + SPLIT + HELD + '[report]\nbaseline = "a"\nchallenger = "c"\n', True,
     "test set 'main' has no run of c; its configs: a, b"),
])
def test_a_missing_input_is_named_by_resolve_and_is_the_skip_reason(tmp_path, text, corpus,
                                                                     reason):
    ws = _write(tmp_path, text, corpus=corpus)
    assert missing_reason(ws, "06-health") == reason


def test_resolve_opens_no_data_file(tmp_path):
    # the manifest names files that hold no data: resolve still answers (it reads names only)
    ws = _write(tmp_path, CORPUS + SPLIT + HELD + '[report]\nbaseline = "a"\nchallenger = "b"\n')
    (tmp_path / "corpus.csv").write_text("not,a corpus\n")
    (tmp_path / "held.trec").write_text("not a run\n")
    inputs = resolve("06-health", ws)
    assert (inputs.split, inputs.config, inputs.baseline) == ("main", "b", "a")
    assert skip_reason(ws, "health") is None


def test_sections_run_from_the_review_chart_to_the_splits(finding):
    captions = [s.caption for s in finding.sections]
    assert finding.sections[0].kind == "chart"
    assert captions[0] == "The check to fix first: held-back 20% (on golden)"
    body = [c for s, c in zip(finding.sections, captions) if s.kind == "table" and not s.appendix]
    assert [c.split(" (")[0].split(",")[0] for c in body] == [
        "Coverage of the answerable queries", "Answerable queries whose answer is not in the "
        "build", "Judgments by freshness", "Review queue: answering grades first",
        "Unanswerable queries against the target share", "Source mix against the declared "
        "shares", "ndcg@10 of round-40 per intent", "Near-duplicate groups",
        "Groups and the query to keep", "gain champion-with-holdout - round-00",
        "production-v1 → production: queries by change", "ndcg@10 of each config on both "
        "versions", "labelbias → labelbias+labels: queries by change", "rr@10 of each config "
        "before and after re-judging", "How often each split has been used to choose"]
    assert [c for s, c in zip(finding.sections, captions) if s.appendix] == [
        "Every member of a near-duplicate group",
        "Tuning vs held-back queries, every column, metric units (0-1)"]
    assert sum(s.kind == "chart" for s in finding.sections) == 8
    # each check under its heading, saying what the review says of it
    assert [c for s, c in zip(finding.sections, captions) if s.kind == "markdown" and c] == [
        "Coverage: is the answer still in the index?",
        "Staleness: judged before the document changed",
        "Composition: unanswerable share and source mix",
        "Intent buckets: sizes, scores and power", "Near-duplicate queries",
        "The held-back 20%", "Version diff: production-v1 → production",
        "Re-judging: labelbias before and after its new labels"]
    # no empty section: every Markdown section says something, every table has rows
    assert all(s.content.strip() for s in finding.sections if s.kind == "markdown")
    assert all(len(s.content) for s in finding.sections if s.kind == "table")


def _jsonl(name):
    return [json.loads(line) for line in (DEMO_DIR / name).read_text().splitlines()]


def test_coverage_and_the_unanswerable_count_are_the_files_own(finding):
    with open(DEMO_DIR / "corpus.csv", newline="") as fh:
        versions = {r["passage_id"]: r["doc_version"] for r in csv.DictReader(fh)}
    queries = _jsonl("production.jsonl")
    unanswerable = sum(q["unanswerable"] for q in queries)
    answerable = [q for q in queries if not q["unanswerable"]]
    lost = [q["query_id"] for q in answerable
            if not any(j["grade"] >= 2 and j["passage_id"] in versions for j in q["judgments"])]
    review = {q["query_id"] for q in queries for j in q["judgments"]
              if j["passage_id"] not in versions or j["doc_version"] < versions[j["passage_id"]]}
    assert (unanswerable, len(answerable), len(lost), len(review)) == (27, 173, 6, 53)
    tables = {s.caption: s.content for s in finding.sections if s.kind == "table"}
    cov = tables["Coverage of the answerable queries (shares in %)"].iloc[0]
    assert (cov["unanswerable"], cov["answerable"], cov["covered"]) == (27, 173, 167)
    assert cov["coverage"] == pytest.approx(167 / 173)
    shares = tables["Unanswerable queries against the target share (%)"].iloc[0]
    assert shares["unanswerable"] == 27 and shares["share"] == pytest.approx(27 / 200)
    assert sorted(tables["Answerable queries whose answer is not in the build"]["query_id"]) \
        == sorted(lost)
    assert finding.headline.answer.startswith("2 of 7 health checks hold for production")
    assert "6 of 173 answerable queries have no answer in the build (96.5% covered" \
        in " ".join(finding.headline.why)
    assert "Also failing: 53 of 200 queries have stale or removed judgments." \
        in finding.headline.why
    said = {s.caption: s.content for s in finding.sections if s.kind == "markdown"}
    assert said["Staleness: judged before the document changed"] == (
        "**Judgment freshness fails:** 53 of 200 queries have stale or removed judgments.")


def test_the_source_mix_and_the_listings_follow_the_files(finding):
    queries = _jsonl("production.jsonl")
    tables = {s.caption: s for s in finding.sections if s.kind == "table"}
    mix = tables["Source mix against the declared shares (%)"].content.set_index("source")
    for source, n in mix["n"].items():
        assert n == sum(q["source"] == source for q in queries), source
    queue = tables["Review queue: answering grades first"]
    # every judgment to review is in the section (and its CSV); the page shows review_rows
    assert len(queue.content) == 65 and queue.max_rows == 15
    assert "50 more rows not shown" in finding.to_text()
    assert (queue.content["corpus_version"] == "—").sum() == (queue.content["status"]
                                                              == "removed").sum()
    version = tables["ndcg@10 of each config on both versions, in points (metric × 100)"]
    assert list(version.content["config"]) == ["January baseline (round-00)",
                                               "July champion (round-40)"]
    text = finding.to_text()
    assert "NaN" not in text and not re.search(r"\bnan\b", text, re.IGNORECASE)
    assert text.startswith("Is the test set still a fair ruler?\n")


def test_a_finding_keeps_what_an_analyst_continues_from(finding):
    o = finding.objects
    assert o["review"] is finding.source
    assert len(o["staleness"].review_queue()) > 15
    assert o["holdout"].diverged and o["diff"].counts()["added"] == 41
    assert o["rejudged"].counts()["rejudged"] == o["merge_counts"].queries_touched == 164
    assert set(o["inflation"]) == {"production", "golden"}


def test_the_headline_counts_the_buckets_the_table_lists(finding):
    section = next(s for s in finding.sections if s.caption.startswith("ndcg@10 of round-40 per"))
    table = section.content
    buckets = table[table["bucket"] != "all queries"]
    small = buckets[buckets["too_small"]]
    assert (len(small), len(buckets)) == (6, 6)
    assert (f"{len(small)} of {len(buckets)} buckets are too small to see 5 points: "
            + ", ".join(small["bucket"])) in " ".join(finding.headline.why)


def test_ragnb_run_prints_the_api_finding(finding):
    from tests.cli.test_workspace_option import cli

    code, out, err = cli("run", "06-health", "--workspace", DEMO_DIR, "-p", "resamples=200")
    assert code == 0, err
    assert out == finding.to_text()


def test_ragnb_run_ends_with_the_missing_input(tmp_path):
    from tests.cli.test_workspace_option import cli

    ws = _write(tmp_path, SPLIT + HELD, corpus=False)
    code, _, err = cli("run", "health", "--workspace", ws)
    assert code == 2 and "no corpus build ([workspace] corpus)" in err


def test_a_given_source_mix_stands_for_the_manifests(tmp_path):
    ws = _write(tmp_path, CORPUS + SPLIT + NO_MIX + '[report]\nchallenger = "b"\n')
    assert skip_reason(ws, "health") == "no declared source mix ([health] declared_sources)"
    given = {"declared_sources": {"ticket": 0.5, "search": 0.5}}
    assert skip_reason(ws, "health", given) is None
    assert dict(resolve("health", ws, **given).declared_sources) == given["declared_sources"]
