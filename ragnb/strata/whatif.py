"""What-if stratification state: the strata, metric and policy now shown, and their log.

:class:`WhatIfState` holds a test set, two runs and a strata table, and
recomputes the stratified breakdown (:func:`ragnb.strata.breakdown`) for the
current stratum column, strata included or excluded, strata merged, metric
and label policy. Per-query scores are cached per ``(metric, policy)``, so only
the first use of a metric scores the runs. The widget that shows it is
:class:`ragnb.widgets.whatif.WhatIf`.

Honesty rules:

- every exclusion, merge and switch is logged, under the warning that a filter
  chosen after seeing per-stratum scores is not a pre-registered analysis (it
  is the fitting procedure of the four-cell analysis again);
- the log exports as a stratification spec file (``origin = "what-if"``,
  ``written_at`` = now, the log inside) that the report takes as
  ``-p strata_spec=FILE``, so a what-if becomes a reproducible report whose
  header says it was written after the scores.
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.run import Run
from ragnb.io.strata_table import stratum_columns
from ragnb.io.testset import TestSet
from ragnb.metrics import POLICIES, JudgmentIndex, parse_metric
from ragnb.metrics.score import Scores, score
from ragnb.strata.breakdown import Breakdown, breakdown
from ragnb.strata.spec import StrataSpec, apply_spec, write_spec
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

WARNING = ("A filter chosen after seeing per-stratum scores is not a pre-registered analysis: "
           "excluding or merging strata, or switching the metric, until a result looks right "
           "is the fitting procedure again. Export the log as a spec to make the result "
           "reproducible; its report will say it was written after the scores.")
#: The report notebook an exported spec is meant for.
REPORT_NOTEBOOK = "03-strata"


@dataclass(frozen=True)
class LogEntry:
    """One step of a what-if session."""

    at: datetime
    text: str


class WhatIfState:
    """The what-if session: current stratification, metric, policy and the log of changes.

    Parameters
    ----------
    test_set : TestSet
    runs : sequence or mapping of Run
        Must include ``baseline`` and ``challenger``.
    table : DataFrame
        Strata table: ``query_id`` and candidate columns
        (:func:`ragnb.strata.strata_table`).
    baseline, challenger : str
        Config names.
    spec : StrataSpec or str, optional
        Starting stratification (a spec file's, or a column name); default the
        first candidate column.
    metric : str
        Starting metric, e.g. ``"ndcg@10"``.
    policy : {"lower", "condensed", "upper"}
    reported_points : float or str, optional
        A pooled delta reported elsewhere, in points, to reconcile with (for the
        starting metric and policy only).
    resamples, seed, min_stratum
        As for :func:`ragnb.strata.breakdown`.
    extra : {"error", "drop"}
        Run queries the test set lacks (``score(extra=...)``).
    columns : list of str, optional
        Columns offered (default :func:`ragnb.strata.stratum_columns`).
    report_parameters : mapping, optional
        Other ``-p`` values for the report command an export prints
        (``data_dir``, ``split``, ...).
    """

    def __init__(self, test_set: TestSet, runs: Sequence[Run] | Mapping[str, Run],
                 table: pd.DataFrame, *, baseline: str, challenger: str,
                 spec: StrataSpec | str | None = None, metric: str = "ndcg@10",
                 policy: str = "lower", reported_points=None,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 min_stratum: int = 10, extra: str = "error",
                 columns: Sequence[str] | None = None,
                 report_parameters: Mapping[str, object] | None = None) -> None:
        runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
        by_name = {r.name: r for r in runs}
        for name in (baseline, challenger):
            if name not in by_name:
                raise InputError(f"no run named {name!r} (runs: {', '.join(by_name)})",
                                 key=name)
        self._index = JudgmentIndex.from_test_set(test_set)
        self._runs = [by_name[baseline], by_name[challenger]]
        self.table = table
        self.baseline, self.challenger = baseline, challenger
        self.reported_points = reported_points
        self.resamples, self.seed, self.min_stratum = resamples, seed, min_stratum
        self.extra = extra
        self.report_parameters = dict(report_parameters or {})
        self.columns = list(columns) if columns is not None else stratum_columns(table)
        if spec is None:
            if not self.columns:
                raise InputError("the strata table has no column with 2 to 30 values",
                                 key="columns")
            spec = self.columns[0]
        self.initial_spec = StrataSpec.plain(spec) if isinstance(spec, str) else spec
        if self.initial_spec.column not in self.columns:
            self.columns.append(self.initial_spec.column)
        apply_spec(table, self.initial_spec)  # a bad spec fails here, naming file and key
        self._scores: dict[tuple[str, str], Scores] = {}
        self.log: list[LogEntry] = []
        self.restore(self.initial_spec)
        parsed = parse_metric(metric)
        if policy not in POLICIES:
            raise InputError(f"policy must be one of {listed(POLICIES)}, got {policy!r}",
                             key="policy")
        #: The metric and policy now shown (the widget sets them from its controls).
        self.metric, self.policy = str(parsed), policy
        #: the reported figure is for the starting metric and policy only
        self.reported_for = (str(parsed), policy)

    def restore(self, spec: StrataSpec) -> None:
        """Set column, merges and exclusions from ``spec`` (not logged)."""
        self.column = spec.column
        self.merges: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in spec.merge.items()}
        self.excluded: set[str] = set(spec.exclude)

    @property
    def spec(self) -> StrataSpec:
        """The stratification now shown (no claim of timing; see :meth:`export_spec`)."""
        return StrataSpec(column=self.column, merge=dict(self.merges),
                          exclude=tuple(sorted(self.excluded)))

    def reported(self):
        """The reported figure, when it is for the metric and policy shown."""
        return self.reported_points if (self.metric, self.policy) == self.reported_for else None

    def scores(self) -> Scores:
        """Per-query scores of the two runs for the current metric and policy (cached)."""
        key = (self.metric, self.policy)
        if key not in self._scores:
            self._scores[key] = score(self._index, self._runs, key[0], policy=key[1],
                                      extra=self.extra)
        return self._scores[key]

    def note(self, text: str) -> None:
        """Log one step (time-stamped, UTC)."""
        self.log.append(LogEntry(datetime.now(UTC), text))

    def labels(self) -> pd.Series:
        """Stratum of every query after merges, before exclusions."""
        applied = apply_spec(self.table, StrataSpec(column=self.column, merge=dict(self.merges)))
        return applied.labels

    def size(self, label: str) -> int:
        """Number of queries in stratum ``label`` (after merges)."""
        return int((self.labels().astype(str) == label).sum())

    def include(self, label: str, included: bool) -> None:
        """Include or exclude one stratum (logged)."""
        n = self.size(label)
        if included:
            self.excluded.discard(label)
            self.note(f"included {label!r} again ({n} queries)")
        else:
            self.excluded.add(label)
            self.note(f"excluded {label!r} ({n} queries)")

    def switch_column(self, old: str, new: str) -> None:
        """Stratify by another column; merges and exclusions are cleared (logged)."""
        self.column, self.merges, self.excluded = new, {}, set()
        self.note(f"stratum column {old!r} -> {new!r} (merges and exclusions cleared)")

    def merge_problem(self, labels: Sequence[str], name: str, current: set[str]) -> str | None:
        """Why ``labels`` cannot be merged into ``name`` (``current``: the strata now), or None."""
        if len(labels) < 2:
            return "select two strata or more to merge"
        if not name:
            return "name the merged stratum"
        if any(x not in current for x in labels):
            return f"not strata now: {listed(x for x in labels if x not in current)}"
        if name in current and name not in labels:
            return f"{name!r} is already a stratum; choose another name"
        return None

    def merge(self, labels: Sequence[str], name: str) -> None:
        """Merge strata (merged ones are expanded) into ``name`` (logged; check first)."""
        originals: list[str] = []
        for x in labels:
            originals += list(self.merges.pop(x, (x,)))
        self.merges[name] = tuple(originals)
        was_excluded = self.excluded & set(labels)
        self.excluded -= set(labels)
        n = int(self.labels().astype(str).eq(name).sum())
        self.note(f"merged {' + '.join(labels)} into {name!r} ({n} queries)"
                  + (f"; {', '.join(sorted(was_excluded))} included again" if was_excluded
                     else ""))

    def reset(self) -> None:
        """Back to the starting spec (logged; the log itself is kept)."""
        self.restore(self.initial_spec)
        self.note(f"reset to the starting stratification ({self.initial_spec.describe()})")

    def breakdown(self) -> Breakdown:
        """The breakdown of the current state (raises what the scoring or the spec raises)."""
        return breakdown(self.scores(), self.table, self.spec, baseline=self.baseline,
                         challenger=self.challenger, metric=self.metric,
                         reported_points=self.reported(), resamples=self.resamples,
                         seed=self.seed, min_stratum=self.min_stratum)

    def status_lines(self, bd: Breakdown) -> list[str]:
        """What the breakdown leaves to say beside its headline: completeness,
        reconciliation, the failing checks and the method.
        """
        lines = [bd.completeness]
        if bd.reconciliation_line:
            lines.append(bd.reconciliation_line)
        elif self.reported_points not in (None, ""):
            metric, policy = self.reported_for
            lines.append(f"The reported figure ({self.reported_points} points) is for {metric} "
                         f"under the {policy} policy: not reconciled with {self.metric} "
                         f"({self.policy}).")
        bad = bd.checks[~bd.checks["holds"]]
        lines += [f"⚠ {c}: {d}" for c, d in zip(bad["check"], bad["detail"])
                  if c not in ("completeness", "reconciles with reported pooled")]
        return lines

    def export_spec(self, path: str | PathLike[str], written_by: str) -> Path:
        """Write the current stratification and the log as a ``what-if`` spec file."""
        if not written_by or not written_by.strip():
            raise InputError("say who writes the spec (written_by)", key="written_by")
        spec = StrataSpec(
            column=self.column, merge=dict(self.merges), exclude=tuple(sorted(self.excluded)),
            written_at=datetime.now(UTC).replace(microsecond=0), written_by=written_by.strip(),
            origin="what-if",
            note=(f"exported from the what-if widget; started from "
                  f"{self.initial_spec.describe()} ({self.initial_spec.origin}); shown with "
                  f"{self.metric}, {self.policy} policy"),
            log=tuple(f"{e.at:%Y-%m-%dT%H:%M:%SZ} {e.text}" for e in self.log),
        )
        return write_spec(spec, path).resolve()

    def report_command(self, spec_path: str | PathLike[str]) -> str:
        """The ``ragnb report`` command that rebuilds the current view from a spec file."""
        reported = self.reported()
        params = {**self.report_parameters, "baseline": self.baseline,
                  "challenger": self.challenger, "metric": self.metric,
                  "policy": self.policy, "strata_spec": str(Path(spec_path).resolve()),
                  # explicit, so the report never takes a figure from elsewhere
                  "reported": "none" if reported in (None, "") else reported}
        args = " ".join(f"-p {shlex.quote(f'{k}={v}')}" for k, v in params.items())
        return f"ragnb report {REPORT_NOTEBOOK} {args}"
