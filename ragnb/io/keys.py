"""Fast, exact key operations on string columns (query ids, passage ids).

Hashing ten million passage ids into a hash table is the slowest way to score
a big run, so every operation here works on 64-bit *fingerprints* computed with
numpy straight from arrow's string buffers, sorted with ``np.sort`` (fast on
integers), and treated as *candidates* only: every candidate is confirmed by
comparing the actual strings, so a fingerprint collision costs time, never
correctness.

- :func:`block_codes` numbers the values of a column that is grouped into
  blocks of equal values (a run's query ids, a qrels file's query ids) from the
  block heads only;
- :func:`duplicated_pairs` finds repeated (group, string) pairs;
- :func:`matching_pairs` joins two tables on (group, string).

Large columns are processed in pieces of :data:`BLOCK` rows, which bounds the
temporary memory and lets the pieces run on a small thread pool (numpy and
arrow release the GIL on this work).
"""
from __future__ import annotations

import contextlib
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)
_M4 = np.uint64(0xBF58476D1CE4E5B9)
_ONE = np.uint64(1)

#: Rows handled at a time by the blockwise loops: bounds their temporary memory.
BLOCK = 1 << 20

#: The dtype of id columns: arrow ``string`` (4-byte offsets; pandas' own ``str``
#: dtype would copy them into ``large_string``, 8 bytes per row).
ID_DTYPE = pd.ArrowDtype(pa.string())
_LARGE_ID_DTYPE = pd.ArrowDtype(pa.large_string())

# masks keeping the first n bytes of a little-endian word, n = 0..8
_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [2**64 - 1], dtype=np.uint64)


# ------------------------------------------------------------ plumbing ----

_POOL: tuple[int, ThreadPoolExecutor] | None = None


def _workers() -> int:
    """Threads of the pool: one per core, at most 8."""
    return min(os.cpu_count() or 1, 8)


def parallel_map(fn: Callable, items: Iterable) -> list:
    """``[fn(x) for x in items]`` on the readers' small thread pool (re-made after a
    fork), for work that releases the GIL (numpy, arrow).

    ``fn`` must not call :func:`parallel_map` itself (a job waiting for jobs of the
    same pool could wait forever).
    """
    global _POOL
    items = list(items)
    workers = _workers()
    if workers == 1 or len(items) < 2:
        return [fn(x) for x in items]
    if _POOL is None or _POOL[0] != os.getpid():
        _POOL = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix="ragnb-keys"))
    return list(_POOL[1].map(fn, items))


