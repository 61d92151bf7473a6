"""The one validation place for the statistics inputs.

Per-query scores arrive as a pandas Series indexed by ``query_id``, a tidy
DataFrame with columns ``query_id`` and ``value``, or a 1-D array whose
positions stand for the query ids. Everything here returns plain numpy arrays
aligned on one sorted list of query ids, or raises :class:`InputError` naming
the offending query ids and counts.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.vocab import out_of_range

#: Label given to queries whose stratum is missing or NaN.


def _few(ids, k: int = 5) -> str:
    ids = list(ids)
    shown = ", ".join(str(i) for i in ids[:k])
    return shown + (f", ... ({len(ids) - k} more)" if len(ids) > k else "")


def as_scores(x, name: str) -> pd.Series:
    """Return per-query scores as a float Series indexed by query id.

    Raises :class:`InputError` for a missing column, a duplicate query id,
    a non-numeric value or a NaN (naming the queries).
    """
    if isinstance(x, pd.DataFrame):
        missing = {"query_id", "value"} - set(x.columns)
        if missing:
            raise InputError(
                f"a tidy score table needs columns `query_id` and `value`; missing "
                f"{listed(sorted(missing))} (has {listed(x.columns, most=12)})",
                source=name,
            )
        s = pd.Series(x["value"].to_numpy(), index=x["query_id"].to_numpy())
    elif isinstance(x, pd.Series):
        s = x
    else:
        arr = np.asarray(x)
        if arr.ndim != 1:
            raise InputError(f"expected 1-D per-query scores, got shape {arr.shape}", source=name)
        s = pd.Series(arr)
    dup = s.index[s.index.duplicated()].unique()
    if len(dup):
        raise InputError(
            f"{len(dup)} query id(s) appear more than once: {_few(dup)}",
            source=name,
            key=str(dup[0]),
        )
    try:
        values = pd.to_numeric(s, errors="raise").astype(float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"per-query scores must be numeric ({exc})", source=name) from None
    nan = values.index[values.isna()]
    if len(nan):
        raise InputError(
            f"{len(nan)} query id(s) have a missing (NaN) score: {_few(nan)}",
            source=name,
            key=str(nan[0]),
        )
    return values


@dataclass(frozen=True)
class Paired:
    """Two score vectors aligned on the same query ids."""

    query_ids: np.ndarray
    baseline: np.ndarray
    challenger: np.ndarray
    dropped: int


def align(baseline, challenger, *, drop_mismatched: bool = False) -> Paired:
    """Align baseline and challenger scores by query id.

    A query id present on one side only is an error naming a few of them and
    the counts, unless ``drop_mismatched`` is true; then those queries are
    dropped and counted in ``Paired.dropped``.
    """
    a = as_scores(baseline, "baseline")
    b = as_scores(challenger, "challenger")
    only_a = a.index.difference(b.index)
    only_b = b.index.difference(a.index)
    dropped = len(only_a) + len(only_b)
    if dropped and not drop_mismatched:
        parts = []
        if len(only_a):
            parts.append(f"{len(only_a)} only in baseline ({_few(only_a)})")
        if len(only_b):
            parts.append(f"{len(only_b)} only in challenger ({_few(only_b)})")
        raise InputError(
            f"query ids differ: {'; '.join(parts)}; {len(a.index.intersection(b.index))} shared. "
            "Pass drop_mismatched=True to drop the unshared ones (they are then counted).",
            source="paired scores",
            key=str((only_a if len(only_a) else only_b)[0]),
        )
    ids = a.index.intersection(b.index)
    if len(ids) == 0:
        raise InputError("baseline and challenger share no query id", source="paired scores")
    with contextlib.suppress(TypeError):  # mixed id types: keep baseline order
        ids = ids.sort_values()
    return Paired(
        query_ids=np.asarray(ids),
        baseline=a.loc[ids].to_numpy(dtype=float),
        challenger=b.loc[ids].to_numpy(dtype=float),
        dropped=dropped,
    )


def stratum_labels(strata, query_ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Stratum label for each query id; missing, NaN or empty labels become ``"unclassified"``
    (:func:`ragnb.io.strata.label_queries`).

    Returns the labels (object array, aligned with ``query_ids``) and the number
    of labelled query ids that are not among ``query_ids`` (ignored, counted).
    """
    if isinstance(strata, pd.DataFrame):
        missing = {"query_id", "stratum"} - set(strata.columns)
        if missing:
            raise InputError(
                "a strata table needs columns `query_id` and `stratum`; missing "
                f"{listed(sorted(missing))}",
                source="strata",
            )
        strata = pd.Series(strata["stratum"].to_numpy(), index=strata["query_id"].to_numpy())
    if not isinstance(strata, pd.Series):
        raise InputError(
            f"strata must be a Series query_id -> stratum label, got {type(strata).__name__}",
            source="strata",
        )
    dup = strata.index[strata.index.duplicated()].unique()
    if len(dup):
        raise InputError(
            f"{len(dup)} query id(s) have more than one stratum: {_few(dup)}",
            source="strata",
            key=str(dup[0]),
        )
    from ragnb.io.strata import label_queries

    labels, _, extra = label_queries(strata, query_ids)
    return labels.to_numpy(dtype=object), extra


def check_seed(seed) -> int:
    """A non-negative integer seed (reported beside every interval)."""
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise InputError(f"`seed` must be a non-negative integer, got {seed!r}", source="seed")
    return int(seed)


def check_positive_int(value, name: str) -> int:
    """A positive integer, within :data:`ragnb.vocab.RANGES` ``[name]`` when bounded there
    (``resamples``: the bound every surface shares).
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise InputError(f"`{name}` must be a positive integer, got {value!r}", source=name)
    problem = out_of_range(name, int(value))
    if problem:
        raise InputError(f"`{name}` {problem}", source=name)
    return int(value)


def check_ci(ci) -> float:
    if not 0 < ci < 1:
        raise InputError(f"`ci` must be between 0 and 1 (e.g. 0.95), got {ci!r}", source="ci")
    return float(ci)


def check_choice(value, name: str, choices) -> str:
    if value not in choices:
        raise InputError(
            f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}", source=name
        )
    return value
