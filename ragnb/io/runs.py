"""Readers for runs in three formats.

- TREC run: ``query_id Q0 passage_id rank score tag`` per line.
- JSONL: ``{query_id: [passage_id, ...]}`` per line (or one object for the whole
  file); list position is the rank.
- CSV/TSV/Parquet long table: ``query_id, passage_id`` and ``rank`` and/or ``score``.

All of them end in :func:`ragnb.io.run.validate_run`, which fixes the ranking order.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ragnb.errors import InputError, listed
from ragnb.io.keys import release_memory
from ragnb.io.run import Order, Run, validate_run
from ragnb.io.source import (
    InputPath,
    Source,
    decode_utf8,
    json_id,
    json_objects,
    loads,
    parse_decimal,
    parse_integer,
    read_bytes,
    read_table_file,
    read_whitespace_frame,
    sniff_format,
    source_of,
    split_lines,
    table_ids,
    table_numbers,
)
from ragnb.io.trec import blank_comments, comment_note, extra_fields_note, has_comment_ids


def read_run(path: InputPath, *, name: str | None = None, format: str = "auto",
             order: Order | None = None) -> Run:
    """Read a run and put it in ranking order.

    Parameters
    ----------
    path : str or Path
        The file; gzip is decompressed transparently; ``-`` or a pipe is read once.
    name : str, optional
        Config name; defaults to the file name without extensions.
    format : {"auto", "trec", "jsonl", "csv", "tsv", "parquet"}
    order : {"rank", "score"}, optional
        How to order each ranking (see :mod:`ragnb.io.run`); default: score
        descending, ties by passage id descending (trec_eval) where the format
        has scores, else the rank (list position).
    """
    path = source_of(path)
    fmt = sniff_format(path) if format == "auto" else format
    reader = _READERS.get(fmt)
    if reader is None:
        raise InputError(f"unknown run format {fmt!r}; choose one of "
                         f"{listed(sorted(_READERS), most=20)}",
                         source=path)
    df = reader(path)
    run = validate_run(df, str(path), order=order, name=name or run_name(path))
    if df.attrs.get("notes"):  # what the TREC reader skipped or ignored (ragnb.io.trec)
        run = replace(run, notes=df.attrs["notes"] + run.notes)
    if df.attrs.get("empty"):  # queries a JSON run answers with an empty list
        run = replace(run, empty=df.attrs["empty"])
    del df
    release_memory()
    return run


def run_name(path: InputPath) -> str:
    """A run's default config name (:func:`config_of_file`; ``<stdin>`` for ``-``)."""
    if isinstance(path, Source):
        return config_of_file(path.name)
    return "<stdin>" if str(path) == "-" else config_of_file(Path(path).name)


def config_of_file(file_name: str) -> str:
    """The config a run file names: the file name up to the first dot, except TREC's archive
    names ``input.<tag>[.gz]`` (how TREC distributes submitted runs), which give ``<tag>``.

    >>> config_of_file("bm25.run.gz"), config_of_file("input.org_convdr.gz")
    ('bm25', 'org_convdr')
    """
    if file_name.startswith("input.") and file_name.removesuffix(".gz") != "input":
        return file_name.removeprefix("input.").removesuffix(".gz")
    return file_name.split(".")[0]


@dataclass(frozen=True)
class RunFile:
    """A run file named but not read yet: :meth:`read` reads it (:func:`read_run`).

    Its config ``name`` is known before reading, so a scorer can take a list of
    them, check the names, and hold one run in memory at a time
    (:func:`ragnb.metrics.score.score` reads each, scores it and lets it go).
    """

    path: InputPath
    name: str
    order: Order | None = None
    format: str = "auto"

    @classmethod
    def of(cls, path: InputPath, *, name: str | None = None, order: Order | None = None,
           format: str = "auto") -> RunFile:
        """The run file at ``path``, named ``name`` or after the file (:func:`run_name`)."""
        return cls(path, name or run_name(path), order, format)

    def read(self) -> Run:
        return read_run(self.path, name=self.name, order=self.order, format=self.format)


