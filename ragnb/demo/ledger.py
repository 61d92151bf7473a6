"""Demo split ledger: forty rounds of selection on golden, production sealed.

Written from the demo test sets with a clock that follows ``rounds.csv``, so
the log is byte-identical on regeneration: golden is registered as the working
split with a budget of 40 selections and reaches it at round 40 (demoted to
regression guard that day); the production sample is registered sealed as a
confirmation split, unsealed once for the January configuration and the
champion, and both scorings are recorded.
"""
from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd

from ragnb.io import read_test_set
from ragnb.ledger import Ledger, UnsealPolicy

ACTOR = "search-team"


class _Clock:
    """Deterministic clock: each call returns the current time, then moves on a minute."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def set(self, day: str) -> None:
        self.now = datetime.fromisoformat(day).replace(hour=9, tzinfo=UTC)

    def __call__(self) -> datetime:
        now = self.now
        self.now = now + timedelta(minutes=1)
        return now


def generate(demo_dir: str | Path) -> list[Path]:
    """Write ``demo_dir/ledger`` from the demo test sets and ``rounds.csv``."""
    demo_dir = Path(demo_dir)
    path = demo_dir / "ledger"
    if path.exists():
        for f in sorted(path.rglob("*"), reverse=True):
            f.unlink() if f.is_file() else f.rmdir()
    rounds = pd.read_csv(demo_dir / "rounds.csv", dtype={"date": str})
    clock = _Clock(datetime(2026, 1, 8, tzinfo=UTC))
    clock.set(rounds["date"].iloc[0])
    ledger = Ledger(path, clock=clock)
    golden = read_test_set(demo_dir / "golden.jsonl")
    production = read_test_set(demo_dir / "production.jsonl")
    ledger.register("golden", golden.judgments, golden.query_ids, role="working", budget=40,
                    actor=ACTOR, source=str(golden.source))
    for _, row in rounds.iloc[1:].iterrows():
        clock.set(row["date"])
        previous = f"round-{row['round'] - 1:02d}"
        ledger.record_selection("golden", [previous, row["config"]], winner=row["config"],
                                actor=ACTOR)
    clock.set("2026-07-06")
    ledger.register("production", production.judgments, production.query_ids,
                    role="confirmation", unseal_policy=UnsealPolicy(), actor=ACTOR,
                    source=str(production.source))
    ledger.unseal("production", ["round-00", "round-40"],
                  reason="confirm the champion against January on a fresh sample", actor=ACTOR)
    for config in ("round-00", "round-40"):
        ledger.score("production", config, metric="ndcg@10", actor=ACTOR)
    ledger.seal("production", actor=ACTOR)
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
