r"""Opening input files: regular files, streams read once, gzip, and strict text rules.

Every reader goes through :class:`Source`, which holds either a regular file
(read where it lies, as often as needed) or the bytes of a stream read exactly
once (``-`` for standard input, a pipe such as ``<(zcat x.gz)``, a FIFO, a
character device), capped at :data:`MAX_STREAM_BYTES`. gzip is recognised by
its magic bytes and decompressed by Python's :mod:`gzip` (a truncated or
corrupt file is one error line, never a traceback), capped at
:data:`MAX_DECOMPRESSED_BYTES` and at :data:`MAX_GZIP_RATIO` times its
compressed size (a decompression bomb stops early, whatever the machine holds).
Text read into memory (a stream, decompressed gzip) is checked as it arrives
(:class:`_TextGuard`): the first invalid UTF-8 byte or a line longer than
:data:`MAX_LINE_BYTES` ends the read with an error naming the line, so
``/dev/zero`` or ``/dev/urandom`` given as a run stops at once instead of
filling memory. Each bound is an environment variable of the same name
(``RAGNB_MAX_STREAM_BYTES``...).

Text rules shared by every reader (an independent strict reader in
``tests/io/test_fuzz.py`` implements the same rules and is compared with
these readers on generated inputs):

* text is UTF-8; one leading byte-order mark (U+FEFF) is ignored;
* lines end at ``\n`` (a ``\r`` before it is whitespace); U+2028 and other
  Unicode line separators are ordinary characters, so JSON strings may hold them;
* whitespace-separated fields are separated by ASCII space, tab, CR, VT or FF
  only (a no-break space is part of an id);
* integers (grades, ranks) are ASCII digits with an optional ``-``
  (:data:`INTEGER`); decimals (scores) are ASCII decimal notation
  (:data:`DECIMAL`); no ``_`` separators, hex, Unicode digits or ``nan``;
* JSON objects may not repeat a key, and ``NaN``/``Infinity`` are not JSON.

The fast path reads delimited text with pyarrow (multithreaded, columnar); when
the file does not fit it exactly, :func:`split_lines` re-reads the text line by
line so that an error names the exact line.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import re
import select
import stat
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ragnb.errors import InputError
from ragnb.io.keys import first_empty, id_series, parallel_map, release_memory

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"

#: File suffixes that name their format (before any ``.gz``): what the readers trust
#: without looking inside and what the writers write. Any other name is sniffed.
SUFFIX_FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".csv": "csv", ".tsv": "tsv",
                  ".parquet": "parquet", ".pq": "parquet"}
#: Suffixes the writers read as TREC (a reader sniffs such a file: TREC unless it looks
#: like JSON or Parquet inside).
TREC_SUFFIXES = (".qrels", ".qrel", ".trec", ".run", ".txt")



def _bound(name: str, default: int) -> int:
    """A positive integer bound from the environment variable ``RAGNB_<name>``."""
    text = os.environ.get(f"RAGNB_{name}", "")
    if not text:
        return default
    if not re.fullmatch(r"[0-9]{1,18}", text.strip()) or int(text) < 1:
        raise InputError(f"must be a positive integer, got {text[:40]!r}",
                         source=f"${{RAGNB_{name}}}")
    return int(text)


#: Largest stream (pipe, FIFO, device, standard input) read into memory, in bytes
#: (1 GiB; ``RAGNB_MAX_STREAM_BYTES``): below what a small machine holds with the
#: text made from it. A larger input is read in place once saved to a file.
MAX_STREAM_BYTES = _bound("MAX_STREAM_BYTES", 1 << 30)
#: Largest decompressed content of a gzip input, in bytes (4 GiB;
#: ``RAGNB_MAX_DECOMPRESSED_BYTES``).
MAX_DECOMPRESSED_BYTES = _bound("MAX_DECOMPRESSED_BYTES", 4 << 30)
#: Largest ratio of decompressed to compressed size of a gzip input (100;
#: ``RAGNB_MAX_GZIP_RATIO``), checked once the output passes :data:`GZIP_RATIO_FLOOR`
#: bytes. Runs and test sets compress 3-10 times; a bomb, a thousand times.
MAX_GZIP_RATIO = _bound("MAX_GZIP_RATIO", 100)
#: Decompressed bytes below which the ratio is not checked (64 MiB): small files
#: may compress better than large ones without being bombs.
GZIP_RATIO_FLOOR = 64 << 20
#: Longest line of text read into memory (a stream, decompressed gzip), in bytes
#: (256 MiB; ``RAGNB_MAX_LINE_BYTES``): a longer line cannot be a valid record of
#: any format (``/dev/zero`` has no line end at all).
MAX_LINE_BYTES = _bound("MAX_LINE_BYTES", 256 << 20)
#: Seconds to wait for a writer to open a FIFO before giving up.
FIFO_TIMEOUT = float(os.environ.get("RAGNB_FIFO_TIMEOUT", "30"))

#: A strict ASCII integer, as trec_eval's qrels grades: optional ``-``, at most 18
#: digits (so it fits an int64 without wrapping).
INTEGER = r"-?[0-9]{1,18}"
#: A strict ASCII decimal number (scores): ``1``, ``-0.5``, ``.5``, ``1e-3``.
DECIMAL = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
_INTEGER_RE = re.compile(INTEGER)
_DECIMAL_RE = re.compile(DECIMAL)
#: Field separators of whitespace-separated formats (ASCII only).
_FIELD_SEP = re.compile(rb"[ \t\r\x0b\x0c]+")
_CHUNK = 1 << 20


def parse_integer(text: str, what: str, source, line: int) -> int:
    """``text`` as an int if it is a strict ASCII integer (:data:`INTEGER`), else an error."""
    if not _INTEGER_RE.fullmatch(text):
        raise InputError(f"{what} {text!r} is not an integer (ASCII digits, optional '-')",
                         source=source, line=line)
    return int(text)


def parse_decimal(text: str, what: str, source, line: int) -> float:
    """``text`` as a float if it is a strict ASCII decimal (:data:`DECIMAL`), else an error."""
    if not _DECIMAL_RE.fullmatch(text):
        raise InputError(f"{what} {text!r} is not a decimal number", source=source, line=line)
    return float(text)


class Source:
    """One input: a regular file read in place, or a stream read once.

    ``str(source)`` is what errors name (the path as given, ``<stdin>`` for ``-``).
    Use :func:`source_of` to make one.
    """

    def __init__(self, label: str, path: Path | None, data: bytes | None) -> None:
        self.label = label
        self.path = path  # a regular file, or None when ``data`` holds a stream's bytes
        self._data = data  # raw bytes (maybe gzip) of a stream
        self._content: bytes | None = None

    def __str__(self) -> str:
        return self.label

    def __repr__(self) -> str:
        return f"Source({self.label!r})"

    @property
    def name(self) -> str:
        """The file name (for format sniffing and default names)."""
        return Path(self.label).name

    def head(self, n: int) -> bytes:
        """The first ``n`` raw (undecompressed) bytes."""
        if self._data is None and self.path is not None:
            with open(self.path, "rb") as fh:
                return fh.read(n)
        return (self._data or b"")[:n]

    @property
    def is_gzip(self) -> bool:
        return self.head(2) == GZIP_MAGIC

    def content(self) -> bytes:
        """The whole decompressed content (read and cached once)."""
        if self._content is None:
            if self.is_gzip:
                raw = self._data if self._data is not None else _read_capped(
                    self.path, self, None)
                self._content = _gunzip(raw, self)
            elif self._data is not None:
                self._content = self._data
            else:
                self._content = _read_capped(self.path, self, None)
        return self._content

    def text_head(self, n: int = 4096) -> bytes:
        """The first ``n`` decompressed bytes."""
        if self.is_gzip or self._data is not None:
            return self.content()[:n]
        return self.head(n)

    def arrow_input(self):
        """What pyarrow's CSV reader should read: the file path, or an in-memory buffer."""
        if self._data is None and not self.is_gzip:
            return str(self.path)
        return pa.BufferReader(self.content())

    def binary(self):
        """A binary file object over the decompressed content (for pandas)."""
        if self._data is None and not self.is_gzip:
            return open(self.path, "rb")
        return io.BytesIO(self.content())


