"""Bootstrap replicates of a sum, computed two exact ways in bounded memory.

Resampling ``n`` values with replacement and summing them can be done by

``"index"``
    drawing an ``(rows, n)`` block of indices and summing the gathered values,
    block by block, so that at most :data:`ELEMENT_BUDGET` indices exist at once
    (small blocks also stay in cache, which is where the speed comes from);
``"counts"``
    drawing how many times each *distinct* value is picked,
    ``c ~ Multinomial(n, m / n)`` where ``m`` are the multiplicities of the
    ``k`` distinct values ``v``, and returning ``c @ v``.

Memory never depends on ``resamples``: 10,000 replicates of a million queries
never hold a 10,000 x 1,000,000 matrix, only blocks within the budget. The
blocks draw from one seeded Generator in order and each replicate is summed on
its own, so the replicates are the same numbers whatever the block size (the
same as one unchunked draw).

Both give the same distribution of the replicate sum exactly (the sum depends
on a resample only through those counts), so the choice is about cost: one
multinomial category costs about as much as :data:`COUNTS_COST` gathered
indices, and ``"counts"`` is chosen when ``k * COUNTS_COST <= n``. RR@10 deltas
take at most 121 distinct values; zero-heavy strata take few.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import OrderedDict
from typing import Literal

import numpy as np

#: How the replicates are drawn: row indices, or multinomial counts per distinct value.
ResamplePath = Literal["index", "counts"]

#: Most resampled indices (or multinomial cells) held in memory at once
#: (2**19 int64 = 4 MiB, plus as many float64 for the gathered values).
ELEMENT_BUDGET = 2**19
#: Relative cost of one multinomial category against one resampled index
#: (measured about 100 ns against 4-5 ns with numpy 2.4 on a 2-core machine).
COUNTS_COST = 24
PATHS = ("auto", "index", "counts")


def choose_path(n: int, n_distinct: int) -> ResamplePath:
    """``"counts"`` when ``n_distinct * COUNTS_COST <= n``, else ``"index"``."""
    return "counts" if n_distinct * COUNTS_COST <= n else "index"


def resample_sums(
    d: np.ndarray, resamples: int, rng: np.random.Generator, path: str = "auto"
) -> tuple[np.ndarray, ResamplePath, int]:
    """Return ``resamples`` replicates of ``d.sum()``, the path used and the distinct count.

    Parameters
    ----------
    d : ndarray, shape (n,)
        Values to resample (per-query differences).
    resamples : int
        Number of replicates ``B``.
    rng : numpy.random.Generator
        The only source of randomness.
    path : {"auto", "index", "counts"}
        See the module docstring.
    """
    n = d.shape[0]
    values, multiplicity = np.unique(d, return_counts=True)
    used: ResamplePath = ("counts" if path == "counts" else "index" if path == "index"
                          else choose_path(n, values.size))
    out = np.empty(resamples)
    if values.size == 1:  # constant: every resample sums to the same number
        out.fill(n * values[0])
        return out, used, 1
    if used == "counts":
        p = multiplicity / n
        rows = max(1, ELEMENT_BUDGET // values.size)
        for start in range(0, resamples, rows):
            stop = min(start + rows, resamples)
            counts = rng.multinomial(n, p, size=stop - start)
            # row by row (not a matrix product, whose BLAS blocking depends on the block's
            # shape), so the sums do not depend on how the replicates are chunked
            out[start:stop] = (counts * values).sum(axis=1)
    else:
        rows = max(1, ELEMENT_BUDGET // n)
        for start in range(0, resamples, rows):
            stop = min(start + rows, resamples)
            idx = rng.integers(0, n, size=(stop - start, n))
            out[start:stop] = np.take(d, idx).sum(axis=1)
    return out, used, values.size


_CACHE: OrderedDict = OrderedDict()
#: Replicate sums kept for reuse (each ``resamples`` floats: 80 KB at 10,000).
CACHE_ENTRIES = 128


def seeded_sums(d: np.ndarray, resamples: int, seed: int, path: str = "auto"
                ) -> tuple[np.ndarray, ResamplePath, int]:
    """:func:`resample_sums` with a fresh ``default_rng(seed)``, memoised.

    The result is a pure function of ``(d, resamples, seed, path)``, so a
    what-if edit that leaves a stratum's differences unchanged reuses its
    replicates instead of drawing them again. The returned array is read-only.
    """
    d = np.ascontiguousarray(d, dtype=np.float64)
    key = (hashlib.blake2b(d.tobytes(), digest_size=16).digest(), d.size, resamples, seed, path)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    sums, used, k = resample_sums(d, resamples, np.random.default_rng(seed), path)
    sums.setflags(write=False)
    _CACHE[key] = (sums, used, k)
    if len(_CACHE) > CACHE_ENTRIES:
        _CACHE.popitem(last=False)
    return sums, used, k


def tie_tolerance(d: np.ndarray) -> float:
    """Floating-point slack for "at least as extreme" comparisons of means of ``d``.

    Replicate means and the observed mean are sums taken in different orders,
    so a tie can differ in the last bits; ``1e-12 * max|d|`` is far above that
    error and far below the spacing of attainable means.
    """
    return 1e-12 * float(np.max(np.abs(d))) if d.size else 0.0


def child_seed(seed: int, key) -> int:
    """Deterministic seed for one part of a larger computation (a stratum, a challenger).

    ``SeedSequence([seed, crc32(str(key))]).generate_state(1)[0]``: it depends on
    the parent seed and the part's own name only, so adding, removing or
    reordering other parts never changes this part's resamples, and the
    returned integer reproduces the part on its own.
    """
    entropy = [int(seed), zlib.crc32(str(key).encode("utf-8"))]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def comparison_seed(seed: int, baseline, challenger) -> int:
    """The one seed of a paired comparison, derived from its data, not from the names.

    ``child_seed(seed, blake2b(query ids, baseline, challenger values))`` over
    the queries both configs scored, sorted by id: the same two score vectors
    give the same seed whatever the configs are called and whichever other
    challengers share the call, so :func:`ragnb.stats.compare`,
    :func:`ragnb.strata.breakdown` and the what-if widget draw the same sign
    vectors and resamples and print the same p-value for the same comparison.
    """
    from ragnb.stats import _inputs

    pair = _inputs.align(baseline, challenger, drop_mismatched=True)
    h = hashlib.blake2b(digest_size=16)
    h.update("\x1f".join(map(str, pair.query_ids)).encode("utf-8"))
    h.update(np.ascontiguousarray(pair.baseline, dtype=np.float64).tobytes())
    h.update(np.ascontiguousarray(pair.challenger, dtype=np.float64).tobytes())
    return child_seed(seed, h.hexdigest())