def _read_trec(path) -> pd.DataFrame:
    names = ["query_id", "q0", "passage_id", "rank", "score", "tag"]
    df = read_whitespace_frame(
        path, names, {"query_id": pa.string(), "passage_id": pa.string(),
                      "rank": pa.int64(), "score": pa.float64()}, as_float=("rank",))
    if df is not None and not has_comment_ids(df["query_id"]):
        return df  # one line per row: validate_run numbers them
    text, comments = blank_comments(decode_utf8(read_bytes(path), path))
    rows = []
    longer = 0
    for number, fields in split_lines(text, path, 6, at_least=True):
        q, _, p, r, s = fields[:5]
        longer += len(fields) > 6
        rank = float(parse_integer(r, "rank", path, number))
        score = parse_decimal(s, "score", path, number)
        rows.append((q, p, rank, score, number))
    df = pd.DataFrame(rows, columns=["query_id", "passage_id", "rank", "score", "line"])
    df.attrs["notes"] = comment_note(comments, path) + extra_fields_note(longer, path)
    return df


def _read_jsonl(path) -> pd.DataFrame:
    text = decode_utf8(read_bytes(path), path)
    stripped = text.strip(" \t\r\n")
    entries: Iterable[tuple[int, Any]] | None = None
    if stripped.startswith("{") and "\n" in stripped:
        try:  # one JSON object for the whole file
            whole = loads(stripped, path)
            entries = [(1, whole)]
        except InputError as exc:
            if "appears twice" in exc.problem:
                raise
            entries = None
    else:
        entries = None
    if entries is None:
        entries = json_objects(text, path, "an object {query_id: [passage_id, ...]}")
    qids, pids, ranks, lines = [], [], [], []
    empty: list[str] = []
    seen: dict[str, int] = {}
    for number, obj in entries:
        if not isinstance(obj, dict):
            raise InputError("expected an object {query_id: [passage_id, ...]}", source=path,
                             line=number)
        for qid, ranking in obj.items():
            if qid in seen:
                raise InputError(f"query {qid!r} is given twice (lines {seen[qid]} and {number})",
                                 source=path, line=number)
            seen[qid] = number
            if not isinstance(ranking, list):
                raise InputError(f"the ranking of query {qid!r} must be a list of passage ids",
                                 source=path, line=number)
            if not ranking:     # no rows; the run records it as answered with nothing
                empty.append(qid)
            for r, pid in enumerate(ranking, start=1):
                qids.append(qid)
                pids.append(json_id(pid, f"passage id at position {r} of query {qid!r}",
                                    path, number))
                ranks.append(r)
                lines.append(number)
    if not qids:
        raise InputError("the run has no passages", source=path)
    df = pd.DataFrame({"query_id": pd.array(qids, dtype="str"),
                       "passage_id": pd.array(pids, dtype="str"),
                       "rank": np.asarray(ranks, dtype="float64"), "score": np.nan,
                       "line": lines})
    df.attrs["empty"] = tuple(empty)
    return df


def _read_table(path, fmt: str) -> pd.DataFrame:
    df = read_table_file(path, fmt)
    missing = [c for c in ("query_id", "passage_id") if c not in df]
    if missing or not ({"rank", "score"} & set(df.columns)):
        raise InputError(
            f"a run table needs columns query_id, passage_id and rank and/or score; "
            f"found {listed(list(df.columns), most=20)}", source=path)
    first_line = 2 if fmt != "parquet" else 1
    out = pd.DataFrame({c: table_ids(df[c], c, path, first_line)
                        for c in ("query_id", "passage_id")})
    for col in ("rank", "score"):
        if col in df:
            out[col] = table_numbers(df[col], col == "rank", col, path, first_line)
    out["line"] = np.arange(first_line, first_line + len(df))
    return out


_READERS = {
    "trec": _read_trec,
    "jsonl": _read_jsonl,
    "csv": lambda p: _read_table(p, "csv"),
    "tsv": lambda p: _read_table(p, "tsv"),
    "parquet": lambda p: _read_table(p, "parquet"),
}
