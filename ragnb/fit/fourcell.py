r"""Is the gain real or fit? The four-cell fit/difficulty table (seed 000).

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

Reading: the two gaps are read jointly, each by its own interval. The level
gap (difficulty) says whether production is harder for a fixed pipeline; the
gain gap (carry-over) whether the champion's gain held, independently of the
level, since a level shift moves both configs alike (gains assumed additive
on the metric's scale). Carried over: the production gain's interval is above
0, the gain gap's interval is not below 0 *and* its lower end rules out a
collapse of the whole golden gain (``carry.ci_low > -golden delta``): a
resolved production gain alone is not a carried-over gain, since a gain that
shrank from +9 to +1 points is resolved at n = 50 in 6% of draws and was read
"carried over" (issue 23 #7). Collapsed: the gain gap's interval is below 0;
otherwise the gain is unresolved, and the reading says "inconclusive at this
n" with the queries per set that would resolve the gap. Both gaps' intervals are at
``1 - (1 - ci) / 2`` (97.5% for a 95% reading, Bonferroni), since the reading
needs both right. So:

===============  ==================  ======================  ===================
level \ gain    carried over        collapsed               unresolved
===============  ==================  ======================  ===================
alike            carried over        fit                     inconclusive
harder           difficulty, gain    difficulty and fit      difficulty, gain
                 carried over                                inconclusive
===============  ==================  ======================  ===================

(an easier production set reads "easier, ..." the same way). Simulated at
n = 200 per set (``tests/fit/test_fourcell.py``, ``benchmarks/four_cell.py``): at least
90% correct in each of transfer, fit, harder-and-transfer and
harder-and-collapse, and "carried over" at most 5% for a gain made only by
picking the best of 40 noisy configs. The honest gain is the production
delta; the share of the golden gain that did not carry over is
``1 - production delta / golden delta``.

Overlap, counted first: production queries that golden also holds (same id,
or same text under another id; :func:`ragnb.io.overlap.split_overlap`) were
selected against too. They are left out of the production column and the
reading says so; with fewer than :data:`ragnb.io.overlap.MIN_DISJOINT` left,
no reading is given ("refused").

Limit, always stated: shallow labelling predicts the same four cells — the
champion's newly retrieved passages can be unjudged on production — so the
table cannot separate fit from label bias; pooled labelling (the label-bias
analysis) does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special

from ragnb.errors import InputError, listed
from ragnb.fit.depth import JudgingDepth
from ragnb.io.overlap import SplitOverlap, split_overlap
from ragnb.metrics.score import per_query
from ragnb.result import Analysis
from ragnb.stats import align, child_seed, paired_bootstrap
from ragnb.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, describe_method
from ragnb.stats.classic import effect_size
from ragnb.stats.inflation import as_inflation, range_columns
from ragnb.stats.interval import TOO_FEW
from ragnb.stats.unpaired import UnpairedBootstrap, bootstrap_mean, unpaired_bootstrap

READINGS = ("carried over", "fit", "inconclusive", "difficulty, gain carried over",
            "difficulty and fit", "difficulty, gain inconclusive", "easier, gain carried over",
            "easier and fit", "easier, gain inconclusive", "refused")
#: The reading when production shares too many queries with golden to read a fit.
REFUSED = "refused"

#: Row label of the paired delta's standardized effect size in :meth:`FourCell.display_table`.
EFFECT_ROW = "effect size (mean diff / SD of diffs)"

LIMIT = ("Limit: shallow labelling predicts the same four cells. If the champion's newly "
         "retrieved passages are unjudged on production they count as not relevant there, and "
         "the gain collapses for that reason alone. The table cannot tell fit from label bias: "
         "pool both configurations' top k on production, label the union and re-run "
         "(label-bias analysis).")


@dataclass(frozen=True)
class FourCell(Analysis):
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
    description: str
    splits: pd.DataFrame = field(default_factory=pd.DataFrame)
    limit: str = LIMIT
    overlap: SplitOverlap | None = None
    queries_needed: float = float("nan")
    depth: JudgingDepth | None = None

    @property
    def depth_clause(self) -> str:
        """What the level reading adds when the sets were judged differently (or ``""``)."""
        if self.depth is None or level_reading(self.difficulty) == "alike":
            return ""
        return self.depth.clause()

    def cell(self, config: str, split: str) -> float:
        c = self.cells
        return float(c.loc[(c["config"] == config) & (c["split"] == split), "mean"].iloc[0])

    def delta(self, split: str) -> float:
        return float(self.deltas.loc[self.deltas["split"] == split, "delta"].iloc[0])

    def display_table(self, scale: float = 100.0, digits: int = 1) -> pd.DataFrame:
        """The 4 x 2 display table: ``mean [low, high]`` per cell, deltas in points, and
        the deltas' standardized effect size (mean difference / SD of differences).
        """
        def fmt(row, signed=False, cell_digits=digits):
            v, lo, hi = row
            sign = "+" if signed else ""
            if np.isnan(lo):  # below the minimum n of the calibrated interval
                return f"{v * scale:{sign}.{cell_digits}f} ({TOO_FEW})"
            return f"{v * scale:{sign}.{cell_digits}f} [{lo * scale:{sign}.{cell_digits}f}, " \
                   f"{hi * scale:{sign}.{cell_digits}f}]"

        rows = {}
        for config in (self.baseline, self.champion):
            rows[config] = [fmt(self.cells.loc[(self.cells["config"] == config)
                                               & (self.cells["split"] == s),
                                               ["mean", "ci_low", "ci_high"]].iloc[0])
                            for s in (self.golden, self.production)]
        rows[f"{self.champion} − {self.baseline}"] = [
            fmt(self.deltas.loc[self.deltas["split"] == s, ["delta", "ci_low", "ci_high"]].iloc[0],
                signed=True) for s in (self.golden, self.production)]
        es = self.deltas.set_index("split")["effect_size"]
        rows[EFFECT_ROW] = ["— (SD of differences is 0)" if np.isnan(es[s]) else f"{es[s]:+.2f}"
                            for s in (self.golden, self.production)]
        return pd.DataFrame.from_dict(rows, orient="index", columns=[self.golden, self.production])


def four_cell(scores: pd.DataFrame, *, baseline: str, champion: str, golden: str = "golden",
              production: str = "production", resamples: int = DEFAULT_RESAMPLES,
              seed: int = DEFAULT_SEED,
              ci: float = 0.95, selections: dict[str, int] | None = None,
              inflation: dict | None = None,
              overlap: SplitOverlap | None = None,
              depth: JudgingDepth | None = None) -> FourCell:
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
        ``selections_against`` per split (from the ledger).
    inflation : dict, optional
        Split -> its one selection-inflation figure (:func:`ragnb.stats.split_inflation`,
        e.g. :func:`ragnb.workspace.inflation.workspace_inflation`). A split with a
        count and no figure shows the worst case from the paired SE of the delta
        (``E[max of N normals] x SE / sqrt(2)``, all candidates equal), labelled so.
    overlap : SplitOverlap, optional
        Queries production shares with golden (:func:`ragnb.io.overlap.split_overlap`
        of the two test sets, which also compares query texts); by default the
        query ids the score table has on both splits.
    depth : JudgingDepth, optional
        Judging depth of the two sets (:func:`ragnb.fit.depth.judging_depth`); where
        they were judged differently a level reading says so in its sentence.
    """
    metric = "value"
    if "metric" in scores:
        metrics = scores["metric"].unique()
        if len(metrics) != 1:
            raise InputError(f"four_cell takes one metric, got {len(metrics)}: "
                             f"{listed(metrics)}", key="metric")
        metric = str(metrics[0])
    if overlap is None:
        ids = {s: scores.loc[scores["split"] == s, ["query_id"]].drop_duplicates()
               for s in (golden, production)}
        overlap = split_overlap(ids[golden], ids[production], first_name=golden,
                                other_name=production)
    shared = set(overlap.shared) if not overlap.refused else set()
    cells, deltas, per_split = [], [], {}
    for s in (golden, production):
        b, c = (per_query(scores, config, split=s) for config in (baseline, champion))
        if s == production and shared:  # selected against too: not evidence of fit
            b, c = (v[~v.index.astype(str).isin(shared)] for v in (b, c))
        for config, values in ((baseline, b), (champion, c)):
            m = bootstrap_mean(values, resamples=resamples, seed=child_seed(seed, (s, config)),
                               ci=ci)
            cells.append({"config": config, "split": s, "mean": m.mean, "ci_low": m.ci_low,
                          "ci_high": m.ci_high, "n": m.n, "guard": m.guard})
        r = paired_bootstrap(b, c, resamples=resamples, seed=child_seed(seed, (s, "delta")), ci=ci)
        pair = align(b, c)
        deltas.append({"split": s, "delta": r.delta, "ci_low": r.ci_low, "ci_high": r.ci_high,
                       "se": r.se, "p_value": r.p_value, "mde": r.mde, "n": r.n,
                       "effect_size": effect_size(pair.challenger - pair.baseline)})
        per_split[s] = (b, c, r)
    deltas_df = pd.DataFrame(deltas)
    (bg, cg, rg), (bp, cp, rp) = per_split[golden], per_split[production]
    gap_ci = joint_level(ci)
    difficulty = unpaired_bootstrap(bg, bp, resamples=resamples,
                                    seed=child_seed(seed, "difficulty"), ci=gap_ci)
    carry = unpaired_bootstrap((cg - bg).to_numpy(), (cp - bp).to_numpy(), resamples=resamples,
                               seed=child_seed(seed, "carry"), ci=gap_ci)
    reading, text = _read(rg, rp, difficulty, carry, bg.mean(), bp.mean(), golden, production,
                          depth)
    if overlap.refused:
        reading, text = REFUSED, overlap.describe()
    elif overlap.shared:
        text = overlap.describe() + " " + text
    share = 1 - rp.delta / rg.delta if rg.delta > 0 else float("nan")
    needed = _queries_needed(rp, carry, rg, gap_ci) if "inconclusive" in reading else math.nan
    guarded = [f"{c['config']} on {c['split']}" for c in cells if c["guard"]]
    method = (f"cells: {ci:.0%} percentile bootstrap of the mean"
              + (f" (betting interval where the bootstrap is not trusted: {', '.join(guarded)})"
                 if guarded else "") + "; deltas: "
              + "; ".join(f"{s} {_interval_method(r, resamples)}"
                          for s, r in ((golden, rg), (production, rp)))
              + f"; difficulty and carry-over: {gap_ci:.1%} intervals of a difference of two "
              f"independent samples (the two gaps are read jointly, so each at 1 - (1 - "
              f"{ci:.0%}) / 2, Bonferroni): difficulty {_gap_method(difficulty)}, carry-over "
              f"{_gap_method(carry)}; effect size: mean difference / SD of differences "
              f"(Cohen's d_z, SD with n - 1); {resamples:,} resamples each, seeds derived "
              f"from {seed}")
    split_rows = []
    for s, r in ((golden, rg), (production, rp)):
        given = (inflation or {}).get(s)
        n_sel = (selections or {}).get(s, None if given is None else given.selections)
        figure = as_inflation(s, n_sel, r.se if given is None else given)
        split_rows.append({"split": s, "queries": r.n, "selections_against": n_sel,
                           "se_delta": r.se,
                           "inflation": np.nan if figure is None else figure.inflation,
                           "inflation_method": None if figure is None else figure.method,
                           **range_columns(figure),
                           "se_source": f"calibrated SE of the paired difference {champion} − "
                                        f"{baseline} over {r.n} queries"})
    return FourCell(metric, baseline, champion, golden, production, pd.DataFrame(cells),
                    deltas_df, difficulty, carry, reading, text, rp.delta, share, method,
                    pd.DataFrame(split_rows), overlap=overlap, queries_needed=needed,
                    depth=depth)


