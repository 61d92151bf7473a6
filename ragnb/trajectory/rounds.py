"""Golden vs production scores across rounds of selection (seed 000).

Historical champions rescored on a fresh sample show whether a rising golden
score was quality or fit: two lines across rounds with interval bands; the
expected selection inflation for that many rounds as a reference band; the
round after which only the golden line moves (divergence dating); each line's
total movement; and the check that the production line's first and last
points are the four-cell table's production column (one measurement seen
twice, not two that happen to agree).

Divergence dating: the round r where a "rise, then flat" hinge
``a + b * min(round, r)`` fits the production means best (least squares).
It is reported as the divergence round when, after it, production stays within
``z * SE`` of its round-r level in every later round (paired, normal
approximation, no multiplicity correction — which makes "flat" harder to
claim, not easier) while golden still rises beyond noise from r to the last
round. The size and significance of production's rise before r are stated:
with a few hundred queries an early one-point rise is often not resolved.

Inflation band: after N rounds of keep-the-winner the retained score is the
best of the rounds' configs on the selection split, ahead of its true value
by the split's one selection-inflation figure, :func:`ragnb.stats.split_inflation`
over the rounds' configs as candidates (their per-query scores on the
selection split: the data-driven estimate; the same figure every page of the
workspace shows, :func:`ragnb.workspace.inflation.workspace_inflation`).

Movement: per split, the last champion's mean minus the first's, and its
standardized effect size ``mean(d) / sd(d)`` over the per-query differences
``d = last - first`` (:func:`ragnb.stats.classic.effect_size`, the four-cell
delta row's figure).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from ragnb.errors import InputError, listed
from ragnb.io.overlap import SplitOverlap, split_overlap
from ragnb.result import Analysis
from ragnb.stats import child_seed, paired_bootstrap, split_inflation
from ragnb.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, describe_method
from ragnb.stats.classic import effect_size
from ragnb.stats.inflation import range_columns
from ragnb.stats.unpaired import bootstrap_mean


@dataclass(frozen=True)
class Trajectory(Analysis):
    """Per-round means with intervals, movement, inflation band and divergence round."""

    points: pd.DataFrame
    movement: pd.DataFrame
    divergence_round: int | None
    divergence_text: str
    inflation: dict
    golden: str
    production: str
    description: str
    metric: str = ""   # the score table's one metric ("" when it has no metric column)
    overlap: SplitOverlap | None = None   # production queries golden also holds

    def endpoint_check(self, four_cell) -> pd.DataFrame:
        """First and last production points against the four-cell production column."""
        p = self.points[self.points["split"] == self.production].sort_values("round")
        rows = []
        for label, row, config in (("first", p.iloc[0], four_cell.baseline),
                                   ("last", p.iloc[-1], four_cell.champion)):
            cell = four_cell.cell(config, four_cell.production)
            rows.append({"point": label, "round": int(row["round"]), "config": row["config"],
                         "trajectory": float(row["mean"]), "four_cell": cell,
                         "equal": bool(np.isclose(row["mean"], cell, rtol=0, atol=1e-12))})
        out = pd.DataFrame(rows)
        movement = float(p.iloc[-1]["mean"] - p.iloc[0]["mean"])
        out.attrs["movement_equals_delta"] = bool(np.isclose(
            movement, four_cell.delta(four_cell.production), atol=1e-12))
        return out


def _wide(scores: pd.DataFrame, split: str, configs: list[str]) -> pd.DataFrame:
    sel = scores[scores["split"] == split]
    wide = sel.pivot(index="query_id", columns="config", values="value")
    missing = [c for c in configs if c not in wide]
    if missing:
        raise InputError(f"no scores on split {split!r} for config(s) {listed(missing, most=20)}")
    wide = wide[configs]
    if wide.isna().any().any():
        raise InputError(f"split {split!r}: not every config scored every query")
    return wide


def trajectory(scores: pd.DataFrame, rounds: pd.DataFrame, *, golden: str = "golden",
               production: str = "production", resamples: int = DEFAULT_RESAMPLES,
               seed: int = DEFAULT_SEED,
               ci: float = 0.95, z: float = 1.96, inflation=None,
               overlap: SplitOverlap | None = None) -> Trajectory:
    """Trajectory of the champions' scores on two splits.

    Parameters
    ----------
    scores : DataFrame
        ``split, config, query_id, value`` for one metric.
    rounds : DataFrame
        ``round, config`` (the champion kept after each round; round 0 = baseline).
    inflation : SelectionInflation, optional
        The selection split's figure when the caller has it (a workspace's,
        :func:`ragnb.workspace.inflation.workspace_inflation`); else computed here
        from the rounds' scores on it, by the same function with the same seed.
    overlap : SplitOverlap, optional
        Production queries golden also holds (:func:`ragnb.io.overlap.split_overlap`,
        by id and query text); by default the query ids both splits score. Shared
        queries were selected against too: they are left out of the production
        line, or, with too few left, the page gives no divergence reading.
    """
    rounds = rounds.sort_values("round").reset_index(drop=True)
    configs = list(rounds["config"])
    wides = {s: _wide(scores, s, configs) for s in (golden, production)}
    if overlap is None:
        overlap = split_overlap(wides[golden].index.to_frame(index=False),
                                wides[production].index.to_frame(index=False),
                                first_name=golden, other_name=production)
    if overlap.shared and not overlap.refused:
        prod = wides[production]
        wides[production] = prod[~prod.index.astype(str).isin(set(overlap.shared))]
    rows = []
    for s, wide in wides.items():
        for r, config in zip(rounds["round"], configs):
            m = bootstrap_mean(wide[config], resamples=resamples,
                               seed=child_seed(seed, (s, config)), ci=ci)
            rows.append({"round": int(r), "config": config, "split": s, "mean": m.mean,
                         "ci_low": m.ci_low, "ci_high": m.ci_high, "n": m.n})
    points = pd.DataFrame(rows)
    movement = []
    for s, wide in wides.items():
        means = wide.mean().to_numpy()
        after = means[1:] if len(means) > 1 else means
        # last champion against the first on the same queries: paired
        moved = paired_bootstrap(wide[configs[0]], wide[configs[-1]], resamples=resamples,
                                 seed=child_seed(seed, (s, "delta")), ci=ci)  # as four_cell
        movement.append({"split": s, "first": means[0], "last": means[-1],
                         "total": means[-1] - means[0], "ci_low": moved.ci_low,
                         "ci_high": moved.ci_high,
                         "effect_size": effect_size(wide[configs[-1]] - wide[configs[0]]),
                         "range_from_second": float(after.max() - after.min())})
    g = wides[golden].to_numpy()
    n_rounds = len(configs) - 1
    infl = inflation if inflation is not None else split_inflation(
        golden, n_rounds, scores=g if n_rounds >= 1 else None)
    assert infl is not None  # scores of >= 2 rounds, or none selected
    base = float(g[:, 0].mean())
    inflation_band = {"rounds": n_rounds, "expected_max": infl.expected_max, "se": infl.se,
                      "inflation": infl.inflation, "band_low": base,
                      "band_high": base + infl.inflation, "source": infl.se_source,
                      "method": infl.method, "label": infl.label(),
                      **range_columns(infl),
                      "describe": infl.describe(), "figure": infl}
    div, text = _divergence(wides[golden], wides[production], list(rounds["round"]), z)
    method = (f"points: {ci:.0%} percentile bootstrap of the mean, {resamples:,} resamples, "
              f"seeds derived from {seed}; total movement: {ci:.0%} "
              f"{describe_method(moved.method, resamples)} of last − first per query on each "
              f"split (the four-cell delta's); divergence: least-squares hinge of the production "
              f"means, flatness and golden rise by paired z at {z}; inflation band: "
              f"{infl.describe()}")
    metrics = pd.unique(scores["metric"]) if "metric" in scores else []
    if overlap.shared:
        text = overlap.describe() + " " + text
    return Trajectory(points, pd.DataFrame(movement), div, text, inflation_band, golden,
                      production, method, str(metrics[0]) if len(metrics) == 1 else "",
                      overlap=overlap)


def _hinge(means: np.ndarray) -> tuple[int, float]:
    """Least-squares hinge: the round index r where ``a + b * min(s, r)`` fits best."""
    s = np.arange(len(means), dtype=float)
    best, best_sse = 1, np.inf
    for r in range(1, len(means) - 1):
        x = np.minimum(s, r)
        slope, intercept = np.polyfit(x, means, 1)
        sse = float(((intercept + slope * x - means) ** 2).sum())
        if sse < best_sse - 1e-15:
            best, best_sse = r, sse
    return best, best_sse


def _paired_z(d: np.ndarray) -> tuple[float, float]:
    se = d.std(ddof=1) / np.sqrt(len(d))
    if se == 0:
        return float(d.mean()), 1.0 if d.mean() == 0 else 0.0
    return float(d.mean()), float(2 * sps.norm.sf(abs(d.mean()) / se))


#: Champions (rounds + 1) a divergence reading needs: a rise, a hinge and a flat stretch.
MIN_CHAMPIONS = 4


def _rise_gap(golden: np.ndarray, production: np.ndarray) -> tuple[float, float]:
    """Golden's mean paired rise minus production's, and its z (the two splits are
    independent samples: SE = sqrt(SE_g^2 + SE_p^2)).
    """
    gap = float(golden.mean() - production.mean())
    se = float(np.hypot(golden.std(ddof=1) / np.sqrt(len(golden)),
                        production.std(ddof=1) / np.sqrt(len(production))))
    return gap, (np.inf if gap > 0 else 0.0) if se == 0 else gap / se


def _divergence(golden: pd.DataFrame, production: pd.DataFrame, rounds: list[int],
                z: float) -> tuple[int | None, str]:
    g, p = golden.to_numpy(), production.to_numpy()
    if p.shape[1] < MIN_CHAMPIONS:
        return None, f"Too few rounds to date a divergence (need at least {MIN_CHAMPIONS})."
    i, _ = _hinge(p.mean(axis=0))
    r = rounds[i]
    rise, rise_p = _paired_z(p[:, i] - p[:, 0])
    after = p[:, i:].mean(axis=0)
    flat = bool(np.all(np.abs(p[:, i + 1:].mean(axis=0) - p[:, i].mean())
                       <= z * p[:, i + 1:].std(axis=0, ddof=1).clip(1e-15)
                       / np.sqrt(p.shape[0])))
    g_rise, g_p = _paired_z(g[:, -1] - g[:, i])
    # the lines part only if golden rose *more than production* after round r: the gap of
    # the two (independent) paired rises, by z; "flat" alone is no evidence (low power)
    gap, gap_z = _rise_gap(g[:, -1] - g[:, i], p[:, -1] - p[:, i])
    if not (flat and g_rise > 0 and g_p < 2 * sps.norm.sf(z) and gap_z > z):
        return None, (f"No divergence round: after the best hinge (round {r}) the production "
                      f"line {'moves' if not flat else 'is flat'} and the golden line rises "
                      f"{g_rise * 100:+.1f} points (p = {g_p:.3f}), "
                      f"{gap * 100:+.1f} points against production's rise (z = {gap_z:.1f}; "
                      f"the lines part only where golden rises more, z > {z:g}).")
    return r, (f"After round {r} only the golden line moves: golden rises {g_rise * 100:+.1f} "
               f"points from round {r} to round {rounds[-1]} (paired p = {g_p:.2g}) while "
               f"production stays within noise of its round-{r} level in every later round "
               f"(range {(after.max() - after.min()) * 100:.1f} points). Up to round {r} "
               f"production moved {rise * 100:+.1f} points (paired p = {rise_p:.2f}"
               f"{'; not resolved at this sample size' if rise_p >= 0.05 else ''}). The round "
               f"is a least-squares hinge of the production means (rise, then flat).")
