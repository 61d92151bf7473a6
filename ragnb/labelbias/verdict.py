"""The three-way verdict: whether labelling can still change the decision.

Against a baseline, each challenger gets three paired bootstraps of the mean
per-query difference ``challenger - baseline`` (seed 003, §2-1):

``current``
    both scored under the ``lower`` policy (unjudged = not relevant): the
    usual comparison.
``conservative``
    the per-query minimum of the *difference* over every labelling of the
    pooled passages, a passage both configs retrieved getting one label for
    both (:mod:`ragnb.labelbias.joint`; the default). With ``joint=False``,
    the seed's separate bounds: the challenger at its per-query minimum, the
    baseline at its maximum (``bound_min - bound_max``), which pairs two
    labellings that cannot both hold and is never tighter (for near-identical
    rankers ±50 points where the joint bounds give ±8).
``optimistic``
    the reverse (the joint maximum, or ``bound_max - bound_min``).

Verdict
    ``adopt`` when the conservative interval lies above zero (the challenger
    wins whatever the unjudged passages turn out to be); ``reject`` when the
    optimistic interval does not lie above zero (it is not shown to win even
    if every label goes its way: its optimistic mean may still lie above zero);
    otherwise ``labelling decides``.

The separate per-config bounds stay what they are: bounds on each config's
*level* (:func:`ragnb.labelbias.bounds.bounds_table`); ``verdicts`` carries the
mean per-query bounds of the difference both ways (``joint_min/max``,
``separate_min/max``) beside the verdict.

The per-query bounds are valid per query, so any valid interval of their mean
is a valid conservative (optimistic) interval (STATS-REFERENCES §3). Each test
gets the headline interval of every other page (:mod:`ragnb.stats.interval`:
the calibrated t-interval, the betting interval where Cochran's rule fails), so
the ``current`` row is the very interval 01-fit and 03-strata print for the same
pair (issue 33 #7); the seed's percentile bootstrap stays behind
``method="percentile"`` (it covers 65-89% at 10-30 sparse queries).

Order: per query conservative <= current <= optimistic, but intervals of
different spread need not be ordered, so the rule reads the ends that keep the
verdict coherent with the current row: adopt needs the conservative *and* the
current lower ends above zero (never easier than either alone), and
"optimistic above zero" also counts the current lower end (a mean that is
above zero under the current labels is above zero under the optimistic ones,
which dominate them query by query).

Effect size: each test's per-query differences give ``mean / SD`` (Cohen's
d_z, :func:`ragnb.stats.classic.effect_size`); the verdict table shows the
current one beside the intervals.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.labelbias.bounds import Bounds
from ragnb.labelbias.joint import joint_bounds
from ragnb.result import Analysis
from ragnb.stats import paired_bootstrap
from ragnb.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Method, method_label
from ragnb.stats.classic import effect_size

TESTS = ("current", "conservative", "optimistic")
ADOPT, REJECT, UNDECIDED = "adopt", "reject", "labelling decides"
VERDICTS = (ADOPT, REJECT, UNDECIDED)
RULE = ("adopt when the conservative interval lies above zero; reject when the optimistic "
        "interval does not lie above zero; otherwise labelling decides")
VERDICT_COLUMNS = ["baseline", "challenger", "verdict", "reason", "joint_min", "joint_max",
                   "separate_min", "separate_max"]
TEST_COLUMNS = ["baseline", "challenger", "test", "bounds", "delta", "ci_low", "ci_high",
                "excludes_zero", "effect_size", "se", "p_value", "n", "resamples", "seed",
                "method", "ci"]


@dataclass(frozen=True)
class ThreeWay(Analysis):
    """Result of :func:`three_way`.

    Attributes
    ----------
    tests : DataFrame
        One row per challenger and test (:data:`TEST_COLUMNS`); ``bounds`` says
        whether the conservative/optimistic rows used ``separate`` or ``joint``
        per-query bounds.
    verdicts : DataFrame
        One row per challenger (:data:`VERDICT_COLUMNS`): ``verdict``, ``reason``
        and the mean per-query bounds of the difference, joint and separate.
    metric : str
    description : str
        How the intervals were made (method, resamples, n, seed).
    """

    tests: pd.DataFrame
    verdicts: pd.DataFrame
    metric: str
    description: str

    def wide(self, digits: int = 4) -> pd.DataFrame:
        """The seed's table: one row per challenger, ``delta [low, high]`` per test, verdict.

        A ``*`` marks an interval that excludes zero.
        """
        return verdict_table(self, digits)


def _series(values, index) -> pd.Series:
    return pd.Series(np.asarray(values, dtype=np.float64), index=pd.Index(index, name="query_id"))


def three_way(
    bounds: Bounds,
    baseline: str,
    challengers: Sequence[str] | None = None,
    *,
    joint: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
    method: Method = "t",
) -> ThreeWay:
    """Current, conservative and optimistic paired bootstraps and the verdict per challenger.

    Parameters
    ----------
    bounds : Bounds
        From :func:`ragnb.labelbias.bounds.label_bounds`, with the baseline
        and the challengers among its configs.
    baseline : str
    challengers : list of str, optional
        Default: every other config.
    joint : bool
        Joint per-query bounds of the difference (default) or, with
        ``False``, separate per-config ones (the seed's table; looser).
    resamples, seed, ci, method
        Passed to :func:`ragnb.stats.paired_bootstrap` (defaults: 10,000
        resamples, seed 20260729, the 95% headline interval; ``"percentile"``
        for seed 003's percentile bootstrap).
    """
    configs = bounds.configs
    if baseline not in configs:
        raise InputError(f"unknown baseline {baseline!r}; configs: "
                         f"{listed(configs, most=20)}", key="baseline")
    if challengers is None:
        challengers = [c for c in configs if c != baseline]
    unknown = [c for c in challengers if c not in configs]
    if unknown:
        raise InputError(f"unknown challenger(s) {listed(unknown, most=20)}; configs: "
                         f"{listed(configs, most=20)}", key="challenger")
    if not challengers:
        raise InputError("no challenger to compare with the baseline", key="challenger")
    per_query = pd.concat([joint_bounds(bounds, baseline, chal) for chal in challengers],
                          ignore_index=True)
    return verdicts_from(per_query, bounds.metric, joint=joint, resamples=resamples, seed=seed,
                         ci=ci, method=method)


def verdicts_from(
    per_query: pd.DataFrame,
    metric: str,
    *,
    joint: bool = True,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
    method: Method = "t",
) -> ThreeWay:
    """The three bootstraps and the verdict from per-query bounds of the differences.

    Parameters
    ----------
    per_query : DataFrame
        :func:`ragnb.labelbias.joint.joint_bounds` rows (``JOINT_COLUMNS``) of
        one or more ``(baseline, challenger)`` pairs; :func:`three_way` makes
        them from a :class:`Bounds`.
    metric : str
    joint, resamples, seed, ci, method
        As in :func:`three_way`.
    """
    rows, verdicts, description = [], [], ""
    for (baseline, chal), jb in per_query.groupby(["baseline", "challenger"], sort=False):
        qids = jb["query_id"].to_numpy()
        tests = {
            "current": jb["delta_lower"],
            "conservative": jb["joint_min"] if joint else jb["separate_min"],
            "optimistic": jb["joint_max"] if joint else jb["separate_max"],
        }
        results = {}
        for test in TESTS:
            r = paired_bootstrap(_series(np.zeros(len(qids)), qids),
                                 _series(tests[test], qids), resamples=resamples, seed=seed,
                                 ci=ci, method=method, path="index")
            results[test] = r
            description = r.describe()
            rows.append({
                "baseline": baseline, "challenger": chal, "test": test,
                "bounds": "policy" if test == "current" else ("joint" if joint else "separate"),
                "delta": r.delta, "ci_low": r.ci_low, "ci_high": r.ci_high,
                "excludes_zero": bool(r.ci_low > 0 or r.ci_high < 0),
                "effect_size": effect_size(tests[test]), "se": r.se,
                "p_value": r.p_value, "n": r.n, "resamples": r.resamples, "seed": r.seed,
                "method": method_label(r.method), "ci": r.ci,
            })
        verdict, reason = decide(results["conservative"].ci_low, results["optimistic"].ci_low,
                                 results["current"].ci_low)
        verdicts.append({"baseline": baseline, "challenger": chal, "verdict": verdict,
                         "reason": reason,
                         **{c: float(jb[c].mean()) for c in ("joint_min", "joint_max",
                                                              "separate_min", "separate_max")}})
    return ThreeWay(pd.DataFrame(rows, columns=TEST_COLUMNS),
                    pd.DataFrame(verdicts, columns=VERDICT_COLUMNS), metric,
                    description + f"; per-query bounds {'joint' if joint else 'separate'}")


def decide(conservative_low: float, optimistic_low: float,
           current_low: float | None = None) -> tuple[str, str]:
    """Apply :data:`RULE` to the lower ends of the conservative and optimistic intervals.

    With ``current_low``, the ends are read as the module docstring's *Order*
    says: adopt needs both the conservative and the current end above zero, and
    the optimistic check counts the current end too.
    """
    if current_low is not None and current_low == current_low:
        if conservative_low > 0 and not current_low > 0:
            return UNDECIDED, ("the conservative interval lies above zero but the current one "
                               "does not: more queries decide")
        optimistic_low = max(optimistic_low, current_low)
    if conservative_low > 0:
        return ADOPT, "the conservative interval lies above zero: it wins whatever the labels"
    if not optimistic_low > 0:
        return REJECT, ("the optimistic interval does not lie above zero: it is not shown to "
                        "win even if every unjudged passage goes its way")
    return UNDECIDED, ("the optimistic interval lies above zero but the conservative one does "
                       "not: judging the unjudged passages decides")


#: What a challenger's verdict reads as: one vocabulary for the headline, the table and the
#: chart's legend. ``labelling decides`` splits by what would decide it: the labels when some
#: labelling puts the mean difference at or below 0 (conservative mean <= 0), more queries
#: when every labelling leaves it above 0 (conservative mean > 0, its interval not);
#: ``reject`` splits into "cannot win" (optimistic interval below 0) and "not shown to win".
WINS, LABELS, QUERIES, NOT_SHOWN, CANNOT = ("wins whatever the labels", "labels decide",
                                            "more queries decide", "not shown to win",
                                            "cannot win")
READINGS = (WINS, LABELS, QUERIES, NOT_SHOWN, CANNOT)


def readings(result: ThreeWay) -> pd.Series:
    """Challenger -> its reading (:data:`READINGS`), from its verdict and intervals."""
    t = result.tests.set_index(["challenger", "test"])
    out = {}
    for c, verdict in zip(result.verdicts["challenger"], result.verdicts["verdict"],
                          strict=True):
        if verdict == ADOPT:
            out[c] = WINS
        elif verdict == UNDECIDED:
            out[c] = QUERIES if t.loc[(c, "conservative"), "delta"] > 0 else LABELS
        else:
            out[c] = CANNOT if t.loc[(c, "optimistic"), "ci_high"] < 0 else NOT_SHOWN
    return pd.Series(out, name="reading", dtype=object)


def format_interval(delta: float, low: float, high: float, digits: int = 4) -> str:
    """``+0.0068 [-0.0290, +0.0433]`` with a trailing ``*`` when the interval excludes 0."""
    f = f"{{:+.{digits}f}}"
    star = " *" if (low > 0 or high < 0) else ""
    return f"{f.format(delta)} [{f.format(low)}, {f.format(high)}]{star}"


def verdict_table(result: ThreeWay, digits: int = 4) -> pd.DataFrame:
    """Wide, formatted: ``challenger, current, conservative, optimistic, effect_size, verdict``.

    ``effect_size`` is the current comparison's mean difference / SD of
    differences (``—`` when every difference is equal).
    """
    t = result.tests
    out = []
    for (base, chal), g in t.groupby(["baseline", "challenger"], sort=False):
        row = {"baseline": base, "challenger": chal}
        for _, r in g.iterrows():
            row[r["test"]] = format_interval(r["delta"], r["ci_low"], r["ci_high"], digits)
            if r["test"] == "current":
                row["effect_size"] = "—" if np.isnan(r["effect_size"]) else \
                    f"{r['effect_size']:+.2f}"
        v = result.verdicts
        row["verdict"] = v.loc[(v["challenger"] == chal) & (v["baseline"] == base),
                               "verdict"].iloc[0]
        out.append(row)
    return pd.DataFrame(out, columns=["baseline", "challenger", *TESTS, "effect_size", "verdict"])
