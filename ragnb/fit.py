"""Is the gain real or fit? The four-cell fit/difficulty table (seed 000).

Rows baseline and champion, columns golden and production; each cell a mean
with its interval, the bottom row the champion-minus-baseline delta per column
with a paired interval. Two more comparisons read it:

difficulty check
    baseline on production minus baseline on golden — an unpaired interval,
    since the queries differ. Inside the noise: the sets are equally hard for a
    fixed pipeline.
carry-over
    production delta minus golden delta — unpaired over the two query samples.
    Below zero: the gain collapsed on the new sample.

Reading: equally hard + collapsed gain = *fit* to the golden set; a baseline
that drops on production = *difficulty*; a gain that holds within the noise =
*carried over*; anything else *inconclusive*. The honest gain is the
production delta; the share of the golden gain that did not carry over is
``1 - production delta / golden delta``.

Limit, always stated: shallow labelling predicts the same four cells — the
champion's newly retrieved passages can be unjudged on production — so the
table cannot separate fit from label bias; pooled labelling (the label-bias
analysis) does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.stats import expected_max_normal, paired_bootstrap
from ragnb.stats._resample import child_seed
from ragnb.stats.unpaired import UnpairedBootstrap, bootstrap_mean, unpaired_bootstrap

READINGS = ("fit", "difficulty", "carried over", "inconclusive")

LIMIT = ("Limit: shallow labelling predicts the same four cells. If the champion's newly "
         "retrieved passages are unjudged on production they count as not relevant there, and "
         "the gain collapses for that reason alone. The table cannot tell fit from label bias: "
         "pool both configurations' top k on production, label the union and re-run "
         "(label-bias analysis).")


@dataclass(frozen=True)
class FourCell:
    """The four-cell table and its reading; see the module docstring."""

    metric: str
    baseline: str
    champion: str
    golden: str
    production: str
    cells: pd.DataFrame
    deltas: pd.DataFrame
    difficulty: UnpairedBootstrap
    carry: UnpairedBootstrap
    reading: str
    explanation: str
    honest_gain: float
    share_not_carried: float
    method: str
    splits: pd.DataFrame = field(default_factory=pd.DataFrame)
    limit: str = LIMIT

    def cell(self, config: str, split: str) -> float:
        c = self.cells
        return float(c.loc[(c["config"] == config) & (c["split"] == split), "mean"].iloc[0])

    def delta(self, split: str) -> float:
        return float(self.deltas.loc[self.deltas["split"] == split, "delta"].iloc[0])

    def table(self, scale: float = 100.0, digits: int = 1) -> pd.DataFrame:
        """The 3 x 2 display table: ``mean [low, high]`` per cell, deltas in points."""
        def fmt(v, lo, hi, signed=False, cell_digits=digits):
            sign = "+" if signed else ""
            return f"{v * scale:{sign}.{cell_digits}f} [{lo * scale:{sign}.{cell_digits}f}, " \
                   f"{hi * scale:{sign}.{cell_digits}f}]"

        rows = {}
        for config in (self.baseline, self.champion):
            rows[config] = [fmt(*self.cells.loc[(self.cells["config"] == config)
                                                & (self.cells["split"] == s),
                                                ["mean", "ci_low", "ci_high"]].iloc[0])
                            for s in (self.golden, self.production)]
        rows[f"{self.champion} − {self.baseline}"] = [
            fmt(*self.deltas.loc[self.deltas["split"] == s, ["delta", "ci_low", "ci_high"]].iloc[0],
                signed=True) for s in (self.golden, self.production)]
        return pd.DataFrame.from_dict(rows, orient="index", columns=[self.golden, self.production])


def _per_query(scores: pd.DataFrame, split: str, config: str) -> pd.Series:
    sel = scores[(scores["split"] == split) & (scores["config"] == config)]
    if sel.empty:
        raise InputError(f"no scores for config {config!r} on split {split!r}; have "
                         f"{sorted(set(zip(scores['split'], scores['config'])))[:6]}")
    return pd.Series(sel["value"].to_numpy(), index=sel["query_id"].to_numpy())


def four_cell(scores: pd.DataFrame, *, baseline: str, champion: str, golden: str = "golden",
              production: str = "production", resamples: int = 10_000, seed: int = 20260729,
              ci: float = 0.95, selections: dict[str, int] | None = None) -> FourCell:
    """Build the four-cell table from a tidy score table of one metric.

    Parameters
    ----------
    scores : DataFrame
        ``split, config, query_id, value`` (and ``metric``, which must be unique).
    baseline, champion : str
        Config names.
    golden, production : str
        Split names: the one selected against, and the fresh sample.
    resamples, seed, ci
        Bootstrap settings; every interval derives its seed from ``seed``.
    selections : dict, optional
        ``selections_against`` per split (from the ledger): the table then shows
        the inflation that count implies, ``E[max of N normals] x SE`` of the delta.
    """
    metric = "value"
    if "metric" in scores:
        metrics = scores["metric"].unique()
        if len(metrics) != 1:
            raise InputError(f"four_cell takes one metric, got {list(metrics)}", key="metric")
        metric = str(metrics[0])
    cells, deltas, per_split = [], [], {}
    for s in (golden, production):
        b, c = _per_query(scores, s, baseline), _per_query(scores, s, champion)
        for config, values in ((baseline, b), (champion, c)):
            m = bootstrap_mean(values, resamples=resamples, seed=child_seed(seed, (s, config)),
                               ci=ci)
            cells.append({"config": config, "split": s, "mean": m.mean, "ci_low": m.ci_low,
                          "ci_high": m.ci_high, "n": m.n})
        r = paired_bootstrap(b, c, resamples=resamples, seed=child_seed(seed, (s, "delta")), ci=ci)
        deltas.append({"split": s, "delta": r.delta, "ci_low": r.ci_low, "ci_high": r.ci_high,
                       "se": r.se, "p_value": r.p_value, "mde": r.mde, "n": r.n})
        per_split[s] = (b, c, r)
    deltas_df = pd.DataFrame(deltas)
    (bg, cg, rg), (bp, cp, rp) = per_split[golden], per_split[production]
    difficulty = unpaired_bootstrap(bg, bp, resamples=resamples,
                                    seed=child_seed(seed, "difficulty"), ci=ci)
    carry = unpaired_bootstrap((cg - bg).to_numpy(), (cp - bp).to_numpy(), resamples=resamples,
                               seed=child_seed(seed, "carry"), ci=ci)
    reading, text = _read(rg, rp, difficulty, carry, bg.mean(), bp.mean(), golden, production)
    share = 1 - rp.delta / rg.delta if rg.delta > 0 else float("nan")
    method = (f"cells: {ci:.0%} percentile bootstrap of the mean; deltas: {ci:.0%} percentile "
              f"paired bootstrap; difficulty and carry-over: unpaired bootstrap of two "
              f"independent samples; {resamples:,} resamples each, seeds derived from {seed}")
    split_rows = []
    for s, r in ((golden, rg), (production, rp)):
        n_sel = (selections or {}).get(s)
        infl = expected_max_normal(n_sel) * r.se if n_sel else (0.0 if n_sel == 0 else np.nan)
        split_rows.append({"split": s, "queries": r.n, "selections_against": n_sel,
                           "se_delta": r.se, "inflation": infl})
    return FourCell(metric, baseline, champion, golden, production, pd.DataFrame(cells),
                    deltas_df, difficulty, carry, reading, text, rp.delta, share, method,
                    pd.DataFrame(split_rows))


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}"


def _ci(lo: float, hi: float) -> str:
    return f"[{lo * 100:+.1f}, {hi * 100:+.1f}]"


def _read(rg, rp, difficulty, carry, base_g, base_p, golden, production) -> tuple[str, str]:
    harder = difficulty.ci_high < 0          # baseline lower on production, beyond noise
    alike = difficulty.ci_low <= 0 <= difficulty.ci_high
    collapsed = carry.ci_high < 0
    held = carry.ci_low <= 0 <= carry.ci_high
    base = (f"The baseline scores {base_g * 100:.1f} points on {golden} and {base_p * 100:.1f} on "
            f"{production} "
            f"(difference {_pts(difficulty.delta)} points, {_ci(difficulty.ci_low, difficulty.ci_high)})")
    gains = (f"the champion's gain is {_pts(rg.delta)} points {_ci(rg.ci_low, rg.ci_high)} on "
             f"{golden} and {_pts(rp.delta)} {_ci(rp.ci_low, rp.ci_high)} on {production} "
             f"(difference {_pts(carry.delta)}, {_ci(carry.ci_low, carry.ci_high)})")
    if harder:
        return "difficulty", (f"{base}: {production} is harder for a fixed pipeline, so a smaller "
                              f"gain there is partly difficulty; {gains}. Reading: difficulty — "
                              f"look at coverage before methodology.")
    if alike and collapsed:
        bound = max(abs(difficulty.ci_low), abs(difficulty.ci_high)) * 100
        return "fit", (f"{base}: no difference beyond the noise, so for a fixed pipeline the "
                       f"two sets are equally hard as far as this sample can tell (it cannot rule "
                       f"out a level difference of up to {bound:.1f} points, but a level "
                       f"difference moves both configurations alike). Yet {gains}: the gain "
                       f"collapsed on queries nobody selected against. Reading: fit to the "
                       f"{golden} set.")
    if held and rp.ci_low > 0:
        return "carried over", (f"{base}; {gains}: the gain holds on the fresh sample within the "
                                f"noise. Reading: carried over.")
    return "inconclusive", (f"{base}; {gains}. Neither a collapse nor a carried-over gain is "
                            f"resolved at this sample size. Reading: inconclusive.")
