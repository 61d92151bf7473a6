"""The append-only event log: JSON Lines, a file lock, fsync, a checksum per record.

Why JSONL with a lock rather than SQLite in WAL mode
----------------------------------------------------
Both give atomic, serialised appends. The ledger is small (a few thousand
events over a split's life) and its value is being *read*: by a reviewer in a
pull request, by ``git diff`` on an exported copy, by ``grep`` when someone
asks "who unsealed prod-2026Q2?". One JSON object per line is all of that with
no tool; a SQLite file is opaque to diff and review. What SQLite would give us
for free, we do by hand in about forty lines and test:

* **Serialisation.** Every read-check-append runs under an exclusive
  ``filelock.FileLock`` (``flock(2)`` on POSIX), released by the kernel if the
  holder dies, so a reader never sees a write in progress and a rule is never
  checked against a stale state (two processes cannot both take the last
  unit of a budget).
* **Atomicity and durability.** A record is one line written with a single
  ``O_APPEND`` write and ``fsync``-ed before the lock is released; the
  directory is fsync-ed when the log is created.
* **Torn writes.** A process killed mid-write leaves bytes after the last
  newline. Readers report them (:class:`TornTail`: count, line, byte offset)
  with a :class:`TornRecordWarning` and never drop them silently; the next
  writer, under the lock, moves them to the ``<log>.torn`` sidecar (appended,
  fsync-ed), truncates the log to its last complete line and records a
  ``torn_tail_quarantined`` event with their offset, length and SHA-256, then
  appends as usual.
* **Corruption.** Each record carries ``sha256`` over its canonical JSON and a
  ``seq`` one more than the previous record's, so an edited line or a deleted
  one is an :class:`~ragnb.errors.InputError` naming the file and line, not a
  silently different history.

SQLite's WAL mode would be the better choice for many writers per second or
for a ledger on a network file system (where ``flock`` is unreliable; so is
SQLite's locking there, which is why neither is supported).
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from ragnb.errors import InputError

EVENT_TYPES = (
    "registered", "scored", "selection", "sealed", "unsealed", "demoted",
    "holdout_answered", "torn_tail_quarantined",
)
_KEYS = ("seq", "ts", "split", "event", "actor", "payload", "sha256")


class TornRecordWarning(UserWarning):
    """The log ends with a partial record (a writer died mid-append)."""


@dataclass(frozen=True)
class Event:
    """One ledger record.

    Attributes
    ----------
    seq : int
        1-based position in the log; consecutive.
    ts : str
        ISO-8601 UTC timestamp.
    split : str or None
        Split name (``None`` for log-level events such as quarantine).
    event : str
        One of :data:`EVENT_TYPES`.
    actor : str or None
        Who recorded it, when known.
    payload : dict
        Event-specific fields.
    """

    seq: int
    ts: str
    split: str | None
    event: str
    actor: str | None
    payload: dict[str, Any]

    def to_record(self) -> dict[str, Any]:
        """The JSON object written to the log, with its checksum."""
        rec = {"seq": self.seq, "ts": self.ts, "split": self.split, "event": self.event,
               "actor": self.actor, "payload": self.payload}
        rec["sha256"] = _checksum(rec)
        return rec


@dataclass(frozen=True)
class TornTail:
    """A partial record at the end of the log.

    Attributes
    ----------
    line : int
        1-based line number the record would have had.
    offset : int
        Byte offset where it starts.
    length : int
        Its length in bytes.
    sha256 : str
        Digest of its bytes (to find it again in the sidecar).
    """

    line: int
    offset: int
    length: int
    sha256: str

    def describe(self, path: Path) -> str:
        """One line for warnings and the CLI."""
        return (f"{path}: 1 partial record at line {self.line} (byte {self.offset}, "
                f"{self.length} bytes) from a writer that did not finish; the next append "
                f"moves it to {path.name}.torn and records that it did")


@dataclass(frozen=True)
class LogContents:
    """What a read found: complete events and, at most, one torn tail."""

    events: tuple[Event, ...]
    torn: tuple[TornTail, ...]


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def _checksum(rec: dict[str, Any]) -> str:
    return hashlib.sha256(_canonical({k: rec[k] for k in _KEYS if k != "sha256"})).hexdigest()


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` fully (a module-level function so tests can interrupt it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def now_utc() -> datetime:
    """The default clock."""
    return datetime.now(timezone.utc)


class EventLog:
    """An append-only JSONL event log guarded by a file lock.

    Parameters
    ----------
    path : path
        The log file (created on first append). The lock is ``<path>.lock``,
        quarantined torn records go to ``<path>.torn``.
    lock_timeout : float
        Seconds to wait for the lock before raising :class:`InputError`.
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 60.0) -> None:
        self.path = Path(path)
        self.torn_path = self.path.with_name(self.path.name + ".torn")
        self._lock = FileLock(str(self.path) + ".lock", timeout=lock_timeout)

    # -- reading -------------------------------------------------------------------------
    def _parse(self, data: bytes) -> LogContents:
        end = data.rfind(b"\n") + 1  # bytes after the last newline are a torn tail
        events: list[Event] = []
        for lineno, raw in enumerate(data[:end].split(b"\n")[:-1], start=1):
            events.append(self._parse_line(raw, lineno, expected_seq=len(events) + 1))
        torn: tuple[TornTail, ...] = ()
        if end < len(data):
            tail = data[end:]
            torn = (TornTail(line=len(events) + 1, offset=end, length=len(tail),
                             sha256=hashlib.sha256(tail).hexdigest()),)
        return LogContents(tuple(events), torn)

    def _parse_line(self, raw: bytes, lineno: int, expected_seq: int) -> Event:
        def bad(problem: str) -> InputError:
            return InputError(f"corrupt ledger record: {problem}; the log is append-only and "
                              "must not be edited by hand", source=self.path, line=lineno)

        try:
            rec = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise bad(f"not valid JSON ({e})") from None
        if not isinstance(rec, dict) or sorted(rec) != sorted(_KEYS):
            raise bad(f"expected exactly the keys {', '.join(_KEYS)}")
        if rec["sha256"] != _checksum(rec):
            raise bad("checksum does not match the record's content")
        if rec["seq"] != expected_seq:
            raise bad(f"seq is {rec['seq']!r}, expected {expected_seq} (a record is missing "
                      "or out of order)")
        if rec["event"] not in EVENT_TYPES or not isinstance(rec["payload"], dict):
            raise bad(f"unknown event type {rec['event']!r} or payload not an object")
        return Event(rec["seq"], rec["ts"], rec["split"], rec["event"], rec["actor"],
                     rec["payload"])

    def _read_unlocked(self) -> LogContents:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return LogContents((), ())
        return self._parse(data)

    def read(self) -> LogContents:
        """All complete events, under the lock; warns about a torn tail.

        Warns
        -----
        TornRecordWarning
            When the log ends with a partial record (count and position in
            the message and in :attr:`LogContents.torn`).
        """
        if not self.path.exists():  # nothing to read: do not create the directory or lock
            return LogContents((), ())
        with self._locked():
            contents = self._read_unlocked()
        for t in contents.torn:
            warnings.warn(t.describe(self.path), TornRecordWarning, stacklevel=2)
        return contents

    # -- writing -------------------------------------------------------------------------
    @contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            with self._lock:
                yield
        except Timeout:
            raise InputError(
                f"could not lock the ledger within {self._lock.timeout:.0f} s; another process "
                f"holds {self._lock.lock_file}", source=self.path) from None

    @contextmanager
    def transaction(self, clock=now_utc) -> Iterator[_Transaction]:
        """Hold the lock, repair a torn tail, and yield the current events for appending.

        Everything done inside the ``with`` block sees the log as it is and
        no other process can append until the block ends, so checking a rule
        and recording the event that obeys it are one atomic step.
        """
        with self._locked():
            contents = self._read_unlocked()
            tx = _Transaction(self, list(contents.events), clock)
            for t in contents.torn:
                self._quarantine(t)
                tx.append(None, "torn_tail_quarantined", None, {
                    "line": t.line, "offset": t.offset, "length": t.length,
                    "sha256": t.sha256, "sidecar": self.torn_path.name})
            yield tx

    def _quarantine(self, t: TornTail) -> None:
        with open(self.path, "rb") as f:
            f.seek(t.offset)
            tail = f.read()
        fd = os.open(self.torn_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:  # a header line, then the raw bytes as they were
            _write_all(fd, f"# offset {t.offset} line {t.line} sha256 {t.sha256}\n".encode()
                       + tail + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        with open(self.path, "r+b") as f:
            f.truncate(t.offset)
            f.flush()
            os.fsync(f.fileno())

    def _append(self, event: Event) -> None:
        line = json.dumps(event.to_record(), ensure_ascii=False, allow_nan=False) + "\n"
        created = not self.path.exists()
        if created:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            _write_all(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


class _Transaction:
    """The view of the log inside :meth:`EventLog.transaction`."""

    def __init__(self, log: EventLog, events: list[Event], clock) -> None:
        self._log = log
        self.events = events
        self._clock = clock

    def append(self, split: str | None, event: str, actor: str | None,
               payload: dict[str, Any], *, at: datetime | None = None) -> Event:
        """Write one event (durably) and return it; ``at`` defaults to the clock's now."""
        if event not in EVENT_TYPES:
            raise ValueError(f"unknown event type {event!r}")
        ts = self._clock() if at is None else at
        if ts.tzinfo is None:
            raise ValueError("the ledger clock must return timezone-aware datetimes")
        e = Event(len(self.events) + 1, ts.astimezone(timezone.utc).isoformat(), split, event,
                  actor, payload)
        self._log._append(e)
        self.events.append(e)
        return e
