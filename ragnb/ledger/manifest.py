"""The split manifest: what travels with a split, and its JSON form.

A manifest records the properties of a split that no score shows: its role,
how many times it has been used to choose (``selections_against``), whether it
is sealed and under what policy it may be opened, and when it was retired from
selection. In a :class:`~ragnb.ledger.Ledger` the manifest is *derived* from
the event log; the JSON written beside the log is an export (a cache), and
:func:`read_manifest` validates such a file with errors that name the file,
the key and what is wrong.

Example (seed 000's golden set after forty rounds, abbreviated)::

    {"format": "ragnb-manifest/1",
     "split_id": "golden-v1-300@sha256:e5b2...", "role": "regression_guard",
     "selections_against": 40, "sealed": false, "unseal_policy": null,
     "retired_for_selection_at": "2026-07-02", "budget": 40, ...}
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ragnb._atomic import write_atomic
from ragnb.errors import InputError
from ragnb.ledger import _validate as v
from ragnb.ledger.content import parse_split_id
from ragnb.ledger.thresholdout import ThresholdoutParams

MANIFEST_FORMAT = "ragnb-manifest/1"
#: working: selected against freely, within its budget; regression_guard: run on
#: every change, alerts on large drops, never ranks close candidates;
#: confirmation: sealed, opened only through its unseal policy.
ROLES = ("working", "regression_guard", "confirmation")


@dataclass(frozen=True)
class UnsealPolicy:
    """How a sealed confirmation split may be opened.

    Parameters
    ----------
    max_scoring_runs : int
        How many times the split may be unsealed for a scoring run (seed 000: once).
    max_candidates : int
        How many configurations one run may score (seed 000: the top three
        of a selection that ran entirely on the working set).
    publish_whatever_they_say : bool
        If true a run cannot be closed (re-sealed) until every declared
        candidate has a recorded score, so no result can go unreported.
    text : str
        The policy in words, shown beside the manifest.
    """

    max_scoring_runs: int = 1
    max_candidates: int = 3
    publish_whatever_they_say: bool = True
    text: str = "one scoring run, top-3 candidates, results published whatever they say"

    def __post_init__(self) -> None:
        self.from_dict(asdict(self), source="UnsealPolicy", path="")

    @classmethod
    def from_dict(cls, d: object, *, source: str, path: str = "unseal_policy") -> UnsealPolicy:
        """Validate a JSON object; errors name ``source`` and the key path."""
        names = tuple(f.name for f in fields(cls))
        d = v.obj(d, names, names, source, path)
        p = f"{path}." if path else ""
        out = object.__new__(cls)
        for name, value in (
            ("max_scoring_runs", v.integer(d["max_scoring_runs"], source, p + "max_scoring_runs",
                                           minimum=1)),
            ("max_candidates", v.integer(d["max_candidates"], source, p + "max_candidates",
                                         minimum=1)),
            ("publish_whatever_they_say", v.boolean(d["publish_whatever_they_say"], source,
                                                    p + "publish_whatever_they_say")),
            ("text", v.text(d["text"], source, p + "text")),
        ):
            object.__setattr__(out, name, value)
        return out


@dataclass(frozen=True)
class Manifest:
    """The state of one split, as derived from the ledger.

    Attributes
    ----------
    split_id : str
        ``<name>@sha256:<hex>``; see :mod:`ragnb.ledger.content`.
    role : str
        One of :data:`ROLES`.
    selections_against : int
        Times the split has been used to choose a winner. Only ever increases.
    sealed : bool
        A sealed split can be scored only through ``unseal_policy`` (or
        ``reusable_holdout``).
    unseal_policy : UnsealPolicy or None
        Set for confirmation splits.
    retired_for_selection_at : str or None
        ``YYYY-MM-DD`` on which the split became a regression guard.
    budget : int or None
        Selections allowed before automatic demotion; ``None``: no budget
        declared (selections are counted, never demote).
    scoring_runs_used : int
        Unseal runs opened so far under ``unseal_policy``.
    reusable_holdout : ThresholdoutParams or None
        Set when the split answers through Thresholdout.
    holdout_answers, holdout_spent : int
        Thresholdout answers given, and how many of them came from the split.
    n_queries, n_judgments : int
        Size of the split.
    queries_sha256 : str
        Digest of the query ids alone (equal for a relabelled copy).
    registered_at : str
        ISO timestamp of registration (UTC).
    """

    split_id: str
    role: str
    selections_against: int
    sealed: bool
    unseal_policy: UnsealPolicy | None
    retired_for_selection_at: str | None
    budget: int | None
    scoring_runs_used: int
    reusable_holdout: ThresholdoutParams | None
    holdout_answers: int
    holdout_spent: int
    n_queries: int
    n_judgments: int
    queries_sha256: str
    registered_at: str

    @property
    def name(self) -> str:
        """The split's name (the part of ``split_id`` before ``@``)."""
        return self.split_id.split("@", 1)[0]

    @property
    def budget_left(self) -> int | None:
        """Selections left before demotion (``None`` without a budget)."""
        if self.budget is None:
            return None
        return max(self.budget - self.selections_against, 0)

    def inflation(self, given=None):
        """The split's selection inflation (:func:`ragnb.stats.inflation.as_inflation`).

        Parameters
        ----------
        given : SelectionInflation, float or None
            The split's figure (:func:`ragnb.stats.split_inflation`, from its
            candidates' per-query scores), or the SE of a paired difference on
            it (the worst case, all candidates equal), or None (a figure only
            when the split was never selected against).
        """
        from ragnb.stats.inflation import as_inflation

        return as_inflation(self.name, self.selections_against, given)

    def to_dict(self) -> dict:
        """The JSON object (with ``format``) written by :func:`write_manifest`."""
        d: dict[str, Any] = {"format": MANIFEST_FORMAT}
        for f in fields(self):
            value = getattr(self, f.name)
            d[f.name] = asdict(value) if hasattr(value, "__dataclass_fields__") else value
        return d

    @classmethod
    def from_dict(cls, d: object, *, source: str = "manifest") -> Manifest:
        """Validate a JSON object and build a manifest.

        Raises
        ------
        InputError
            Naming ``source``, the key and what is wrong: unknown or missing
            key, wrong type, a role outside :data:`ROLES`, a malformed
            ``split_id`` or date, or fields that contradict each other (a
            sealed split that is not a confirmation split, a regression guard
            without a retirement date, a count past the budget on a split
            that was not demoted).
        """
        names = ("format",) + tuple(f.name for f in fields(cls))
        d = v.obj(d, names + ("ledger_head",), names, source, "")
        if d["format"] != MANIFEST_FORMAT:
            raise InputError(f"unsupported format {d['format']!r}; expected {MANIFEST_FORMAT!r}",
                             source=source, key="format")
        parse_split_id(d["split_id"], source=source)
        if d["role"] not in ROLES:
            raise InputError(f"role {d['role']!r} is not one of {', '.join(ROLES)}",
                             source=source, key="role")
        m = cls(
            split_id=d["split_id"],
            role=d["role"],
            selections_against=v.integer(d["selections_against"], source, "selections_against",
                                         minimum=0),
            sealed=v.boolean(d["sealed"], source, "sealed"),
            unseal_policy=None if d["unseal_policy"] is None
            else UnsealPolicy.from_dict(d["unseal_policy"], source=source),
            retired_for_selection_at=v.iso_date(d["retired_for_selection_at"], source,
                                                "retired_for_selection_at", optional=True),
            budget=v.integer(d["budget"], source, "budget", minimum=1, optional=True),
            scoring_runs_used=v.integer(d["scoring_runs_used"], source, "scoring_runs_used",
                                        minimum=0),
            reusable_holdout=None if d["reusable_holdout"] is None
            else ThresholdoutParams.from_dict(d["reusable_holdout"], source=source),
            holdout_answers=v.integer(d["holdout_answers"], source, "holdout_answers", minimum=0),
            holdout_spent=v.integer(d["holdout_spent"], source, "holdout_spent", minimum=0),
            n_queries=v.integer(d["n_queries"], source, "n_queries", minimum=1),
            n_judgments=v.integer(d["n_judgments"], source, "n_judgments", minimum=0),
            queries_sha256=v.text(d["queries_sha256"], source, "queries_sha256"),
            registered_at=v.text(d["registered_at"], source, "registered_at"),
        )
        _check_consistent(m, source)
        return m


