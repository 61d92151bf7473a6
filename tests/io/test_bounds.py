"""Memory bounds on input (issue 27, items 4 and 11): gzip bombs, endless devices,
lone surrogate escapes, and errors that quote a bounded part of what they name.
"""
from __future__ import annotations

import gzip
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from ragnb.errors import MAX_PROBLEM_CHARS, InputError
from ragnb.io import read_run, read_test_set, source

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "demo"
#: The stated bound: no input below makes a command hold more than this (peak RSS).
PEAK_BOUND = 2 << 30
#: Address-space limit of the children, so a failure cannot take the machine.
AS_LIMIT = 3 << 30


def _bomb(path: Path) -> Path:
    """A gzip bomb of run lines: 0.6 MB that decompresses to 255 MB (ratio ~420), as
    15 gzip members (one compression, repeated).
    """
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 1.0 t\n" * 1_000_000, 9, mtime=0) * 15)
    return path


def _ragnb(*argv: str, env: dict | None = None) -> tuple[int, str, int]:
    """Run the command in a child under :data:`AS_LIMIT`: (exit code, stderr, peak RSS bytes)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))

    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ragnb.cli import console; sys.exit(console())",
         *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
        preexec_fn=limit)
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err, usage.ru_maxrss * 1024


def test_a_gzip_bomb_run_stops_at_the_ratio_bound_in_score(tmp_path):
    code, err, peak = _ragnb("score", "--judgments", str(DEMO / "golden.jsonl"), "--run",
                             str(_bomb(tmp_path / "bomb.run.gz")), "--metric", "ndcg@10")
    assert code == 2
    assert err.count("\n") == 1 and "decompression bomb" in err and "bomb.run.gz" in err
    assert peak < PEAK_BOUND


def test_the_ratio_bound_is_overridable_and_the_size_bound_then_holds(tmp_path, monkeypatch):
    lines = b"".join(b"q%d Q0 d 1 1.0 t\n" % i for i in range(100_000))
    bomb = tmp_path / "bomb.run.gz"
    bomb.write_bytes(gzip.compress(lines, 9, mtime=0))  # 2 MB, ratio ~5
    monkeypatch.setattr(source, "GZIP_RATIO_FLOOR", 1 << 10)
    monkeypatch.setattr(source, "MAX_GZIP_RATIO", 2)
    with pytest.raises(InputError, match="more than 2 times its"):
        read_run(bomb)
    monkeypatch.setattr(source, "MAX_GZIP_RATIO", 100)
    monkeypatch.setattr(source, "MAX_DECOMPRESSED_BYTES", 1 << 20)
    with pytest.raises(InputError, match="more than 1,048,576 bytes"):
        read_run(bomb)
    monkeypatch.setattr(source, "MAX_DECOMPRESSED_BYTES", 64 << 20)
    assert len(read_run(bomb).table) == 100_000  # under both bounds it is read


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_an_endless_device_as_a_run_stops_at_the_first_line_that_cannot_be_valid(
        tmp_path, monkeypatch, device):
    link = tmp_path / "run.trec"
    link.symlink_to(device)
    monkeypatch.setattr(source, "MAX_LINE_BYTES", 8 << 20)
    # Random bytes make a valid first line about once in 250 draws (a "\n" first, say), so
    # /dev/urandom stops within the first few lines rather than always on line 1.
    where, why = (("1", "a line longer than 8,388,608 bytes") if device == "/dev/zero"
                  else ("[1-9]", "not valid UTF-8"))
    for given in (device, str(link)):
        with pytest.raises(InputError, match=f"^{given}:{where}: {why}"):
            read_run(given)


def test_dev_zero_through_a_symlink_in_score_is_one_line_and_bounded(tmp_path):
    link = tmp_path / "run.trec"
    link.symlink_to("/dev/zero")
    code, err, peak = _ragnb("score", "--judgments", str(DEMO / "golden.jsonl"), "--run",
                             str(link), "--metric", "ndcg@10")  # the default line bound
    assert code == 2 and err.count("\n") == 1
    assert f"{link}:1: a line longer than 268,435,456 bytes" in err
    assert peak < PEAK_BOUND


def test_the_default_stream_cap_is_below_a_small_machine():
    assert source.MAX_STREAM_BYTES <= 1 << 30
    assert source.MAX_LINE_BYTES < source.MAX_STREAM_BYTES


def test_a_text_guard_names_the_line_across_chunks():
    guard = source._TextGuard("x.trec")
    guard.feed(b"q")  # fewer than four bytes: undecided
    guard.feed(b"1 Q0 d1 1 1 t\nq2 Q0 d\xc3")  # an encoded character cut at a chunk end
    with pytest.raises(InputError, match=r"x.trec:3: not valid UTF-8 \(invalid start byte"):
        guard.feed(b"\xa9 1 1 t\nq3 Q0 \xff")
    guard = source._TextGuard("x.trec")
    guard.feed(b"q1 Q0 d\xc3")
    with pytest.raises(InputError, match=r"x.trec:1: not valid UTF-8 \(unexpected end"):
        guard.feed(b"", final=True)


def test_parquet_and_gzip_streams_pass_the_text_guard_unchecked():
    for head in (b"PAR1\xff\x00", gzip.compress(b"x")):
        guard = source._TextGuard("x")
        guard.feed(head + b"\xff" * 10, final=True)  # no error


def test_a_lone_surrogate_escape_in_a_json_passage_id_is_one_line(tmp_path):
    run = tmp_path / "r.jsonl"
    run.write_text('{"q1": ["d1", "\\ud800x"]}\n', encoding="ascii")
    with pytest.raises(InputError, match=r"r.jsonl:1: invalid JSON \(the escape \\ud800 is a "
                                         r"lone surrogate"):
        read_run(run)
    # a pair is one character, read as such
    run.write_text('{"q1": ["d1", "\\ud83d\\ude00"]}\n', encoding="ascii")
    assert read_run(run).table["passage_id"].tolist() == ["d1", "\U0001F600"]
    qrels = tmp_path / "t.jsonl"
    qrels.write_text(json.dumps({"query_id": "\\udfff", "judgments": []}).replace("\\\\", "\\"))
    with pytest.raises(InputError, match="lone surrogate"):
        read_test_set(qrels)


def test_an_error_quotes_at_most_its_bound():
    exc = InputError("x" * 8_000_000, source="s" * 10_000, key="k" * 10_000)
    assert len(str(exc)) < MAX_PROBLEM_CHARS + 600
    assert "7,999,500 more characters" in str(exc)


def test_twenty_thousand_duplicate_queries_give_a_short_error(tmp_path):
    path = tmp_path / "dup.jsonl"
    line = '{"query_id": "q", "judgments": [{"passage_id": "d", "grade": 1}]}\n'
    path.write_text(line * 20_000)
    with pytest.raises(InputError) as info:
        read_test_set(path)
    assert str(info.value).endswith("query 'q' appears more than once "
                                    "(lines 1, 2, 3, 4, 5 and 19,995 more)")