def _interval_method(r, resamples: int) -> str:
    """The interval a delta actually got: the calibrated t, or the guard's and why."""
    head = r.note if r.guard else describe_method(r.method, resamples)
    return f"{r.ci:.0%} {head}, p from the {r.p_method}"


def _gap_method(gap: UnpairedBootstrap) -> str:
    """The interval a gap actually got: the percentile bootstrap, or the betting guard."""
    return gap.note if gap.guard else "percentile bootstrap"


def _queries_needed(rp, carry, rg, gap_ci: float, power: float = 0.8) -> float:
    """Queries per set that would resolve what the reading left open, at 80% power.

    The gain gap (two independent samples of ``n`` each) at its observed size:
    ``n' = n ((z_{(1+gap_ci)/2} + z_power) SE_gap / |gap|)^2``; and, when the
    production gain is not resolved, the production delta's own queries needed.
    The larger of the two; infinite when the gap and the gain are both 0.
    """
    z = float(special.ndtri(0.5 + gap_ci / 2) + special.ndtri(power))
    gap = abs(carry.delta)
    need_gap = math.inf if gap == 0 else max(carry.n_a, carry.n_b) * (z * carry.se / gap) ** 2
    need_gain = rp.queries_needed(rp.delta) if rp.ci_low <= 0 else 0.0
    if rg.delta <= 0:  # no golden gain to carry: only the production gain matters
        need_gap = 0.0
    return float(max(need_gap, need_gain if need_gain == need_gain else 0.0))


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}"


