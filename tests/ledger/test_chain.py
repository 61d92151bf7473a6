"""The hash-chained ledger: truncation and rewrites against recorded heads, failed
appends, idempotent selections, shared and read-only ledgers (issue 13 defects
2, 7, 8, 15, 16)."""
from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import tempfile
import warnings
from pathlib import Path

import pytest

from ragnb.cli import main
from ragnb.errors import InputError
from ragnb.ledger import Ledger
from ragnb.ledger import ledger as ledger_module
from ragnb.ledger import log as log_module
from ragnb.ledger.ledger import LedgerIntegrityError
from ragnb.ledger.log import GENESIS, Head

from .conftest import StepClock

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def selected(tmp_path, qrels, n=10) -> Ledger:
    led = Ledger(tmp_path / "led", clock=StepClock())
    led.register("golden", qrels, budget=40)
    for i in range(n):
        led.record_selection("golden", [f"r{i}", f"r{i + 1}"], winner=f"r{i + 1}")
    return led


def rechain(records: list[dict]) -> list[dict]:
    """Re-number and re-hash records as a forger would (the chain stays consistent)."""
    prev = GENESIS
    for seq, rec in enumerate(records, start=1):
        rec["seq"], rec["prev"] = seq, prev
        body = {k: rec[k] for k in ("seq", "ts", "split", "event", "actor", "payload", "prev")}
        rec["sha256"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"),
                                                  ensure_ascii=False).encode()).hexdigest()
        prev = rec["sha256"]
    return records


def write_records(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


# -- 2: truncation and consistent rewrites ---------------------------------------------------------
def test_2_records_are_chained_and_the_head_commits_to_the_history(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=3)
    records = [json.loads(line) for line in led.log.path.read_text().splitlines()]
    assert records[0]["prev"] == GENESIS
    assert [r["prev"] for r in records[1:]] == [r["sha256"] for r in records[:-1]]
    assert led.head() == Head(4, records[-1]["sha256"])
    manifest = json.loads((led.manifest_dir / "golden.json").read_text())
    assert manifest["ledger_head"] == f"4:{records[-1]['sha256']}"


def test_2_cut_off_tail_is_detected_against_a_recorded_head(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=39)
    head = led.head()
    assert led.manifest("golden").selections_against == 39
    lines = led.log.path.read_text().splitlines(keepends=True)
    led.log.path.write_text("".join(lines[:10]))  # `head -10 events.jsonl`
    with pytest.raises(LedgerIntegrityError, match="golden.json: recorded head is record 40, "
                                                   "but the log has only 10: it was cut short"):
        led.manifest("golden")  # every reader checks the log against the recorded heads
    result = led.verify([head])
    assert not result.ok
    assert any("--head: recorded head is record 40, but the log has only 10" in p
               for p in result.problems)
    assert any("golden.json" in p and "cut short" in p for p in result.problems)  # manifest's head
    code, _, err = cli("ledger", "--ledger", str(led.root), "verify", "--head", str(head))
    assert code == 1 and "cut short" in err


def test_2_consistent_rewrite_is_detected_against_a_recorded_head(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=5)
    head = led.head()
    records = [json.loads(line) for line in led.log.path.read_text().splitlines()]
    records[2]["payload"]["winner"] = "r0"  # an edit, then every later hash recomputed
    records[2]["payload"]["candidates"] = ["r1", "r0"]
    write_records(led.log.path, rechain(records))
    with pytest.raises(LedgerIntegrityError, match="record 6 has hash .*: the log was rewritten"):
        led.manifest("golden")  # a sound chain, but not the one golden.json recorded
    result = Ledger(led.root).verify([head])
    assert any("record 6 has hash" in p and "rewritten" in p for p in result.problems)
    # a bare hash recorded somewhere is found nowhere in the rewritten log
    result = Ledger(led.root).verify([head.sha256])
    assert any("is not in the log" in p for p in result.problems)


def test_2_unedited_log_verifies(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=3)
    result = led.verify([led.head(), Head(2, led.events()[1].sha256)])
    assert result.ok and result.n_records == 4 and result.unchained == 0
    code, out, _ = cli("ledger", "--ledger", str(led.root), "show")
    assert code == 0 and f"ledger head {led.head()}" in out


def test_the_pre_chain_demo_ledger_still_reads(tmp_path):
    # the demo ledger as written before records were chained (commit 704fcaa)
    old = subprocess.run(["git", "show", "704fcaa:data/demo/ledger/events.jsonl"], cwd=ROOT,
                         capture_output=True, check=False)
    if old.returncode or b'"prev"' in old.stdout:
        pytest.skip("no pre-chain ledger in git to compare with")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "events.jsonl").write_bytes(old.stdout)
    led = Ledger(tmp_path / "old")
    assert led.manifest("golden").selections_against == 40
    result = led.verify()
    assert result.ok and result.unchained == result.n_records > 0


