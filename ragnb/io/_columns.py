"""Column normalisation shared by the validators (ids, line numbers, missing text).

Ids become pandas ``str`` columns that share arrow's character data with the
reader's output (no per-row Python objects); line numbers are int32 where they
fit. Used by :func:`ragnb.io.testset.validate_judgments` and
:func:`ragnb.io.run.validate_run`, which remain the one validation place of their input.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ragnb.errors import InputError
from ragnb.io.keys import ID_DTYPE, as_arrow, first_empty, id_series


def line_numbers(raw: pd.DataFrame, n: int) -> np.ndarray:
    """The ``line`` column (1..n when absent) as int32, or int64 when a line exceeds 2**31."""
    if "line" not in raw:
        return np.arange(1, n + 1, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    line = raw["line"].to_numpy()
    if line.dtype == np.int32:
        return line
    line = line.astype(np.int64, copy=False)
    return line.astype(np.int32) if not len(line) or line.max() < 2**31 else line


def id_column(values: pd.Series, name: str, line: np.ndarray, source) -> pd.Series:
    """A column of ids as an arrow-string Series (:data:`ragnb.io.keys.ID_DTYPE`).

    Non-string values (numbers in a Parquet file) become their text; an empty
    or missing id is an error naming its line.
    """
    if not isinstance(values.dtype, (pd.StringDtype, pd.ArrowDtype)):
        values = values.astype("str")
    arr = as_arrow(values)
    empty = first_empty(arr)
    if empty >= 0:
        raise InputError(f"empty {name}", source=source, line=int(line[empty]))
    return id_series(arr)


def text_column(values: pd.Series) -> pd.Series:
    """Free text that may be missing (doc versions) as an arrow-string Series."""
    if not isinstance(values.dtype, (pd.StringDtype, pd.ArrowDtype)):
        values = values.astype("str")
    return id_series(as_arrow(values))


def missing_strings(n: int) -> pd.Series:
    """An all-missing arrow-string column of length ``n``.

    Its zero-filled buffers come from ``np.zeros`` (calloc), so the pages stay
    untouched and cost no resident memory until something reads them.
    """
    offsets = np.zeros(n + 1, dtype=np.int32)
    validity = np.zeros((n + 7) // 8, dtype=np.uint8)
    arr = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(b""),
                                      pa.py_buffer(validity), null_count=n)
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([arr])), dtype=ID_DTYPE,
                     copy=False)