def _ci(lo: float, hi: float) -> str:
    return f"[{lo * 100:+.1f}, {hi * 100:+.1f}]"


def joint_level(ci: float) -> float:
    """Level of each gap's interval when the two are read jointly: ``1 - (1 - ci) / 2``.

    Bonferroni: a reading that needs both gaps right errs with probability at
    most ``1 - ci`` when both are null (0.975 each for a 95% reading).
    """
    return 1 - (1 - ci) / 2


def level_reading(difficulty) -> str:
    """``"harder"``, ``"easier"`` or ``"alike"`` from the level gap's interval (prod. - golden)."""
    if difficulty.ci_high < 0:
        return "harder"
    if difficulty.ci_low > 0:
        return "easier"
    return "alike"


def gain_reading(carry, rp, golden_delta: float = 0.0) -> str:
    """``"carried over"``, ``"collapsed"`` or ``"unresolved"`` from the gain gap and prod. gain.

    Carried over needs the production gain resolved, no collapse, and the gap's
    lower end above ``-golden_delta`` (a total collapse ruled out); collapsed needs a
    golden gain above 0 to collapse; see the module docstring.
    """
    if carry.ci_high < 0 and golden_delta > 0:  # no golden gain, nothing to collapse
        return "collapsed"
    if rp.ci_low > 0 and carry.ci_low > -max(golden_delta, 0.0):
        return "carried over"
    return "unresolved"


