"""Was the stratification written before the scores? The spec's time against the score inputs'.

Scores cannot have been seen before every input they are computed from existed:
the test set (the judgments) and the run files. So the *scores' time* is the
latest of the inputs' times, and a spec is **before the scores** when its
``written_at`` precedes it. A file's time is the time it was first committed
when it is tracked by git (a clone resets modification times to the checkout),
otherwise its modification time; which one was used is stated.

``written_at`` is what the spec's author declares. When the spec file's own
record (first commit, else modification time) comes after the scores, the
line says so: the declaration is then the only evidence of the timing.

The report header (:mod:`ragnb.report.provenance`) shows every ``*_spec``
file's hash and modification time relative to the *report run*; this module
adds the comparison the pre-registration question needs, relative to the
*scores*, as a contributed provenance fact.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

from ragnb.errors import InputError
from ragnb.filefacts import git_history, modified_at, span_text
from ragnb.strata.spec import StrataSpec


@dataclass(frozen=True)
class FileTime:
    """When a file came to exist as it is: first commit (git) or modification time."""

    path: str
    at: datetime
    evidence: str  # "first committed" or "modified"

    def text(self) -> str:
        return f"{Path(self.path).name} ({self.evidence} {_when(self.at)})"


def _when(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def file_time(path: str | PathLike[str]) -> FileTime:
    """First-commit time when ``path`` is tracked by git, else its modification time."""
    path = Path(path).resolve()
    if not path.is_file():
        raise InputError("no such file", source=path)
    first, _ = git_history(path)
    if first:
        return FileTime(str(path), datetime.fromisoformat(first).astimezone(UTC),
                        "first committed")
    return FileTime(str(path), modified_at(path), "modified")


@dataclass(frozen=True)
class SpecTiming:
    """A spec's declared time against the latest score input's.

    Attributes
    ----------
    spec : StrataSpec
    scores_at : FileTime
        The latest of the score inputs' times.
    spec_file : FileTime or None
        The spec file's own record (``None`` for a spec built in code).
    """

    spec: StrataSpec
    scores_at: FileTime
    spec_file: FileTime | None

    @property
    def verdict(self) -> str:
        """``"before"``, ``"after"`` or ``"no spec"`` (strata from parameters)."""
        if self.spec.written_at is None:
            return "no spec"
        return "before" if self.spec.written_at < self.scores_at.at else "after"

    @property
    def seconds_before_scores(self) -> float | None:
        written = self.spec.written_at
        return None if written is None else (self.scores_at.at - written).total_seconds()

    @property
    def line(self) -> str:
        """One sentence for the report: before or after the scores, on what evidence."""
        latest = self.scores_at.text()
        written, gap_seconds = self.spec.written_at, self.seconds_before_scores
        if written is None or gap_seconds is None:
            return (f"No stratification spec: the strata are the values of {self.spec.column!r} "
                    "chosen in the notebook's parameters; nothing records that they were fixed "
                    f"before the scores (latest score input: {latest}).")
        gap = span_text(gap_seconds)
        who = f" by {self.spec.written_by}" if self.spec.written_by else ""
        if self.verdict == "before":
            text = (f"Spec written at {_when(written)}{who}: written before the "
                    f"scores, {gap} before the latest score input, {latest}.")
        else:
            text = (f"Spec written at {_when(written)}{who}: written AFTER the "
                    f"scores could be seen ({gap} after the latest score input, {latest}), so "
                    "this is an exploratory stratification, not a pre-registered one.")
        if self.spec.origin == "what-if":
            text += (" It was exported from the what-if widget: strata chosen after seeing "
                     "per-stratum scores.")
        if self.spec_file is not None and self.verdict == "before" \
                and self.spec_file.at >= self.scores_at.at:
            text += (f" The spec file itself was {self.spec_file.evidence} "
                     f"{_when(self.spec_file.at)}, after the score inputs: the declared time "
                     "is the only evidence that it came first.")
        return text

    def facts(self) -> dict:
        """Facts for :func:`ragnb.report.provenance` (the report header)."""
        return {
            "column": self.spec.column,
            "origin": self.spec.origin,
            "written_at": None if self.spec.written_at is None else _when(self.spec.written_at),
            "written_by": self.spec.written_by or None,
            "latest_score_input": self.scores_at.text(),
            "relative_to_scores": {"before": "written before the scores",
                                   "after": "written AFTER the scores",
                                   "no spec": "no spec"}[self.verdict],
            "spec_file": None if self.spec_file is None else self.spec_file.text(),
        }


def spec_timing(spec: StrataSpec, score_inputs: Iterable[str | PathLike[str]]) -> SpecTiming:
    """Compare a spec's ``written_at`` with the latest of the score inputs' times.

    Parameters
    ----------
    spec : StrataSpec
    score_inputs : iterable of path
        The files the scores were computed from (test set, runs).
    """
    times = [file_time(p) for p in score_inputs]
    if not times:
        raise InputError("no score input files given", key="score_inputs")
    latest = max(times, key=lambda t: t.at)
    own = file_time(spec.source) if spec.source else None
    return SpecTiming(spec, latest, own)
