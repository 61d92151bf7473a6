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

When it would stop (:func:`stopping`)
    Whatever the data say so far, the watch also reports how soon this
    sequence, at this batch size, stops at a true gain of -5, -2, +2 and +5
    points (:data:`STOP_EFFECTS`): :data:`STOP_STREAMS` streams resampled from
    the differences judged so far with their mean removed (their spread, ties
    and skew kept), shifted to each gain and clipped to ``[-1, 1]``, each
    followed for :data:`STOP_BATCHES` batches through the same stop rule
    (:func:`ragnb.stats.betting.stopping_times`, exact on the sequence's grid).
    The batch by which half the streams stopped is the expected stopping batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.result import Analysis
from ragnb.stats.betting import betting_sequence, stopping_times
from ragnb.vocab import DEFAULT_SEED

#: Columns of :attr:`Watch.batches`.
BATCH_COLUMNS = ("batch", "date", "n_batch", "n", "estimate", "low", "high", "status")
#: Largest projection searched; beyond it the projection is infinite.
MAX_PROJECTION = 1_000_000
#: A projection over this many times the queries so far is not given as a number.
FAR = 20
#: True gains (points) at which the watch reports when it would stop.
STOP_EFFECTS = (-5.0, -2.0, 2.0, 5.0)
#: Simulated streams per gain.
STOP_STREAMS = 200
#: Batches each simulated stream is followed for ...
STOP_BATCHES = 300
#: ... up to this many queries (very large batches are followed for fewer).
STOP_QUERIES = 20_000
#: Columns of :attr:`Watch.stopping`.
STOPPING_COLUMNS = ("gain", "batch_size", "batches", "stopped", "median_batch",
                    "median_queries", "wrong_way")


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
    stopping : DataFrame
        When the watch would stop at each true gain of :data:`STOP_EFFECTS`
        (:func:`stopping`; :data:`STOPPING_COLUMNS`).
    seed : int
        Seed of the ``stopping`` simulation.
    """

    batches: pd.DataFrame
    margin: float
    alpha: float
    decision: str
    stopped_at: str | None
    more_queries: float
    stopping: pd.DataFrame
    seed: int = DEFAULT_SEED

    @property
    def description(self) -> str:
        n = int(self.batches["n"].iloc[-1])
        return (f"betting confidence sequence (Waudby-Smith & Ramdas 2024, hedged capital, "
                f"predictable plug-in), {1 - self.alpha:.0%} simultaneously over every batch, "
                f"differences in [-1, 1], n={n} queries in {len(self.batches)} batches; "
                f"expected stopping batch: the batch by which half of {STOP_STREAMS} streams "
                f"stopped, resampled from these differences (mean removed) and shifted to "
                f"each gain, seed {self.seed}")


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


def stopping(d, batch_size: int, *, margin: float = 0.0, alpha: float = 0.05,
             effects: tuple[float, ...] = STOP_EFFECTS, streams: int = STOP_STREAMS,
             seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """How soon the watch stops at each true gain in ``effects`` (points), batches of
    ``batch_size`` queries shaped like ``d`` (module docstring).

    Returns
    -------
    DataFrame
        One row per gain (:data:`STOPPING_COLUMNS`): ``batches`` followed,
        ``stopped`` (share of streams where a stop rule held by then),
        ``median_batch`` / ``median_queries`` (by which half the streams stopped;
        NaN when fewer than half did) and ``wrong_way`` (share that stopped on the
        wrong side: "below zero" at a gain, "at least the margin" at a loss).

    Examples
    --------
    >>> s = stopping([0.1, -0.1, 0.0, 0.05] * 10, 20, effects=(5.0,), streams=20)
    >>> float(s.loc[0, "gain"]), int(s.loc[0, "batches"]), bool(s.loc[0, "stopped"] > 0.5)
    (5.0, 300, True)
    """
    pool = np.asarray(d, dtype=float)
    pool = pool - pool.mean()
    batches = max(1, min(STOP_BATCHES, STOP_QUERIES // batch_size))
    rng = np.random.default_rng(seed)
    rows = []
    for gain in effects:
        x = np.clip(rng.choice(pool, (streams, batches * batch_size)) + gain / 100, -1, 1)
        up, down = stopping_times(x, above=margin / 100, below=0.0, alpha=alpha)
        t_up, t_down = np.where(up > 0, up, np.inf), np.where(down > 0, down, np.inf)
        t = np.minimum(t_up, t_down)
        batch = np.ceil(t / batch_size)
        half = float(np.quantile(batch, 0.5, method="inverted_cdf"))
        wrong = np.isfinite(t) & ((t_down <= t_up) if gain > 0 else (t_up <= t_down))
        rows.append((float(gain), int(batch_size), batches, float(np.isfinite(t).mean()),
                     half if math.isfinite(half) else math.nan,
                     half * batch_size if math.isfinite(half) else math.nan,
                     float(wrong.mean())))
    return pd.DataFrame(rows, columns=list(STOPPING_COLUMNS))


def stopping_text(table: pd.DataFrame) -> str:
    """The expected stopping batch at each simulated gain, in one clause."""
    return "; ".join(
        f"{r.gain:+g} points: " + (f"batch {int(r.median_batch)} ({int(r.median_queries):,} "
                                   "queries)" if math.isfinite(r.median_batch)
                                   else f"not within {int(r.batches)} batches")
        for r in table.itertuples())


def watch(differences: pd.DataFrame, *, margin: float = 0.0, alpha: float = 0.05,
          seed: int = DEFAULT_SEED) -> Watch:
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
    seed : int
        Seed of the stopping simulation (:func:`stopping`; the sequence itself is exact).

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
    size = int(table["n_batch"].median())
    return Watch(table, float(margin), float(alpha), decision, stopped, more,
                 stopping(d, max(size, 1), margin=margin, alpha=alpha, seed=seed), seed)


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
