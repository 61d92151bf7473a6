"""The current state of every split, as a fold over the event log.

The log is the only truth; :func:`fold` replays it from the first event, and
the manifests a :class:`~ragnb.ledger.Ledger` writes to disk are exports of
the result. Rules (:mod:`ragnb.ledger.rules`) are checked against the state
before an event is written, so replaying a log the ledger wrote never fails;
a log edited into an impossible sequence is reported with its line.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ragnb.errors import InputError
from ragnb.ledger.content import parse_split_id
from ragnb.ledger.log import Event
from ragnb.ledger.manifest import Manifest, UnsealPolicy
from ragnb.ledger.thresholdout import ThresholdoutParams


@dataclass
class Window:
    """An open unseal run: the candidates declared and the scores recorded so far."""

    run: int
    candidates: list[str]
    scored: dict[str, float | None] = field(default_factory=dict)

    @property
    def unscored(self) -> list[str]:
        """Declared candidates without a recorded score."""
        return [c for c in self.candidates if c not in self.scored]


@dataclass
class SplitState:
    """Mutable state of one split during the fold (see :class:`Manifest` for the fields)."""

    split_id: str
    role: str
    budget: int | None
    unseal_policy: UnsealPolicy | None
    reusable_holdout: ThresholdoutParams | None
    n_queries: int
    n_judgments: int
    queries_sha256: str
    registered_at: str
    registration: dict = field(default_factory=dict)
    sealed: bool = False
    selections_against: int = 0
    retired_for_selection_at: str | None = None
    scoring_runs_used: int = 0
    holdout_answers: int = 0
    holdout_spent: int = 0
    n_scorings: int = 0
    window: Window | None = None

    @property
    def name(self) -> str:
        """The split's name."""
        return self.split_id.split("@", 1)[0]

    def manifest(self) -> Manifest:
        """The manifest of this state."""
        return Manifest(
            split_id=self.split_id, role=self.role, selections_against=self.selections_against,
            sealed=self.sealed, unseal_policy=self.unseal_policy,
            retired_for_selection_at=self.retired_for_selection_at, budget=self.budget,
            scoring_runs_used=self.scoring_runs_used, reusable_holdout=self.reusable_holdout,
            holdout_answers=self.holdout_answers, holdout_spent=self.holdout_spent,
            n_queries=self.n_queries, n_judgments=self.n_judgments,
            queries_sha256=self.queries_sha256, registered_at=self.registered_at)

    def _retire(self, day: str) -> None:
        self.role = "regression_guard"
        self.retired_for_selection_at = day
        self.sealed = False
        self.window = None


def _registered(e: Event) -> SplitState:
    p = e.payload
    name, _ = parse_split_id(p["split_id"], source="ledger log", key=None)
    if name != e.split:
        raise InputError(f"a 'registered' event for split {e.split!r} carries the split id of "
                         f"{name!r}")
    s = SplitState(
        split_id=p["split_id"], role=p["role"], budget=p["budget"],
        unseal_policy=None if p["unseal_policy"] is None
        else UnsealPolicy.from_dict(p["unseal_policy"], source=f"ledger event {e.seq}"),
        reusable_holdout=None if p["reusable_holdout"] is None
        else ThresholdoutParams.from_dict(p["reusable_holdout"], source=f"ledger event {e.seq}"),
        n_queries=p["n_queries"], n_judgments=p["n_judgments"],
        queries_sha256=p["queries_sha256"], registered_at=e.ts, registration=p,
        sealed=p["role"] == "confirmation")
    if s.role == "regression_guard":
        s.retired_for_selection_at = e.ts[:10]
    inherits = p.get("inherits")
    if inherits:  # a new label version of a query set keeps its selection history
        s.selections_against = int(inherits["selections_against"])
        if inherits.get("retired_for_selection_at"):
            s._retire(inherits["retired_for_selection_at"])
        elif s.budget is not None and s.selections_against >= s.budget:
            s._retire(e.ts[:10])
    return s


def apply(states: dict[str, SplitState], e: Event) -> None:
    """Apply one event to ``states`` in place."""
    if e.event == "torn_tail_quarantined":
        return
    if e.split is None:
        raise InputError(f"event {e.event!r} names no split")
    if e.event == "registered":
        states[e.split] = _registered(e)
        return
    s = states.get(e.split)
    if s is None:
        raise InputError(f"event {e.event!r} for split {e.split!r}, which is not registered")
    p = e.payload
    if e.event == "scored":
        s.n_scorings += 1
        if s.window is not None:
            s.window.scored[p["config"]] = p.get("value")
    elif e.event == "selection":
        s.selections_against += 1
        if p.get("demotion"):
            s._retire(p["demotion"]["date"])
    elif e.event == "sealed":
        s.window = None
        s.sealed = True
        s.role = "confirmation"
        if p.get("unseal_policy") is not None:
            s.unseal_policy = UnsealPolicy.from_dict(p["unseal_policy"],
                                                     source=f"ledger event {e.seq}")
        if "budget" in p:
            s.budget = p["budget"]
        if p.get("reusable_holdout") is not None:
            s.reusable_holdout = ThresholdoutParams.from_dict(p["reusable_holdout"],
                                                              source=f"ledger event {e.seq}")
    elif e.event == "unsealed":
        s.sealed = False
        s.scoring_runs_used += 1
        s.window = Window(run=s.scoring_runs_used, candidates=list(p["candidates"]))
    elif e.event == "demoted":
        s._retire(p["date"])
    elif e.event == "holdout_answered":
        s.holdout_answers += 1
        s.holdout_spent += bool(p["from_holdout"])


def fold(events: Iterable[Event], *, source: str = "ledger log") -> dict[str, SplitState]:
    """Replay ``events`` into the state of every split, keyed by name.

    Raises
    ------
    InputError
        Naming ``source`` and the line (= ``seq``) of an event whose payload
        lacks a field or refers to an unregistered split.
    """
    states: dict[str, SplitState] = {}
    for e in events:
        try:
            apply(states, e)
        except InputError as exc:
            raise InputError(exc.problem, source=source, line=e.seq) from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"malformed {e.event!r} event ({type(exc).__name__}: {exc})",
                             source=source, line=e.seq) from None
    return states
