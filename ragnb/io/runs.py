"""Readers for runs in three formats.

- TREC run: ``query_id Q0 passage_id rank score tag`` per line.
- JSONL: ``{query_id: [passage_id, ...]}`` per line (or one object for the whole
  file); list position is the rank.
- CSV/TSV/Parquet long table: ``query_id, passage_id`` and ``rank`` and/or ``score``.

All of them end in :func:`ragnb.run.validate_run`, which fixes the ranking order.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from ragnb._keys import release_memory
from ragnb.errors import InputError
from ragnb.io._source import (
    decode_utf8,
    json_objects,
    read_bytes,
    read_table_file,
    read_whitespace_frame,
    sniff_format,
    split_lines,
)
from ragnb.run import Order, Run, validate_run


def read_run(path: str | Path, *, name: str | None = None, format: str = "auto",
             order: Order | None = None) -> Run:
    """Read a run and put it in ranking order.

    Parameters
    ----------
    path : str or Path
        The file; gzip is decompressed transparently.
    name : str, optional
        Config name; defaults to the file name without extensions.
    format : {"auto", "trec", "jsonl", "csv", "tsv", "parquet"}
    order : {"rank", "score"}, optional
        How to order each ranking (see :mod:`ragnb.run`); default: score
        descending, ties by passage id descending (trec_eval) where the format
        has scores, else the rank (list position).
    """
    path = Path(path)
    fmt = sniff_format(path) if format == "auto" else format
    reader = _READERS.get(fmt)
    if reader is None:
        raise InputError(f"unknown run format {fmt!r}; choose one of {sorted(_READERS)}",
                         source=path)
    df = reader(path)
    run = validate_run(df, path, order=order, name=name or path.name.split(".")[0])
    del df
    release_memory()
    return run


def _read_trec(path: Path) -> pd.DataFrame:
    names = ["query_id", "q0", "passage_id", "rank", "score", "tag"]
    df = read_whitespace_frame(
        path, names, {"query_id": pa.string(), "passage_id": pa.string(),
                      "rank": pa.float64(), "score": pa.float64()})
    if df is not None:  # one line per row: validate_run numbers them
        return df
    data = read_bytes(path)
    rows = []
    for number, (q, _, p, r, s, _tag) in split_lines(decode_utf8(data, path), path, 6):
        try:
            rank = float(r)
        except ValueError:
            raise InputError(f"rank {r!r} is not a number", source=path, line=number) from None
        try:
            score = float(s)
        except ValueError:
            raise InputError(f"score {s!r} is not a number", source=path, line=number) from None
        rows.append((q, p, rank, score, number))
    return pd.DataFrame(rows, columns=["query_id", "passage_id", "rank", "score", "line"])


def _read_jsonl(path: Path) -> pd.DataFrame:
    text = decode_utf8(read_bytes(path), path)
    stripped = text.strip()
    if stripped.startswith("{") and "\n" in stripped:
        try:  # one JSON object for the whole file
            whole = json.loads(stripped)
            entries = [(1, whole)]
        except json.JSONDecodeError:
            entries = None
    else:
        entries = None
    if entries is None:
        entries = json_objects(text, path, "an object {query_id: [passage_id, ...]}")
    qids, pids, ranks, lines = [], [], [], []
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
            for r, pid in enumerate(ranking, start=1):
                if not isinstance(pid, (str, int)) or isinstance(pid, bool):
                    raise InputError(f"passage id {pid!r} in query {qid!r} is not a string",
                                     source=path, line=number)
                qids.append(qid)
                pids.append(str(pid))
                ranks.append(r)
                lines.append(number)
    if not qids:
        raise InputError("the run has no passages", source=path)
    return pd.DataFrame({"query_id": pd.array(qids, dtype="str"),
                         "passage_id": pd.array(pids, dtype="str"),
                         "rank": np.asarray(ranks, dtype="float64"), "score": np.nan,
                         "line": lines})


def _read_table(path: Path, fmt: str) -> pd.DataFrame:
    df = read_table_file(path, fmt)
    missing = [c for c in ("query_id", "passage_id") if c not in df]
    if missing or not ({"rank", "score"} & set(df.columns)):
        raise InputError(
            f"a run table needs columns query_id, passage_id and rank and/or score; "
            f"found {list(df.columns)}", source=path)
    first_line = 2 if fmt != "parquet" else 1
    out = pd.DataFrame({"query_id": df["query_id"].astype("str"),
                        "passage_id": df["passage_id"].astype("str")})
    for col in ("rank", "score"):
        if col in df:
            values = pd.to_numeric(df[col].replace("", np.nan), errors="coerce")
            bad = values.isna() & df[col].notna() & (df[col].astype("str") != "")
            if bad.any():
                i = int(np.flatnonzero(bad.to_numpy())[0])
                raise InputError(f"{col} {df[col].iloc[i]!r} is not a number", source=path,
                                 line=first_line + i)
            out[col] = values.astype("float64")
    out["line"] = np.arange(first_line, first_line + len(df))
    return out


_READERS = {
    "trec": _read_trec,
    "jsonl": _read_jsonl,
    "csv": lambda p: _read_table(p, "csv"),
    "tsv": lambda p: _read_table(p, "tsv"),
    "parquet": lambda p: _read_table(p, "parquet"),
}
