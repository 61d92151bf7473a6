"""The append-only log under concurrent writers, killed writers and hand edits.

Writers here are real OS processes (``subprocess``), not threads.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ragnb.errors import InputError
from ragnb.ledger import Ledger, TornRecordWarning

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


WORKER = """
    import sys, time
    from pathlib import Path
    from ragnb.ledger import Ledger
    root, worker, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    led = Ledger(root)
    while not go.exists():          # start all writers together
        time.sleep(0.005)
    for i in range(50):
        led.record_selection("golden", ["champion", f"w{worker}-{i}"], winner=f"w{worker}-{i}")
"""


@pytest.mark.slow
def test_eight_processes_record_400_selections_and_lose_none(tmp_path, qrels):
    root = tmp_path / "ledger"
    Ledger(root).register("golden", qrels)
    go = tmp_path / "go"
    procs = [_python(WORKER, str(root), str(w), str(go)) for w in range(8)]
    time.sleep(0.5)
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    led = Ledger(root)
    assert led.manifest("golden").selections_against == 400
    events = led.events("golden")
    winners = [e.payload["winner"] for e in events if e.event == "selection"]
    assert sorted(winners) == sorted(f"w{w}-{i}" for w in range(8) for i in range(50))
    assert [e.seq for e in led.events()] == list(range(1, 402))
    # the running count in each record is the count at that point: 1..400, no repeats
    assert [e.payload["selections_against"] for e in events[1:]] == list(range(1, 401))
    lines = (root / "events.jsonl").read_bytes().split(b"\n")
    assert len(lines) == 402 and lines[-1] == b""


KILLED_WRITER = """
    import os, signal, sys
    import ragnb.ledger.log as log
    from ragnb.ledger import Ledger
    real = log._write_all
    def half_then_die(fd, data):
        real(fd, data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)   # dies holding the lock, mid-record
    log._write_all = half_then_die
    Ledger(sys.argv[1]).record_selection("golden", ["a", "b"], winner="b")
"""


def test_writer_killed_mid_append_leaves_a_readable_ledger(tmp_path, qrels):
    root = tmp_path / "ledger"
    led = Ledger(root)
    led.register("golden", qrels)
    for i in range(3):
        led.record_selection("golden", [f"c{i}", f"c{i + 1}"], winner=f"c{i + 1}")
    log = root / "events.jsonl"
    complete = log.read_bytes()

    p = _python(KILLED_WRITER, str(root))
    p.communicate(timeout=120)
    assert p.returncode == -signal.SIGKILL
    data = log.read_bytes()
    assert data.startswith(complete) and len(data) > len(complete)  # a partial record is there
    partial = data[len(complete):]
    assert b"\n" not in partial

    # Readable: every completed event is there, the partial one is reported with its position.
    with pytest.warns(TornRecordWarning, match=r"1 partial record at line 5 \(byte "
                      + str(len(complete))):
        events = led.events()
    assert [e.event for e in events] == ["registered"] + ["selection"] * 3
    with pytest.warns(TornRecordWarning):
        torn = led.torn()
    assert len(torn) == 1
    assert (torn[0].line, torn[0].offset, torn[0].length) == (5, len(complete), len(partial))
    with pytest.warns(TornRecordWarning):
        assert led.manifest("golden").selections_against == 3

    # Appending continues; the partial record is quarantined and its removal recorded.
    m = led.record_selection("golden", ["c3", "c4"], winner="c4")
    assert m.selections_against == 4
    assert led.torn() == ()
    events = led.events()
    assert [e.event for e in events[4:]] == ["torn_tail_quarantined", "selection"]
    q = events[4].payload
    assert (q["line"], q["offset"], q["length"]) == (5, len(complete), len(partial))
    sidecar = (root / "events.jsonl.torn").read_bytes()
    assert partial in sidecar
    assert log.read_bytes().startswith(complete)


def test_torn_tail_without_newline_from_any_cause_is_reported(tmp_path, qrels):
    led = Ledger(tmp_path / "ledger")
    led.register("golden", qrels)
    with open(tmp_path / "ledger" / "events.jsonl", "ab") as f:
        f.write(b'{"seq": 2, "ts": "2026-')
    with pytest.warns(TornRecordWarning, match="line 2"):
        assert len(led.events()) == 1


def _rewrite_line(path: Path, index: int, edit) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[index] = edit(lines[index])
    path.write_text("".join(lines))


def test_edited_record_is_reported_with_file_and_line(tmp_path, qrels):
    led = Ledger(tmp_path / "ledger")
    led.register("golden", qrels)
    led.record_selection("golden", ["a", "b"], winner="b")
    led.record_selection("golden", ["b", "c"], winner="c")
    log = tmp_path / "ledger" / "events.jsonl"
    _rewrite_line(log, 1, lambda s: s.replace('"winner": "b"', '"winner": "a"'))
    with pytest.raises(InputError, match=r"events.jsonl:2: corrupt ledger record: checksum"):
        led.manifest("golden")
    with pytest.raises(InputError, match="checksum"):  # and nothing can be appended on top
        led.record_selection("golden", ["c", "d"], winner="d")


def test_deleted_record_is_reported(tmp_path, qrels):
    led = Ledger(tmp_path / "ledger")
    led.register("golden", qrels)
    for w in "bcd":
        led.record_selection("golden", ["a", w], winner=w)
    log = tmp_path / "ledger" / "events.jsonl"
    _rewrite_line(log, 2, lambda s: "")
    with pytest.raises(InputError, match=r"events.jsonl:3: .*seq is 4, expected 3"):
        led.events()


def test_garbage_line_in_the_middle_is_corruption_not_a_torn_tail(tmp_path, qrels):
    led = Ledger(tmp_path / "ledger")
    led.register("golden", qrels)
    led.record_selection("golden", ["a", "b"], winner="b")
    _rewrite_line(tmp_path / "ledger" / "events.jsonl", 0, lambda s: s[:30] + "\n")
    with pytest.raises(InputError, match=r"events.jsonl:1: corrupt ledger record: not valid JSON"):
        led.events()


def test_records_are_one_json_object_per_line_with_a_checksum(tmp_path, qrels):
    import hashlib

    led = Ledger(tmp_path / "ledger")
    led.register("golden", qrels, actor="ana")
    rec = json.loads((tmp_path / "ledger" / "events.jsonl").read_text().splitlines()[0])
    body = {k: v for k, v in rec.items() if k != "sha256"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert rec["sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert (rec["seq"], rec["event"], rec["split"], rec["actor"]) == (1, "registered", "golden",
                                                                      "ana")


def test_reading_an_absent_ledger_creates_nothing(tmp_path):
    from ragnb.ledger import Ledger

    led = Ledger(tmp_path / "nothing-here")
    assert led.splits() == [] and led.history().empty
    assert not (tmp_path / "nothing-here").exists()


def test_checksummed_but_impossible_event_is_reported_with_its_line(tmp_path):
    from ragnb.ledger.log import EventLog

    log = EventLog(tmp_path / "l" / "events.jsonl")
    with log.transaction() as tx:  # a well-formed record about a split never registered
        tx.append("ghost", "selection", None, {"winner": "a"})
    with pytest.raises(InputError, match=r"events.jsonl:1: .*'ghost', which is not registered"):
        Ledger(tmp_path / "l").splits()
