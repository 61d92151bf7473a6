"""Reader for corpus builds: CSV/TSV/Parquet/JSONL tables of ``passage_id, doc_version``.

Ends in :func:`ragnb.io.corpus_build.validate_corpus`, the one place a build is checked;
line numbers count the CSV header as line 1 (Parquet rows from 1).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.io.corpus_build import CorpusBuild, validate_corpus
from ragnb.io.source import (
    InputPath,
    decode_utf8,
    read_bytes,
    read_table_file,
    sniff_format,
    source_of,
    table_ids,
)
from ragnb.io.strata import _json_lines, _no_line_column


def read_corpus(path: InputPath, *, format: str = "auto", name: str | None = None
                ) -> CorpusBuild:
    """Read a corpus build (one row per passage of the index, with its document version).

    Parameters
    ----------
    path : str or Path
        CSV/TSV/Parquet with a header, or JSON Lines with one object per passage;
        gzip is decompressed transparently. In JSON, ``passage_id`` and
        ``doc_version`` are strings, or integers read as their digits (a decimal
        such as ``1.10`` would lose its trailing zero, so it is an error); a
        repeated key, ``null`` id, list or object is an error naming the line.
    format : {"auto", "csv", "tsv", "parquet", "jsonl"}
        ``auto`` decides from the file name, else from the first line.
    name : str, optional
        The build's name; defaults to the file name without extensions.
    """
    path = source_of(path)
    fmt = sniff_format(path) if format == "auto" else format
    if fmt == "jsonl":
        rows = _json_lines(decode_utf8(read_bytes(path), path), path, "passage_id")
        for row in rows:
            version = row.get("doc_version")
            if version is not None and (not isinstance(version, (str, int))
                                        or isinstance(version, bool)):
                raise InputError(f"doc_version must be a string (or an integer), got "
                                 f"{json.dumps(version)}", source=path, line=row["line"],
                                 key="doc_version")
            if isinstance(version, int):
                row["doc_version"] = str(version)
        df = pd.DataFrame(rows)
    elif fmt in ("csv", "tsv", "parquet"):
        if fmt != "parquet":
            read_bytes(path)  # an empty file is an error naming the file
        df = read_table_file(path, fmt)
        _no_line_column(df.columns, path)
        first = 2 if fmt != "parquet" else 1
        df["line"] = np.arange(first, first + len(df))
        if "passage_id" in df:
            df["passage_id"] = table_ids(df["passage_id"], "passage_id", path, first)
    else:
        raise InputError(f"a corpus build must be CSV, TSV, Parquet or JSONL, not {fmt!r}",
                         source=path)
    return validate_corpus(df, path, name=name)
