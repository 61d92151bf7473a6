"""Fast, exact key operations on string columns (query ids, passage ids).

Hashing ten million passage ids is the slowest step of scoring a big run, so
duplicate detection uses 64-bit fingerprints that are *only candidates*: every
candidate is confirmed by comparing the actual strings, so a fingerprint
collision costs time, never correctness.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)
_ONE = np.uint64(1)


def as_arrow(values) -> pa.ChunkedArray:
    """A pandas string Series (or array) as an arrow chunked array, zero-copy when possible."""
    if isinstance(values, pa.ChunkedArray):
        return values
    if isinstance(values, pa.Array):
        return pa.chunked_array([values])
    arr = values.array if isinstance(values, pd.Series) else values
    try:
        out = pa.array(arr)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        out = pa.array(np.asarray(arr, dtype=object).astype(str))
    if isinstance(out, pa.ChunkedArray):
        return out
    return pa.chunked_array([out])


def codes_for(values, index: pd.Index) -> np.ndarray:
    """Position of each value in ``index`` (-1 when absent), via factorize-then-lookup."""
    codes, uniques = pd.factorize(values, sort=False)
    lookup = index.get_indexer(pd.Index(uniques, dtype="str"))
    return lookup[codes] if len(codes) else np.empty(0, dtype=np.int64)


def _chunk_fingerprints(arr: pa.Array) -> np.ndarray:
    n = len(arr)
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    if arr.null_count:
        arr = arr.fill_null("")
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(arr.buffers()[1], dtype=off_type)[arr.offset: arr.offset + n + 1]
    data_buf = arr.buffers()[2]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.empty(0, np.uint8)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 16, dtype=np.uint8)
    padded[8: 8 + hi - lo] = data[lo:hi]
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1].astype(np.int64) - lo + 8
    end = offsets[1:].astype(np.int64) - lo + 8
    length = (end - start).astype(np.uint64)
    first = words[start]
    last = words[end - 8]
    short = length < 8
    if short.any():
        mask = (_ONE << (np.minimum(length, np.uint64(7)) * np.uint64(8))) - _ONE
        first = np.where(short, first & mask, first)
        last = np.where(short, np.uint64(0), last)
    h = (first * _M1) ^ (last * _M2) ^ (length * _M3)
    h ^= h >> np.uint64(29)
    return h


def fingerprints(values) -> np.ndarray:
    """64-bit fingerprint of each string (equal strings, equal fingerprints)."""
    chunks = as_arrow(values).chunks
    if not chunks:
        return np.empty(0, dtype=np.uint64)
    return np.concatenate([_chunk_fingerprints(c) for c in chunks])


def duplicated_pairs(groups: np.ndarray, values: pd.Series) -> np.ndarray:
    """Boolean mask of rows whose (group, value) pair occurred on an earlier row.

    Exact: fingerprints select candidates, pandas confirms them on the strings.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=bool)
    key = fingerprints(values) ^ (groups.astype(np.uint64) * _M2)
    key ^= key >> np.uint64(31)
    s = np.sort(key)
    repeated = s[1:][s[1:] == s[:-1]]
    out = np.zeros(n, dtype=bool)
    if not len(repeated):
        return out
    candidates = np.flatnonzero(np.isin(key, np.unique(repeated)))
    frame = pd.DataFrame({"g": groups[candidates], "v": np.asarray(values)[candidates]})
    out[candidates[frame.duplicated(["g", "v"]).to_numpy()]] = True
    return out