# -- 7: failed appends and idempotent selections ---------------------------------------------------
def test_7_enospc_during_append_leaves_the_log_unchanged_and_a_retry_counts_once(
        tmp_path, qrels, monkeypatch):
    led = selected(tmp_path, qrels, n=2)
    before = led.log.path.read_bytes()
    real = log_module._write_all

    def half_then_full(fd, data):
        real(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(log_module, "_write_all", half_then_full)
    with pytest.raises(InputError, match="No space left on device.*retrying is safe"):
        led.record_selection("golden", ["a", "b"], winner="b", key="round-3")
    assert led.log.path.read_bytes() == before  # no torn tail left behind
    monkeypatch.setattr(log_module, "_write_all", real)
    assert led.record_selection("golden", ["a", "b"], winner="b",
                                key="round-3").selections_against == 3
    assert led.record_selection("golden", ["a", "b"], winner="b",
                                key="round-3").selections_against == 3  # the retry: no-op
    assert led.torn() == ()


def test_7_manifest_write_failure_is_a_warning_and_the_event_counts_once(
        tmp_path, qrels, monkeypatch):
    led = selected(tmp_path, qrels, n=2)

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ledger_module, "write_manifest", full)
    with pytest.warns(ledger_module.ManifestExportWarning, match="the event is recorded"):
        m = led.record_selection("golden", ["a", "b"], winner="b", key="k1")
    assert m.selections_against == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the retry records nothing, so exports nothing
        again = led.record_selection("golden", ["a", "b"], winner="b", key="k1")
    assert again.selections_against == 3
    code, out, _ = cli("ledger", "--ledger", str(led.root), "select", "golden",
                         "--candidates", "a", "b", "--winner", "b", "--key", "k1")
    assert code == 0 and "already recorded" in out


def _tmpfs(path: Path, size: str) -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    path.mkdir()
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                         capture_output=True, check=False)
    return out.returncode == 0


def test_7_real_full_disk_on_a_small_tmpfs(tmp_path, qrels):
    disk = tmp_path / "disk"
    if not _tmpfs(disk, "256k"):
        pytest.skip("needs root and a mountable tmpfs; fault injection covers the same paths")
    try:
        led = selected(disk, qrels, n=2)
        before = led.log.path.read_bytes()
        filler = disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):  # fill the disk to the last byte
            for size in (4096, 512, 1):
                while True:
                    os.write(fd, b"\0" * size)
        os.close(fd)
        with pytest.raises(InputError, match="No space left on device"):
            led.record_selection("golden", ["a" * 5000, "b"], winner="b", key="k")
        assert led.log.path.read_bytes() == before
        filler.unlink()
        assert led.record_selection("golden", ["a" * 5000, "b"], winner="b",
                                    key="k").selections_against == 3
        assert led.record_selection("golden", ["a" * 5000, "b"], winner="b",
                                    key="k").selections_against == 3
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, check=False)


# -- 8: a second user, a read-only ledger, the lock file's mode ------------------------------------
def test_8_lock_and_log_follow_the_umask(tmp_path, qrels):
    old = os.umask(0o002)
    try:
        led = selected(tmp_path, qrels, n=1)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(str(led.log.path) + ".lock").st_mode) == 0o664
    assert stat.S_IMODE(led.log.path.stat().st_mode) == 0o664
    assert stat.S_IMODE((led.manifest_dir / "golden.json").stat().st_mode) == 0o664


def test_8_reads_take_no_lock(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=1)
    lock = Path(str(led.log.path) + ".lock")
    lock.unlink()
    assert Ledger(led.root).manifest("golden").selections_against == 1
    assert not lock.exists()


def closed_to_others(paths) -> Path | None:
    """The first folder on the way to ``paths`` that a user who is neither owner nor in
    the group cannot enter (no ``o+x``), or whose listing it cannot read (no ``o+r`` on
    the paths themselves, which imports list), else None.
    """
    for path in map(Path, paths):
        path = path.resolve()
        if path.is_dir() and stat.S_IMODE(path.stat().st_mode) & 0o005 != 0o005:
            return path
        for folder in path.parents:
            if not stat.S_IMODE(folder.stat().st_mode) & 0o001:
                return folder
    return None


