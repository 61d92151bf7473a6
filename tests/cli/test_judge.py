"""``ragnb judge``, ``ragnb compare --judge``, ``ragnb init --judge`` and
``ragnb.compare(..., judge=...)``: one Finding, the page's, on every surface.
"""
from __future__ import annotations

import io
import tomllib
from contextlib import redirect_stderr, redirect_stdout

import ragnb
from ragnb.cli import main
from ragnb.pages import resolve, run
from ragnb.paths import DEMO_DIR

PEOPLE = DEMO_DIR / "judge" / "people.csv"
JUDGE = DEMO_DIR / "judge" / "judge.trec"
RUNS = DEMO_DIR / "labelbias" / "runs"


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _page_answer(**given):
    return run(resolve("08-judge", DEMO_DIR, resamples=200, **given)).headline.answer


def test_every_surface_gives_the_pages_headline():
    page = _page_answer(baseline="m0_r1", challenger="m1_r1")
    code, out, err = cli("judge", "--workspace", DEMO_DIR, "--baseline", "m0_r1",
                         "--challenger", "m1_r1", "--resamples", 200)
    assert code == 0, err
    code2, out2, err2 = cli("compare", "-w", DEMO_DIR, "--judge", "umbrela-like",
                            "--baseline", "m0_r1", "--challenger", "m1_r1", "--metric",
                            "ndcg@10", "--resamples", 200)
    assert code2 == 0, err2
    code3, out3, err3 = cli("judge", "--judgments", PEOPLE, "--judge",
                            f"umbrela-like={JUDGE}", "--run", RUNS / "m0_r1.trec", "--run",
                            RUNS / "m1_r1.trec", "--baseline", "m0_r1", "--extra", "drop",
                            "--metric", "ndcg@10", "--resamples", 200)
    assert code3 == 0, err3
    api = ragnb.compare(str(PEOPLE), [ragnb.read_run(RUNS / f"{c}.trec") for c in
                                      ("m0_r1", "m1_r1")], "ndcg@10", baseline="m0_r1",
                        judge=str(JUDGE), judge_name="umbrela-like", extra="drop",
                        resamples=200)
    # the same PPI++ interval everywhere (the page's names carry display names)
    interval = page.split(": ", 1)[1].split(" points")[0]
    for text in (out, out2, " ".join(out3.split()), api.headline.answer):
        assert interval in " ".join(text.split())


def test_compare_judge_names_a_wrong_judge_and_bad_files():
    code, _, err = cli("compare", "-w", DEMO_DIR, "--judge", "gpt", "--baseline", "m0_r1",
                       "--challenger", "m1_r1", "--metric", "ndcg@10")
    assert code == 2 and "judge is 'umbrela-like', not 'gpt'" in err
    code, _, err = cli("judge", "--judgments", PEOPLE)
    assert code == 2 and "--judge" in err


def test_init_writes_the_judge_key_and_the_page_runs(tmp_path):
    code, out, err = cli("init", tmp_path / "ws", "--test-set", PEOPLE, "--runs",
                         str(RUNS / "*.trec"), "--judge", f"umbrela={JUDGE}",
                         "--baseline", "m0_r1", "--challenger", "m2_r1")
    assert code == 0, err
    assert "report judge: runs" in out
    manifest = tomllib.loads((tmp_path / "ws" / "ragnb.toml").read_text())
    assert manifest["test_sets"]["people"]["judge"]["name"] == "umbrela"
    f = run(resolve("08-judge", tmp_path / "ws", resamples=100))
    assert f.headline.verdict in ("better", "worse", "inconclusive at this n")
    import pytest

    with pytest.raises(SystemExit):
        cli("init", "--help")
    from ragnb.cli.init import description

    assert "--judge umbrela=llm.qrels" in description()
    assert "judge a model judge's labels of these queries" in " ".join(description().split())