def _malloc_trim() -> Callable[[], None]:
    """Glibc's ``malloc_trim`` (a no-op elsewhere).

    The process's allocator settings are left alone: fixing glibc's mmap threshold
    (``mallopt(M_MMAP_THRESHOLD, 16 MiB)``) lowered the 100k-query light benchmark's
    peak RSS by 2.5% (1000 -> 975 MB), too little to retune the allocator of
    every process (a user's Jupyter kernel) that imports the readers.
    """
    try:
        import ctypes

        trim = ctypes.CDLL("libc.so.6").malloc_trim  # glibc only
    except (OSError, AttributeError):
        return lambda: None
    return lambda: trim(0)


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Return freed memory to the OS after a big step.

    Arrow's allocator keeps freed buffers, and glibc keeps the freed blocks of
    every thread's arena (the thread pool above has several); both give them
    back here, which keeps the next step's peak down.
    """
    pa.default_memory_pool().release_unused()
    _release_in_workers()
    _TRIM()


def _release_in_workers() -> None:
    """Arrow's release in each thread of the pool: mimalloc (arrow's default allocator)
    keeps the blocks freed by a thread in that thread's own heap, which a release
    called from the main thread does not reach (about 100 MB after the 100k-query join).
    """
    if _POOL is None or _POOL[0] != os.getpid():
        return
    executor = _POOL[1]
    workers = _workers()
    barrier = threading.Barrier(workers)

    def job(_):  # the barrier holds every job until all run, one per thread
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=10)
        pa.default_memory_pool().release_unused()

    list(executor.map(job, range(workers)))


def as_arrow(values) -> pa.ChunkedArray:
    """A pandas string Series (or array) as an arrow chunked array, zero-copy when possible."""
    if isinstance(values, pa.ChunkedArray):
        return values
    if isinstance(values, pa.Array):
        return pa.chunked_array([values])
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.array
    data = getattr(values, "_pa_array", None)  # pandas' arrow-backed arrays
    if isinstance(data, pa.ChunkedArray) and (pa.types.is_string(data.type)
                                              or pa.types.is_large_string(data.type)):
        return data
    try:
        out = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        out = pa.array(np.asarray(values, dtype=object).astype(str))
    if not (pa.types.is_string(out.type) or pa.types.is_large_string(out.type)):
        out = pa.array(np.asarray(values, dtype=object).astype(str))
    if isinstance(out, pa.ChunkedArray):
        return out
    return pa.chunked_array([out])


def id_series(values, index=None) -> pd.Series:
    """Strings as an arrow-backed pandas Series sharing arrow's buffers (no copy).

    dtype :data:`ID_DTYPE` (``large_string`` only past 2 GiB of text).
    """
    values = as_arrow(values)
    if pa.types.is_large_string(values.type):
        with contextlib.suppress(pa.ArrowInvalid, pa.ArrowNotImplementedError):  # beyond 2 GiB
            values = values.cast(pa.string())
    dtype = ID_DTYPE if pa.types.is_string(values.type) else _LARGE_ID_DTYPE
    return pd.Series(pd.arrays.ArrowExtensionArray(values), index=index, dtype=dtype,
                     copy=False)


def _chunk_starts(values: pa.ChunkedArray) -> np.ndarray:
    return np.cumsum([0] + [len(c) for c in values.chunks])


def take_sorted(values: pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``values[rows]`` for increasing ``rows``, chunk by chunk.

    Arrow's ``take`` on a chunked string array first concatenates every chunk
    (a copy of the whole column); taking from each chunk avoids that.
    """
    if values.num_chunks == 1:
        return values.chunk(0).take(pa.array(rows))
    bounds = np.searchsorted(rows, _chunk_starts(values))
    starts = _chunk_starts(values)
    parts = [chunk.take(pa.array(rows[a:b] - start))
             for chunk, a, b, start in zip(values.chunks, bounds[:-1], bounds[1:], starts)
             if b > a]
    if not parts:
        return pa.array([], type=values.type)
    return pa.concat_arrays(parts)


# Derived data of an arrow column, kept while the column lives. Arrow arrays are
# immutable, so the same (live) object always has the same content.
_MEMO: dict[tuple[int, str], tuple[weakref.ref, object]] = {}


def _memo(arr: pa.ChunkedArray, what: str, compute: Callable):
    key = (id(arr), what)
    hit = _MEMO.get(key)
    if hit is not None and hit[0]() is arr:
        return hit[1]
    value = compute()

    def forget(ref, key=key):
        if _MEMO.get(key, (None,))[0] is ref:
            del _MEMO[key]

    _MEMO[key] = (weakref.ref(arr, forget), value)
    return value


def _offsets(arr: pa.Array) -> np.ndarray:
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    return np.frombuffer(arr.buffers()[1], dtype=off_type)[arr.offset: arr.offset + len(arr) + 1]


def _pieces(values) -> Iterator[tuple[int, pa.Array]]:
    """``(first row, piece)`` over a string column, pieces of at most :data:`BLOCK` rows."""
    start = 0
    for chunk in as_arrow(values).chunks:
        for s in range(0, len(chunk), BLOCK):
            yield start + s, chunk.slice(s, BLOCK)
        start += len(chunk)


# ------------------------------------------------------------ strings -----

def first_empty(values) -> int:
    """Row of the first empty (or null) string, -1 when there is none (remembered)."""
    arr = as_arrow(values)

    def find() -> int:
        start = 0
        for c in arr.chunks:
            if len(c):
                bad = np.diff(_offsets(c)) == 0
                if c.null_count:
                    bad |= np.asarray(c.is_null())
                if bad.any():
                    return start + int(np.argmax(bad))
            start += len(c)
        return -1

    return _memo(arr, "first_empty", find)


