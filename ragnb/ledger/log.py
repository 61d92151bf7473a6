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
* **Truncation and rewrites.** Each record also carries ``prev``, the
  ``sha256`` of the record before it (64 zeros for the first), so every
  ``sha256`` is a hash chain over the whole history and the last one, the
  *head* (:class:`Head`: ``seq`` and hash), commits to all of it. The head is
  recorded in every manifest export and in each report's provenance and printed
  by ``ragnb ledger show``; :meth:`EventLog.verify` checks the log against any
  recorded head, so a cut-off tail (``head -10 events.jsonl``) or a consistent
  rewrite (records re-hashed after an edit) is detected. Records written
  before the chain existed (no ``prev``) are read and reported as unchained;
  one after a chained record is corrupt (it could only have been inserted).
  :class:`~ragnb.ledger.Ledger` checks every read against the heads its
  manifest exports record (:meth:`~ragnb.ledger.Ledger.integrity`); the
  parsed, chain-checked prefix of the log is cached by the SHA-256 of its
  bytes, so a read parses only the records appended since.
* **Numbers.** ``NaN``, ``Infinity`` and numbers beyond a float's range make
  a corrupt record (with its line): the ledger writes only finite JSON.
* **Failed appends.** When a write fails part-way (a full disk), the log is
  cut back to its previous length before the error is raised, so nothing is
  recorded and a retry cannot count twice; a failure after the record is
  durable (rewriting a manifest export) is a warning, not an error.
* **Readers.** Reading takes no lock and needs no write access (a shared or
  read-only ledger reads); a partial line being appended at that instant is
  re-read once before it is reported. The lock file and the log are created
  with mode 0666 minus the umask, so a group-shared ledger stays shared.

