"""Issue 27, item 2: every reader of the ledger checks it. A log cut short, edited,
reordered, rewritten consistently, with an unchained record after chained ones, or with
its manifest exports deleted after a cut is refused by compare, score --ledger, bounds,
pool, the what-if widget and the ledger page's reads (one line, exit 2 on the command
line); `ledger verify` fails on each, `ledger show` prints it under a warning."""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest

from ragnb.cli import main
from ragnb.errors import InputError
from ragnb.ledger import Ledger
from ragnb.ledger.ledger import LedgerIntegrityError
from ragnb.paths import DEMO_DIR

from .test_chain import rechain

CONFIGS = ("round-00", "round-39", "round-40")
#: What each reader says when it refuses: the log does not verify, or a corrupt record.
REFUSED = r"(the ledger does not verify|corrupt ledger record)"


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def demo_workspace(folder: Path) -> Path:
    """The demo's golden split, three of its rounds, and a copy of its ledger."""
    shutil.copy(DEMO_DIR / "golden.jsonl", folder)
    (folder / "runs").mkdir()
    for c in CONFIGS:
        shutil.copy(DEMO_DIR / "runs" / "golden" / f"{c}.jsonl", folder / "runs")
    shutil.copytree(DEMO_DIR / "ledger", folder / "ledger")
    (folder / "ragnb.toml").write_text(
        '[workspace]\nname = "tamper"\nledger = "ledger"\n'
        '[test_sets.golden]\npath = "golden.jsonl"\nrole = "golden"\nruns = "runs/*.jsonl"\n'
        '[report]\nmetric = "ndcg@10"\nbaseline = "round-00"\nchallenger = "round-40"\n'
        '[report.ledger]\ntest_set = "golden"\nrunner_up = "round-39"\nwinner = "round-40"\n')
    return folder


def _records(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _write(log: Path, records: list[dict]) -> None:
    log.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


def cut(led: Path) -> None:
    """`head -10 events.jsonl > e && mv e events.jsonl` (the issue's example)."""
    log = led / "events.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:10]))


def cut_at_a_split_and_its_export_deleted(led: Path) -> None:
    """The log cut back to golden's last record, production's export deleted: as if the
    sealed split had never been registered (every export holds the head of the last write,
    so golden.json's says the log went further)."""
    log = led / "events.jsonl"
    records = _records(log)
    last_golden = max(i for i, r in enumerate(records) if r["split"] == "golden")
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:last_golden + 1]))
    (led / "manifests" / "production.json").unlink()


def cut_and_exports_deleted(led: Path) -> None:
    cut(led)
    shutil.rmtree(led / "manifests")


def edited(led: Path) -> None:
    """One selection's winner changed by hand, nothing re-hashed."""
    records = _records(led / "events.jsonl")
    records[5]["payload"]["winner"] = records[5]["payload"]["candidates"][0]
    _write(led / "events.jsonl", records)


def rewritten(led: Path) -> None:
    """The same edit, then every later hash recomputed (a consistent forgery)."""
    records = _records(led / "events.jsonl")
    records[5]["payload"]["winner"] = records[5]["payload"]["candidates"][0]
    _write(led / "events.jsonl", rechain(records))


def reordered(led: Path) -> None:
    """Two records swapped (the line order of the file)."""
    log = led / "events.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    log.write_text("".join(lines))


def reordered_and_rechained(led: Path) -> None:
    records = _records(led / "events.jsonl")
    records[3], records[4] = records[4], records[3]
    _write(led / "events.jsonl", rechain(records))