# length * _M3 for the usual lengths, looked up instead of computed
_LEN_MIX = np.arange(4097, dtype=np.uint64) * _M3


def _fingerprint_into(arr: pa.Array, out: np.ndarray) -> None:
    """Raw fingerprints of one piece of strings, written into ``out``.

    (First 8 bytes, last 8 bytes, length) determine a string of up to 16 bytes;
    odd multipliers keep them apart. :func:`_mix` (or :func:`fingerprints`)
    then spreads the bits.
    """
    if arr.null_count:
        arr = arr.fill_null("")
    offsets = _offsets(arr)
    data_buf = arr.buffers()[2]
    data = (np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None
            else np.empty(0, np.uint8))
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 16, dtype=np.uint8)  # 8 spare bytes each side
    padded[8: 8 + hi - lo] = data[lo:hi]
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1] - (lo - 8)
    length = np.diff(offsets)
    out[...] = words[start]  # fancy indexing: several times faster than np.take on this view
    longest = int(length.max()) if len(length) else 0
    if longest > 8:
        out &= _MASKS[np.minimum(length, 8)]
        out *= _M1
        last = words[start + length - 8]
        last[length <= 8] = 0
        last *= _M2
        out ^= last
    else:
        out &= _MASKS[length]
        out *= _M1
    out ^= _LEN_MIX[length] if longest < len(_LEN_MIX) else length.astype(np.uint64) * _M3


def fingerprints(values) -> np.ndarray:
    """64-bit fingerprint of each string (equal strings, equal fingerprints)."""
    arr = as_arrow(values)
    out = np.empty(len(arr), dtype=np.uint64)

    def job(item):
        start, piece = item
        h = out[start: start + len(piece)]
        _fingerprint_into(piece, h)
        h ^= h >> np.uint64(29)

    parallel_map(job, _pieces(arr))
    return out


def _group_mix(*groups: np.ndarray) -> np.ndarray:
    """``(g + 1) * _M4`` for every group code g (a lookup table: codes are small)."""
    present = [g for g in groups if len(g)]
    if present and min(int(g.min()) for g in present) < 0:
        raise ValueError("group codes must be non-negative")
    top = max((int(g.max()) for g in present), default=0) + 1
    return np.arange(1, top + 1, dtype=np.uint64) * _M4


def _mix(h: np.ndarray, groups: np.ndarray, table: np.ndarray) -> None:
    """``h`` (raw string fingerprints) becomes the key of (group, string), in place."""
    h ^= table[groups]
    h *= _M1
    h ^= h >> np.uint64(32)


def pair_keys(groups: np.ndarray, values, out: np.ndarray | None = None) -> np.ndarray:
    """64-bit key of each (group code, string) pair, computed block by block."""
    arr = as_arrow(values)
    out = np.empty(len(arr), dtype=np.uint64) if out is None else out
    table = _group_mix(groups)

    def job(item):
        start, piece = item
        h = out[start: start + len(piece)]
        _fingerprint_into(piece, h)
        _mix(h, groups[start: start + len(piece)], table)

    parallel_map(job, _pieces(arr))
    return out