class _TextGuard:
    """Checks text as it is read into memory, chunk by chunk (module docstring).

    Parquet (``PAR1``) and gzip data are binary and pass unchecked (decompressed
    gzip is checked by its own guard). Invalid UTF-8 and a line longer than
    :data:`MAX_LINE_BYTES` raise an :class:`InputError` naming the line.
    """

    def __init__(self, source) -> None:
        import codecs

        self.source = source
        self.binary: bool | None = None  # decided by the first bytes
        self.head = b""  # the first bytes, until there are four
        self.line = 1
        self.run = 0  # bytes since the last line end
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")

    def feed(self, chunk: bytes, final: bool = False) -> None:
        if self.binary is None:  # the first four bytes decide
            self.head += chunk
            if len(self.head) < 4 and not final:
                return
            chunk, self.head = self.head, b""
            self.binary = chunk.startswith((b"PAR1", GZIP_MAGIC))
        if self.binary:
            return
        try:
            self.decoder.decode(chunk, final)
        except UnicodeDecodeError as exc:
            raise InputError(f"not valid UTF-8 ({exc.reason})", source=self.source,
                             line=self.line + chunk[: max(exc.start, 0)].count(b"\n")) from None
        # a line inside one chunk is shorter than the chunk, so below MAX_LINE_BYTES:
        # only the line running on from earlier chunks can pass it
        first = chunk.find(b"\n")
        if first < 0:
            self.run += len(chunk)
        else:
            if self.run + first > MAX_LINE_BYTES:
                self._too_long()
            self.line += chunk.count(b"\n")
            self.run = len(chunk) - chunk.rfind(b"\n") - 1
        if self.run > MAX_LINE_BYTES:
            self._too_long()

    def _too_long(self) -> None:
        raise InputError(f"a line longer than {MAX_LINE_BYTES:,} bytes cannot be a record "
                         "of any input format (RAGNB_MAX_LINE_BYTES)", source=self.source,
                         line=self.line)