def test_12_closed_to_others_names_the_folder_a_second_user_cannot_enter():
    top = Path(tempfile.mkdtemp(prefix="ragnb-clone-"))  # /tmp: pytest's own folders are 0700
    try:
        os.chmod(top, 0o755)
        private = top / "private"
        (private / "clone" / "ragnb").mkdir(parents=True, mode=0o755)
        os.chmod(private, 0o700)  # `mktemp -d` makes its folder so
        assert closed_to_others([private / "clone" / "ragnb"]) == private
        os.chmod(private, 0o755)
        os.chmod(private / "clone" / "ragnb", 0o751)  # enterable, not listable
        assert closed_to_others([private / "clone" / "ragnb"]) == private / "clone" / "ragnb"
        os.chmod(private / "clone" / "ragnb", 0o755)
        assert closed_to_others([private / "clone" / "ragnb"]) is None
    finally:
        shutil.rmtree(top)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to a second user needs root")
def test_8_second_user_reads_a_shared_read_only_ledger(qrels):
    import pandas

    import ragnb

    # the forked child (user nobody) imports lazily from the checkout and the virtualenv:
    # when the clone sits in a folder others cannot enter, the child cannot (issue 27, 12)
    closed = closed_to_others([Path(ragnb.__file__).parent, Path(pandas.__file__).parent])
    if closed is not None:
        pytest.skip(f"a second user cannot enter {closed} (mode "
                    f"{stat.S_IMODE(closed.stat().st_mode):o}), which holds the package or "
                    "its dependencies")
    shared = Path(tempfile.mkdtemp(prefix="ragnb-shared-"))
    try:
        os.chmod(shared, 0o755)
        led = selected(shared, qrels, n=3)
        for p in [led.root, led.manifest_dir, *led.root.rglob("*")]:
            os.chmod(p, 0o755 if p.is_dir() else 0o644)  # readable, writable by root only
        cli("ledger", "--ledger", str(led.root), "show")  # import everything before forking
        cli("ledger", "--ledger", str(led.root), "verify")
        with contextlib.suppress(InputError):
            Ledger(led.root).record_selection("nope", ["a", "b"], winner="b")

        def as_nobody(*argv) -> tuple[int, str]:
            """Run the CLI in a forked child that is user and group 65534 (nobody)."""
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                code = 99
                try:
                    os.close(r)
                    os.setgroups([])
                    os.setgid(65534)
                    os.setuid(65534)
                    code, out, err = cli("ledger", "--ledger", str(led.root), *argv)
                    os.write(w, (out + err).encode())
                finally:
                    os._exit(code)
            os.close(w)
            with os.fdopen(r) as fh:
                text = fh.read()
            _, status = os.waitpid(pid, 0)
            return os.waitstatus_to_exitcode(status), text

        code, text = as_nobody("show")
        assert code == 0, text
        assert "selections_against        3" in text
        code, text = as_nobody("verify")
        assert code == 0, text
        code, text = as_nobody("select", "golden", "--candidates", "a", "b", "--winner", "b")
        assert code == 2
        assert len(text.strip().splitlines()) == 1 and "Traceback" not in text, text
        assert "cannot write to the ledger" in text
        assert Ledger(led.root).manifest("golden").selections_against == 3
    finally:
        shutil.rmtree(shared)


# -- 15: terminal escapes in ledger text -----------------------------------------------------------
def test_15_actor_and_reason_escapes_are_not_printed_raw(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=1)
    led.demote("golden", "done\x1b]0;owned\x07", actor="ev\x1b[2Jil")
    code, out, _ = cli("ledger", "--ledger", str(led.root), "history")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "ev\\x1b[2Jil" in out and "done\\x1b]0;owned\\x07" in out


# -- 16: a forged event whose split differs from its split id --------------------------------------
def test_16_forged_split_id_is_reported_at_its_line_when_reading(tmp_path, qrels):
    led = selected(tmp_path, qrels, n=1)
    records = [json.loads(line) for line in led.log.path.read_text().splitlines()]
    forged = json.loads(json.dumps(records[0]))
    forged["split"] = "other"  # registered as 'other' but carrying golden's split id
    write_records(led.log.path, rechain(records + [forged]))
    with pytest.raises(InputError, match=r"events\.jsonl:3: .*carries the split id of 'golden'"):
        Ledger(led.root).manifest("golden")


def test_2_report_provenance_records_the_ledger_head(tmp_path, qrels):
    from datetime import UTC, datetime

    from ragnb.report.provenance import LEDGER_SECTION, ParameterValue, collect

    led = selected(tmp_path, qrels, n=2)
    params = [ParameterValue("ledger_dir", "str", "led", "given"),
              ParameterValue("holdout_salt", "str", str(led.root), "given")]
    prov = collect("05-ledger", params, tmp_path, datetime.now(UTC), 1.0)
    assert prov.contributed[LEDGER_SECTION] == [
        {"parameter": "ledger_dir", "ledger": "led", "head": str(led.head())}]
    assert [f.parameter for f in prov.data] == ["ledger_dir"]  # the salt is not a path
    assert led.verify([Head.parse(prov.contributed[LEDGER_SECTION][0]["head"])]).ok
