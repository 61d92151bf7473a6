"""The test-set health checks as a :class:`~ragnb.result.Finding`.

The checks of 06 have no single result object of their own; they get the
small record :class:`HealthReview` here, with its adapter.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragnb.result import (
    Analysis,
    Finding,
    Headline,
    checks_frame,
    register,
)


@dataclass(frozen=True)
class HealthReview(Analysis):
    """The test-set health checks of 06, as ``(check, holds, detail, chart)`` entries.

    ``urgency`` orders what to fix first (lower first; equal ones in the order added).
    """

    split: str
    entries: list[tuple[str, bool, str, Any]] = field(default_factory=list)
    description: str = ""
    urgency: dict[str, int] = field(default_factory=dict)

    def add(self, check: str, holds: bool, detail: str, chart: Any = None, *,
            urgency: int = 100) -> None:
        self.entries.append((check, bool(holds), detail, chart))
        self.urgency[check] = urgency


@register(HealthReview)
def health_finding(hr: HealthReview, *, display_names: Mapping[str, str],
                   chart: Any = None) -> Finding:
    """Headline: how many health checks hold; the failing ones first."""
    checks = checks_frame([(c, h, d) for c, h, d, _ in hr.entries])
    failing = [e for e in hr.entries if not e[1]]
    first = sorted(failing, key=lambda e: hr.urgency.get(e[0], 100))
    n = len(hr.entries)
    if failing:
        answer = (f"{n - len(failing)} of {n} health checks hold for {hr.split}; failing: "
                  + ", ".join(c for c, _, _, _ in first) + ".")
        next_step = f"Fix first: {first[0][0]} ({first[0][2]}) — its chart is below."
        shown = chart if chart is not None else first[0][3]
    else:
        answer = f"All {n} health checks hold for {hr.split}."
        next_step = "Keep using the test set; re-run this check with every new corpus build."
        shown = chart if chart is not None else (hr.entries[0][3] if hr.entries else None)
    table = checks.assign(holds=checks["holds"].map({True: "holds", False: "fails"}))
    return Finding(
        Headline("Is the test set still a fair ruler?", answer, next_step,
                 f"{n - len(failing)} of {n} hold"),
        table, shown, checks, hr.description,
        caption="Each health check; metric differences in points (metric × 100), shares in %",
        source=hr,
    )