#: (level, gain) -> reading; one table instead of a chain of conditions.
JOINT = {
    ("alike", "carried over"): "carried over",
    ("alike", "collapsed"): "fit",
    ("alike", "unresolved"): "inconclusive",
    ("harder", "carried over"): "difficulty, gain carried over",
    ("harder", "collapsed"): "difficulty and fit",
    ("harder", "unresolved"): "difficulty, gain inconclusive",
    ("easier", "carried over"): "easier, gain carried over",
    ("easier", "collapsed"): "easier and fit",
    ("easier", "unresolved"): "easier, gain inconclusive",
}

_LEVEL_TEXT = {
    "harder": "{production} is harder for a fixed pipeline (the level gap's interval is below 0)",
    "easier": "{production} is easier for a fixed pipeline (the level gap's interval is above 0)",
    "alike": ("no level difference beyond the noise: for a fixed pipeline the two sets are "
              "equally hard as far as this sample can tell (it cannot rule out up to {bound} "
              "points)"),
}
_GAIN_TEXT = {
    "carried over": ("the {production} gain's interval is above 0 and the gain gap's holds 0 "
                     "and rules out a total collapse: the gain carried over"),
    "collapsed": ("the gain gap's interval is below 0: the gain collapsed on queries nobody "
                  "selected against"),
    "unresolved": ("neither a collapse nor a carried-over gain is resolved at this sample size"),
}


def _read(rg, rp, difficulty, carry, base_g, base_p, golden, production,
          depth: JudgingDepth | None = None) -> tuple[str, str]:
    level, gain = level_reading(difficulty), gain_reading(carry, rp, rg.delta)
    confound = depth.clause() if depth is not None and level != "alike" else ""
    bound = max(abs(difficulty.ci_low), abs(difficulty.ci_high)) * 100
    text = (f"Level gap (difficulty): the baseline scores {base_g * 100:.1f} points on "
            f"{golden} and {base_p * 100:.1f} on {production}, {_pts(difficulty.delta)} points "
            f"{_ci(difficulty.ci_low, difficulty.ci_high)}: "
            + _LEVEL_TEXT[level].format(production=production, bound=f"{bound:.1f}")
            + (f", {confound}" if confound else "")
            + f". Gain gap (carry-over): the champion gains {_pts(rg.delta)} points "
            f"{_ci(rg.ci_low, rg.ci_high)} on {golden} and {_pts(rp.delta)} "
            f"{_ci(rp.ci_low, rp.ci_high)} on {production}, a gap of {_pts(carry.delta)} "
            f"{_ci(carry.ci_low, carry.ci_high)}: " + _GAIN_TEXT[gain].format(production=production)
            + ". Read together (a level shift moves both configs alike, so the gain gap is "
            f"read apart from it): {JOINT[level, gain]}.")
    return JOINT[level, gain], text