def equal_strings(a, ia: np.ndarray, b, ib: np.ndarray) -> np.ndarray:
    """Exact comparison ``a[ia] == b[ib]`` of two string columns, elementwise.

    ``ia`` must be increasing (``ib`` may be in any order). Works chunk by chunk
    of ``b`` and block by block, so no column is ever concatenated whole.
    """
    a, b = as_arrow(a), as_arrow(b)
    if a.type != b.type:
        a, b = a.cast(pa.large_string()), b.cast(pa.large_string())
    out = np.empty(len(ia), dtype=bool)
    starts = _chunk_starts(b)
    which = None
    if b.num_chunks > 1:
        which = (np.searchsorted(starts, ib, side="right") - 1).astype(np.int32)

    def compare(rows, chunk, start):
        left = take_sorted(a, ia[rows])
        right = chunk.take(pa.array(ib[rows] - start))
        out[rows] = pc.equal(left, right).to_numpy(zero_copy_only=False)

    step = max(1, BLOCK // 8)  # each job copies its strings: small steps, small peak

    def job(item):
        c, s = item
        chunk, start = b.chunk(c), starts[c]
        if which is None:
            compare(slice(s, s + step), chunk, start)
        else:
            sel = _nonzero32(which[s: s + step] == c) + np.int32(s)
            if len(sel):
                compare(sel, chunk, start)

    parallel_map(job, [(c, s) for c in range(b.num_chunks) for s in range(0, len(ia), step)])
    return out


def _nonzero32(mask: np.ndarray) -> np.ndarray:
    """``np.flatnonzero(mask)`` as int32 where it fits, block by block (half the memory)."""
    if len(mask) >= 2**31:
        return np.flatnonzero(mask)
    parts = [np.flatnonzero(mask[s: s + 4 * BLOCK]).astype(np.int32) + np.int32(s)
             for s in range(0, len(mask), 4 * BLOCK)]
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)


# ------------------------------------------------------------ codes -------

def _blocks(arr: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Block heads (rows where the value changes), their codes, and the distinct values."""
    if arr.null_count:
        arr = arr.fill_null("")
    n = len(arr)
    steps = range(0, n - 1, 4 * BLOCK)

    def job(start):
        stop = min(start + 4 * BLOCK, n - 1)
        change = pc.not_equal(arr.slice(start + 1, stop - start), arr.slice(start, stop - start))
        return np.flatnonzero(change.to_numpy(zero_copy_only=False)) + (start + 1)

    heads = np.concatenate([np.zeros(1, dtype=np.int64), *parallel_map(job, steps)])
    head_codes, uniques = pd.factorize(id_series(take_sorted(arr, heads)), sort=False)
    return heads, head_codes, pd.Index(uniques, dtype="str")


def block_codes(values) -> tuple[np.ndarray, pd.Index]:
    """Codes (order of first appearance) and distinct values of a string column.

    Reads only the heads of blocks of equal consecutive values, so a column
    grouped into blocks (a run, a qrels file) costs one vectorised comparison of
    neighbours plus hashing one value per block; any order gives the right
    answer. The block structure is remembered while the column lives. Codes are
    int32 (int64 beyond 2**31 distinct values).
    """
    arr = as_arrow(values)
    n = len(arr)
    if n == 0:
        return np.empty(0, dtype=np.int32), pd.Index([], dtype="str")
    heads, head_codes, uniques = _memo(arr, "blocks", lambda: _blocks(arr))
    dtype = np.int32 if len(uniques) < 2**31 else np.int64
    codes = np.repeat(head_codes.astype(dtype), np.diff(np.r_[heads, n]))
    return codes, uniques


def codes_for(values, index: pd.Index) -> np.ndarray:
    """Position of each value in ``index`` (-1 when absent), via block codes then lookup."""
    arr = as_arrow(values)
    n = len(arr)
    dtype = np.int32 if len(index) < 2**31 else np.int64
    if not n:
        return np.empty(0, dtype=dtype)
    heads, head_codes, uniques = _memo(arr, "blocks", lambda: _blocks(arr))
    lookup = _positions_in(index, uniques).astype(dtype)
    return np.repeat(lookup[head_codes], np.diff(np.r_[heads, n]))


def _positions_in(index: pd.Index, values: pd.Index) -> np.ndarray:
    """``index.get_indexer(values)``; for text with a unique index, arrow's hash lookup
    (``index_in``: a third of the time on 100k query ids).
    """
    if (isinstance(index.dtype, (pd.StringDtype, pd.ArrowDtype))
            and isinstance(values.dtype, (pd.StringDtype, pd.ArrowDtype)) and index.is_unique):
        try:
            found = pc.index_in(as_arrow(values), value_set=as_arrow(index).combine_chunks())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            return index.get_indexer(values)
        return found.fill_null(-1).to_numpy(zero_copy_only=False)
    return index.get_indexer(values)


# ------------------------------------------------------------ pairs -------

def duplicated_pairs(groups: np.ndarray, values) -> np.ndarray:
    """Boolean mask of rows whose (group, value) pair occurred on an earlier row.

    Exact: fingerprints select candidates (:func:`_repeated_keys`), pandas confirms
    them on the strings.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=bool)
    key = pair_keys(groups, values)
    repeated = _repeated_keys(key, groups)
    out = np.zeros(n, dtype=bool)
    if not len(repeated):
        return out
    candidates = np.flatnonzero(np.isin(pair_keys(groups, values, out=key), repeated))
    del key
    strings = take_sorted(as_arrow(values), candidates)
    frame = pd.DataFrame({"g": groups[candidates], "v": id_series(strings)})
    out[candidates[frame.duplicated(["g", "v"]).to_numpy()]] = True
    return out


