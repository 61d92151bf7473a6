"""Shares of a test set's queries: the share interval and the source mix against declared shares.

The unanswerable share (:func:`ragnb.health.coverage.unanswerable_share`) uses
the same interval.

Each observed share ``k / n`` gets a Clopper–Pearson ("exact") binomial
interval, ``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``: the
set of proportions ``p`` that a two-sided binomial test at level ``1 - ci``
would not reject (Clopper & Pearson 1934). It is conservative (coverage at
least ``ci`` for every ``p``), which suits a flag: a declared share outside
the interval is flagged, inside it is "consistent with the sample" — not
"confirmed". With several sources, some flag by chance alone at 95% (about
one in twenty when the declared mix is true).

The declared mix is a claim about traffic (seed 004's example: tickets 0.5,
search 0.3, sales 0.2); writing it down makes the test set's mix checkable.
Seed 004 also suggests about 15% unanswerable queries.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial
limits illustrated in the case of the binomial. Biometrika 26(4), 404-413.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd
from scipy import stats

from ragnb.errors import InputError, listed
from ragnb.io.testset import TestSet

#: How every share interval in :mod:`ragnb.health` is made.
#: (computed as ``scipy.stats.binomtest(k, n).proportion_ci(method="exact")``)
SHARE_METHOD = "Clopper-Pearson exact binomial interval"
#: Seed 004's suggested share of unanswerable queries.
UNANSWERABLE_TARGET = 0.15
MISSING_SOURCE = "(missing)"


def share_interval(k: int, n: int, ci: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson interval of the proportion ``k / n`` (NaNs when ``n`` is 0).

    Examples
    --------
    >>> [round(x, 4) for x in share_interval(0, 10)]   # upper = 1 - 0.025 ** (1/10)
    [0.0, 0.3085]
    """
    if not 0 < ci < 1:
        raise InputError(f"`ci` must be between 0 and 1, got {ci!r}", key="ci")
    if n == 0:
        return float("nan"), float("nan")
    r = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=ci, method="exact")
    return float(r.low), float(r.high)


def check_declared(declared: Mapping[str, float], *, tol: float = 1e-6) -> dict[str, float]:
    """Declared shares as a dict: non-negative numbers that add up to 1 (within ``tol``)."""
    if not isinstance(declared, Mapping) or not declared:
        raise InputError("declared shares must be a non-empty mapping of source -> share",
                         key="declared")
    out = {}
    for source, share in declared.items():
        if isinstance(share, bool) or not isinstance(share, (int, float)) \
                or not math.isfinite(share) or share < 0:
            raise InputError(f"declared share of {source!r} must be a number >= 0, got {share!r}",
                             key="declared")
        out[str(source)] = float(share)
    total = sum(out.values())
    if abs(total - 1) > tol:
        raise InputError(f"declared shares add up to {total:g}, not 1: "
                         f"{listed((f'{k} {v:g}' for k, v in out.items()), most=20)}",
                         key="declared")
    return out


def source_mix(test_set: TestSet | pd.DataFrame, declared: Mapping[str, float], *,
               column: str = "source", ci: float = 0.95) -> pd.DataFrame:
    """Observed share of each source beside its declared share, flagged when outside the interval.

    Parameters
    ----------
    test_set : TestSet or DataFrame
        The test set (or its query table) with a ``column`` of sources.
    declared : mapping
        Source -> declared share, adding up to 1 (:func:`check_declared`).
    column : str
        The query field holding the source.
    ci : float
        Interval level.

    Returns
    -------
    DataFrame
        ``source, declared, n, share, ci_low, ci_high, outside`` in declared
        order, then sources found but not declared (declared 0, so any query of
        theirs flags), then queries without a source as ``(missing)``.
    """
    declared = check_declared(declared)
    queries = test_set.queries if isinstance(test_set, TestSet) else test_set
    if column not in queries:
        raise InputError(f"the queries have no {column!r} field; fields: "
                         f"{listed((c for c in queries.columns if c != 'line'), most=12)}",
                         key=column)
    values = queries[column].astype("object")
    values = values.where(values.notna() & (values.astype("str") != ""), MISSING_SOURCE)
    counts = values.astype("str").value_counts()
    n = int(counts.sum())
    extra = sorted(s for s in counts.index if s not in declared and s != MISSING_SOURCE)
    order = list(declared) + extra + ([MISSING_SOURCE] if MISSING_SOURCE in counts else [])
    rows = []
    for source in order:
        k = int(counts.get(source, 0))
        low, high = share_interval(k, n, ci)
        share = declared.get(source, 0.0)
        rows.append({"source": source, "declared": share if source != MISSING_SOURCE else math.nan,
                     "n": k, "share": k / n, "ci_low": low, "ci_high": high,
                     "outside": not low <= share <= high})
    return pd.DataFrame(rows)
