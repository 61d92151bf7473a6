"""The gate and the split ledger: a gate run on every change is a selection on its split.

Before deciding (:func:`admit`), the ledger's policy applies as it does to
every scoring (:mod:`ragnb.ledger.policy`):

* a sealed confirmation split is refused unless an unseal run declares both
  configs (:func:`~ragnb.ledger.policy.admit_scoring`, which records the scorings);
* a regression guard does not rank: a ``superiority`` gate on it is refused
  unless the leader is clear of the selection bias plus noise
  (:func:`~ragnb.ledger.policy.check_choice`); ``non_inferiority`` and
  ``no_regression`` gates alert on drops beyond noise and rank nothing.

After deciding (:func:`record`), the decision is recorded once per
idempotency key (``--key``, else the commit):

* on a working or unsealed confirmation split, and on a guard that passed
  :func:`check_choice`, as a ``selection`` (winner: the challenger when the
  gate passed, else the baseline), which counts against the split's budget;
* on a regression guard otherwise as ``scored`` events noting the gate and
  its verdict (a guard is scored freely; nothing is chosen on it).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ragnb.errors import PolicyError
from ragnb.ledger.manifest import Manifest

#: Prefix of the note of a gate's ``scored`` events (the key follows).
NOTE = "ragnb gate"
#: Share of the budget used after which the summary says to refresh the split.
REFRESH_SHARE = 0.8


def gate_key(explicit: str | None, cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The idempotency key: ``explicit``, else ``$GITHUB_SHA``, else ``git rev-parse HEAD``.

    None when none is available (the decision is then recorded without a key).
    """
    if explicit:
        return explicit
    if os.environ.get("GITHUB_SHA"):
        return os.environ["GITHUB_SHA"]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and sha else None


def decision_key(key: str | None, baseline: str, challenger: str) -> str | None:
    """The recorded key: one decision per commit, challenger and baseline."""
    return None if key is None else f"gate:{key}:{challenger}-vs-{baseline}"


def admit(ledger_dir: str | None, manifest: Manifest | None, *, kind: str, baseline: str,
          challenger: str, means: dict[str, float], se: float, metric: str,
          record: bool) -> Manifest | None:
    """Apply the ledger's policy before the gate decides (module docstring); may raise
    :class:`~ragnb.errors.PolicyError`.
    """
    if manifest is None:
        return None
    from ragnb.ledger.policy import admit_scoring, check_choice

    if manifest.role == "confirmation":
        if not record:
            raise PolicyError(f"{manifest.name} is a confirmation split: every scoring on it is "
                              "recorded, so --no-record cannot gate on it")
        return admit_scoring(ledger_dir, manifest, [baseline, challenger], metric=metric,
                             values=means, note=NOTE)
    if manifest.role == "regression_guard" and kind == "superiority":
        check_choice(manifest, means, se)
    return manifest


def _recorded(ledger_dir: str, split: str, key: str) -> bool:
    from ragnb.ledger.ledger import Ledger

    return any(e.payload.get("key") == key or e.payload.get("note") == f"{NOTE} {key}"
               for e in Ledger(ledger_dir).events(split))


def record(ledger_dir: str | None, manifest: Manifest | None, *, passed: bool, kind: str,
           baseline: str, challenger: str, means: dict[str, float], se: float, metric: str,
           key: str | None) -> tuple[Manifest | None, str]:
    """Record the decision (module docstring); returns the manifest after it and a sentence."""
    if manifest is None or not ledger_dir:
        return manifest, "not recorded: the split is in no ledger"
    from ragnb.ledger.ledger import Ledger

    led = Ledger(ledger_dir)
    if key is not None and _recorded(ledger_dir, manifest.split_id, key):
        return led.manifest(manifest.split_id), (f"already recorded under key {key} (a retry): "
                                                  "nothing recorded again")
    ranks = manifest.role != "regression_guard" or kind == "superiority"
    keyed = f" under key {key}" if key else " (no key: give --key or run inside a git checkout)"
    if ranks:
        winner = challenger if passed else baseline
        after = led.record_selection(manifest.split_id, [baseline, challenger], winner,
                                     scores=means, se=se, key=key)
        text = (f"recorded as selection {after.selections_against} on {after.name}{keyed} "
                f"(kept: {winner})")
        if after.role == "regression_guard" and manifest.role != "regression_guard":
            text += f"; that selection reached the budget and demoted {after.name}"
        return after, text
    note = f"{NOTE} {key}" if key else NOTE
    after = led.score_all(manifest.split_id, [baseline, challenger], metric=metric,
                          values=means, note=note)
    return after, (f"recorded as two scorings on the regression guard {after.name}{keyed} "
                   "(a guard ranks nothing, so no selection is counted)")


@dataclass(frozen=True)
class SplitStanding:
    """How often the split has chosen, the inflation that implies, and whether to refresh."""

    name: str
    role: str
    selections_against: int
    budget: int | None
    inflation_points: float
    inflation_text: str
    refresh: str

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def standing(manifest: Manifest, se: float, margin: float, se_source: str) -> SplitStanding:
    """The split's standing after the decision (:func:`ragnb.stats.split_inflation`)."""
    from ragnb.stats import split_inflation

    n = manifest.selections_against
    infl = split_inflation(manifest.name, n, se, se_source)
    points = float("nan") if infl is None else infl.points
    text = "selection inflation unknown (no SE)" if infl is None else infl.describe()
    budget = manifest.budget
    if manifest.role == "regression_guard":
        refresh = (f"time to refresh: {manifest.name} is a regression guard (retired from "
                   f"selection {manifest.retired_for_selection_at}); label a fresh split to "
                   "choose on")
    elif budget and n >= REFRESH_SHARE * budget:
        refresh = (f"time to refresh soon: {n} of its {budget} selections are used; label a "
                   "fresh split")
    elif margin and points >= margin / 2:
        refresh = (f"time to refresh: its selection bias ({points:.2f} points) is over "
                   f"half the margin ({margin:g} points)")
    else:
        refresh = "no need to refresh yet" + (f" ({budget - n} selections left)"
                                              if budget else "")
    return SplitStanding(manifest.name, manifest.role, n, budget, points, text, refresh)


def repo_dir(path: str | os.PathLike[str] | None) -> Path | None:
    """The folder to read the commit from (the workspace's, else the current one)."""
    return None if path is None else Path(path).parent
