"""Issue 33: a headline a person can say in a meeting, on the demo and on real collections.

The rule (:class:`ragnb.result.Headline`): the answer is one sentence of at most
``ANSWER_WORDS = 35`` whitespace-separated words, with one number and its interval;
"Next:" has at most ``NEXT_WORDS = 20`` words; everything else goes in the Why bullets.
Page 04 uses one vocabulary, the same words in its verdict, answer, table and chart legend.
The rewritten pages are checked here: 01-fit, 02-trajectory, 03-strata and 04-label-bias.
"""
from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ragnb.labelbias.verdict import READINGS
from ragnb.pages import NOTEBOOKS, run_page, skip_reason
from ragnb.paths import DEMO_DIR
from ragnb.result import ANSWER_WORDS, NEXT_WORDS, NUMBER_WITH_INTERVAL, words

PAGES = NOTEBOOKS
#: Pages whose answer is a count (selections against a budget), with a point estimate beside
#: it and no interval to give.
COUNTS = ("05-ledger",)


def said_aloud(finding, slug: str) -> None:
    """The rule, with what broke it in the message."""
    h = finding.headline
    assert words(h.answer) <= ANSWER_WORDS, (words(h.answer), h.answer)
    assert words(h.next_step) <= NEXT_WORDS, (words(h.next_step), h.next_step)
    intervals = len(NUMBER_WITH_INTERVAL.findall(h.answer))
    assert intervals == 1 or (slug in COUNTS and intervals == 0), h.answer
    assert h.answer.count(". ") == 0 and h.answer.endswith("."), h.answer   # one sentence
    assert h.why, "the facts behind the answer are in Why"


def one_vocabulary(finding) -> None:
    """04: the verdict's reading is said in the answer, and each run's reading is one of
    READINGS in the table and in the chart's colour domain."""
    h = finding.headline
    lead = h.verdict.split(":")[0]
    assert lead in READINGS and lead in h.answer.lower(), (h.verdict, h.answer)
    table = next(s.content for s in finding.sections
                 if s.kind == "table" and "verdict" in s.content)
    assert set(table["verdict"]) <= set(READINGS)
    legend = json.dumps(finding.chart.to_dict())
    assert all(f'"{r}"' in legend for r in READINGS)


@pytest.mark.parametrize("slug", PAGES)
def test_demo_headlines_can_be_said_aloud(slug):
    f = run_page(slug, DEMO_DIR, resamples=200)
    said_aloud(f, slug)
    if slug == "04-label-bias":
        one_vocabulary(f)


def test_demo_fit_answer_is_the_production_gain_and_why_holds_the_rest():
    """Before: 70 words with four parentheticals. Now the answer is the production gain,
    and the golden gain, the gap, the overlap and the gain map are Why bullets."""
    h = run_page("01-fit", DEMO_DIR, resamples=200).headline
    assert words(h.answer) <= 25
    assert any(w.startswith("Gain gap (production minus golden)") for w in h.why)
    assert any("repeat the text of a golden query" in w for w in h.why)
    assert "Metric: ndcg@10 (exp gain 2^g-1)." in h.why
    assert "(exp gain" not in h.answer


def _cli(*args) -> None:
    from ragnb.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in args])
    assert code == 0, err.getvalue()


@pytest.fixture(scope="module")
def real_workspaces(real_data, tmp_path_factory):
    """CAsT 2021 (two folds by conversation, three rounds) and CODEC (its four folds),
    each made with ``ragnb init``."""
    from ragnb.io import read_test_set

    tmp = tmp_path_factory.mktemp("headline-workspaces")
    base = real_data / "trec-cast-2021" / "2021"
    qrels = base / "trec-cast-qrels-docs.2021.qrel"
    (tmp / "runs").mkdir()
    for run in sorted((base / "baselines" / "document_runs").glob("*.run.gz")):
        shutil.copy(run, tmp / "runs" / f"input.{run.name.removesuffix('.run.gz')}.gz")
    ids = list(read_test_set(qrels).query_ids)
    conversations = sorted({q.split("_")[0] for q in ids}, key=int)
    golden = set(conversations[::2])
    (tmp / "folds.json").write_text(json.dumps({
        "golden": [q for q in ids if q.split("_")[0] in golden],
        "production": [q for q in ids if q.split("_")[0] not in golden]}))
    _cli("init", tmp / "cast", "--test-set", qrels, "--folds", tmp / "folds.json", "--runs",
         str(tmp / "runs" / "input.*.gz"), "--strata",
         base / "2021_automatic_evaluation_topics_v1.0.json.gz", "--extra", "drop",
         "--rounds", "org_manual_bm25,org_convdr,org_convdr_bert")
    codec = real_data / "codec"
    _cli("init", tmp / "codec", "--test-set", codec / "qrels/document_ndcg.qrels", "--folds",
         codec / "system_runs/folds/folds.json", "--runs",
         *sorted((codec / "system_runs" / "runs").glob("document_*.run.gz")),
         "--strata", codec / "topics/topics.json")
    return {"cast": tmp / "cast", "codec": tmp / "codec"}


@pytest.mark.slow
@pytest.mark.realdata
@pytest.mark.parametrize("collection", ["cast", "codec"])
def test_real_collection_headlines_can_be_said_aloud(real_workspaces, collection):
    ws = real_workspaces[collection]
    ran = 0
    for slug in PAGES:
        if skip_reason(ws, slug):
            continue
        f = run_page(slug, ws, resamples=200)
        said_aloud(f, slug)
        if slug == "04-label-bias":
            one_vocabulary(f)
        ran += 1
    assert ran >= 3   # CODEC has no rounds, so 02 is skipped there
