"""Opening input files: gzip by magic bytes, format by name or first line.

The fast path reads delimited text with pyarrow (multithreaded, columnar); when
it cannot (odd whitespace, a bad value), :func:`split_lines` re-reads the file
line by line so that the error names the exact line.
"""
from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from ragnb._keys import first_empty, id_series, release_memory
from ragnb.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"

#: Format names understood by the readers; ``auto`` sniffs.
FORMATS = ("auto", "trec", "jsonl", "csv", "tsv", "parquet")


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_binary(path: str | Path):
    """Open ``path`` for binary reading, decompressing gzip transparently."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", source=path)
    if path.is_dir():
        raise InputError("is a directory, expected a file", source=path)
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def read_bytes(path: str | Path) -> bytes:
    """The whole (decompressed) content of ``path``; an empty file is an error."""
    with open_binary(path) as fh:
        data = fh.read()
    if not data.strip():
        raise InputError("the file is empty", source=path)
    return data


def _stem(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def sniff_format(path: str | Path, data: bytes | None = None) -> str:
    """Guess the format of ``path`` from its name, else from its first line."""
    path = Path(path)
    name = _stem(path)
    for suffix, fmt in ((".jsonl", "jsonl"), (".json", "jsonl"), (".csv", "csv"),
                        (".tsv", "tsv"), (".parquet", "parquet"), (".pq", "parquet")):
        if name.endswith(suffix):
            return fmt
    if data is None:
        with open_binary(path) as fh:
            head = fh.read(4096)
    else:
        head = data[:4096]
    if head.startswith(b"PAR1"):
        return "parquet"
    first = head.lstrip().split(b"\n", 1)[0].strip()
    if first.startswith((b"{", b"[")):
        return "jsonl"
    return "trec"


def read_whitespace_frame(
    path: str | Path, names: list[str], types: dict[str, pa.DataType],
    one_chunk: tuple[str, ...] = (),
) -> pd.DataFrame | None:
    """Fast path: single-space separated columns parsed by pyarrow, straight from the file.

    Only the columns in ``types`` are converted (the others are skipped); strings
    become arrow-string columns (:func:`ragnb._keys.id_series`), numbers numpy
    arrays, and each arrow column is released as soon as it is converted.
    Returns ``None`` when the file does not fit the fast path exactly (tabs,
    repeated spaces, blank lines, a value of the wrong type); the caller then
    falls back to :func:`split_lines`, which reports the offending line.
    Columns in ``one_chunk`` are made contiguous (a copy, once), for columns
    that are later read at random rows.
    """
    path = Path(path)
    source = pa.input_stream(str(path), compression="gzip") if is_gzip(path) else str(path)
    try:
        table = pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter=" ", quote_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types, include_columns=list(types),
                strings_can_be_null=False, quoted_strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.num_rows == 0:
        return None
    for n in types:
        column = table.column(n)
        if column.null_count:
            return None  # blank lines or missing fields
        if pa.types.is_string(column.type) and first_empty(column) >= 0:
            return None  # repeated spaces give empty fields
    del column
    columns = {}
    for n in types:
        column = table.column(n)
        table = table.drop_columns([n])  # this function holds the only reference
        if n in one_chunk and column.num_chunks > 1:
            column = pa.chunked_array([column.combine_chunks()], type=column.type)
        columns[n] = (id_series(column) if pa.types.is_string(column.type)
                      else column.to_numpy())
        del column
    release_memory()  # arrow's allocator keeps the parser's buffers otherwise
    return pd.DataFrame(columns, copy=False)


def split_lines(data: bytes, source: str | Path, ncols: int) -> Iterator[tuple[int, list[str]]]:
    """Slow path: yield ``(line_number, fields)`` for each non-blank line.

    Fields are split on any whitespace; a line with the wrong number of fields
    is an error naming the line.
    """
    text = data.decode("utf-8", errors="strict") if isinstance(data, bytes) else data
    for number, raw in enumerate(text.splitlines(), start=1):
        fields = raw.split()
        if not fields:
            continue
        if len(fields) != ncols:
            raise InputError(
                f"expected {ncols} whitespace-separated fields, found {len(fields)}: {raw[:120]!r}",
                source=source,
                line=number,
            )
        yield number, fields


def decode_utf8(data: bytes, source: str | Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 ({exc.reason})", source=source, line=line) from None


def read_table_file(path: str | Path, fmt: str):
    """A CSV/TSV/Parquet long table as a pandas DataFrame (header row required)."""
    path = Path(path)
    try:
        if fmt == "parquet":
            return pd.read_parquet(path)
        with open_binary(path) as fh:
            return pd.read_csv(fh, sep="\t" if fmt == "tsv" else ",", dtype=str,
                               keep_default_na=False, engine="pyarrow")
    except InputError:
        raise
    except Exception as exc:  # pandas/pyarrow give many exception types here
        raise InputError(f"cannot read as {fmt}: {exc}", source=path) from None


def json_objects(text: str, source: str | Path, what: str = "one JSON object per line"
                 ) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` for each non-blank line of JSON Lines text.

    Invalid JSON or a line that is not an object is an error naming the line.
    """
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg} at column {exc.colno})",
                             source=source, line=number) from None
        if not isinstance(obj, dict):
            raise InputError(f"expected {what}", source=source, line=number)
        yield number, obj