#: Keys per piece when a grouped column's keys are sorted piece by piece (fits in L2).
SORT_PIECE = 1 << 13


def _repeated_keys(key: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The distinct values occurring more than once in ``key`` (which is sorted in place).

    When every group is one contiguous block of rows (a validated run, a qrels
    file grouped by query), equal (group, value) keys lie in the same block, so
    the keys are sorted in pieces cut at block heads (:func:`_sort_pieces`):
    several times faster than one global sort of ten million keys. Either way a
    repeat is exact only up to the fingerprint; the caller confirms on the strings.
    """
    n = len(key)
    heads = np.flatnonzero(groups[1:] != groups[:-1]) + 1
    if n > 2 * SORT_PIECE and (
            not len(heads) or np.bincount(np.r_[groups[:1], groups[heads]]).max() == 1):
        _sort_pieces(key, heads)
    else:
        key.sort()
    return np.unique(key[1:][key[1:] == key[:-1]])


def _sort_pieces(key: np.ndarray, starts: np.ndarray) -> None:
    """Sort ``key`` in place piece by piece, on the thread pool: pieces of about
    :data:`SORT_PIECE` keys (they fit in cache), cut only at ``starts`` (increasing
    positions), so equal keys must lie between the same two starts.
    """
    n = len(key)
    cuts = (starts[np.minimum(np.searchsorted(starts, np.arange(SORT_PIECE, n, SORT_PIECE)),
                              len(starts) - 1)] if len(starts) else starts)
    bounds = np.unique(np.r_[0, cuts, n])
    step = max(1, BLOCK // SORT_PIECE)

    def job(first: int) -> None:
        for a, b in zip(bounds[first: first + step], bounds[first + 1: first + step + 1]):
            key[a:b].sort()

    parallel_map(job, range(0, len(bounds) - 1, step))


def _group_layout(lgroups: np.ndarray, rgroups: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Where the join's entries go when both sides are grouped (each group code one
    contiguous block of rows): group by group in code order, its left rows then its
    right rows. Returns, per group code, the shift (position - row) of its left rows
    and of its right rows, and the groups' start positions; None when a side is not
    grouped.
    """
    top = max(int(lgroups.max()), int(rgroups.max())) + 1
    sides = []
    for groups in (lgroups, rgroups):
        heads = np.r_[0, np.flatnonzero(groups[1:] != groups[:-1]) + 1]
        codes = groups[heads]
        if np.bincount(codes, minlength=top).max() > 1:
            return None  # a group in two blocks
        first = np.zeros(top, dtype=np.int64)
        size = np.zeros(top, dtype=np.int64)
        first[codes] = heads
        size[codes] = np.diff(np.r_[heads, len(groups)])
        sides.append((first, size))
    (lfirst, lsize), (rfirst, rsize) = sides
    base = np.r_[0, np.cumsum(lsize + rsize)[:-1]]
    return base - lfirst, base + lsize - rfirst, base


def _row_dtype(n: int):
    return np.int32 if n < 2**31 else np.int64


def matching_pairs(lgroups: np.ndarray, lvalues, rgroups: np.ndarray, rvalues
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``(i, j)`` with ``lgroups[i] == rgroups[j]`` and ``lvalues[i] == rvalues[j]``.

    Each side must hold every (group, value) pair at most once (validated
    judgments, validated runs). Both sides' 64-bit keys, each packed with its
    row number in the low bits, are sorted together in place (one ``np.sort``:
    no hash table, no argsort); equal key prefixes are candidates, confirmed on
    the group codes and the strings. Returns the left rows in increasing order
    and their right partners (a left row that matches nothing is absent).
    """
    nl, nr = len(lgroups), len(rgroups)
    dtype = _row_dtype(max(nl, nr))
    if nl == 0 or nr == 0:
        return np.empty(0, dtype=dtype), np.empty(0, dtype=dtype)
    rb = max(nl, nr).bit_length()  # row bits; one more bit tells the sides apart
    if rb + 1 > 40:  # too few key bits left for the prefix: slower exact path
        return _matching_pairs_argsort(lgroups, lvalues, rgroups, rvalues)
    # The packed keys live only in the helper's frame: freed before the confirmation.
    li, ri, extra_l, extra_r = _prefix_candidates(lgroups, lvalues, rgroups, rvalues, rb, dtype)
    li, ri = _confirm(lgroups, lvalues, rgroups, rvalues, *_by_left(li, ri, nl))
    if len(extra_l):
        xl, xr = _confirm(lgroups, lvalues, rgroups, rvalues, extra_l, extra_r)
        if len(xl):  # each left row is in one prefix group only: no duplicates
            at = np.searchsorted(li, xl)
            li, ri = np.insert(li, at, xl), np.insert(ri, at, xr)
    return li, ri


def _prefix_candidates(lgroups: np.ndarray, lvalues, rgroups: np.ndarray, rvalues, rb: int,
                       dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Candidate pairs of :func:`matching_pairs`: left and right rows sharing a key prefix.

    Returns the pairs of two-entry prefix groups (left rows, right rows) and the
    left-right combinations inside larger groups, all still to be confirmed.
    """
    nl, nr = len(lgroups), len(rgroups)
    shift = np.uint64(rb + 1)
    tag = np.uint64(1 << rb)
    row_mask = np.uint64((1 << rb) - 1)
    packed = np.empty(nl + nr, dtype=np.uint64)

    high = ~np.uint64((1 << (rb + 1)) - 1)  # the key prefix
    table = _group_mix(lgroups, rgroups)
    # both sides grouped (a run and a qrels file grouped by query): entries laid out
    # group by group, so equal keys share a group and the sort goes piece by piece
    layout = _group_layout(lgroups, rgroups) if nl + nr > 2 * SORT_PIECE else None

    def pack(item):
        offset, side, groups, start, piece = item
        g = groups[start: start + len(piece)]
        h = (packed[offset + start: offset + start + len(piece)] if layout is None
             else np.empty(len(piece), dtype=np.uint64))
        _fingerprint_into(piece, h)
        _mix(h, g, table)
        h &= high
        h |= np.arange(start + side, start + side + len(piece), dtype=np.uint64)  # side | row
        if layout is not None:
            moves = layout[0 if side else 1][g]
            moves += np.arange(start, start + len(piece))
            packed[moves] = h

    parallel_map(pack, [(offset, side, groups, start, piece)
                for offset, side, groups, values in ((0, 1 << rb, lgroups, lvalues),
                                                     (nl, 0, rgroups, rvalues))
                for start, piece in _pieces(values)])
    if layout is None:
        packed.sort()
    else:
        _sort_pieces(packed, layout[2])
        del layout
    # same[i]: entries i and i + 1 share a key prefix
    same = np.empty(len(packed) - 1, dtype=bool)
    limit = np.uint64(1) << shift

    def compare(s):
        e = min(s + BLOCK, len(same))
        np.less(packed[s + 1: e + 1] ^ packed[s:e], limit, out=same[s:e])

    parallel_map(compare, range(0, len(same), BLOCK))

    def pairs(s):
        """Groups of exactly two entries: the usual match (right entry first: tag 0)."""
        e = min(s + BLOCK, len(same))
        single = same[s:e].copy()
        if s > 0:
            single &= ~same[s - 1: e - 1]
        else:
            single[1:] &= ~same[: e - 1]
        single[: e - s - 1] &= ~same[s + 1: e]
        if e < len(same):
            single[-1] &= ~same[e]
        pair = np.flatnonzero(single) + s
        lo, hi = packed[pair], packed[pair + 1]
        cross = ((lo & tag) == 0) & ((hi & tag) != 0)
        return (hi[cross] & row_mask).astype(dtype), (lo[cross] & row_mask).astype(dtype)

    found = parallel_map(pairs, range(0, len(same), BLOCK))
    li = np.concatenate([f[0] for f in found])
    ri = np.concatenate([f[1] for f in found])
    del found
    extra_l, extra_r = _group_candidates(packed, same, tag, row_mask, dtype)
    return li, ri, extra_l, extra_r


def _group_candidates(packed, same, tag, row_mask, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Left-right combinations inside groups of three or more equal prefixes (rare)."""
    extra_l: list[int] = []
    extra_r: list[int] = []
    big = np.flatnonzero(same[1:] & same[:-1])  # entries i, i+1, i+2 share a prefix
    for s in big:
        if s > 0 and same[s - 1]:
            continue  # not the first entry of its group
        e = s + 1
        while e < len(same) and same[e]:
            e += 1
        members = packed[s: e + 1]
        is_left = (members & tag) != 0
        ls = (members[is_left] & row_mask).astype(dtype)
        rs = (members[~is_left] & row_mask).astype(dtype)
        extra_l.extend(np.repeat(ls, len(rs)))
        extra_r.extend(np.tile(rs, len(ls)))
    return np.asarray(extra_l, dtype=dtype), np.asarray(extra_r, dtype=dtype)


def _by_left(li: np.ndarray, ri: np.ndarray, nl: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs reordered by left row (each left row in at most one pair), in O(n)."""
    partner = np.full(nl, -1, dtype=ri.dtype)
    step = 4 * BLOCK

    def scatter(s):  # left rows are distinct: the blocks write disjoint places
        partner[li[s: s + step]] = ri[s: s + step]

    parallel_map(scatter, range(0, len(li), step))
    found = parallel_map(lambda s: _nonzero32(partner[s: s + step] >= 0) + np.int32(s)
                 if nl < 2**31 else np.flatnonzero(partner[s: s + step] >= 0) + s,
                 range(0, nl, step))
    li = np.concatenate(found).astype(partner.dtype, copy=False) if found else li[:0]
    del found
    return li, partner[li]


def _matching_pairs_argsort(lgroups, lvalues, rgroups, rvalues):
    lk, rk = pair_keys(lgroups, lvalues), pair_keys(rgroups, rvalues)
    order = np.argsort(rk, kind="stable")
    srk = rk[order]
    lo = np.searchsorted(srk, lk, side="left")
    hi = np.searchsorted(srk, lk, side="right")
    count = hi - lo
    li = np.repeat(np.arange(len(lk)), count)
    offs = np.arange(len(li)) - np.repeat(np.cumsum(count) - count, count)
    ri = order[np.repeat(lo, count) + offs]
    return _by_left(*_confirm(lgroups, lvalues, rgroups, rvalues, li, ri), len(lk))


def _confirm(lgroups, lvalues, rgroups, rvalues, li, ri):
    """Keep the candidate pairs whose group codes and strings are equal (sorted by left row)."""
    if len(li) > 1 and (np.diff(li) < 0).any():
        order = np.argsort(li, kind="stable")
        li, ri = li[order], ri[order]
    ok = lgroups[li] == rgroups[ri]
    if not ok.all():
        li, ri = li[ok], ri[ok]
    if len(li):
        ok = equal_strings(lvalues, li, rvalues, ri)
        if not ok.all():
            li, ri = li[ok], ri[ok]
    return li, ri
