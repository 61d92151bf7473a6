"""What each notebook without a page needs from a workspace: a registry slug -> check.

``ragnb report --all`` runs a notebook only when its check passes and skips it
otherwise with the one-line reason the check returns (it never falls back to
the demo). A check reads only the manifest (no data file is opened).

Pages (:mod:`ragnb.pages`: ``fit``, ``strata``) say what they lack themselves:
their ``resolve`` raises ``MissingInput`` with the reason, and
:func:`ragnb.pages.skip_reason` asks them first; the checks here serve the
notebooks that have no page yet, and go with them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from ragnb.workspace.manifest import REPORT_KEYS
from ragnb.workspace.workspace import Workspace

Check = Callable[[Workspace], str | None]


def _two_splits(ws: Workspace, notebook: str) -> tuple[str | None, str | None]:
    return (ws.setting(notebook, "golden") or ws.role("golden"),
            ws.setting(notebook, "production") or ws.role("production"))


def needs_trajectory(ws: Workspace) -> str | None:
    if not ws.has_rounds:
        return "no rounds of champions ([rounds] configs)"
    golden, production = _two_splits(ws, "trajectory")
    if not golden or not production:
        return "needs two test sets, one with role golden and one with role production"
    if ws.manifest.rounds:
        for split in (golden, production):
            lacking = [c for c in ws.manifest.rounds if c not in ws.configs(split)]
            if lacking:
                return f"test set {split!r} has no run of round config(s) {', '.join(lacking)}"
    return None


def needs_label_bias(ws: Workspace) -> str | None:
    split = ws.setting("label-bias", "test_set") or ws.manifest.labels.get("test_set") \
        or ws.test_set_for("label-bias")
    configs = ws.setting("label-bias", "configs") or ws.configs(split)
    if len(configs) < 2:
        return f"test set {split!r} needs runs of at least two configs"
    if not ws.setting("label-bias", "baseline"):
        return "no baseline config ([report] baseline)"
    return None


def needs_ledger(ws: Workspace) -> str | None:
    if ws.manifest.ledger is None:
        return "no split ledger ([workspace] ledger)"
    if not ws.setting("ledger", "runner_up") or not ws.setting("ledger", "winner"):
        return "no candidates for the regression guard ([report.ledger] runner_up, winner)"
    return None


def needs_health(ws: Workspace) -> str | None:
    if ws.manifest.corpus is None:
        return "no corpus build ([workspace] corpus)"
    health = ws.manifest.health
    if not health.get("holdout_split") or not health.get("holdout_run"):
        return "no held-back check inputs ([health] holdout_split, holdout_run)"
    return None


def needs_code_tasks(ws: Workspace) -> str | None:
    if not ws.manifest.codetasks:
        return "no code-task files ([codetasks] tasks, run)"
    return None


#: notebook slug -> check returning None (runnable) or the reason it is skipped.
NEEDS: dict[str, Check] = {
    "trajectory": needs_trajectory,
    "label-bias": needs_label_bias,
    "ledger": needs_ledger,
    "health": needs_health,
    "code-tasks": needs_code_tasks,
}


#: Notebook parameters that stand for a ``[report]`` key in the checks (of the notebooks
#: without a page; a page's ``resolve`` takes its notebook's parameters itself).
PARAMETER_KEYS = {"split": "test_set", "guard_split": "test_set", "config": "challenger"}


def with_parameters(ws: Workspace, slug: str, given: Mapping[str, Any]) -> Workspace:
    """``ws`` as notebook ``slug`` sees it with the parameters given for the run
    (``-p baseline=bm25`` counts as ``[report.<slug>] baseline``).
    """
    keys = {}
    for name, value in given.items():
        key = PARAMETER_KEYS.get(name, name)
        if key in REPORT_KEYS and value not in ("", None, [], {}):
            keys[key] = value
    if not keys:
        return ws
    per = dict(ws.manifest.report_by_notebook)
    per[slug] = {**per.get(slug, {}), **keys}
    return Workspace(replace(ws.manifest, report_by_notebook=per))


def skip_reason(ws: Workspace, slug: str, given: Mapping[str, Any] | None = None) -> str | None:
    """Why notebook ``slug`` cannot run on ``ws`` (None when it can or has no check),
    with the run's parameters ``given`` taken into account.
    """
    check = NEEDS.get(slug)
    if check is None:
        return None
    return check(with_parameters(ws, slug, given or {}))