def _read_capped(target, source, cap: int | None) -> bytes:
    """Read a regular file (``cap`` None) or a file descriptor's stream up to ``cap`` bytes.

    A stream is checked as it arrives (:class:`_TextGuard`) and gathered in one
    growing buffer, so it is never held twice.
    """
    try:
        if cap is None:
            with open(target, "rb") as fh:
                return fh.read()
        out = io.BytesIO()
        guard = _TextGuard(source)
        while True:
            chunk = os.read(target, _CHUNK)
            if not chunk:
                guard.feed(b"", final=True)
                return out.getvalue()
            if out.tell() + len(chunk) > cap:
                raise InputError(f"the stream is larger than the {cap:,}-byte limit "
                                 "(RAGNB_MAX_STREAM_BYTES); save it to a file", source=source)
            guard.feed(chunk)
            out.write(chunk)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from None


def _gunzip(raw: bytes, source) -> bytes:
    """Decompress gzip ``raw`` (all members, zero padding allowed) or raise one error line.

    The output is bounded by :data:`MAX_DECOMPRESSED_BYTES` and
    :data:`MAX_GZIP_RATIO` and checked as text while it is made (:class:`_TextGuard`).
    """
    out = io.BytesIO()
    guard = _TextGuard(source)
    ratio_cap = max(GZIP_RATIO_FLOOR, MAX_GZIP_RATIO * len(raw))
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as fh:
            while True:
                chunk = fh.read(_CHUNK)
                if not chunk:
                    break
                total = out.tell() + len(chunk)
                if total > MAX_DECOMPRESSED_BYTES:
                    raise InputError(
                        f"decompresses to more than {MAX_DECOMPRESSED_BYTES:,} bytes "
                        "(RAGNB_MAX_DECOMPRESSED_BYTES)", source=source)
                if total > ratio_cap:
                    raise InputError(
                        f"decompresses to more than {MAX_GZIP_RATIO:,} times its "
                        f"{len(raw):,} compressed bytes, as a decompression bomb does "
                        "(RAGNB_MAX_GZIP_RATIO)", source=source)
                guard.feed(chunk)
                out.write(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        problem = ("the gzip data ends early (truncated file)" if isinstance(exc, EOFError)
                   else f"not a valid gzip file ({exc})")
        raise InputError(problem, source=source) from None
    guard.feed(b"", final=True)
    return out.getvalue()


def _wait_for_writer(fd: int, source) -> None:
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    if not poller.poll(FIFO_TIMEOUT * 1000):
        raise InputError(f"no process wrote to this FIFO within {FIFO_TIMEOUT:g} s",
                         source=source)


#: What every reader accepts: a path (``-`` for standard input) or an opened :class:`Source`.
InputPath = str | os.PathLike[str] | Source


def source_of(path: InputPath) -> Source:
    """A :class:`Source` for ``path`` (``-`` is standard input); a Source is returned as is.

    Regular files are read in place. Pipes, FIFOs and character devices are
    read once, to the end, into memory (at most :data:`MAX_STREAM_BYTES`); a
    FIFO nobody writes to is an error after :data:`FIFO_TIMEOUT` seconds, not
    a hang. Anything else (a directory, a socket, a block device) is an error.
    """
    if isinstance(path, Source):
        return path
    label = str(path)
    if label == "-":
        fd = sys.stdin.fileno()
        return Source("<stdin>", None, _read_capped(fd, "<stdin>", MAX_STREAM_BYTES))
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputError("file not found", source=label) from None
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror or exc}", source=label) from None
    if stat.S_ISREG(st.st_mode):
        if not os.access(p, os.R_OK):
            raise InputError("permission denied: the file is not readable", source=label)
        return Source(label, p, None)
    if stat.S_ISDIR(st.st_mode):
        raise InputError("is a directory, expected a file", source=label)
    if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
        raise InputError("not a regular file, pipe or character device", source=label)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror or exc}", source=label) from None
    try:
        if stat.S_ISFIFO(st.st_mode):
            _wait_for_writer(fd, label)
        os.set_blocking(fd, True)
        data = _read_capped(fd, label, MAX_STREAM_BYTES)
    finally:
        os.close(fd)
    return Source(label, None, data)


