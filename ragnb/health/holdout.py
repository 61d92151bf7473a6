r"""The held-back 20%: a deterministic split of query ids that tuning never sees.

Tuning a pipeline against the same queries for weeks fits it to them; seed 004
holds back 20% of the queries, keeps their scores out of tuning, and checks
them before shipping: when the held-back score diverges from the tuning score,
the choices stopped generalising.

The split (:func:`holdout_split`) depends on each query id alone::

    u(q) = int(sha256(salt + "\x00" + q)[:8], big-endian) / 2**64   in [0, 1)
    held back  <=>  u(q) < share

No random state, no dependence on the order or number of queries: adding
queries to the test set never moves an old query between the two sides, and
raising ``share`` only adds queries to the held-back side. The held-back
fraction is ``share`` in expectation (binomial, so 20% of 200 queries is
40 ± 6). A new ``salt`` draws an independent split (use one per test set family
and keep it fixed).

The check (:func:`holdout_check`) compares a config's mean on the held-back
queries with its mean on the tuning queries — or, given a baseline, the mean
gain ``config - baseline`` on each side, which removes the difference in
difficulty between the two samples — with a percentile bootstrap of the
difference of two independent means
(:func:`ragnb.stats.unpaired.unpaired_bootstrap`). It flags divergence when the
interval excludes zero.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.metrics.score import Scores
from ragnb.result import Analysis, interval, points
from ragnb.stats import child_seed, tie_tolerance
from ragnb.stats.unpaired import MeanInterval, UnpairedBootstrap, bootstrap_mean, unpaired_bootstrap
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

DEFAULT_SHARE = 0.2
DEFAULT_SALT = "ragnb-holdout"


def holdout_position(query_id: str, salt: str = DEFAULT_SALT) -> float:
    """The id's fixed position ``u`` in [0, 1): the first 8 bytes of sha256(salt NUL id).

    Examples
    --------
    >>> holdout_position("q1") == holdout_position("q1")
    True
    """
    digest = hashlib.sha256(f"{salt}\x00{query_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class HoldoutSplit:
    """Query ids on each side of a held-back split (each in the order given)."""

    tuning: pd.Index
    held_back: pd.Index
    share: float
    salt: str

    def side(self) -> pd.Series:
        """``"tuning"`` / ``"held back"`` per query id."""
        s = pd.concat([pd.Series("tuning", index=self.tuning),
                       pd.Series("held back", index=self.held_back)])
        return s.rename("side")

    def describe(self) -> str:
        n = len(self.tuning) + len(self.held_back)
        return (f"held back: {len(self.held_back)} of {n} queries ({len(self.held_back) / n:.1%}; "
                f"target {self.share:.0%}), chosen by sha256 of salt {self.salt!r} and each "
                "query id: stable when queries are added")


def holdout_split(query_ids: Iterable[str], *, share: float = DEFAULT_SHARE,
                  salt: str = DEFAULT_SALT) -> HoldoutSplit:
    """Split query ids into tuning and held-back sides by a hash of salt and id.

    Parameters
    ----------
    query_ids : iterable of str
        The test set's query ids (unique).
    share : float
        Expected held-back fraction, in (0, 1).
    salt : str
        Names the split; keep it fixed for a test set and its later versions.
    """
    if not 0 < share < 1:
        raise InputError(f"`share` must be between 0 and 1, got {share!r}", key="share")
    if not isinstance(salt, str):
        raise InputError(f"`salt` must be text, got {salt!r}", key="salt")
    ids = pd.Index([str(q) for q in query_ids], name="query_id")
    if ids.has_duplicates:
        raise InputError(f"query ids repeat, e.g. {listed(ids[ids.duplicated()], most=3)}",
                         key="query_ids")
    back = np.array([holdout_position(q, salt) < share for q in ids], dtype=bool)
    return HoldoutSplit(ids[~back], ids[back], float(share), salt)


@dataclass(frozen=True)
class HoldoutCheck(Analysis):
    """A config's score on tuning vs held-back queries (held back minus tuning).

    ``tuning`` and ``held_back`` are each side's mean with its own percentile
    bootstrap interval (seeds derived from the check's seed); ``result`` is the
    difference held back minus tuning.
    """

    config: str
    metric: str
    baseline: str | None
    tuning: MeanInterval
    held_back: MeanInterval
    result: UnpairedBootstrap
    tol: float = 0.0

    @property
    def tuning_mean(self) -> float:
        return self.tuning.mean

    @property
    def held_back_mean(self) -> float:
        return self.held_back.mean

    @property
    def diverged(self) -> bool:
        """The interval of the difference excludes zero (by more than float noise, ``tol``)."""
        return not (self.result.ci_low <= self.tol and self.result.ci_high >= -self.tol)

    @property
    def quantity(self) -> str:
        return (f"gain {self.config} - {self.baseline}" if self.baseline
                else f"{self.config}")

    def summary(self) -> pd.DataFrame:
        """One row, data: each side's mean and n, the difference and its interval."""
        r = self.result
        return pd.DataFrame([{
            "config": self.config, "quantity": self.quantity, "metric": self.metric,
            "tuning": self.tuning_mean, "n_tuning": r.n_a,
            "held_back": self.held_back_mean, "n_held_back": r.n_b,
            "difference": r.delta, "ci_low": r.ci_low, "ci_high": r.ci_high,
            "diverged": self.diverged}])

    def sides(self) -> pd.DataFrame:
        """``side, n, mean, ci_low, ci_high``: each side's mean with its interval."""
        return pd.DataFrame([{"side": name, "n": m.n, "mean": m.mean, "ci_low": m.ci_low,
                              "ci_high": m.ci_high}
                             for name, m in (("tuning", self.tuning),
                                             ("held back", self.held_back))])

    def display_table(self) -> pd.DataFrame:
        """Each side's mean and interval, then the difference, in points."""
        r = self.result
        rows = [(name, str(m.n), points(m.mean), interval(m.ci_low, m.ci_high))
                for name, m in (("tuning", self.tuning), ("held back", self.held_back))]
        rows.append(("held back − tuning", "", points(r.delta, signed=True),
                     interval(r.ci_low, r.ci_high, signed=True)))
        return pd.DataFrame(rows, columns=["side", "queries", f"{self.metric} (points)",
                                           f"{r.ci:.0%} interval (points)"])

    @property
    def description(self) -> str:
        """How the difference and each side's interval were made."""
        return (f"{self.quantity}, {self.metric}: " + self.result.describe()
                + "; each side's mean: percentile bootstrap of the mean")

    def reading(self) -> str:
        r = self.result
        pts = f"{r.delta * 100:+.1f} points [{r.ci_low * 100:+.1f}, {r.ci_high * 100:+.1f}]"
        if not self.diverged:
            return (f"No divergence: held back minus tuning is {pts}, an interval that "
                    "includes zero.")
        if r.delta < 0:
            return (f"Diverged: the {self.quantity} is lower on the held-back queries by "
                    f"{pts[1:]} — the tuning choices stopped generalising; do not ship on the "
                    "tuning score.")
        return (f"Diverged: the {self.quantity} is higher on the held-back queries ({pts}); "
                "the two samples differ more than chance suggests — check how they were drawn.")


def holdout_check(scores: Scores, split: HoldoutSplit, *, config: str, metric: str,
                  baseline: str | None = None, ci: float = 0.95,
                  resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> HoldoutCheck:
    """Compare ``config`` (or its gain over ``baseline``) on tuning vs held-back queries.

    Every scored query must be on one side of ``split``; queries of the split
    that were not scored are ignored (a split may cover later versions).
    """
    values = scores.values(config, metric)
    if baseline:
        values = values - scores.values(baseline, metric).reindex(values.index)
    side = split.side()
    side.index = side.index.astype("str")
    ids = values.index.astype("str")
    unknown = ids.difference(side.index)
    if len(unknown):
        raise InputError(f"{len(unknown)} scored queries are on neither side of the split, "
                         f"e.g. {listed(unknown)}", key="split")
    where = side.reindex(ids).to_numpy()
    tuning = values[where == "tuning"]
    held = values[where == "held back"]
    r = unpaired_bootstrap(tuning, held, resamples=resamples, seed=seed, ci=ci)
    sides = [bootstrap_mean(v, resamples=resamples, seed=child_seed(seed, name), ci=ci)
             for name, v in (("tuning", tuning), ("held back", held))]
    # means summed in different orders differ in the last bits: equal gains are not divergence
    tol = tie_tolerance(values.to_numpy(dtype=float))
    return HoldoutCheck(config, str(metric), baseline, sides[0], sides[1], r, tol)
