"""Small per-query array helpers shared by the bound functions."""
from __future__ import annotations

import numpy as np

from ragnb.io.run import positions

#: Gain per grade of each nDCG family (the same definitions as ragnb.metrics.kernels).
GAINS = {
    "ndcg": lambda g: np.exp2(g) - 1.0,
    "ndcg_linear": lambda g: np.asarray(g, dtype=np.float64),
}


def gain_for(metric, top_grade: int):
    """The gain function of an nDCG metric (its gain map for ``ndcg``), checked to be what the
    exact bounds assume: gain(0) = 0 and rising with every grade up to ``top_grade``.
    """
    if metric.spec.name == "ndcg":
        from ragnb.metrics.gains import gain_map

        gm = gain_map(metric.params.get("gain", "exp"))
        if not gm.increasing_from_zero(top_grade):
            from ragnb.errors import InputError

            raise InputError(f"no exact bound for metric {metric.text!r}: its gain map "
                             f"{gm.name!r} must give 0 to grade 0 and rise with every grade "
                             f"up to {top_grade}", key=metric.text)
        return gm
    return GAINS[metric.spec.name]


def discount(pos: np.ndarray) -> np.ndarray:
    """``1 / log2(pos + 2)`` for 0-based positions."""
    return 1.0 / np.log2(np.asarray(pos, dtype=np.float64) + 2.0)


def first_position(q: np.ndarray, pos: np.ndarray, mask: np.ndarray, nq: int) -> np.ndarray:
    """Smallest ``pos`` per query among rows where ``mask`` holds (inf where none)."""
    out = np.full(nq, np.inf)
    np.minimum.at(out, q[mask], pos[mask].astype(np.float64))
    return out


def reciprocal(first: np.ndarray) -> np.ndarray:
    """``1 / (first + 1)``, 0 where ``first`` is inf."""
    return np.where(np.isfinite(first), 1.0 / (np.where(np.isfinite(first), first, 0) + 1.0),
                    0.0)


def per_query(q: np.ndarray, values: np.ndarray, nq: int) -> np.ndarray:
    return np.bincount(q, weights=np.asarray(values, dtype=np.float64), minlength=nq)


def padded(q: np.ndarray, values: np.ndarray, nq: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by (sorted) ``q`` as a padded ``(nq, max count)`` matrix and counts."""
    counts = np.bincount(q, minlength=nq)
    width = int(counts.max(initial=0))
    out = np.zeros((nq, width))
    if len(q):
        out[q, positions(q)] = values
    return out, counts


def depth(q: np.ndarray, k: int | None, nq: int) -> np.ndarray:
    """The denominator of P@k: k, or the number retrieved when there is no cut-off."""
    if k is not None:
        return np.full(nq, float(k))
    return np.bincount(q, minlength=nq).astype(np.float64)


def safe_div(num, den) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)
