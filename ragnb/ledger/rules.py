"""The ledger's rules: each function checks one action against a split's state.

Each ``check_*`` function either raises (:class:`~ragnb.errors.PolicyError`
for an action the rules forbid, :class:`~ragnb.errors.InputError` for a
malformed argument) or returns the payload of the event that records the
action. They are pure: the :class:`~ragnb.ledger.Ledger` calls them under the
log's lock and appends what they return.

The rules (SPEC section 7, seed 000):

* every selection is recorded and increments ``selections_against``;
* the selection that brings the count to ``budget`` demotes the split to a
  regression guard, dated, in the same event (one record, so no crash can
  separate the count from the demotion);
* a sealed confirmation split is scored only inside an unseal run: at most
  ``max_scoring_runs`` runs, each declaring at most ``max_candidates``
  candidates up front, each scored once, and (with
  ``publish_whatever_they_say``) the run cannot be closed, nor the split
  demoted, until every declared candidate has a recorded score;
* only a fresh split (never selected against, never scored) can be sealed;
* a regression guard is scored freely but ranks only clear leads
  (:func:`ragnb.ledger.guard.check_ranking`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict

from ragnb.errors import InputError, PolicyError, listed
from ragnb.ledger.content import SplitContent
from ragnb.ledger.guard import check_ranking
from ragnb.ledger.manifest import ROLES, UnsealPolicy
from ragnb.ledger.state import SplitState
from ragnb.ledger.thresholdout import ThresholdoutParams


def _names(values: object, what: str, *, minimum: int) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InputError(f"must be a list of configuration names, got {values!r}", source=what)
    out = list(values)
    if any(not isinstance(c, str) or not c.strip() for c in out):
        raise InputError("every configuration name must be a non-empty string", source=what)
    if len(set(out)) != len(out):
        raise InputError(f"lists a configuration twice: {listed(out, most=20)}", source=what)
    if len(out) < minimum:
        raise InputError(f"needs at least {minimum} configuration(s), got {len(out)}",
                         source=what)
    return out


def _number(x: object, what: str) -> float:
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x):
        raise InputError(f"must be a finite number, got {x!r}", source=what)
    return float(x)


def _policy(s: SplitState) -> UnsealPolicy:
    """The unseal policy of a confirmation split (every one has one: checked on register)."""
    if s.unseal_policy is None:
        raise PolicyError(f"{s.name} has no unseal policy: it is not a confirmation split")
    return s.unseal_policy


def _policy_words(s: SplitState) -> str:
    p = _policy(s)
    return (f"its unseal policy is {p.text!r} ({p.max_scoring_runs} run(s) of at most "
            f"{p.max_candidates} candidates; {s.scoring_runs_used} used)")


def check_register(states: Mapping[str, SplitState], content: SplitContent, role: str,
                   budget: int | None, unseal_policy: UnsealPolicy | None,
                   reusable_holdout: ThresholdoutParams | None) -> dict | None:
    """Payload of ``registered``, or ``None`` when the identical split is already registered.

    Raises
    ------
    PolicyError
        When the name is taken by different content, or the same content is
        registered under another name (a new name would start a spent split
        at ``selections_against = 0``).
    """
    name = content.split_id.split("@", 1)[0]
    if role not in ROLES:
        raise InputError(f"role {role!r} is not one of {', '.join(ROLES)}", source="role")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)
                               or budget < 1):
        raise InputError(f"must be a positive integer or None, got {budget!r}", source="budget")
    if role != "confirmation" and (unseal_policy is not None or reusable_holdout is not None):
        raise InputError("unseal_policy and reusable_holdout apply to confirmation splits only",
                         source="role")
    if role == "confirmation":
        unseal_policy = unseal_policy or UnsealPolicy()
        if budget is None:  # each run ends in at most one selection
            budget = unseal_policy.max_scoring_runs
    payload = {
        "split_id": content.split_id, "role": role, "budget": budget,
        "unseal_policy": None if unseal_policy is None else asdict(unseal_policy),
        "reusable_holdout": None if reusable_holdout is None
        else asdict(reusable_holdout.with_seed()),
        "n_queries": content.n_queries, "n_judgments": content.n_judgments,
        "queries_sha256": content.queries_sha256,
        "doc_versions_sha256": content.doc_versions_sha256,
    }
    old = states.get(name)
    if old is not None:
        if old.split_id != content.split_id:
            raise PolicyError(
                f"split {name!r} is already registered as {old.split_id} with different "
                "content; a changed split is a new split: register it under a new name "
                f"(e.g. {name}-v2)")
        if _same_registration(old.registration, payload):
            return None  # re-running a notebook registers nothing new
        raise PolicyError(f"split {name!r} is already registered (role {old.role}, budget "
                          f"{old.budget}); registering it again cannot change those")
    for other in states.values():
        if other.split_id.split("@", 1)[1] == content.split_id.split("@", 1)[1]:
            raise PolicyError(
                f"this content is already registered as {other.name!r} (selections_against "
                f"{other.selections_against}); registering it under another name would start "
                "it again at 0 selections")
    payload["inherits"] = _inheritance(states, content)
    return payload


def _inheritance(states: Mapping[str, SplitState], content: SplitContent) -> dict | None:
    """What a new version of an existing query set carries over (``None``: nothing).

    How often a split has been used to choose is a property of its queries, not
    of its labels: re-judging the same queries (pooled labelling, a label fix)
    makes new content and a new split id, but the queries have been selected
    against as often as before. So a split whose query set equals an existing
    split's starts with that split's ``selections_against`` (the largest, if
    several), and a version of a retired split is retired too.
    """
    same = [o for o in states.values() if o.queries_sha256 == content.queries_sha256]
    if not same:
        return None
    src = max(same, key=lambda o: (o.selections_against, o.registered_at))
    return {"split_id": src.split_id, "selections_against": src.selections_against,
            "retired_for_selection_at": src.retired_for_selection_at}


def _same_registration(old: dict, new: dict) -> bool:
    old, new = dict(old), dict(new)
    old.pop("inherits", None)  # decided once, at the first registration
    new.pop("inherits", None)
    if old.get("reusable_holdout") and new.get("reusable_holdout"):
        old["reusable_holdout"] = {k: v for k, v in old["reusable_holdout"].items() if k != "seed"}
        new["reusable_holdout"] = {k: v for k, v in new["reusable_holdout"].items() if k != "seed"}
    return old == new


def check_selection(s: SplitState, candidates: object, winner: object,
                    scores: Mapping[str, float] | None, se: float | None, today: str) -> dict:
    """Payload of ``selection``; includes the demotion when the budget is reached."""
    cands = _names(candidates, "candidates", minimum=2)
    if winner not in cands:
        raise InputError(f"winner {winner!r} is not among the candidates {listed(cands, most=20)}",
                         source="winner")
    clean_scores = None
    if scores is not None:
        if not isinstance(scores, Mapping) or set(scores) != set(cands):
            raise InputError(f"must map exactly the candidates "
                             f"{listed(cands, most=20)} to their scores",
                             source="scores")
        clean_scores = {c: _number(scores[c], f"scores[{c!r}]") for c in cands}
    if se is not None:
        se = _number(se, "se")

    if s.role == "confirmation":
        if s.window is None:
            raise PolicyError(
                f"{s.name} is a sealed confirmation split: a selection on it must follow an "
                f"unseal run that scored the candidates; {_policy_words(s)}")
        extra = [c for c in cands if c not in s.window.candidates]
        unscored = [c for c in cands if c not in s.window.scored]
        if extra or unscored:
            raise PolicyError(
                f"{s.name}: a confirmation selection chooses among the candidates declared and "
                f"scored in this run ({listed(s.window.candidates, most=20)}); "
                + "; ".join(f"{what}: {listed(names, most=20)}"
                            for what, names in (("not declared", extra),
                                                ("not scored", unscored)) if names))
    elif s.role == "regression_guard":
        if clean_scores is None or se is None:
            raise PolicyError(
                f"{s.name} is a regression guard (retired from selection on "
                f"{s.retired_for_selection_at}): it ranks candidates only on a clear lead, so "
                "pass each candidate's score and the SE of a paired difference (se)")
        check_ranking(s.name, clean_scores, winner, s.selections_against, se)

    n = s.selections_against + 1
    demotion = None
    if s.budget is not None and n >= s.budget and s.role != "regression_guard":
        demotion = {"to": "regression_guard", "date": today,
                    "reason": f"selection {n} reached the budget of {s.budget} selections"}
    return {"candidates": cands, "winner": winner, "scores": clean_scores, "se": se,
            "selections_against": n, "demotion": demotion}


def check_score(s: SplitState, config: object, metric: object, value: object,
                note: object) -> dict:
    """Payload of ``scored``: always recorded, refused on a sealed split outside its policy."""
    if not isinstance(config, str) or not config.strip():
        raise InputError(f"must be a non-empty configuration name, got {config!r}",
                         source="config")
    if metric is not None and (not isinstance(metric, str) or not metric.strip()):
        raise InputError(f"must be a metric name or None, got {metric!r}", source="metric")
    value = None if value is None else _number(value, "value")
    if s.role == "confirmation":
        if s.window is None:
            hint = (" It answers through Thresholdout: use holdout_query."
                    if s.reusable_holdout is not None else
                    " Open a run with unseal, declaring the candidates first.")
            raise PolicyError(f"{s.name} is sealed and can be scored only through its unseal "
                              f"policy; {_policy_words(s)}.{hint}")
        if config not in s.window.candidates:
            raise PolicyError(f"{s.name}: {config!r} was not declared when the split was "
                              f"unsealed (run {s.window.run} candidates: "
                              f"{listed(s.window.candidates, most=20)})")
        if config in s.window.scored:
            raise PolicyError(f"{s.name}: {config!r} has already been scored in run "
                              f"{s.window.run}; each candidate is scored once per run")
    return {"config": config, "metric": metric, "value": value, "note": note,
            "under_unseal_run": None if s.window is None else s.window.run}


def _check_published(s: SplitState, action: str) -> None:
    w = s.window
    if w is not None and _policy(s).publish_whatever_they_say and w.unscored:
        raise PolicyError(
            f"{s.name}: cannot {action} before every candidate of run {w.run} is scored: "
            f"the policy publishes results whatever they say, and "
            f"{listed(w.unscored, most=20)} have none yet")


def check_seal(s: SplitState, unseal_policy: UnsealPolicy | None,
               reusable_holdout: ThresholdoutParams | None) -> dict:
    """Payload of ``sealed``: closes an unseal run, or seals a fresh working split."""
    if s.window is not None:
        if unseal_policy is not None or reusable_holdout is not None:
            raise PolicyError(f"{s.name}: the policy of a split that has been unsealed cannot "
                              "be changed")
        _check_published(s, "re-seal")
        return {"closes_run": s.window.run, "unseal_policy": None, "reusable_holdout": None}
    if s.role == "confirmation":
        raise PolicyError(f"{s.name} is already sealed")
    if s.role == "regression_guard":
        raise PolicyError(f"{s.name} is a regression guard: it has been selected against "
                          f"{s.selections_against} times and sealing cannot make it clean again")
    if s.selections_against or s.n_scorings:
        raise PolicyError(
            f"{s.name} has been selected against {s.selections_against} times and scored "
            f"{s.n_scorings} times; only a split nobody has looked at can be sealed as a "
            "confirmation split. Label a fresh slice and register it")
    policy = unseal_policy or UnsealPolicy()
    holdout = None if reusable_holdout is None else reusable_holdout.with_seed()
    return {"closes_run": None, "unseal_policy": asdict(policy),
            "reusable_holdout": None if holdout is None else asdict(holdout),
            "budget": policy.max_scoring_runs if s.budget is None else s.budget}


def check_unseal(s: SplitState, candidates: object, reason: object) -> dict:
    """Payload of ``unsealed``: opens one scoring run for declared candidates."""
    if s.role != "confirmation":
        raise PolicyError(f"{s.name} is a {s.role} split, not sealed; score it directly")
    if s.window is not None:
        raise PolicyError(f"{s.name} is already unsealed (run {s.window.run}, candidates "
                          f"{listed(s.window.candidates, most=20)})")
    if s.reusable_holdout is not None:
        raise PolicyError(f"{s.name} answers through Thresholdout (reusable holdout); "
                          "unsealing it would spend it outside that mechanism")
    p = _policy(s)
    if s.scoring_runs_used >= p.max_scoring_runs:
        raise PolicyError(f"{s.name} cannot be unsealed again: {_policy_words(s)}")
    cands = _names(candidates, "candidates", minimum=1)
    if len(cands) > p.max_candidates:
        raise PolicyError(f"{s.name}: {len(cands)} candidates declared but {_policy_words(s)}; "
                          "finish the selection on the working split first")
    return {"candidates": cands, "run": s.scoring_runs_used + 1, "reason": reason,
            "policy": p.text}


def check_demote(s: SplitState, reason: object, today: str) -> dict:
    """Payload of ``demoted``: retire a split from selection by hand."""
    if s.role == "regression_guard":
        raise PolicyError(f"{s.name} is already a regression guard (since "
                          f"{s.retired_for_selection_at})")
    if not isinstance(reason, str) or not reason.strip():
        raise InputError("say why the split is demoted", source="reason")
    if s.window is not None:
        _check_published(s, "demote")
    return {"to": "regression_guard", "date": today, "reason": reason,
            "selections_against": s.selections_against}


def check_holdout(s: SplitState) -> ThresholdoutParams:
    """The Thresholdout parameters of ``s``, if it may answer a holdout query."""
    if s.role != "confirmation" or s.reusable_holdout is None:
        raise PolicyError(f"{s.name} is not a confirmation split in reusable-holdout mode; "
                          "seal a fresh split with reusable_holdout=ThresholdoutParams(...)")
    return s.reusable_holdout
