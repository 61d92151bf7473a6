"""The split ledger: selection budget, sealed confirmation splits, demotion.

How much of a score on a split is quality and how much is fit depends on how
many times the split has been used to choose, and that count leaves no trace
in the score (seed 000). The ledger records it beside the split, enforces the
rules that follow from it, and keeps the history.

>>> from ragnb.ledger import Ledger, UnsealPolicy            # doctest: +SKIP
>>> led = Ledger("data/ledger")                              # doctest: +SKIP
>>> led.register("golden", judgments, query_ids, budget=40)  # doctest: +SKIP
>>> led.record_selection("golden", ["round-17", "round-18"], winner="round-18")  # doctest: +SKIP
>>> led.register("prod-2026Q2", prod_judgments, role="confirmation")  # sealed  # doctest: +SKIP
>>> led.manifest("golden").selections_against                # doctest: +SKIP

Modules: :mod:`~ragnb.ledger.content` (split id), :mod:`~ragnb.ledger.manifest`
(fields, JSON), :mod:`~ragnb.ledger.log` (append-only log), :mod:`~ragnb.ledger.state`
(fold), :mod:`~ragnb.ledger.rules`, :mod:`~ragnb.ledger.guard` (regression guard),
:mod:`~ragnb.ledger.thresholdout` (reusable holdout), :mod:`~ragnb.ledger.ledger`.
"""
from __future__ import annotations

from ragnb.ledger.content import SplitContent, split_content
from ragnb.ledger.finding import SplitUse
from ragnb.ledger.guard import GuardAlert, alert, check_ranking, ranking_margin
from ragnb.ledger.ledger import Ledger
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
    "DEFAULT_LEDGER_DIR", "ROLES", "Event", "GuardAlert", "HoldoutAnswer", "Ledger", "Manifest",
    "SplitContent", "Thresholdout", "ThresholdoutParams", "TornRecordWarning", "TornTail",
    "UnsealPolicy", "alert", "check_ranking", "ranking_margin", "read_manifest",
    "split_content", "thresholdout_answer", "write_manifest",
]