def unchained_after_chained(led: Path) -> None:
    """A record in the pre-chain form (no ``prev``, a valid legacy checksum) appended:
    a selection slipped in where the chain would have to be forged."""
    records = _records(led / "events.jsonl")
    legacy = {k: v for k, v in records[-1].items() if k not in ("prev", "sha256")}
    legacy["seq"] = len(records) + 1
    legacy["sha256"] = hashlib.sha256(json.dumps(
        legacy, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    _write(led / "events.jsonl", [*records, legacy])


def nan_value(led: Path) -> None:
    """A NaN written into a record (no JSON writer of the ledger emits one)."""
    log = led / "events.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    record = json.loads(lines[2])
    lines[2] = lines[2].replace(json.dumps(record["actor"]), "NaN", 1)
    assert "NaN" in lines[2]
    log.write_text("".join(lines))


TAMPERS = {f.__name__: f for f in (cut, cut_at_a_split_and_its_export_deleted,
                                   cut_and_exports_deleted, edited, rewritten, reordered,
                                   reordered_and_rechained, unchained_after_chained, nan_value)}


def readers(ws: Path) -> dict:
    """Reader name -> a call that reads the ledger (returns normally when it accepts it)."""
    def command(*argv):
        def run():
            code, out, err = cli(*argv)
            if code == 2:
                assert out == "" and len(err.strip().splitlines()) == 1, err
                raise InputError(err.strip())
            assert code == 0, err
        return run

    def whatif():
        from ragnb.strata import StrataSpec
        from ragnb.widgets.whatif import WhatIf
        from ragnb.workspace import open_workspace

        cmp = open_workspace(ws).comparison("golden", ["round-00", "round-40"])
        WhatIf.from_comparison(cmp, baseline="round-00", challenger="round-40",
                               spec=StrataSpec("intent"), resamples=50, chart=None)

    def ledger_page_reads():
        """What the 05 page reads of the ledger (its manifests and history tables)."""
        led = Ledger(ws / "ledger")
        led.manifests()
        led.history()

    base = ["--workspace", ws, "--split", "golden"]
    return {
        "compare --workspace": command("compare", *base, "--baseline", "round-39",
                                       "--challenger", "round-40", "--metric", "ndcg@10",
                                       "--resamples", 100),
        "score --ledger": command("score", "--judgments", ws / "golden.jsonl", "--run",
                                  f"a={ws / 'runs' / 'round-40.jsonl'}", "--metric", "ndcg@10",
                                  "--ledger", ws / "ledger"),
        "bounds --workspace": command("bounds", *base, "--config", "round-00", "--config",
                                      "round-40", "--metric", "ndcg@10"),
        "pool list --workspace": command("pool", "list", *base, "--config", "round-00",
                                         "--config", "round-40"),
        "what-if widget": whatif,
        "05 page reads (Ledger)": ledger_page_reads,
    }


#: Readers whose refusal each tamper case checks. The issue's four cases (cut, edited,
#: reordered, unchained after chained) go through every surface it names; the others
#: through the ledger's own reads and score, since every reader asks the same
#: ``Ledger`` read (bounds and pool, through score's ``split_manifest``, on the cut).
ISSUE_CASES = ("cut", "edited", "reordered", "unchained_after_chained")
EVERY_CASE = ("compare --workspace", "score --ledger", "what-if widget", "05 page reads (Ledger)")
OTHER_CASES = ("score --ledger", "05 page reads (Ledger)")


def test_the_untouched_demo_ledger_reads(tmp_path):
    ws = demo_workspace(tmp_path)
    read = readers(ws)
    read["score --ledger"]()
    read["pool list --workspace"]()
    read["05 page reads (Ledger)"]()
    with pytest.raises(InputError, match="regression guard"):  # the ledger read, and applied
        read["compare --workspace"]()
    assert cli("ledger", "--ledger", ws / "ledger", "verify")[0] == 0


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_27_2_a_tampered_ledger_is_refused_by_every_reader(tmp_path, tamper):
    ws = demo_workspace(tmp_path)
    TAMPERS[tamper](ws / "ledger")
    read = readers(ws)
    names = EVERY_CASE if tamper in ISSUE_CASES else OTHER_CASES
    for name in names + (("bounds --workspace", "pool list --workspace")
                         if tamper == "cut" else ()):
        with pytest.raises(InputError, match=REFUSED):
            read[name]()
    code, _, err = cli("ledger", "--ledger", ws / "ledger", "verify")
    assert code == 1 and "Traceback" not in err
    code, out, err = cli("ledger", "--ledger", ws / "ledger", "show")
    if tamper in ("cut", "cut_at_a_split_and_its_export_deleted", "cut_and_exports_deleted",
                  "rewritten", "reordered_and_rechained"):
        # a log whose every record parses is shown, under a warning saying why not to trust it
        assert code == 0 and "warning: the ledger does not verify" in err
    else:  # a record that cannot be read: one line naming the file and the line
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "events.jsonl:" in err and "corrupt ledger record" in err


def test_27_2_verify_without_head_fails_when_the_exports_are_deleted_after_a_cut(tmp_path):
    ws = demo_workspace(tmp_path)
    cut_and_exports_deleted(ws / "ledger")
    code, _, err = cli("ledger", "--ledger", ws / "ledger", "verify")
    assert code == 1
    assert "no manifest export for 1 split(s) in the log (golden)" in err
    # the way back for a ledger one trusts: write the exports again from the log
    assert cli("ledger", "--ledger", ws / "ledger", "export")[0] == 0
    assert cli("ledger", "--ledger", ws / "ledger", "verify")[0] == 0


def test_27_2_export_does_not_re_anchor_a_cut_log(tmp_path):
    ws = demo_workspace(tmp_path)
    cut(ws / "ledger")
    code, out, err = cli("ledger", "--ledger", ws / "ledger", "export")
    assert (code, out) == (2, "") and "it was cut short" in err
    with pytest.raises(LedgerIntegrityError, match="nothing was recorded"):
        Ledger(ws / "ledger").record_selection("golden", ["a", "b"], winner="b",
                                               scores={"a": 0.5, "b": 0.9}, se=0.01)


def test_27_2_a_read_costs_one_hash_of_the_log_once_parsed(tmp_path, monkeypatch):
    from ragnb.ledger import log as log_module

    ws = demo_workspace(tmp_path)
    parsed = []
    real = log_module.EventLog._parse_line
    monkeypatch.setattr(log_module.EventLog, "_parse_line",
                        lambda self, *a, **k: parsed.append(1) or real(self, *a, **k))
    led = Ledger(ws / "ledger")
    n = len(led.events())
    assert n == len(parsed) == 47
    led.manifests(), led.history(), led.splits()
    assert len(parsed) == n  # the verified prefix is not parsed again
    led.record_selection("golden", ["round-39", "round-40"], winner="round-40",
                         scores={"round-39": 0.4, "round-40": 0.7}, se=0.01)
    assert len(led.events()) == n + 1 and len(parsed) == n + 1  # only the appended line
    (ws / "ledger" / "events.jsonl").write_bytes(
        (ws / "ledger" / "events.jsonl").read_bytes().replace(b'"round-39"', b'"round-38"', 1))
    with pytest.raises(InputError, match="checksum does not match"):
        led.events()  # a changed prefix is parsed (and checked) again


def test_27_2_a_reader_during_a_write_waits_for_the_export_instead_of_refusing(
        tmp_path, monkeypatch):
    """A reader that sees a registration whose export is not written yet (the writer is
    between its append and its export) checks again under a shared lock, so it never
    mistakes a write in progress for deleted exports."""
    import threading

    import pandas as pd

    from ragnb.ledger import ledger as ledger_module

    led = Ledger(tmp_path / "led")
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["p1", "p2"], "grade": [1, 2]})
    led.register("golden", qrels)
    seen: list = []
    real = ledger_module.write_manifest

    def slow_export(path, manifest, head):
        if manifest.name == "prod" and not seen:
            reader = threading.Thread(target=lambda: seen.append(
                _splits_or_error(Ledger(tmp_path / "led"))))
            reader.start()
            reader.join(0.3)  # the reader is waiting for the lock, not refusing
            assert reader.is_alive() and not seen
            seen.append(reader)
        real(path, manifest, head)

    monkeypatch.setattr(ledger_module, "write_manifest", slow_export)
    led.register("prod", qrels.assign(query_id=["q8", "q9"]), role="confirmation")
    seen[0].join(10)
    assert seen[1:] == [["golden", "prod"]]


def _splits_or_error(led: Ledger):
    try:
        return led.splits()
    except InputError as exc:
        return str(exc)


def test_27_2_an_export_without_a_head_anchors_nothing(tmp_path):
    """A chained split's export replaced by one without ``ledger_head`` (or damaged) is a
    problem; a pre-chain export of a split with only pre-chain records is not."""
    ws = demo_workspace(tmp_path)
    export = ws / "ledger" / "manifests" / "golden.json"
    d = json.loads(export.read_text())
    del d["ledger_head"]
    export.write_text(json.dumps(d))
    with pytest.raises(LedgerIntegrityError, match=r"golden\.json: no readable ledger_head"):
        Ledger(ws / "ledger").manifests()
    export.write_text("{not json")
    with pytest.raises(LedgerIntegrityError, match=r"golden\.json: no readable ledger_head"):
        Ledger(ws / "ledger").manifests()
    assert cli("ledger", "--ledger", ws / "ledger", "export")[0] == 0  # written again
    assert Ledger(ws / "ledger").manifest("golden").selections_against == 40
