"""Production watched as judged batches arrive: an anytime-valid confidence sequence
for the champion-minus-baseline gain, and a stop rule.

The sequence
    Per-query differences ``d = champion - baseline`` (bounded in ``[-1, 1]``)
    are taken in arrival order, batch after batch; after each batch the
    betting confidence sequence (:func:`ragnb.stats.betting.betting_sequence`,
    Waudby-Smith & Ramdas 2024) gives ``[low, high]``, valid simultaneously at
    every batch: looking after each one, and stopping when the answer is
    clear, keeps the error at ``alpha``. A fixed-n interval looked at after
    every batch does not (``benchmarks/sim_gate.py``: about 25% of 30-batch
    streams with no gain show a "significant" one at some batch).

The stop rule (first that holds, at the latest batch)
    ``high < 0``            gain below zero established
    ``low > margin``        gain at least the margin established (``margin`` >= 0)
    otherwise               keep labelling, with a rough projection of the queries
                            needed: the sequence's half-width shrinks about as
                            ``sqrt(log(1 + t) / t)`` (its bets scale as
                            ``1 / sqrt(t log(1 + t))``), so the projection is the
                            ``t`` where the current half-width, so scaled, reaches
                            the distance from the estimate to the nearer threshold
                            (assuming the estimate and spread stay as they are).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.result import Analysis
from ragnb.stats.betting import betting_sequence

#: Columns of :attr:`Watch.batches`.
BATCH_COLUMNS = ("batch", "date", "n_batch", "n", "estimate", "low", "high", "status")
#: Largest projection searched; beyond it the projection is infinite.
MAX_PROJECTION = 1_000_000
#: A projection over this many times the queries so far is not given as a number.
FAR = 20


@dataclass(frozen=True)
class Watch(Analysis):
    """The sequence after every batch and the stop decision.

    Attributes
    ----------
    batches : DataFrame
        One row per batch (:data:`BATCH_COLUMNS`; values 0-1).
    margin : float
        Points.
    alpha : float
    decision : str
        The stop rule's answer at the latest batch.
    stopped_at : str or None
        The first batch at which a stop rule held (None: still labelling).
    more_queries : float
        Projected further queries to a decision (NaN once stopped; inf when the
        estimate sits on a threshold).
    """

    batches: pd.DataFrame
    margin: float
    alpha: float
    decision: str
    stopped_at: str | None
    more_queries: float

    @property
    def description(self) -> str:
        n = int(self.batches["n"].iloc[-1])
        return (f"betting confidence sequence (Waudby-Smith & Ramdas 2024, hedged capital, "
                f"predictable plug-in), {1 - self.alpha:.0%} simultaneously over every batch, "
                f"differences in [-1, 1], n={n} queries in {len(self.batches)} batches")


def status(low: float, high: float, margin: float) -> str:
    """The stop rule at one look (``margin`` in points)."""
    if high < 0:
        return "gain below zero established"
    if low > margin / 100:
        return ("gain above zero established" if margin == 0 else
                f"gain of at least {margin:g} points established")
    return "keep labelling"


def projected_queries(t: int, estimate: float, low: float, high: float, margin: float) -> float:
    """Further queries until the half-width reaches the nearer threshold (module docstring)."""
    half = (high - low) / 2
    gap = min(abs(estimate - 0.0), abs(estimate - margin / 100))
    if gap <= 0 or half <= 0:
        return math.inf

    def width(s: float) -> float:
        return half * math.sqrt((math.log1p(s) / s) / (math.log1p(t) / t))

    if width(t) <= gap:
        return 0.0
    lo, hi = t, t
    while width(hi) > gap:
        hi *= 2
        if hi > MAX_PROJECTION:
            return math.inf
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if width(mid) > gap else (lo, mid)
    return float(hi - t)


def watch(differences: pd.DataFrame, *, margin: float = 0.0, alpha: float = 0.05) -> Watch:
    """The confidence sequence after every batch, and the stop decision.

    Parameters
    ----------
    differences : DataFrame
        ``batch, date, query_id, d`` in arrival order (batches in order; ``d``
        = champion - baseline per query, in ``[-1, 1]``).
    margin : float
        Points, >= 0: the gain the "at least the margin" stop needs.
    alpha : float
        Error rate of the sequence (simultaneous over every batch).

    Examples
    --------
    >>> d = pd.DataFrame({"batch": ["b1"] * 50 + ["b2"] * 50, "date": "",
    ...                   "query_id": range(100), "d": [0.3] * 100})
    >>> w = watch(d)
    >>> w.decision, w.stopped_at
    ('gain above zero established', 'b1')
    """
    missing = {"batch", "date", "query_id", "d"} - set(differences.columns)
    if missing:
        raise InputError(f"differences need columns {listed(sorted(missing), most=9)}",
                         key="differences")
    if differences.empty:
        raise InputError("no judged query in any batch: nothing to watch", key="batches")
    if not margin >= 0:
        raise InputError(f"`margin` must be >= 0 points, got {margin}", key="margin")
    d = differences["d"].to_numpy(dtype=float)
    cs = betting_sequence(d, alpha=alpha)
    ends = differences.groupby("batch", sort=False).size().cumsum()
    dates = differences.groupby("batch", sort=False)["date"].first()
    rows: list[tuple] = []
    stopped = None
    for batch, end in ends.items():
        r = cs.iloc[int(end) - 1]
        s = status(float(r["low"]), float(r["high"]), margin)
        if stopped is None and s != "keep labelling":
            stopped = str(batch)
        rows.append((str(batch), str(dates[batch]), int(end - (rows[-1][3] if rows else 0)),
                     int(end), float(r["estimate"]), float(r["low"]), float(r["high"]), s))
    table = pd.DataFrame(rows, columns=list(BATCH_COLUMNS))
    last = table.iloc[-1]
    decision = last["status"]
    more = math.nan
    if decision == "keep labelling":
        more = projected_queries(int(last["n"]), last["estimate"], last["low"], last["high"],
                                 margin)
        if not math.isfinite(more) or more > FAR * last["n"]:
            decision = (f"keep labelling (a decision is far off: over {FAR} times the "
                        f"{int(last['n'])} queries judged so far, the gain sitting near a "
                        "threshold)")
        else:
            decision = f"keep labelling (about {_round(more):,} more queries)"
    return Watch(table, float(margin), float(alpha), decision, stopped, more)


def _round(x: float) -> int:
    """Two significant digits: a projection, not a count."""
    if x < 100:
        return int(math.ceil(x))
    digits = int(math.floor(math.log10(x))) - 1
    return int(round(x, -digits))


def watch_scores(scores: pd.DataFrame, *, baseline: str, champion: str, metric: str,
                 batch_size: int, split: str | None = None, margin: float = 0.0,
                 alpha: float = 0.05) -> Watch:
    """:func:`watch` on a tidy score table (``[split,] config, query_id, metric, value``), the
    queries arriving in the table's order, ``batch_size`` at a time (a notebook's one call).
    """
    sub = scores[scores["metric"] == metric]
    if split is not None and "split" in sub:
        sub = sub[sub["split"] == split]
    wide = sub.pivot_table(index="query_id", columns="config", values="value", aggfunc="first")
    for c in (baseline, champion):
        if c not in wide.columns:
            raise InputError(f"no scores of config {c!r} for {metric}", key=c)
    order = list(dict.fromkeys(sub["query_id"]))
    diffs = differences_table(wide, baseline, champion, batches_of(order, batch_size))
    return watch(diffs, margin=margin, alpha=alpha)


def batches_of(query_ids, size: int) -> pd.Series:
    """Batch labels ``b01, b02, ...`` of ``size`` queries in the given (arrival) order."""
    if size < 1:
        raise InputError(f"a batch holds at least one query, got {size}", key="--batch-size")
    ids = list(query_ids)
    count = (len(ids) + size - 1) // size
    width = len(str(count))
    return pd.Series([f"b{i // size + 1:0{width}d}" for i in range(len(ids))], index=ids)


def differences_table(wide: pd.DataFrame, baseline: str, champion: str, batch: pd.Series,
                      dates: dict[str, str] | None = None) -> pd.DataFrame:
    """``batch, date, query_id, d`` from a wide per-query table, in batch order then query order."""
    both = wide[[baseline, champion]].dropna()
    ids = [q for q in batch.index if q in both.index]
    return pd.DataFrame({
        "batch": batch.loc[ids].to_numpy(),
        "date": [(dates or {}).get(b, "") for b in batch.loc[ids]],
        "query_id": ids,
        "d": (both.loc[ids, champion] - both.loc[ids, baseline]).to_numpy(dtype=float),
    })
