"""``ragnb ledger``: the subcommands end to end, and one-line errors."""
from __future__ import annotations

import json

import pytest

from ragnb.cli import main


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "golden.qrels"
    qrels.write_text("q1 0 p1 2\nq1 0 p2 0\nq2 0 p9 1\n")
    testset = tmp_path / "prod.jsonl"
    testset.write_text("\n".join(json.dumps(r) for r in [
        {"query_id": "x1", "judgments": [{"passage_id": "kb#1", "grade": 2,
                                          "doc_version": "2026-03-11"}]},
        {"query_id": "x2", "judgments": []},  # no judgment: still part of the split
    ]) + "\n")
    return tmp_path, qrels, testset


def _run(capsys, *argv):
    code = main(["ledger", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_register_select_show_history(files, capsys):
    tmp, qrels, testset = files
    led = ["--ledger", tmp / "led", "--actor", "ana"]
    code, out, _ = _run(capsys, *led, "register", "golden", "--judgments", qrels, "--budget", 2)
    assert code == 0 and "golden@sha256:" in out and "selections_against        0" in out
    for winner in ("b", "c"):
        code, out, _ = _run(capsys, *led, "select", "golden", "--candidates", "a", winner,
                            "--winner", winner)
    assert "selections_against = 2; demoted to regression_guard on" in out
    code, out, _ = _run(capsys, *led, "register", "prod", "--judgments", testset,
                        "--role", "confirmation")
    assert "queries / judgments       2 / 1" in out and "sealed                    yes" in out
    code, out, _ = _run(capsys, *led, "show")
    assert out.count("@sha256:") == 2
    assert "role                      regression_guard" in out
    assert "retired_for_selection_at  20" in out
    code, out, _ = _run(capsys, *led, "show", "golden", "--json")
    assert json.loads(out)[0]["selections_against"] == 2
    code, out, _ = _run(capsys, *led, "history")
    assert "DEMOTED" in out and "[ana]" in out and len(out.splitlines()) == 4
    code, out, _ = _run(capsys, *led, "history", "golden", "--json")
    assert [json.loads(line)["event"] for line in out.splitlines()] == [
        "registered", "selection", "selection"]


def test_sealed_split_through_the_cli(files, capsys):
    tmp, _, testset = files
    led = ["--ledger", tmp / "led"]
    _run(capsys, *led, "register", "prod", "--judgments", testset, "--role", "confirmation",
         "--max-candidates", 2)
    code, _, err = _run(capsys, *led, "score", "prod", "--config", "a", "--value", 0.5)
    assert code == 2
    assert err.startswith("ragnb ledger: prod is sealed") and err.count("\n") == 1
    code, out, _ = _run(capsys, *led, "unseal", "prod", "--candidates", "a", "b")
    assert code == 0 and "run 1 of 1" in out
    for c in ("a", "b"):
        assert _run(capsys, *led, "score", "prod", "--config", c, "--metric", "ndcg@10",
                    "--value", 0.5)[0] == 0
    code, out, _ = _run(capsys, *led, "history", "prod")
    assert code == 0 and "scored a ndcg@10 = 50.00 points" in out      # 0.5 in points
    code, out, _ = _run(capsys, *led, "seal", "prod")
    assert code == 0 and "sealed                    yes" in out
    code, out, _ = _run(capsys, *led, "demote", "prod", "--reason", "next quarter's slice")
    assert code == 0 and "regression_guard since" in out


@pytest.mark.parametrize(("content", "match"), [
    ("q1 0 p1\n", "golden.qrels:1: expected 4 whitespace-separated fields"),
    ("q1 0 p1 high\n", "golden.qrels:1: grade 'high' is not an integer"),
    ("q1 0 p1 -2\n", "golden.qrels:1: negative grade -2"),   # -1: pooled (trec_eval)
    ("", "golden.qrels: the file is empty"),
])
def test_bad_input_is_one_line_and_nonzero(tmp_path, capsys, content, match):
    (tmp_path / "golden.qrels").write_text(content)
    code, _, err = _run(capsys, "--ledger", tmp_path / "led", "register", "golden",
                        "--judgments", tmp_path / "golden.qrels")
    assert code == 2 and err.count("\n") == 1
    assert __import__("re").search(match, err), err


def test_guard_refusal_and_unknown_split(files, capsys):
    tmp, qrels, _ = files
    led = ["--ledger", tmp / "led"]
    _run(capsys, *led, "register", "golden", "--judgments", qrels, "--role", "regression_guard")
    code, _, err = _run(capsys, *led, "select", "golden", "--candidates", "a", "b",
                        "--winner", "b")
    assert code == 2 and "ranks candidates only on a clear lead" in err
    code, _, err = _run(capsys, *led, "select", "golden", "--candidates", "a", "b",
                        "--winner", "b", "--score", "a=0.5", "--score", "b=0.6", "--se", 0.01)
    assert code == 0  # fresh guard, 10-point lead: no statistics module needed at 0 selections
    code, _, err = _run(capsys, *led, "select", "golden", "--candidates", "a", "b",
                        "--winner", "b", "--score", "a:0.5")
    assert code == 2 and "expected CONFIG=VALUE" in err
    code, _, err = _run(capsys, *led, "show", "nope")
    assert code == 2 and "no split 'nope'" in err


def test_default_directory_comes_from_the_environment(tmp_path, capsys, monkeypatch, files):
    _, qrels, _ = files
    monkeypatch.setenv("RAGNB_LEDGER", str(tmp_path / "from-env"))
    assert _run(capsys, "register", "golden", "--judgments", qrels)[0] == 0
    assert (tmp_path / "from-env" / "events.jsonl").exists()


def test_torn_tail_is_reported_on_stderr(files, capsys):
    tmp, qrels, _ = files
    led = ["--ledger", tmp / "led"]
    _run(capsys, *led, "register", "golden", "--judgments", qrels)
    with open(tmp / "led" / "events.jsonl", "ab") as f:
        f.write(b'{"seq": 2, "ts"')
    code, _, err = _run(capsys, *led, "show")
    assert code == 0 and "warning:" in err and "1 partial record at line 2" in err


def test_register_queries_file_lines_end_at_newline_only(tmp_path, capsys):
    """U+2028 inside a query id used to split it in two (str.splitlines)."""
    from ragnb.ledger import Ledger

    qrels = tmp_path / "g.qrels"
    qrels.write_text("q1 0 p1 2\nq\u20282 0 p9 1\n", encoding="utf-8")
    queries = tmp_path / "queries.txt"
    queries.write_bytes("\ufeffq1\r\n\n  q\u20282 \nq\x0c3\n".encode())
    code, _, err = _run(capsys, "--ledger", tmp_path / "led", "register", "golden",
                        "--judgments", qrels, "--queries", queries)
    assert code == 0, err
    assert Ledger(tmp_path / "led").manifest("golden").n_queries == 3  # q1, q<U+2028>2, q<FF>3
    queries.write_bytes(b"q1\n\xff\n")
    code, _, err = _run(capsys, "--ledger", tmp_path / "led2", "register", "golden",
                        "--judgments", qrels, "--queries", queries)
    assert code == 2 and "queries.txt:2: not valid UTF-8" in err and err.count("\n") == 1
