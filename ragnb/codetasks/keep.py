"""The keep condition: stated before the run, read against the intervals after it.

Seed 002: before looking at the rebuilt evaluation, decide that the retriever
stays when all-files recall on the edit set is at least 0.80 and caller
recall at least 0.90 — ``"all_files>=0.80,caller>=0.90"``. Stating it first is
what keeps the analysis from becoming a rationalisation.

Each clause ``metric op threshold`` (``op`` one of ``>=``, ``>``, ``<=``,
``<``, or ``≥``, ``≤`` — a notebook's parameters cell cannot hold a second
``=`` on a line, papermill refuses it; metrics of
:data:`ragnb.codetasks.recall.METRICS`) is read against the metric's bootstrap
interval [lo, hi]:

``met``
    the whole interval is on the condition's side (``>= t``: lo >= t);
``failed``
    the whole interval is on the other side (``>= t``: hi < t);
``inconclusive``
    the interval straddles the threshold, or the metric is defined on fewer
    than :data:`MIN_TASKS` tasks (a handful of tasks gives a narrow, even
    zero-width, bootstrap interval that settles nothing), or it has no interval;
``out of reach``
    a ``>=``/``>`` clause above the metric's ceiling at k (the mean score of a
    perfect ranking, :func:`ragnb.codetasks.recall.ceiling`): tasks with more
    than k files cannot score 1, so no retriever meets it at this k — the
    clause says nothing about the retriever; raise k or restate it.

Verdict: ``keep`` when every clause is met (the retriever is not what breaks
the builds: look at context assembly and verification next); ``fix`` when any
clause failed (the condition cannot hold, whatever the others say: the failed
clause names the gap to repair — seed 002: a caller recall of 0.44 is a
reverse-edge problem with a known repair, not a reason to start over);
otherwise ``inconclusive`` (more tasks would settle it, or, for a clause out
of reach, a larger k).
"""
from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass

import pandas as pd

from ragnb.codetasks.recall import METRICS
from ragnb.errors import InputError
from ragnb.result import Analysis, interval, points

#: Seed 002's keep condition.
SEED_002_KEEP = "all_files>=0.80,caller>=0.90"
KEEP, FIX, INCONCLUSIVE = "keep", "fix", "inconclusive"
#: A clause no ranking can meet at this k (its threshold above the metric's ceiling).
OUT_OF_REACH = "out of reach"
#: Fewest tasks a clause is decided on (met or failed); fewer is inconclusive.
MIN_TASKS = 10
_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt}
_CLAUSE = re.compile(r"^\s*(?P<metric>[A-Za-z_][\w-]*)\s*(?P<op>>=|<=|>|<|==|=|≥|≤)?\s*"
                     r"(?P<value>.*?)\s*$")
_ALIASES = {"≥": ">=", "≤": "<="}
CLAUSE_COLUMNS = ["metric", "condition", "mean", "ci_low", "ci_high", "n", "k", "ceiling",
                  "over_k", "edit_first", "crowded", "status", "reason"]


@dataclass(frozen=True)
class Clause:
    """One clause of a keep condition: ``metric op threshold``."""

    metric: str
    op: str
    threshold: float

    def __str__(self) -> str:
        return f"{self.metric} {self.op} {self.threshold:g}"

    def in_points(self) -> str:
        """The clause with its threshold in points (recall x 100): ``all_files >= 80.0``."""
        return f"{self.metric} {self.op} {points(self.threshold)}"


def condition_in_points(condition: str) -> str:
    """A stated keep condition with every threshold in points: ``all_files >= 80.0, ...``."""
    return ", ".join(c.in_points() for c in parse_keep(condition, source="condition"))


def parse_keep(text: str, source: str = "keep") -> tuple[Clause, ...]:
    """Parse ``"all_files>=0.80,caller>=0.90"`` into clauses.

    Raises
    ------
    InputError
        Naming ``source`` and the clause's metric (or the clause) as key: an
        empty condition, an unknown metric, a missing or unknown operator, a
        threshold that is not a number in [0, 1], a metric given twice.

    Examples
    --------
    >>> [str(c) for c in parse_keep("all_files>=0.80, caller ≥ 0.9")]
    ['all_files >= 0.8', 'caller >= 0.9']
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError("the keep condition is empty; write e.g. "
                         f"{SEED_002_KEEP!r}", source=source)
    clauses, seen = [], set()
    for part in text.split(","):
        m = _CLAUSE.match(part)
        if not part.strip() or m is None:
            raise InputError(f"cannot read the clause {part.strip()!r}; write metric>=value",
                             source=source, key=part.strip() or "(empty)")
        metric, op, value = m["metric"], _ALIASES.get(m["op"], m["op"]), m["value"]
        if metric not in METRICS:
            raise InputError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}",
                             source=source, key=metric)
        if op not in _OPS:
            raise InputError(f"the clause {part.strip()!r} needs one of the operators "
                             f"{', '.join(_OPS)}", source=source, key=metric)
        try:
            threshold = float(value)
        except ValueError:
            raise InputError(f"threshold {value!r} is not a number", source=source,
                             key=metric) from None
        if not 0.0 <= threshold <= 1.0:
            raise InputError(f"threshold {value} is not a recall in [0, 1]", source=source,
                             key=metric)
        if metric in seen:
            raise InputError("the metric is given twice", source=source, key=metric)
        seen.add(metric)
        clauses.append(Clause(metric, op, threshold))
    return tuple(clauses)


@dataclass(frozen=True)
class KeepVerdict(Analysis):
    """A keep condition read against the intervals.

    Attributes
    ----------
    verdict : str
        ``keep``, ``fix`` or ``inconclusive``.
    clauses : DataFrame
        One row per clause (:data:`CLAUSE_COLUMNS`) with the numbers.
    condition : str
        The condition as stated.
    reason : str
        One sentence saying why.
    methods : tuple of str
        How each clause's interval was made (the summary's ``method``, in clause order).
    """

    verdict: str
    clauses: pd.DataFrame
    condition: str
    reason: str
    methods: tuple[str, ...] = ()

    @property
    def description(self) -> str:
        """How the verdict was read: the rule, then each clause's interval method and n."""
        rule = ("each clause of the keep condition is read against its metric's interval: "
                "met when the whole interval satisfies it, failed when the whole interval "
                "misses it, inconclusive when the interval straddles the threshold, there is "
                f"none, or the metric is defined on fewer than {MIN_TASKS} tasks; out of "
                "reach when a perfect ranking could not meet it at this k; keep when "
                "every clause is met, fix when any fails")
        per = [f"{m}: {how}" if how else f"{m}: n={n} tasks"
               for m, n, how in zip(self.clauses["metric"], self.clauses["n"],
                                    self.methods or ("",) * len(self.clauses))]
        return f"{rule}. Intervals: " + "; ".join(per) if per else rule


