"""``ragnb.compare`` on files as a user gives them (issue 36 #2)."""
import pytest

import ragnb
from ragnb.errors import InputError
from ragnb.paths import DEMO_DIR

RUNS = DEMO_DIR / "runs" / "production"


def test_runs_may_be_paths_and_keep_their_order():
    """Paths as runs once stopped on AttributeError ('str' object has no attribute 'name')."""
    f = ragnb.compare(str(DEMO_DIR / "production.jsonl"),
                      [str(RUNS / "round-00.jsonl"), str(RUNS / "round-40.jsonl")], "ndcg@10",
                      resamples=200)
    row = f.source.iloc[0]
    assert (row["baseline"], row["challenger"], int(row["n"])) == ("round-00", "round-40", 200)
    # seed 000's production figure (demo README): +1.1 [-0.9, +3.2]
    assert "+1.1 [-0.9, +3.2] points of ndcg@10" in f.headline.answer
    assert "Metric: ndcg@10 (exp gain 2^g-1)." in f.headline.why


@pytest.mark.realdata
def test_the_reader_options_are_honoured_on_cast(real_data):
    """CAsT 2021's runs rank 81 queries the qrels lack: an error without ``extra="drop"``,
    which ``ragnb.compare`` once accepted and ignored."""
    base = real_data / "trec-cast-2021" / "2021"
    qrels = base / "trec-cast-qrels-docs.2021.qrel"
    runs = [base / "baselines" / "document_runs" / f"{n}.run.gz"
            for n in ("org_convdr", "org_manual_bm25")]
    if not all(r.exists() for r in runs):
        pytest.skip(f"CAsT 2021 runs not found under {base}")
    with pytest.raises(InputError, match="not in the test set"):
        ragnb.compare(str(qrels), [str(r) for r in runs], "ndcg_cut_10", resamples=200)
    f = ragnb.compare(str(qrels), [str(r) for r in runs], "ndcg_cut_10", extra="drop",
                      resamples=200)
    row = f.source.iloc[0]
    assert int(row["n"]) == len(ragnb.read_test_set(qrels).query_ids)
    # issue 36 #1: the workspace's figure for the same pair (linear gain, as trec_eval)
    assert "+3.2 [-1.6, +8.0] points of ndcg_linear@10" in f.headline.answer
    # what was dropped is counted and shown with the finding
    assert "dropped_run_queries: 81" in f.to_text()


@pytest.mark.realdata
@pytest.mark.parametrize("name", ["ndcg@10", "NDCG@10", "nDCG@10"])
def test_one_ndcg_for_one_set_of_files(real_data, name, capsys):
    """Issue 36 #1: on the same CAsT files `ragnb compare --judgments ... --metric ndcg@10`
    printed +2.2 [-2.6, +7.0] (exp gain) and the workspace init made +3.2 [-1.6, +8.0]
    (linear); NDCG@10 meant exp, nDCG@10 linear. On TREC qrels every spelling is
    linear, as trec_eval, ranx and ir_measures report it, in the CLI and the API alike;
    per-query values equal pytrec_eval's ndcg_cut_10 (tests/metrics/...agreement)."""
    from ragnb.cli import main

    base = real_data / "trec-cast-2021" / "2021"
    qrels = base / "trec-cast-qrels-docs.2021.qrel"
    runs = {n: base / "baselines" / "document_runs" / f"{n}.run.gz"
            for n in ("org_convdr", "org_manual_bm25")}
    if not all(r.exists() for r in runs.values()):
        pytest.skip(f"CAsT 2021 runs not found under {base}")
    assert main(["compare", "--judgments", str(qrels),
                 "--baseline", f"org_convdr={runs['org_convdr']}",
                 "--challenger", f"org_manual_bm25={runs['org_manual_bm25']}",
                 "--metric", name, "--extra", "drop", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "+3.2 [-1.6, +8.0]" in out and "linear gain g" in out
    f = ragnb.compare(str(qrels), [str(p) for p in runs.values()], name, extra="drop",
                      resamples=200)
    assert "+3.2 [-1.6, +8.0]" in f.headline.answer
    assert "Metric: ndcg@10 (linear gain g)." in f.headline.why


def test_a_run_whose_score_column_is_its_rank_gets_no_verdict(tmp_path):
    """Issue 36 #3: a run whose score column held the rank got 'Verdict: better' with 239
    of 239 queries flagged in a note 20 lines below. Read by score, such a run is ranked
    backwards; the headline names the run and the count and asks for --order."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"q{i} 0 d{j} {int(j < 2)}\n" for i in range(30) for j in range(6)))

    def run(name, score):
        path = tmp_path / f"{name}.trec"
        path.write_text("".join(f"q{i} Q0 d{(j + i) % 6} {j + 1} {score(j + 1)} {name}\n"
                                for i in range(30) for j in range(6)))
        return str(path)

    base = run("base", lambda r: 10 - r)           # ranks and scores agree
    flipped = run("flipped", lambda r: r)          # the score column is the rank
    f = ragnb.compare(str(qrels), [base, flipped], "ndcg@10", resamples=200)
    assert f.headline.answer == ("No verdict: flipped's rank column disagrees with its scores "
                                 "on 30 of 30 queries, so which column ranks it decides the "
                                 "result.")
    assert f.headline.verdict == "refused: ranks and scores disagree"
    assert "--order rank" in f.headline.next_step and 'order="rank"' in f.headline.next_step
    assert f.headline.why[0].startswith("Ranked by score (as read), the comparison would say")
    # read by rank, the same files compare as they were meant: no refusal
    g = ragnb.compare(str(qrels), [ragnb.read_run(base, order="rank"),
                                   ragnb.read_run(flipped, order="rank")], "ndcg@10",
                      resamples=200)
    assert not g.headline.answer.startswith("No verdict")
