"""The gate's decision: per-query differences in, pass or fail out, with the interval behind it.

The statistic
    The decision reads a bound of the mean difference ``d_i = challenger_i -
    baseline_i`` from the most powerful test valid for the question
    (:func:`interval_for`): for superiority with no margin the inverted paired
    sign-flip test (exchangeable configs; valid at every ``n``); otherwise the
    headline interval's construction (:mod:`ragnb.stats.interval`): the calibrated
    t-bound where Cochran's rule trusts it, Hall's skew-corrected t-bound where it
    does not, and where fewer than three queries differ the betting interval
    (:func:`ragnb.stats.betting.betting_interval`, Waudby-Smith & Ramdas 2024),
    valid for any distribution of ``d`` in ``[-1, 1]``. The betting interval alone
    passed a true +5-point gain 0% of the time at n = 30 (issue 38). The paired
    bootstrap is liberal at small ``n`` (6.8% type I at n = 25 in Urbano et al.
    2019), so it is not used. Each end of the two-sided ``1 - 2 alpha`` interval is
    a one-sided ``1 - alpha`` bound, and every kind reads one end::

        non_inferiority   pass  iff  low  > -margin      (error: passing a change
                                                          worse by margin, <= alpha)
        superiority       pass  iff  low  >  margin      (error: passing a change
                                                          no better than margin)
        no_regression     fail  iff  high < -margin      (error: failing a change that
                                                          does not drop by margin)

    With several metrics every one must pass (an intersection-union test:
    level ``alpha`` with no adjustment, Berger 1982).

Strata (``stratum_drop``)
    Each stratum ``h`` whose mean drop exceeds ``X`` gets the anytime-valid
    betting p-value of ``mean(d_h) = -X`` (:func:`ragnb.stats.betting.betting_p_value`,
    two-sided, so conservative for the one-sided claim); the p-values of every
    metric x stratum are Holm-adjusted together (:func:`ragnb.stats.holm`) and
    the gate fails when one is at most ``alpha``.

References
----------
Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance
sampling. Technometrics 24(4), 295-300.
Urbano, J., Lima, H. & Hanjalic, A. (2019). Statistical significance testing
in information retrieval: type I, II and III errors. SIGIR.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragnb.errors import InputError
from ragnb.stats import holm
from ragnb.stats.betting import BettingInterval, betting_interval, betting_p_value
from ragnb.workspace.manifest import GATE_KINDS

#: Columns of :attr:`GateDecision.rows`.
ROW_COLUMNS = ("metric", "n", "baseline_mean", "challenger_mean", "delta", "low", "high",
               "threshold", "passed", "mde", "queries_needed")
#: The power :func:`gate_power` plans for.
POWER = 0.8
#: Columns of :attr:`GateDecision.strata`.
STRATA_COLUMNS = ("metric", "stratum", "n", "delta", "low", "high", "p_value", "p_holm",
                  "dropped")


@dataclass(frozen=True)
class GateDecision:
    """What the rule decided, and on what.

    Attributes
    ----------
    passed : bool
    kind, margin, alpha : str, float, float
        The rule (``margin`` in points).
    rows : DataFrame
        One row per metric (:data:`ROW_COLUMNS`; values 0-1, ``threshold`` the
        bound the rule compares the interval with).
    strata : DataFrame
        One row per metric x stratum when ``stratum_drop`` is set (:data:`STRATA_COLUMNS`).
    stratum_drop : float or None
        Points.
    method : str
        How the intervals were made.
    """

    passed: bool
    kind: str
    margin: float
    alpha: float
    rows: pd.DataFrame
    strata: pd.DataFrame
    stratum_drop: float | None
    method: str

    @property
    def reasons(self) -> list[str]:
        """Why it failed (empty when it passed), one sentence each, in points."""
        out = []
        for r in self.rows.itertuples():
            if not r.passed:
                out.append(f"{r.metric}: {_rule_text(self.kind, self.margin)} not shown "
                           f"(difference {r.delta * 100:+.1f} points, interval "
                           f"[{r.low * 100:+.1f}, {r.high * 100:+.1f}])"
                           if self.kind != "no_regression" else
                           f"{r.metric}: a drop of more than {self.margin:g} points is shown "
                           f"(interval [{r.low * 100:+.1f}, {r.high * 100:+.1f}])")
        for r in self.strata[self.strata["dropped"]].itertuples() if len(self.strata) else ():
            out.append(f"{r.metric}, stratum {r.stratum}: a drop of more than "
                       f"{self.stratum_drop:g} points is shown ({r.delta * 100:+.1f} points "
                       f"over {r.n} queries, Holm p = {r.p_holm:.3g})")
        return out


def _rule_text(kind: str, margin: float) -> str:
    return {"non_inferiority": f"no worse than {margin:g} points below the baseline",
            "superiority": f"better than the baseline by more than {margin:g} points",
            "no_regression": f"no drop of more than {margin:g} points"}[kind]


def rule_sentence(kind: str, margin: float, alpha: float) -> str:
    """The rule in words: what must be shown, at which error rate."""
    if kind == "no_regression":
        return (f"fail only when a drop of more than {margin:g} points is shown "
                f"(one-sided error {alpha:g})")
    return (f"pass when the challenger is shown {_rule_text(kind, margin)} "
            f"(one-sided error {alpha:g})")


def decide(scores: pd.DataFrame, *, baseline: str, challenger: str, metrics: list[str],
           kind: str = "non_inferiority", margin: float = 0.0, alpha: float = 0.05,
           strata: pd.Series | None = None, stratum_drop: float | None = None) -> GateDecision:
    """Decide one change from a tidy score table.

    Parameters
    ----------
    scores : DataFrame
        Tidy per-query scores ``query_id, config, metric, value``.
    baseline, challenger : str
        Configs compared (``challenger - baseline``).
    metrics : list of str
        Each must pass.
    kind : {'non_inferiority', 'superiority', 'no_regression'}
    margin : float
        Points (metric x 100), >= 0.
    alpha : float
        One-sided error rate of each end.
    strata : Series, optional
        Stratum label per query id (for ``stratum_drop``).
    stratum_drop : float, optional
        Points: fail when some stratum's drop beyond it is shown.

    Examples
    --------
    >>> t = pd.DataFrame({"query_id": [f"q{i}" for i in range(40)] * 2,
    ...                   "config": ["a"] * 40 + ["b"] * 40, "metric": "m",
    ...                   "value": [0.5] * 40 + [0.5] * 40})
    >>> decide(t, baseline="a", challenger="b", metrics=["m"], margin=20).passed
    True
    """
    if kind not in GATE_KINDS:
        raise InputError(f"unknown gate kind {kind!r}; kinds: {', '.join(GATE_KINDS)}",
                         key="kind")
    if not 0 < alpha <= 0.5:
        raise InputError(f"`alpha` must be in (0, 0.5], got {alpha}", key="alpha")
    if stratum_drop is not None and strata is None:
        raise InputError("stratum_drop needs strata (a stratum column, `by`)", key="by")
    rows, strata_rows = [], []
    method = ""
    for metric in metrics:
        d, wide = _differences(scores, baseline, challenger, metric)
        ci, threshold, passed = rule(d, kind, margin, alpha)
        method = ci.method.replace(f", n={d.size}", "")
        low, high = ci.low, ci.high
        mde, needed = gate_power(d, kind, margin, alpha)
        rows.append((metric, d.size, float(wide[baseline].mean()),
                     float(wide[challenger].mean()), float(d.mean()), low, high, threshold,
                     bool(passed), mde, needed))
        if stratum_drop is not None and strata is not None:
            strata_rows += _strata_rows(metric, wide, baseline, challenger, strata,
                                        stratum_drop / 100, alpha)
    table = pd.DataFrame(rows, columns=list(ROW_COLUMNS))
    st = pd.DataFrame(strata_rows, columns=[c for c in STRATA_COLUMNS if c != "p_holm"
                                            and c != "dropped"])
    if len(st):
        st["p_holm"] = holm(st["p_value"].to_numpy())
        st["dropped"] = st["p_holm"] <= alpha
    else:
        st = pd.DataFrame(columns=list(STRATA_COLUMNS))
    passed = bool(table["passed"].all()) and not bool(st["dropped"].astype(bool).any())
    return GateDecision(passed, kind, float(margin), float(alpha), table, st[list(STRATA_COLUMNS)],
                        stratum_drop, f"{method}; each end one-sided {1 - alpha:.0%}")


def rule(d, kind: str, margin: float, alpha: float) -> tuple[BettingInterval, float, bool]:
    """The interval of ``d``, the bound the rule compares it with (0-1), and whether it passes.

    The pure core of :func:`decide` (module docstring), on an array of differences: the
    test that fits the question (:func:`interval_for`).

    Examples
    --------
    >>> rule([0.3] * 200, "superiority", 20, 0.05)[2]
    True
    """
    ci = interval_for(d, kind, margin, alpha)
    m = margin / 100
    threshold, passed = {
        "non_inferiority": (-m, ci.low > -m),
        "superiority": (m, ci.low > m),
        "no_regression": (-m, not ci.high < -m),
    }[kind]
    return ci, threshold, bool(passed)


def gate_test(d: np.ndarray, kind: str, margin: float) -> tuple[str, str]:
    """Which test the gate reads for ``d``: ``"sign-flip"``, ``"t"``, ``"skew-corrected"`` or
    ``"betting"``, and why the t-bounds are not trusted ("" otherwise); the headline
    interval's choice (:func:`ragnb.stats.interval.delta_interval`), which
    :func:`interval_for` and :func:`gate_power` both follow.
    """
    from ragnb.stats.interval import MIN_QUERIES, construction

    if kind == "superiority" and margin == 0 and d.size:
        return "sign-flip", ""
    if d.size < MIN_QUERIES:
        return "betting", f"n = {d.size} < {MIN_QUERIES}"
    guard, why = construction(d)
    return guard or "t", why


def interval_for(d, kind: str, margin: float, alpha: float) -> BettingInterval:
    """Each end a one-sided ``1 - alpha`` bound, from the most powerful test valid here.

    - superiority with no margin: the paired sign-flip bounds
      (:func:`ragnb.stats.permutation.sign_flip_bounds`); passing reads "the two configs
      are not exchangeable, and the challenger is ahead", valid at every ``n`` for any
      distribution;
    - a margin, or another kind: the headline interval's construction at one-sided
      ``1 - alpha``: the calibrated t-bounds (floored SD) where Cochran's rule trusts them
      (:func:`ragnb.stats.interval.normal_enough`), Hall's skew-corrected t-bounds where it
      does not and at least three queries differ, else the betting interval, valid for
      any distribution.
    """
    from scipy import special

    from ragnb.stats.interval import floored_sd, skew_corrected
    from ragnb.stats.permutation import sign_flip_bounds

    d = np.asarray(d, dtype=float)
    n = d.size
    mean = float(d.mean()) if n else float("nan")
    test, why = gate_test(d, kind, margin)
    if test == "sign-flip":
        low, high, _, method = sign_flip_bounds(d, alpha)
        return BettingInterval(low, high, mean, n, 2 * alpha, f"{method}, n={n}")
    if test == "t":
        half = float(special.stdtrit(n - 1, 1 - alpha)) * floored_sd(d) / np.sqrt(n)
        return BettingInterval(mean - half, mean + half, mean, n, 2 * alpha,
                               f"calibrated t-bounds (floored SD; Cochran's rule holds), n={n}")
    if test != "betting":
        low, high, _ = skew_corrected(d, floored_sd(d), float(special.stdtrit(n - 1, 1 - alpha)))
        return BettingInterval(low, high, mean, n, 2 * alpha,
                               f"skew-corrected t-bounds (Hall 1992, floored SD; {why}), n={n}")
    ci = betting_interval(d, alpha=2 * alpha)
    return BettingInterval(ci.low, ci.high, ci.estimate, ci.n, ci.alpha,
                           f"{ci.method} ({why})")


def gate_power(d, kind: str, margin: float, alpha: float, power: float = POWER
               ) -> tuple[float, float]:
    """The gate's own minimum detectable effect at this ``n`` and the queries it needs.

    Returns ``(mde, n_needed)`` (0-1 and a count): ``mde`` is the true mean difference
    the gate's test (:func:`interval_for`) decides with probability ``power`` — passes
    for superiority and non-inferiority, fails (a drop) for no-regression — and
    ``n_needed`` the queries at which the *observed* difference would be so decided (normal
    quantiles; inf
    when it is on the other side of the threshold ``T``). With ``a = z_{1-alpha}``,
    ``b = z_power``, ``s`` the SD of ``d``:

    - sign-flip (superiority, no margin): the test's SD is ``sqrt(s^2 + delta^2)``, so
      ``delta sqrt(n) = a sqrt(s^2 + delta^2) + b s``:
      ``delta = s (b sqrt(n) + a sqrt(n + b^2 - a^2)) / (n - a^2)``;
    - calibrated t-bounds: ``delta = T + (t_{n-1,1-alpha} + t_{n-1,power}) s_floored / sqrt(n)``
      (``T - ...`` for a drop); the skew-corrected bounds take the same figure, their
      correction being of order ``1 / n`` in the MDE;
    - the betting interval has no closed form: ``(nan, nan)``.

    ``benchmarks/sim_gate.py`` and ``tests/gate/test_power.py`` hold the figure within 10%
    of the simulated pass rate.
    """
    from scipy import special, stats

    from ragnb.stats.interval import floored_sd

    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        return float("nan"), float("nan")
    m = margin / 100
    delta = float(d.mean())
    a, b = stats.norm.ppf(1 - alpha), stats.norm.ppf(power)
    test, _ = gate_test(d, kind, margin)
    if test == "sign-flip":
        s = float(d.std(ddof=1))
        if n <= a * a:
            return float("nan"), float("nan")
        mde = s * (b * np.sqrt(n) + a * np.sqrt(n + b * b - a * a)) / (n - a * a)
        need = (((a * np.sqrt(s * s + delta * delta) + b * s) / delta) ** 2 if delta > 0
                else np.inf)
        return float(mde), float(np.ceil(need))
    if test == "betting":
        return float("nan"), float("nan")
    s = floored_sd(d)
    q = float(special.stdtrit(n - 1, 1 - alpha) + special.stdtrit(n - 1, power))
    threshold, side = {"superiority": (m, 1), "non_inferiority": (-m, 1),
                       "no_regression": (-m, -1)}[kind]
    mde = threshold + side * q * s / np.sqrt(n)
    gap = side * (delta - threshold)
    need = ((a + b) * s / gap) ** 2 if gap > 0 else np.inf
    return float(mde), float(np.ceil(need))


def _differences(scores: pd.DataFrame, baseline: str, challenger: str, metric: str
                 ) -> tuple[np.ndarray, pd.DataFrame]:
    """Paired per-query differences on the queries both configs were scored on."""
    sub = scores[scores["metric"] == metric]
    if sub.empty:
        raise InputError(f"no scores for metric {metric!r}", key="metric")
    wide = sub.pivot_table(index="query_id", columns="config", values="value", aggfunc="first")
    for c in (baseline, challenger):
        if c not in wide.columns:
            raise InputError(f"no scores of config {c!r} for {metric}", key=c)
    wide = wide[[baseline, challenger]].dropna()
    if wide.empty:
        raise InputError(f"{baseline!r} and {challenger!r} share no scored query", key=metric)
    return (wide[challenger] - wide[baseline]).to_numpy(dtype=float), wide


def _strata_rows(metric: str, wide: pd.DataFrame, baseline: str, challenger: str,
                 strata: pd.Series, drop: float, alpha: float) -> list[tuple]:
    labels = strata.reindex(wide.index)
    out = []
    for stratum, ids in wide.groupby(labels, sort=True).groups.items():
        d = (wide.loc[ids, challenger] - wide.loc[ids, baseline]).to_numpy(dtype=float)
        ci = betting_interval(d, alpha=2 * alpha)
        p = betting_p_value(d, null=max(-drop, -1.0)) if d.mean() < -drop else 1.0
        out.append((metric, str(stratum), d.size, float(d.mean()), ci.low, ci.high, p))
    return out