def is_gzip(path) -> bool:
    return source_of(path).is_gzip


def open_binary(path):
    """A binary file object over the (decompressed) content of ``path``."""
    return source_of(path).binary()


def read_bytes(path) -> bytes:
    """The whole (decompressed) content of ``path``; an empty file is an error."""
    src = source_of(path)
    data = src.content()
    if not data.strip() or data.strip() == BOM:
        raise InputError("the file is empty", source=src)
    return data


def _stem(name: str) -> str:
    name = name.lower()
    return name.removesuffix(".gz")


def implied_gain(path) -> str:
    """The nDCG gain map a test-set file implies: ``"linear"`` for TREC qrels (what
    trec_eval's ``ndcg_cut``, ranx and ir_measures report), else ragnb's ``"exp"``
    (2^g - 1, the seeds'). ``ragnb init`` writes the same into a manifest.
    """
    try:
        return "linear" if sniff_format(path) == "trec" else "exp"
    except (OSError, InputError):
        return "exp"


def sniff_format(path, data: bytes | None = None) -> str:
    """Guess the format of ``path`` from its name, else from its first line."""
    src = source_of(path)
    name = _stem(src.name)
    for suffix, fmt in SUFFIX_FORMATS.items():
        if name.endswith(suffix):
            return fmt
    head = src.text_head(4096) if data is None else data[:4096]
    if head.startswith(b"PAR1"):
        return "parquet"
    head = head.removeprefix(BOM)
    first = head.lstrip().split(b"\n", 1)[0].strip()
    if first.startswith((b"{", b"[")):
        return "jsonl"
    return "trec"


