"""Shared fixtures for the ledger tests."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from ragnb.ledger import Ledger


class StepClock:
    """A clock that advances one day per call, starting 2026-01-05 (UTC)."""

    def __init__(self, start: datetime = datetime(2026, 1, 5, 9, tzinfo=UTC)) -> None:
        self.now = start - timedelta(days=1)

    def __call__(self) -> datetime:
        self.now += timedelta(days=1)
        return self.now


@pytest.fixture
def qrels() -> pd.DataFrame:
    return pd.DataFrame({
        "query_id": ["q1", "q1", "q2", "q3"],
        "passage_id": ["p1", "p2", "p9", "p4"],
        "grade": [2, 0, 1, 2],
    })


@pytest.fixture
def ledger(tmp_path) -> Ledger:
    return Ledger(tmp_path / "ledger")
