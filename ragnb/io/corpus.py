"""Reader for corpus builds: CSV/TSV/Parquet/JSONL tables of ``passage_id, doc_version``.

Ends in :func:`ragnb.corpus.validate_corpus`, the one place a build is checked;
line numbers count the CSV header as line 1 (Parquet rows from 1).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ragnb.corpus import CorpusBuild, validate_corpus
from ragnb.errors import InputError
from ragnb.io._source import (
    decode_utf8,
    read_bytes,
    read_table_file,
    sniff_format,
    source_of,
)
from ragnb.io.strata import _json_lines


def read_corpus(path: str | Path, *, format: str = "auto", name: str | None = None
                ) -> CorpusBuild:
    """Read a corpus build (one row per passage of the index, with its document version).

    Parameters
    ----------
    path : str or Path
        CSV/TSV/Parquet with a header, or JSON Lines with one object per passage;
        gzip is decompressed transparently.
    format : {"auto", "csv", "tsv", "parquet", "jsonl"}
        ``auto`` decides from the file name, else from the first line.
    name : str, optional
        The build's name; defaults to the file name without extensions.
    """
    path = source_of(path)
    fmt = sniff_format(path) if format == "auto" else format
    if fmt == "jsonl":
        df = pd.DataFrame(_json_lines(decode_utf8(read_bytes(path), path), path))
    elif fmt in ("csv", "tsv", "parquet"):
        if fmt != "parquet":
            read_bytes(path)  # an empty file is an error naming the file
        df = read_table_file(path, fmt)
        first = 2 if fmt != "parquet" else 1
        df["line"] = np.arange(first, first + len(df))
    else:
        raise InputError(f"a corpus build must be CSV, TSV, Parquet or JSONL, not {fmt!r}",
                         source=path)
    return validate_corpus(df, path, name=name)
