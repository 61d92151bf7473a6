"""The split ledger: selection budget, sealed confirmation splits, demotion.

How much of a score on a split is quality and how much is fit depends on how
many times the split has been used to choose, and that count leaves no trace
in the score (seed 000). The ledger records it beside the split, enforces the
rules that follow from it, and keeps the history.

>>> import pandas as pd, tempfile
>>> from ragnb.ledger import Ledger
>>> led = Ledger(tempfile.mkdtemp())
>>> judgments = pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["p1", "p7"],
...                           "grade": [2, 1]})
>>> led.register("golden", judgments, ["q1", "q2", "q3"], budget=40).role
'working'
>>> led.record_selection("golden", ["round-17", "round-18"], winner="round-18").selections_against
1
>>> prod = judgments.assign(query_id=["q8", "q9"])
>>> led.register("prod-2026Q2", prod, role="confirmation").sealed
True
>>> led.manifest("golden").selections_against
1

Modules: :mod:`~ragnb.ledger.content` (split id), :mod:`~ragnb.ledger.manifest`
(fields, JSON), :mod:`~ragnb.ledger.log` (append-only log), :mod:`~ragnb.ledger.state`
(fold), :mod:`~ragnb.ledger.rules`, :mod:`~ragnb.ledger.guard` (regression guard),
:mod:`~ragnb.ledger.thresholdout` (reusable holdout), :mod:`~ragnb.ledger.ledger`.
"""
from __future__ import annotations

from ragnb.ledger.content import SplitContent, split_content
from ragnb.ledger.finding import SplitUse
from ragnb.ledger.guard import GuardAlert, alert, check_ranking, ranking_margin
from ragnb.ledger.ledger import Ledger, LedgerIntegrityError, LedgerIntegrityWarning
from ragnb.ledger.log import Event, TornRecordWarning, TornTail
from ragnb.ledger.manifest import ROLES, Manifest, UnsealPolicy, read_manifest, write_manifest
from ragnb.ledger.thresholdout import (
    HoldoutAnswer,
    Thresholdout,
    ThresholdoutParams,
    thresholdout_answer,
)
from ragnb.paths import DATA_DIR

#: Default ledger directory of the CLI (overridden by ``$RAGNB_LEDGER`` or ``--ledger``).
DEFAULT_LEDGER_DIR = DATA_DIR / "ledger"

__all__ = [
    "SplitUse",
    "DEFAULT_LEDGER_DIR", "ROLES", "Event", "GuardAlert", "HoldoutAnswer", "Ledger",
    "LedgerIntegrityError", "LedgerIntegrityWarning", "Manifest",
    "SplitContent", "Thresholdout", "ThresholdoutParams", "TornRecordWarning", "TornTail",
    "UnsealPolicy", "alert", "check_ranking", "ranking_margin", "read_manifest",
    "split_content", "thresholdout_answer", "write_manifest",
]