def read_whitespace_frame(
    path, names: list[str], types: dict[str, pa.DataType],
    one_chunk: tuple[str, ...] = (),
    as_float: tuple[str, ...] = (),
) -> pd.DataFrame | None:
    """Fast path: single-space separated columns parsed by pyarrow, straight from the file.

    Only the columns in ``types`` are converted (the others are skipped); strings
    become arrow-string columns (:func:`ragnb.io.keys.id_series`), numbers numpy
    arrays, and each arrow column is released as soon as it is converted.
    Integers are read as text and must be ASCII digits (at most 18; a ``-``
    goes to the slow path); decimals are parsed by pyarrow, and ``nan`` or an
    infinity (which pyarrow reads from ``inf``) goes to the slow path, so the fast
    path accepts exactly what :data:`INTEGER` and :data:`DECIMAL` accept.
    Returns ``None`` when the file does not fit the fast path exactly (a byte-order
    mark, a tab, CR, VT or FF anywhere, repeated spaces, blank lines, a value of
    the wrong type); the caller then falls back to :func:`split_lines`, which reports
    the offending line. Columns in ``one_chunk`` are made contiguous (a copy,
    once), for columns that are later read at random rows. Integer columns in
    ``as_float`` come out as float64 (as runs keep their ranks). Numbers are copied
    into their numpy array one parser chunk at a time, each chunk released once
    copied, so a column never exists twice whole.
    """
    src = source_of(path)
    if src.text_head(3).startswith(BOM) or _has_odd_space(src):
        return None
    read_types = {n: (pa.string() if t == pa.int64() else t) for n, t in types.items()}
    # the other columns are read too, as bytes (cheaper than text or a dictionary), so
    # that an empty field or bad UTF-8 in them also sends the file to the slow path
    others = [n for n in names if n not in types]
    read_types.update({n: pa.binary() for n in others})
    try:
        table = _read_csv_with_progress(
            src,
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=read_types, include_columns=list(names),
                strings_can_be_null=False, quoted_strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    release_memory()  # the parser's freed buffers, before the columns are converted
    if table.num_rows == 0:
        return None
    for n in others:
        column = table.column(n)
        if column.null_count or first_empty(column) >= 0:
            return None
        try:
            column.cast(pa.string())  # validates UTF-8
        except pa.ArrowInvalid:
            return None
    table = table.select(list(types))
    for n, typ in types.items():
        column = table.column(n)
        if column.null_count:
            return None  # blank lines or missing fields
        if typ == pa.float64():
            if pc.any(pc.is_inf(column)).as_py():
                return None  # 'inf' or '1e999': the slow path tells them apart
        elif pa.types.is_string(typ) and first_empty(column) >= 0:
            return None  # repeated spaces give empty fields
        # integers (still text) are checked chunk by chunk by _numbers
    del column
    columns = {}
    for n, typ in types.items():
        column = table.column(n)
        table = table.drop_columns([n])  # this function holds the only reference
        if pa.types.is_string(typ):
            if n in one_chunk and column.num_chunks > 1:
                column = pa.chunked_array([column.combine_chunks()], type=column.type)
            columns[n] = id_series(column)
        else:
            chunks = column.chunks
            del column
            values = _numbers(chunks, typ, np.float64 if n in as_float else None)
            release_memory()  # the parser's chunks of this column, before the next one
            if values is None:
                return None  # an integer that is not plain ASCII digits
            columns[n] = values
    release_memory()  # arrow's allocator keeps the parser's buffers otherwise
    return pd.DataFrame(columns, copy=False)


def _numbers(chunks: list[pa.Array], typ: pa.DataType, dtype=None) -> np.ndarray | None:
    """Numeric parser chunks as one numpy array of ``dtype`` (default: ``typ``'s).

    Integers (``typ`` int64) arrive as text and must be ASCII digits, at most 18
    (:data:`INTEGER` without the sign, which goes to the slow path); else None.
    The chunks are checked, converted and copied in parallel (arrow and numpy
    release the GIL), and ``chunks`` is emptied, each chunk released once copied.
    """
    dtype = np.dtype(dtype or typ.to_pandas_dtype())
    if len(chunks) == 1 and chunks[0].type == typ and dtype == typ.to_pandas_dtype():
        return chunks.pop().to_numpy()  # zero-copy
    starts = np.cumsum([0] + [len(c) for c in chunks])
    out = np.empty(int(starts[-1]), dtype=dtype)

    def job(i: int) -> bool:
        chunk = chunks[i]
        if chunk.type != typ and len(chunk):
            if not (pc.all(pc.ascii_is_decimal(chunk)).as_py()
                    and pc.max(pc.binary_length(chunk)).as_py() <= 18):
                return False
            chunk = pc.cast(chunk, typ)
        out[starts[i]: starts[i + 1]] = chunk.to_numpy()
        chunks[i] = None  # released
        return True

    ok = all(parallel_map(job, range(len(chunks))))
    chunks.clear()
    return out if ok else None


def _read_csv_with_progress(src: Source, **options) -> pa.Table:
    """``pyarrow.csv.read_csv`` of a source, with a bytes bar when standard error is a
    terminal (:mod:`ragnb.progress`); otherwise straight from the path or buffer.
    """
    from ragnb import progress

    if src.path is None or src.is_gzip or not progress.wanted():
        return pacsv.read_csv(src.arrow_input(), **options)
    with open(src.path, "rb") as fh, progress.bar(os.fstat(fh.fileno()).st_size,
                                                  f"reading {src.name}") as bar:
        return pacsv.read_csv(progress.CountingReader(fh, bar), **options)


_ODD_SPACES = (b"\t", b"\r", b"\x0b", b"\x0c")


def _has_odd_space(src: Source) -> bool:
    """Whether the (decompressed) text holds a tab, CR, VT or FF anywhere (memchr scans).

    A file is read in 1 MiB pieces into one reused buffer, each scanned while it is
    in cache: twice as fast as scanning a memory map of the whole file four times, and
    the file's pages never count in the process's resident memory.
    """
    if src.path is not None and not src.is_gzip:
        buf = bytearray(_CHUNK)
        with open(src.path, "rb", buffering=0) as fh:
            while n := fh.readinto(buf):
                if any(buf.find(c, 0, n) >= 0 for c in _ODD_SPACES):
                    return True
        return False
    data = src.content()
    return any(c in data for c in _ODD_SPACES)


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    r"""``(line_number, line)`` for each line; lines end at ``\n`` only."""
    return enumerate(text.split("\n"), start=1)


def split_lines(data: bytes | str, source, ncols: int, *, at_least: bool = False
                ) -> Iterator[tuple[int, list[str]]]:
    """Slow path: yield ``(line_number, fields)`` for each non-blank line.

    Fields are separated by ASCII whitespace (space, tab, CR, VT, FF); a line
    with the wrong number of fields (with ``at_least``: fewer than ``ncols``;
    the caller decides what the others mean) is an error naming the line.
    """
    text = decode_utf8(data, source) if isinstance(data, bytes) else data
    for number, raw in text_lines(text):
        fields = [f for f in re.split(r"[ \t\r\x0b\x0c]+", raw) if f]
        if not fields:
            continue
        if len(fields) != ncols and not (at_least and len(fields) > ncols):
            raise InputError(
                f"expected {'at least ' if at_least else ''}{ncols} whitespace-separated "
                f"fields, found {len(fields)}: {raw[:120]!r}" + _swapped(ncols, fields),
                source=source,
                line=number,
            )
        yield number, fields


def _swapped(ncols: int, fields: list[str]) -> str:
    """What the line looks like when a qrels file and a run file were swapped (issue 36 #4)."""
    if ncols == 4 and len(fields) == 6 and fields[1].upper() == "Q0":
        return ("; this looks like a run file (query Q0 docno rank score tag): give it as a "
                "run and the qrels as the test set (--judgments)")
    if ncols == 6 and len(fields) == 4 and fields[3].lstrip("-").isdigit():
        return ("; this looks like TREC qrels (query iteration docno grade): give it as the "
                "test set (--judgments) and the run as a run")
    return ""


def decode_utf8(data: bytes, source) -> str:
    """``data`` as text; one leading byte-order mark is dropped; bad UTF-8 names its line."""
    data = data.removeprefix(BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 ({exc.reason})", source=source, line=line) from None


def read_table_file(path, fmt: str):
    """A CSV/TSV/Parquet long table as a pandas DataFrame (header row required)."""
    src = source_of(path)
    try:
        if fmt == "parquet":
            with src.binary() as fh:
                return pd.read_parquet(fh)
        data = src.content()
        data = data.removeprefix(BOM)
        _check_header(data, "\t" if fmt == "tsv" else ",", src)
        return pd.read_csv(io.BytesIO(data), sep="\t" if fmt == "tsv" else ",", dtype=str,
                           keep_default_na=False, engine="pyarrow")
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - pandas/pyarrow give many exception types here
        text = " ".join(str(exc).split())[:200]
        raise InputError(f"cannot read as {fmt}: {text}", source=src) from None


def _check_header(data: bytes, sep: str, source) -> None:
    """A repeated column name is an error (pandas would rename it ``a.1``).

    An empty name (the index column of ``DataFrame.to_csv``) is kept as pandas
    names it, ``Unnamed: N`` (N counted from 0), an extra column no reader uses.
    """
    import csv

    first = data.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    try:
        names = next(csv.reader([first], delimiter=sep), [])
    except csv.Error:
        return  # the table reader reports it
    seen = set()
    for name in (n or f"Unnamed: {i}" for i, n in enumerate(names)):
        if name in seen:
            raise InputError(f"column {name!r} appears twice in the header row", source=source,
                             line=1)
        seen.add(name)


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


#: A ``\uD800``-``\uDFFF`` escape: JSON text may hold one, Unicode text may not
#: unless it pairs with another into one character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def loads(text: str, source, line: int | None = None):
    r"""Strict :func:`json.loads`: a repeated key, ``NaN``/``Infinity`` or a lone
    surrogate escape (``"\ud800"``, which no UTF-8 text can hold) is an error.
    """
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
        if _SURROGATE_ESCAPE.search(text):
            json.dumps(value, ensure_ascii=False).encode("utf-8")  # pairs encode, lone ones fail
        return value
    except UnicodeEncodeError as exc:
        char = exc.object[exc.start:exc.end].encode("unicode_escape").decode("ascii")
        raise InputError(f"invalid JSON (the escape {char} is a lone surrogate, not a "
                         "character)", source=source, line=line) from None
    except _DuplicateKey as exc:
        raise InputError(f"JSON key {exc.args[0]!r} appears twice in one object",
                         source=source, line=line) from None
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        col = exc.colno
        raise InputError(f"invalid JSON ({exc.msg} at column {col})", source=source,
                         line=where) from None
    except (ValueError, RecursionError) as exc:
        problem = str(exc) if isinstance(exc, ValueError) else "JSON nested too deeply"
        raise InputError(f"invalid JSON ({problem})", source=source, line=line) from None


def json_id(value, what: str, source, line: int | None) -> str:
    """An id from JSON: a non-empty string, or an integer read as its decimal text.

    ``null``, booleans, decimals, lists and objects are errors naming the line.
    """
    if isinstance(value, str):
        if value == "":
            raise InputError(f"empty {what}", source=source, line=line)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"{what} must be a string (or an integer), got {json.dumps(value)[:60]}",
                     source=source, line=line)


def json_objects(text: str, source, what: str = "one JSON object per line"
                 ) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each non-blank line of JSON Lines text.

    ``text`` comes from :func:`decode_utf8`, which has dropped the one leading BOM
    (a second one is not JSON, so it is an error).

    Invalid JSON, a repeated key, or a line that is not an object is an error
    naming the line.
    """
    for number, raw in text_lines(text):
        if not raw.strip(" \t\r"):
            continue
        obj = loads(raw, source, number)
        if not isinstance(obj, dict):
            raise InputError(f"expected {what}", source=source, line=number)
        yield number, obj


def table_ids(values: pd.Series, what: str, source, first_line: int) -> pd.Series:
    """An id column of a CSV/Parquet table as text: strings, or integers read as decimal text.

    A missing id (Parquet null), a decimal or a boolean is an error naming the row.
    """
    if pd.api.types.is_integer_dtype(values.dtype) and not values.hasnans:
        return values.astype("str")
    if pd.api.types.is_bool_dtype(values.dtype) or pd.api.types.is_float_dtype(values.dtype):
        raise InputError(f"{what} must be text or integers, not {values.dtype}", source=source)
    bad = ~values.map(lambda v: isinstance(v, str)).to_numpy(bool)
    if bad.any():
        i = int(bad.argmax())
        raise InputError(f"{what} must be a string, got {values.iloc[i]!r}", source=source,
                         line=first_line + i)
    return values.astype("str")


def table_numbers(values: pd.Series, integer: bool, what: str, source, first_line: int
                  ) -> pd.Series:
    """A numeric column of a CSV/Parquet table as float64; text must be strict ASCII.

    Empty text is missing (NaN); other text must match :data:`INTEGER` (``integer``)
    or :data:`DECIMAL`, else an error names the row.
    """
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
            values.dtype):
        return values.astype("float64")
    text = values.astype("str")
    pattern = _INTEGER_RE if integer else _DECIMAL_RE
    ok = (text.map(lambda v: v == "" or pattern.fullmatch(v) is not None).to_numpy(bool)
          & values.notna().to_numpy())
    if not ok.all():
        i = int((~ok).argmax())
        kind = "an integer" if integer else "a decimal number"
        raise InputError(f"{what} {values.iloc[i]!r} is not {kind}", source=source,
                         line=first_line + i)
    return pd.Series([float(v) if v else np.nan for v in text], index=values.index,
                     dtype="float64")