SQLite's WAL mode would be the better choice for many writers per second or
for a ledger on a network file system (where ``flock`` is unreliable; so is
SQLite's locking there, which is why neither is supported).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragnb.errors import InputError

EVENT_TYPES = (
    "registered", "scored", "selection", "sealed", "unsealed", "demoted",
    "holdout_answered", "torn_tail_quarantined",
)
_KEYS = ("seq", "ts", "split", "event", "actor", "payload", "prev", "sha256")
_LEGACY_KEYS = ("seq", "ts", "split", "event", "actor", "payload", "sha256")
#: ``prev`` of the first record.
GENESIS = "0" * 64
#: log path -> (bytes verified, their SHA-256, the events they hold); see
#: :meth:`EventLog._cached_prefix`.
_PREFIX_CACHE: dict[str, tuple[int, bytes, tuple[Event, ...]]] = {}


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
    prev: str | None = GENESIS
    sha256: str = ""

    def to_record(self) -> dict[str, Any]:
        """The JSON object written to the log, with its chained checksum."""
        rec = {"seq": self.seq, "ts": self.ts, "split": self.split, "event": self.event,
               "actor": self.actor, "payload": self.payload, "prev": self.prev}
        rec["sha256"] = _checksum(rec)
        return rec


@dataclass(frozen=True)
class Head:
    """The last record of the log: its ``seq`` and chained ``sha256``.

    ``str(head)`` is ``SEQ:HASH`` (``0:`` + 64 zeros for an empty log), the form
    recorded in manifests and reports and accepted by ``ragnb ledger verify --head``.
    """

    seq: int
    sha256: str

    def __str__(self) -> str:
        return f"{self.seq}:{self.sha256}"

    @classmethod
    def parse(cls, text: str, source: str = "--head") -> Head | str:
        """A :class:`Head` from ``SEQ:HASH``, or the bare hash (a str) from ``HASH``."""
        text = str(text).strip()
        seq, sep, digest = text.rpartition(":")
        digest = digest.lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise InputError(f"expected SEQ:HASH or a 64-digit hex hash, got {text[:80]!r}",
                             source=source)
        if not sep:
            return digest
        if not seq.isascii() or not seq.isdigit():
            raise InputError(f"the sequence number {seq[:20]!r} is not an integer",
                             source=source)
        return cls(int(seq), digest)


@dataclass(frozen=True)
class Verification:
    """What :meth:`EventLog.verify` found: the head and the problems (empty when sound)."""

    head: Head
    n_records: int
    unchained: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


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

    @property
    def head(self) -> Head:
        """The last complete record's ``seq`` and hash."""
        if not self.events:
            return Head(0, GENESIS)
        last = self.events[-1]
        return Head(last.seq, last.sha256)


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def _checksum(rec: dict[str, Any]) -> str:
    keys = _KEYS if "prev" in rec else _LEGACY_KEYS
    return hashlib.sha256(_canonical({k: rec[k] for k in keys if k != "sha256"})).hexdigest()


def __getattr__(name: str) -> Any:
    """``FileLock`` and ``Timeout``, from filelock on first use (PEP 562): importing it takes
    ~30 ms and reading the log takes no lock. Kept as attributes of this module, so a
    test can replace ``FileLock`` here.
    """
    if name in ("FileLock", "Timeout"):
        import filelock

        value = getattr(filelock, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _filelock(name: str) -> Any:
    """The module's ``FileLock`` or ``Timeout`` (one a test put here, else filelock's)."""
    return globals()[name] if name in globals() else __getattr__(name)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` fully (a module-level function so tests can interrupt it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def now_utc() -> datetime:
    """The default clock."""
    return datetime.now(UTC)


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
        self._lock_timeout = lock_timeout
        self._file_lock: Any = None

    @property
    def _lock(self) -> Any:
        """The ``filelock.FileLock``, made (and filelock imported, ~30 ms) on the first write:
        reading the log takes no lock.
        """
        if self._file_lock is None:
            lock = _filelock("FileLock")
            self._file_lock = lock(str(self.path) + ".lock", timeout=self._lock_timeout,
                                   mode=0o666 & ~_umask())
        return self._file_lock

    # -- reading -------------------------------------------------------------------------
    def _parse(self, data: bytes) -> LogContents:
        end = data.rfind(b"\n") + 1  # bytes after the last newline are a torn tail
        events, start = self._cached_prefix(data, end)
        for lineno, raw in enumerate(data[start:end].split(b"\n")[:-1], start=len(events) + 1):
            last = events[-1] if events else None
            event = self._parse_line(raw, lineno, expected_seq=len(events) + 1,
                                     expected_prev=GENESIS if last is None else last.sha256)
            if event.prev is None and last is not None and last.prev is not None:
                raise InputError("corrupt ledger record: no `prev` after hash-chained records "
                                 "(a record written before the chain cannot follow one "
                                 "written after it: inserted or rewritten); the log is "
                                 "append-only and must not be edited by hand",
                                 source=self.path, line=lineno)
            events.append(event)
        if start < end or not start:  # something new was parsed: remember it
            _PREFIX_CACHE[self._cache_key] = (end, hashlib.sha256(data[:end]).digest(),
                                              tuple(events))
        torn: tuple[TornTail, ...] = ()
        if end < len(data):
            tail = data[end:]
            torn = (TornTail(line=len(events) + 1, offset=end, length=len(tail),
                             sha256=hashlib.sha256(tail).hexdigest()),)
        return LogContents(tuple(events), torn)

    @property
    def _cache_key(self) -> str:
        return os.path.abspath(self.path)

    def _cached_prefix(self, data: bytes, end: int) -> tuple[list[Event], int]:
        """Events of the longest prefix of ``data`` already parsed and chain-checked.

        The verified prefix is cached per log file as (length, SHA-256 of its
        bytes, events): when the file still starts with exactly those bytes
        (an append since, or nothing new), only the lines after it are parsed.
        Hashing bytes is ~50x cheaper than parsing and re-hashing each record.
        """
        cached = _PREFIX_CACHE.get(self._cache_key)
        if cached is not None:
            length, digest, events = cached
            if length <= end and hashlib.sha256(data[:length]).digest() == digest:
                return list(events), length
        return [], 0

    def _parse_line(self, raw: bytes, lineno: int, expected_seq: int,
                    expected_prev: str = GENESIS) -> Event:
        def bad(problem: str) -> InputError:
            return InputError(f"corrupt ledger record: {problem}; the log is append-only and "
                              "must not be edited by hand", source=self.path, line=lineno)

        def no_constant(name: str) -> None:
            raise bad(f"{name} is not a JSON number (the ledger writes none)")

        try:
            rec = json.loads(raw.decode("utf-8"), parse_constant=no_constant)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise bad(f"not valid JSON ({str(e)[:200]})") from None
        if not isinstance(rec, dict) or sorted(rec) not in (sorted(_KEYS), sorted(_LEGACY_KEYS)):
            raise bad(f"expected exactly the keys {', '.join(_KEYS)}")
        try:
            digest = _checksum(rec)
        except ValueError:  # a number JSON cannot hold exactly (1e400 reads as inf)
            raise bad("a number is out of range (the ledger writes only finite numbers)"
                      ) from None
        if not isinstance(rec["sha256"], str) or rec["sha256"] != digest:
            raise bad("checksum does not match the record's content")
        if rec["seq"] != expected_seq or isinstance(rec["seq"], bool):
            raise bad(f"seq is {rec['seq']!r}, expected {expected_seq} (a record is missing "
                      "or out of order)")
        if "prev" in rec and rec["prev"] != expected_prev:
            raise bad("prev does not match the previous record's sha256 (a record was removed, "
                      "inserted or rewritten)")
        if rec["event"] not in EVENT_TYPES or not isinstance(rec["payload"], dict):
            raise bad(f"unknown event type {rec['event']!r} or payload not an object")
        for key in ("ts", "split", "actor"):
            if rec[key] is not None and not isinstance(rec[key], str):
                raise bad(f"{key} must be a string")
        return Event(rec["seq"], rec["ts"], rec["split"], rec["event"], rec["actor"],
                     rec["payload"], rec.get("prev"), rec["sha256"])

    def _read_unlocked(self) -> LogContents:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return LogContents((), ())
        return self._parse(data)

    def read(self) -> LogContents:
        """All complete events, without taking the lock; warns about a torn tail.

        Appends are single ``write`` calls of whole lines, so a reader sees
        complete records; a partial last line (an append in progress, or a
        writer that died) is re-read once after a short pause before it is
        reported.

        Warns
        -----
        TornRecordWarning
            When the log ends with a partial record (count and position in
            the message and in :attr:`LogContents.torn`).
        """
        if not self.path.exists():  # nothing to read: do not create the directory or lock
            return LogContents((), ())
        contents = self._read_unlocked()
        if contents.torn:
            time.sleep(0.05)
            contents = self._read_unlocked()
        for t in contents.torn:
            warnings.warn(t.describe(self.path), TornRecordWarning, stacklevel=2)
        return contents

    def verify(self, heads: Iterable[tuple[str, Head | str]] = ()) -> Verification:
        """Check the whole chain, and the log against recorded heads.

        Parameters
        ----------
        heads : iterable of (where, head)
            Recorded heads (a :class:`Head`, or a bare hash) and where each was
            recorded. A head past the end of the log means the log was cut
            short; a head whose hash differs from the record at its ``seq``
            (or a bare hash found nowhere) means the log was rewritten.

        Returns
        -------
        Verification
            The problems found, one line each (a corrupt record is reported
            as a problem too, not raised).
        """
        problems: list[str] = []
        try:
            contents = self._read_unlocked()
        except InputError as exc:
            return Verification(Head(0, GENESIS), 0, 0, (str(exc),))
        for t in contents.torn:
            problems.append(t.describe(self.path))
        problems += self.check_heads(contents, heads)
        unchained = sum(e.prev is None for e in contents.events)
        return Verification(contents.head, len(contents.events), unchained, tuple(problems))

    @staticmethod
    def check_heads(contents: LogContents, heads: Iterable[tuple[str, Head | str]]
                    ) -> list[str]:
        """One line per recorded head that ``contents`` does not reach (cut short) or
        reaches with another hash (rewritten); see :meth:`verify`.
        """
        problems: list[str] = []
        events = contents.events
        by_hash: set[str] | None = None  # built only for a bare hash
        for where, head in heads:
            if isinstance(head, str):
                if by_hash is None:
                    by_hash = {e.sha256 for e in events}
                if head != GENESIS and head not in by_hash:
                    problems.append(f"{where}: recorded head {head[:16]}... is not in the log: "
                                    "the log was cut short or rewritten")
                continue
            if head.seq > len(events):
                problems.append(f"{where}: recorded head is record {head.seq}, but the log has "
                                f"only {len(events)}: it was cut short")
            elif head.seq and events[head.seq - 1].sha256 != head.sha256:
                problems.append(f"{where}: record {head.seq} has hash "
                                f"{events[head.seq - 1].sha256[:16]}..., the recorded head says "
                                f"{head.sha256[:16]}...: the log was rewritten")
        return problems

    # -- writing -------------------------------------------------------------------------
    @contextmanager
    def _locked(self) -> Iterator[None]:
        Timeout = _filelock("Timeout")  # filelock's class, loaded on the first write
        try:
            with self._lock:
                yield
        except Timeout:  # before OSError: filelock's Timeout is a TimeoutError
            raise InputError(
                f"could not lock the ledger within {self._lock.timeout:.0f} s; another process "
                f"holds {self._lock.lock_file}", source=self.path) from None
        except OSError as exc:  # EACCES, EPERM, EROFS (a read-only mount), ENOSPC, ...
            raise InputError(f"cannot write to the ledger ({exc.strerror or exc}: "
                             f"{exc.filename or self.path.parent}); reading needs no write "
                             "access, recording does", source=self.path) from None

    @contextmanager
    def settled(self) -> Iterator[bool]:
        """Hold a shared lock on the lock file, so no writer is between its append and its
        manifest export while a reader checks one against the other.

        Needs no write access (``flock(2)`` on a descriptor opened read-only). Yields
        True when held; False when there is no lock file, the platform has no
        ``flock``, or a writer kept the lock past the timeout (the reader then
        checks what it sees).
        """
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX
            yield False
            return
        try:
            fd = os.open(str(self.path) + ".lock", os.O_RDONLY)
        except OSError:
            yield False
            return
        try:
            deadline = time.monotonic() + self._lock.timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    held = True
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        held = False
                        break
                    time.sleep(0.02)
            yield held
        finally:
            os.close(fd)  # releases the lock

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
        fd = os.open(self.torn_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
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

    def _append(self, record: dict[str, Any]) -> None:
        """Append one record durably, or leave the log exactly as it was and raise."""
        line = json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"
        created = not self.path.exists()
        if created:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as exc:
            raise InputError(f"cannot open the log for appending ({exc.strerror}); nothing "
                             "was recorded", source=self.path) from None
        try:
            size = os.fstat(fd).st_size
            try:
                _write_all(fd, line.encode("utf-8"))
                os.fsync(fd)
            except OSError as exc:
                os.ftruncate(fd, size)  # shrinking needs no space: no torn tail is left
                os.fsync(fd)
                raise InputError(f"could not append to the ledger ({exc.strerror}); the log is "
                                 "unchanged and nothing was recorded, so retrying is safe",
                                 source=self.path) from None
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
        prev = self.events[-1].sha256 if self.events else GENESIS
        e = Event(len(self.events) + 1, ts.astimezone(UTC).isoformat(), split, event,
                  actor, payload, prev)
        record = e.to_record()
        self._log._append(record)
        e = replace(e, sha256=record["sha256"])
        self.events.append(e)
        return e
