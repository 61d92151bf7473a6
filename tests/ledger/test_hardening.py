"""Issue 27, items 6, 10 and 13: a read-only ledger, impossible numbers in a record, and
the seal following a split's queries (not only its content hash)."""
from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ragnb.cli import main
from ragnb.errors import InputError, PolicyError
from ragnb.ledger import Ledger
from ragnb.ledger import log as log_module

from .conftest import StepClock


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def selected(root: Path, qrels, n: int = 2) -> Ledger:
    led = Ledger(root, clock=StepClock())
    led.register("golden", qrels, budget=40)
    for i in range(n):
        led.record_selection("golden", [f"r{i}", f"r{i + 1}"], winner=f"r{i + 1}")
    return led


# -- 6: a read-only ledger ------------------------------------------------------------------------
def _one_line_refusal(root: Path) -> str:
    code, out, err = cli("ledger", "--ledger", root, "select", "golden", "--candidates", "a",
                         "b", "--winner", "b")
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "cannot write to the ledger" in err
    return err


def test_27_6_a_read_only_file_system_is_a_one_line_error(tmp_path, qrels, monkeypatch):
    led = selected(tmp_path / "led", qrels)
    before = led.log.path.read_bytes()

    class ReadOnlyLock:  # what filelock raises on a read-only mount: OSError, not Permission
        def __init__(self, path, **_):
            self.lock_file, self.timeout = path, 60

        def __enter__(self):
            raise OSError(errno.EROFS, "Read-only file system", self.lock_file)

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(log_module, "FileLock", ReadOnlyLock)
    assert "Read-only file system" in _one_line_refusal(led.root)
    assert led.log.path.read_bytes() == before
    assert Ledger(led.root).manifest("golden").selections_against == 2  # reading still works


def test_27_6_a_real_read_only_mount(tmp_path, qrels):
    src, mnt = tmp_path / "src", tmp_path / "mnt"
    selected(src / "led", qrels)
    mnt.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount") or subprocess.run(
            ["mount", "--bind", str(src), str(mnt)], capture_output=True).returncode:
        pytest.skip("needs root and a bind mount; the EROFS fault injection covers the path")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(mnt)],
                          capture_output=True).returncode:
            pytest.skip("cannot remount read-only here")
        err = _one_line_refusal(mnt / "led")
        assert "Read-only file system" in err
        code, out, _ = cli("ledger", "--ledger", mnt / "led", "show")
        assert code == 0 and "selections_against        2" in out
        code, out, err = cli("ledger", "--ledger", mnt / "led", "export")
        assert (code, out) == (2, "") and "Read-only file system" in err
        assert len(err.strip().splitlines()) == 1
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True, check=False)


# -- 10: NaN and out-of-range numbers in a record -------------------------------------------------
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_27_10_a_non_finite_number_is_a_corrupt_record_with_its_line(tmp_path, qrels, literal):
    led = selected(tmp_path / "led", qrels)
    lines = led.log.path.read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    record["payload"]["scores"] = "PLACEHOLDER"
    lines[1] = json.dumps(record).replace('"PLACEHOLDER"', literal) + "\n"
    led.log.path.write_text("".join(lines))
    where = f"{led.log.path}:2: corrupt ledger record"
    for action in ("verify", "show", "history"):
        code, out, err = cli("ledger", "--ledger", led.root, action)
        assert "Traceback" not in err
        assert where in err, (action, err)
        assert code == (1 if action == "verify" else 2), action
    with pytest.raises(InputError, match=r"events\.jsonl:2: corrupt ledger record: "
                                         r"(.* is not a JSON number|a number is out of range)"):
        Ledger(led.root).history()


# -- 13: the seal follows the queries ------------------------------------------------------------
@pytest.fixture
def sealed_prod(tmp_path):
    """The demo's production test set registered sealed in a fresh ledger."""
    from ragnb.io import read_test_set
    from ragnb.paths import DEMO_DIR

    prod = read_test_set(DEMO_DIR / "production.jsonl")
    led = Ledger(tmp_path / "led")
    led.register("production", prod.judgments.drop(columns="line"), prod.query_ids,
                 role="confirmation")
    return led, DEMO_DIR / "production.jsonl", DEMO_DIR / "runs" / "production" / "round-40.jsonl"


def _rewrite(src: Path, dst: Path, change) -> Path:
    rows = [json.loads(line) for line in src.read_text().splitlines()]
    change(rows)
    dst.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return dst


def test_27_13_a_junk_judgment_or_a_changed_grade_does_not_lift_the_seal(tmp_path, sealed_prod):
    from ragnb.io import read_test_set
    from ragnb.ledger.policy import admit_scoring, find_split, match_split

    led, prod, run = sealed_prod

    def junk(rows):  # one grade-0 judgment of a passage nobody retrieved
        rows[0]["judgments"].append({"passage_id": "junk-0", "grade": 0,
                                     "doc_version": rows[0]["judgments"][0]["doc_version"]})

    def regrade(rows):
        rows[3]["judgments"][0]["grade"] = 1 - min(rows[3]["judgments"][0]["grade"], 1)

    for name, change in (("junk", junk), ("regrade", regrade)):
        copy = _rewrite(prod, tmp_path / f"{name}.jsonl", change)
        ts = read_test_set(copy)
        manifest, how = match_split(led.root, ts)
        assert (manifest.name, how) == ("production", "queries"), name
        with pytest.raises(PolicyError, match="production is sealed"):
            admit_scoring(led.root, find_split(led.root, ts), ["round-40"])
        code, out, err = cli("score", "--judgments", copy, "--run", f"round-40={run}",
                             "--metric", "ndcg@10", "--ledger", led.root)
        assert (code, out) == (2, "") and "production is sealed" in err, name
    assert [e.event for e in led.events()] == ["registered"]


def test_27_13_inside_an_unseal_run_the_copy_is_scored_as_its_split_and_says_so(
        tmp_path, sealed_prod):
    led, prod, run = sealed_prod
    led.unseal("production", ["round-40"])
    copy = _rewrite(prod, tmp_path / "junk.jsonl", lambda rows: rows[0]["judgments"].append(
        {"passage_id": "junk-0", "grade": 0, "doc_version": "v1"}))
    code, out, err = cli("score", "--judgments", copy, "--run", f"round-40={run}",
                         "--metric", "ndcg@10", "--ledger", led.root)
    assert code == 0, err
    assert ("# note: this test set's judgments differ from those registered as production "
            "(2184 here, 2183 there) but its queries are the same") in out + err
    assert [e.event for e in led.events()] == ["registered", "unsealed", "scored"]


def test_27_13_another_query_set_is_a_new_split(tmp_path, sealed_prod):
    """The limit, stated: one query added makes a new split, which the ledger does not know
    until it is registered (then it inherits nothing: its queries are not the sealed ones)."""
    from ragnb.io import read_test_set
    from ragnb.ledger.policy import match_split

    led, prod, _ = sealed_prod
    copy = _rewrite(prod, tmp_path / "plus.jsonl", lambda rows: rows.append(
        dict(rows[0], query_id="extra-1")))
    assert match_split(led.root, read_test_set(copy)) == (None, "")


def test_27_6_export_into_a_read_only_folder_is_a_one_line_error(tmp_path, qrels, monkeypatch):
    from ragnb.ledger import ledger as ledger_module

    led = selected(tmp_path / "led", qrels)

    def read_only(path, *a, **k):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(ledger_module, "write_manifest", read_only)
    code, out, err = cli("ledger", "--ledger", led.root, "export")
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1, err
    assert "cannot write to the ledger (Read-only file system" in err