def capped(clause: Clause, edit_first: float, crowded: int) -> bool:
    """Whether a ``>=``/``>`` clause is above what a ranking holding the edit set first can
    reach at k (it can be met only by ranking the set's files above edited ones).
    """
    return bool(crowded) and clause.op in (">=", ">") and math.isfinite(edit_first) and (
        not _OPS[clause.op](edit_first, clause.threshold))


def _status(clause: Clause, lo: float, hi: float, n: int, *, k: int = 0,
            ceiling: float = math.nan, over_k: int = 0) -> tuple[str, str]:
    """The clause's status and why, the interval and threshold in points."""
    if over_k and clause.op in (">=", ">") and not _OPS[clause.op](ceiling, clause.threshold):
        return OUT_OF_REACH, (f"{over_k} of {n} tasks have more than {k} files, so a perfect "
                              f"ranking scores at most {points(ceiling)} points at k={k}: "
                              f"{clause.in_points()} cannot hold at this k")
    if n < MIN_TASKS:
        return INCONCLUSIVE, (f"defined on {n} task(s), fewer than {MIN_TASKS}: too few to "
                              f"decide {clause.in_points()}")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return INCONCLUSIVE, "no interval (fewer than two tasks)"
    holds = _OPS[clause.op]
    t = clause.threshold
    shown = f"{interval(lo, hi)} points"
    if holds(lo, t) and holds(hi, t):
        return "met", f"the whole interval {shown} satisfies {clause.in_points()}"
    if not holds(lo, t) and not holds(hi, t):
        return "failed", f"the whole interval {shown} misses {clause.in_points()}"
    return INCONCLUSIVE, f"the interval {shown} straddles {points(clause.threshold)}"


def evaluate_keep(summary: pd.DataFrame, condition: str | tuple[Clause, ...]) -> KeepVerdict:
    """Read a keep condition against a :func:`ragnb.codetasks.recall.recall_summary` table."""
    clauses = parse_keep(condition) if isinstance(condition, str) else tuple(condition)
    by_metric = summary.set_index("metric")
    rows = []
    methods: list[str] = []
    for c in clauses:
        r = by_metric.loc[c.metric]
        k, top, over = (int(r.get("k", 0)), float(r.get("ceiling", math.nan)),
                        int(r.get("over_k", 0)))
        first, crowded = float(r.get("edit_first", math.nan)), int(r.get("crowded", 0))
        status, reason = _status(c, float(r["ci_low"]), float(r["ci_high"]), int(r["n"]),
                                 k=k, ceiling=top, over_k=over)
        if status != OUT_OF_REACH and capped(c, first, crowded):
            reason += (f"; a ranking that holds every edited file first reaches at most "
                       f"{points(first)} points at k={k} ({crowded} of {int(r['n'])} tasks "
                       f"have more edited and {c.metric} files than k)")
        methods.append(str(r["method"]) if "method" in r.index else "")
        rows.append({"metric": c.metric, "condition": str(c), "mean": float(r["mean"]),
                     "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"]),
                     "n": int(r["n"]), "k": k, "ceiling": top, "over_k": over,
                     "edit_first": first, "crowded": crowded,
                     "status": status, "reason": reason})
    table = pd.DataFrame(rows, columns=CLAUSE_COLUMNS)
    shown = {str(c): c.in_points() for c in clauses}
    failed = [shown[c] for c in table.loc[table["status"] == "failed", "condition"]]
    open_ = [shown[c] for c in table.loc[table["status"] == INCONCLUSIVE, "condition"]]
    unreachable = [shown[c] for c in table.loc[table["status"] == OUT_OF_REACH, "condition"]]
    if failed:
        verdict, reason = FIX, (f"the intervals rule out {' and '.join(failed)} (points): "
                                f"repair that gap "
                                f"before judging anything downstream")
    elif unreachable:
        verdict, reason = INCONCLUSIVE, (f"{' and '.join(unreachable)} (points) cannot hold at "
                                         f"k={int(table['k'].max())}: raise k or restate it")
    elif open_:
        verdict, reason = INCONCLUSIVE, (f"the intervals neither confirm nor rule out "
                                         f"{' and '.join(open_)}")
    else:
        verdict, reason = KEEP, "every clause holds over its whole interval"
    text = ", ".join(str(c) for c in clauses)
    return KeepVerdict(verdict, table, text, reason, tuple(methods))
