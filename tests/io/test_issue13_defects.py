"""One test per numbered defect of issue 13 (readers, CLI, provenance, outputs).

Each test builds the input the defect report describes and asserts the fixed
behaviour; before the fix each of them failed (wrong result, traceback, hang,
or acceptance of bad input). The ledger defects (2, 7, 8, 15, 16) are in
``tests/ledger/test_chain.py``.
"""
from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from ragnb.cli import main
from ragnb.errors import InputError
from ragnb.io import read_run, read_test_set, source
from ragnb.metrics.score import score

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def ndcg(qrels: Path, run: Path, metric: str = "ndcg@10") -> dict:
    table = score(read_test_set(qrels), [read_run(run, order="rank")], [metric]).table
    return dict(zip(table["query_id"], table["value"]))


# -- 1: space+tab separated TREC files ----------------------------------------------------------
def test_1_space_tab_separated_trec_files_match(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 \t0 \td1 \t2\nq2 \t0 \td2 \t1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 \tQ0 \td1 \t1 \t2.0 \tt\nq2 \tQ0 \td2 \t1 \t1.0 \tt\n")
    ts = read_test_set(qrels)
    assert set(ts.judgments["passage_id"]) == {"d1", "d2"}  # no tab kept in the ids
    assert ndcg(qrels, run) == {"q1": 1.0, "q2": 1.0}  # each query's one relevant passage first


# -- 3: a grade >= 1024 made exp gain infinite --------------------------------------------------
def test_3_grade_above_the_maximum_is_an_error_and_100_is_finite(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1024\nq2 0 d2 1\n")
    with pytest.raises(InputError, match=r"q\.qrels:1: grade 1024 is above the maximum grade 100"):
        read_test_set(qrels)
    qrels.write_text("q1 0 d1 100\nq1 0 d2 1\nq2 0 d2 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\nq2 Q0 d2 1 1 t\n")
    values = ndcg(qrels, run)
    # by hand: DCG = (2^1-1)/log2(2) + (2^100-1)/log2(3); IDCG = (2^100-1) + 1/log2(3)
    g = 2.0**100 - 1
    assert values["q1"] == pytest.approx((1 + g / np.log2(3)) / (g + 1 / np.log2(3)))
    assert values["q2"] == 1.0


# -- 4: JSON ids coerced, duplicate keys last-wins ----------------------------------------------
@pytest.mark.parametrize("judgment, message", [
    ('{"passage_id": null, "grade": 1}', "must be a string"),
    ('{"passage_id": true, "grade": 1}', "must be a string"),
    ('{"passage_id": ["d1"], "grade": 1}', "must be a string"),
    ('{"passage_id": {"d": 1}, "grade": 1}', "must be a string"),
    ('{"passage_id": "d1", "grade": 1, "grade": 2}', "'grade' appears twice"),
])
def test_4_json_ids_must_be_strings_and_keys_unique(tmp_path, judgment, message):
    p = tmp_path / "t.jsonl"
    p.write_text('{"query_id": "q1", "judgments": [' + judgment + "]}\n")
    with pytest.raises(InputError, match=message) as info:
        read_test_set(p)
    assert info.value.line == 1 and info.value.source == str(p)


def test_4_repeated_judgments_key_is_an_error_not_last_wins(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"query_id": "q1", "judgments": [{"passage_id": "d1", "grade": 1}], '
                 '"judgments": [{"passage_id": "d2", "grade": 1}]}\n')
    with pytest.raises(InputError, match="'judgments' appears twice"):
        read_test_set(p)


def test_4_integer_ids_are_read_as_their_decimal_text(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"query_id": 7, "judgments": [{"passage_id": 42, "grade": 1}]}\n')
    j = read_test_set(p).judgments
    assert (j["query_id"].iloc[0], j["passage_id"].iloc[0]) == ("7", "42")


# -- 5: gzip faults gave tracebacks ---------------------------------------------------------------
@pytest.mark.parametrize("damage, message", [
    (lambda z: z[:-5], "ends early"),
    (lambda z: z[:12] + bytes([z[12] ^ 0xFF]) + z[13:], "not a valid gzip file"),
    (lambda z: z + b"garbage", "not a valid gzip file"),
    (lambda z: b"\x1f\x8b", "ends early"),
])
def test_5_gzip_faults_are_one_line_errors(tmp_path, damage, message):
    z = gzip.compress(b"q1 0 d1 1\nq1 0 d2 0\n" * 50, mtime=0)
    p = tmp_path / "q.qrels.gz"
    p.write_bytes(damage(z))
    with pytest.raises(InputError, match=message) as info:
        read_test_set(p)
    assert "\n" not in str(info.value) and str(info.value).startswith(str(p))


def test_5_zero_padded_gzip_reads(tmp_path):
    p = tmp_path / "q.qrels.gz"
    p.write_bytes(gzip.compress(b"q1 0 d1 1\n", mtime=0) + b"\x00" * 1000)
    assert read_test_set(p).judgments["grade"].tolist() == [1]


# -- 6: FIFO hang, /dev/zero, process substitution, stdin ---------------------------------------
def test_6_fifo_without_a_writer_is_an_error_not_a_hang(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "FIFO_TIMEOUT", 0.3)
    fifo = tmp_path / "q.qrels"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    with pytest.raises(InputError, match="no process wrote to this FIFO"):
        read_test_set(fifo)
    assert time.monotonic() - t0 < 5


def test_6_fifo_with_a_writer_is_read_once(tmp_path):
    fifo = tmp_path / "q.qrels"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "wb") as fh:
            fh.write(b"q1 0 d1 2\n")

    threading.Thread(target=write, daemon=True).start()
    assert read_test_set(fifo).judgments["grade"].tolist() == [2]


def test_6_endless_device_stops_at_the_stream_cap(monkeypatch):
    monkeypatch.setattr(source, "MAX_STREAM_BYTES", 1 << 20)
    with pytest.raises(InputError, match="larger than the 1,048,576-byte limit"):
        read_test_set("/dev/zero")


def test_6_process_substitution_and_stdin_are_read_once(tmp_path):
    qrels = tmp_path / "q.qrels.gz"
    qrels.write_bytes(gzip.compress(b"q1 0 d1 1\n", mtime=0))
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    ragnb = [sys.executable, "-c", "import sys; from ragnb.cli import main; sys.exit(main())"]
    cmd = " ".join(f"'{a}'" for a in ragnb)
    out = subprocess.run(
        ["bash", "-c", (f"{cmd} score --judgments <(zcat {qrels}) --run {run} --metric ndcg@10"
                        " --format csv")],
        capture_output=True, text=True, env=env, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].startswith("r,ndcg@10(gain=linear),1.0,")
    out = subprocess.run([*ragnb, "score", "--judgments", "-", "--run", str(run), "--metric",
                          "ndcg@10", "--format", "csv"], input=b"q1 0 d1 1\n",
                         capture_output=True, env=env, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().splitlines()[1].startswith("r,ndcg@10(gain=linear),1.0,")


# -- 9: no bound on resamples or cut-offs --------------------------------------------------------
def test_9_resamples_and_cutoffs_are_capped(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    code, _, err = cli("compare", "--judgments", str(qrels), "--run", f"a={run}", "--run",
                       f"b={run}", "--metric", "ndcg@10", "--resamples", "1000000000")
    assert code == 2 and "outside [1, 100,000]" in err
    for k in ("1000000000000", "1_0", "\u0661"):
        code, _, err = cli("score", "--judgments", str(qrels), "--run", str(run),
                           "--metric", f"ndcg@{k}")
        assert code == 2
        assert "cut-off" in one_line_error(err)


# -- 10: provenance hashed free-text parameters ----------------------------------------------------
def test_10_provenance_hashes_only_declared_paths(tmp_path):
    from ragnb.report.provenance import ParameterValue, data_facts

    params = [ParameterValue("holdout_salt", "str", "/usr/share/doc", "given"),
              ParameterValue("data_dir", "str", "/proc/self", "given")]
    facts = data_facts(params, tmp_path)
    assert [f.parameter for f in facts] == ["data_dir"]  # the salt is text, not hashed
    assert facts[0].kind in ("missing", "dir")  # /proc/self: no crash either way


# -- 11: --out faults and file modes ---------------------------------------------------------------
def test_11_out_must_be_a_writable_folder_and_not_the_notebooks(tmp_path):
    from ragnb.report.runner import check_out_dir, plan

    jobs = plan(["01"], {})
    a_file = tmp_path / "page.html"
    a_file.write_text("x")
    with pytest.raises(InputError, match="is a file"):
        check_out_dir(a_file, jobs)
    with pytest.raises(InputError, match="is the notebooks folder"):
        check_out_dir(jobs[0].notebook.path.parent, jobs)
    assert check_out_dir(tmp_path / "new", jobs).is_dir()


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_11_atomic_writes_follow_the_umask(tmp_path, umask, mode):
    from ragnb._atomic import write_atomic

    old = os.umask(umask)
    try:
        path = write_atomic(tmp_path / "page.html", "<p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664)])
def test_11_written_test_sets_and_runs_follow_the_umask(tmp_path, umask, mode):
    from ragnb.io import writers

    old = os.umask(umask)
    try:
        path = writers._write(tmp_path / "t.qrels", b"q1 0 d1 1\n", gz=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode


# -- 12: numbers read unlike trec_eval ------------------------------------------------------------
@pytest.mark.parametrize("grade", ["1_0", "0x1", "\u0661", "\uff11", "+1", "1.0",
                                   str(2**63), "9" * 30])
def test_12_grades_are_strict_ascii_integers(tmp_path, grade):
    p = tmp_path / "q.qrels"
    p.write_text(f"q1 0 d1 1\nq1 0 d2 {grade}\n")
    with pytest.raises(InputError) as info:
        read_test_set(p)
    assert info.value.line == 2
    p = tmp_path / "q.csv"
    p.write_text(f"query_id,passage_id,grade\nq1,d1,1\nq1,d2,{grade}\n")
    with pytest.raises(InputError) as info:
        read_test_set(p)
    assert info.value.line == 3


@pytest.mark.parametrize("rank", ["1_0", "0x1", "\u0661", "1.5"])
def test_12_ranks_are_strict_ascii_integers(tmp_path, rank):
    p = tmp_path / "r.run"
    p.write_text(f"q1 Q0 d1 {rank} 1.0 t\n")
    with pytest.raises(InputError, match="not an integer"):
        read_run(p)


# -- 13: valid input refused -----------------------------------------------------------------------
def test_13_u2028_in_a_json_string_and_a_bom_are_accepted(tmp_path):
    p = tmp_path / "t.jsonl"
    text = json.dumps({"query_id": "q1", "query": "a\u2028b", "judgments": [
        {"passage_id": "d\u20281", "grade": 1}]}, ensure_ascii=False)
    p.write_bytes(b"\xef\xbb\xbf" + text.encode() + b"\n")
    ts = read_test_set(p)
    assert ts.judgments["passage_id"].tolist() == ["d\u20281"]
    assert ts.judgments["query_id"].tolist() == ["q1"]
    q = tmp_path / "q.qrels"
    q.write_bytes(b"\xef\xbb\xbfq1 0 d1 1\n")
    assert read_test_set(q).judgments["query_id"].tolist() == ["q1"]


# -- 14: misattributed errors ----------------------------------------------------------------------
def test_14_errors_name_the_right_file_and_argument(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 t\n")
    code, _, err = cli("score", "--judgments", str(qrels), "--run", str(run), "--metric", "p@1")
    assert code == 2 and one_line_error(err).startswith(f"ragnb score: {qrels}:2:")
    odd = tmp_path / "a=b.run"
    odd.write_text("q1 Q0 d1 1 1.0 t\n")
    qrels.write_text("q1 0 d1 1\n")
    code, out, err = cli("score", "--judgments", str(qrels), "--run", str(odd), "--metric", "p@1",
                         "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[1].startswith("a=b,")  # the file, named by its file name
    code, _, err = cli("score", "--judgments", str(qrels), "--run", "=", "--metric", "p@1")
    assert code == 2 and "expected NAME=FILE" in one_line_error(err)


# -- 15: terminal escapes in ids are escaped in CLI output ---------------------------------------
def test_15_control_characters_in_ids_are_escaped_on_the_terminal(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q\x1b[2J1 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("q\x1b[2J1 Q0 d1 1 1.0 t\n")
    code, out, err = cli("score", "--judgments", str(qrels), "--run", str(run), "--metric",
                         "p@1", "--per-query")
    assert code == 0, err
    assert "\x1b" not in out and "q\\x1b[2J1" in out