def _check_consistent(m: Manifest, source: str) -> None:
    def bad(problem: str, key: str) -> None:
        raise InputError(problem, source=source, key=key)

    if m.sealed and m.role != "confirmation":
        bad(f"only a confirmation split can be sealed, this one is {m.role}", "sealed")
    if m.role == "confirmation" and m.unseal_policy is None:
        bad("a confirmation split needs an unseal_policy", "unseal_policy")
    if (m.role == "regression_guard") != (m.retired_for_selection_at is not None):
        bad("must be a date exactly when role is regression_guard", "retired_for_selection_at")
    if m.budget is not None and m.selections_against >= m.budget and m.role != "regression_guard":
        bad(f"{m.selections_against} selections reach the budget of {m.budget}, so the split "
            "should have been demoted to regression_guard", "selections_against")
    if m.unseal_policy is not None and m.scoring_runs_used > m.unseal_policy.max_scoring_runs:
        bad(f"{m.scoring_runs_used} runs exceed the policy's {m.unseal_policy.max_scoring_runs}",
            "scoring_runs_used")
    if m.holdout_spent > m.holdout_answers:
        bad("cannot exceed holdout_answers", "holdout_spent")
    if m.reusable_holdout is not None and m.holdout_spent > m.reusable_holdout.budget:
        bad("exceeds reusable_holdout.budget", "holdout_spent")


def read_manifest(path: str | os.PathLike[str]) -> Manifest:
    """Read and validate one manifest JSON file.

    Raises
    ------
    InputError
        If the file is missing, is not JSON (with its line), or fails
        :meth:`Manifest.from_dict`.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read manifest: {e.strerror}", source=path) from None
    if not text.strip():
        raise InputError("manifest file is empty", source=path)
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON: {e.msg} (column {e.colno})", source=path,
                         line=e.lineno) from None
    return Manifest.from_dict(d, source=str(path))


def write_manifest(path: str | os.PathLike[str], manifest: Manifest,
                   ledger_head: object | None = None) -> None:
    """Write ``manifest`` as JSON atomically (temporary file, fsync, rename).

    ``ledger_head`` (``SEQ:HASH`` of the log when it was written, see
    :class:`ragnb.ledger.log.Head`) is recorded as ``ledger_head`` so that
    ``ragnb ledger verify`` can detect a log cut short or rewritten later.
    """
    d = manifest.to_dict()
    if ledger_head is not None:
        d["ledger_head"] = str(ledger_head)
    write_atomic(path, json.dumps(d, indent=2, ensure_ascii=False) + "\n")
