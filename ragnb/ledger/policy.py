"""The ledger's policy where a split is scored or ranked: one gate for every surface.

Every surface that scores a split (the API's :class:`~ragnb.workspace.Workspace`,
so the notebooks, reports and the what-if widget built on it, and the CLI) asks
this module first, so the rules of :mod:`ragnb.ledger.rules` hold everywhere:

* :func:`admit_scoring` — a split the ledger knows (matched by content hash,
  :func:`find_split`) that is a sealed confirmation split is scored only inside
  an open unseal run, for candidates declared in it, each once; anything else
  raises :class:`~ragnb.errors.PolicyError` before a score is shown. Every
  scoring it allows on a confirmation split is recorded (a ``scored`` event per
  config), all the configs checked before any is written. Working splits and
  regression guards are scored freely and nothing is recorded.
* :func:`check_choice` — ranking candidates on a regression guard (a demoted
  split) is refused unless the leader is clear of the selection bias plus
  noise, by :func:`ragnb.ledger.guard.check_ranking`, the same check the ledger
  applies to a recorded selection and the ledger notebook shows.

>>> import pandas as pd, tempfile
>>> from ragnb.ledger import Ledger
>>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["p1", "p7"],
...                       "grade": [2, 1]})
>>> folder = tempfile.mkdtemp()
>>> _ = Ledger(folder).register("prod", qrels, role="confirmation")
>>> m = Ledger(folder).find(qrels)
>>> try:
...     admit_scoring(folder, m, ["a"])
... except PolicyError as exc:
...     print(str(exc).split(";")[0])
prod is sealed and can be scored only through its unseal policy
>>> _ = Ledger(folder).unseal("prod", ["a", "b"])
>>> admit_scoring(folder, m, ["a"], metric="ndcg@10", values={"a": 0.5}).split_id == m.split_id
True
"""
from __future__ import annotations

import os
import weakref
from collections.abc import Mapping, Sequence

from ragnb.errors import PolicyError, listed
from ragnb.ledger.manifest import Manifest

__all__ = ["admit_scoring", "check_choice", "find_split", "match_split", "queries_note"]


def find_split(ledger_dir: str | os.PathLike[str] | None, test_set) -> Manifest | None:
    """The manifest of the split ``test_set`` is, or None (:func:`match_split`)."""
    return match_split(ledger_dir, test_set)[0]


def match_split(ledger_dir: str | os.PathLike[str] | None, test_set
                ) -> tuple[Manifest | None, str]:
    """The split ``test_set`` is and how it matched (:meth:`ragnb.ledger.Ledger.match`):
    ``"content"`` (its content hash), ``"queries"`` (the same query ids, other
    judgments: the seal and the selection count follow the queries), or ``(None, "")``
    when there is no ledger (``ledger_dir`` empty) or it knows neither.

    Raises :class:`~ragnb.ledger.ledger.LedgerIntegrityError` when the ledger does
    not verify against the heads recorded beside it.
    """
    if not ledger_dir:
        return None, ""
    from ragnb.ledger.ledger import Ledger

    return Ledger(ledger_dir).match(test_set.judgments.drop(columns="line", errors="ignore"),
                                    list(test_set.query_ids), content=test_set_content(test_set))


#: :func:`test_set_content` of each live test set, by ``id``, with a weak reference to it.
_CONTENT: dict[int, tuple[weakref.ref, object]] = {}


def test_set_content(test_set):
    """The :func:`~ragnb.ledger.content.split_content` of ``test_set`` (a frozen
    :class:`~ragnb.io.testset.TestSet`), hashed once per object: a command matches its
    split and checks how (:func:`queries_note`), a workspace matches it again for the
    split's inflation figure, and each would sort and hash every judgment anew.
    """
    from ragnb.ledger.content import split_content

    key = id(test_set)
    held = _CONTENT.get(key)
    if held is not None and held[0]() is test_set:
        return held[1]
    judge = getattr(test_set, "judge", None)
    content = split_content("lookup", test_set.judgments.drop(columns="line", errors="ignore"),
                            list(test_set.query_ids),
                            judge=None if judge is None else judge.judgments)
    try:
        ref = weakref.ref(test_set, lambda _, key=key: _CONTENT.pop(key, None))
    except TypeError:  # not weakly referable: not kept
        return content
    _CONTENT[key] = (ref, content)
    return content


def queries_note(manifest: Manifest | None, test_set) -> str:
    """A sentence when ``test_set`` is ``manifest``'s split by its queries only (other
    judgments), else "": what was matched, and that a new query set would be a new split.
    """
    if manifest is None:
        return ""
    content = test_set_content(test_set)
    if manifest.split_id.endswith(content.sha256):
        return ""
    return (f"this test set's judgments differ from those registered as {manifest.name} "
            f"({content.n_judgments} here, {manifest.n_judgments} there) but its queries are "
            f"the same, so it is {manifest.name} to the ledger: selections and the seal follow "
            "the queries (a test set with other queries is a new split; register it)")


def admit_scoring(ledger_dir: str | os.PathLike[str] | None, manifest: Manifest | None,
                  configs: Sequence[str], *, metric: str | None = None,
                  values: Mapping[str, float | None] | None = None,
                  note: str | None = None, actor: str | None = None) -> Manifest | None:
    """Allow (and record) or refuse scoring ``configs`` on the split of ``manifest``.

    Parameters
    ----------
    ledger_dir : path or None
        The ledger holding the split; nothing to check when empty.
    manifest : Manifest or None
        The split scored (:func:`find_split`); None: not in a ledger, scored freely.
    configs : sequence of str
        The configurations about to be scored (or just scored, before anything is shown).
    metric, values, note, actor
        Recorded with each ``scored`` event on a confirmation split; ``values``
        maps a config to its mean (missing or None: not recorded).

    Returns
    -------
    Manifest or None
        The split's manifest after the scoring (None when not in a ledger).

    Raises
    ------
    PolicyError
        On a confirmation split with no open unseal run, for a config not
        declared in the run, or one already scored in it (each is scored once
        per run). Nothing is recorded then, for any config.
    """
    if manifest is None or manifest.role != "confirmation":
        return manifest
    if not ledger_dir:
        raise PolicyError(f"{manifest.name} is a confirmation split: name the ledger that "
                          "records its scorings")
    from ragnb.ledger.ledger import Ledger

    values = dict(values or {})
    return Ledger(ledger_dir).score_all(manifest.split_id, list(configs), metric=metric,
                                        values=values, note=note, actor=actor)


def check_choice(manifest: Manifest | None, scores: Mapping[str, float], se: float,
                 inflation=None) -> float | None:
    """Refuse a ranking of ``scores`` on a regression guard unless the leader leads clearly.

    Parameters
    ----------
    manifest : Manifest or None
        The split ranked on; only a regression guard restricts ranking here (a
        sealed split is refused earlier, by :func:`admit_scoring`; a working
        split ranks freely and counts a selection when one is recorded).
    scores : mapping
        Candidate -> mean score on the split (at least two candidates).
    se : float
        SE of the paired difference between the leader and the runner-up (score units).
    inflation : SelectionInflation, optional
        The split's one selection-inflation figure (:func:`ragnb.stats.split_inflation`);
        without it the worst case from ``se``.

    Returns
    -------
    float or None
        The margin applied (inflation + 1.96 se), None when the split is not a
        regression guard.

    Raises
    ------
    PolicyError
        The message of :func:`ragnb.ledger.guard.check_ranking`: the lead, the
        selection bias, and why the guard will not rank on it.
    """
    if manifest is None or manifest.role != "regression_guard":
        return None
    if len(scores) < 2:
        raise PolicyError(f"{manifest.name}: a ranking needs two candidates, got "
                          f"{listed(list(scores), most=20)}")
    if not se > 0:  # also NaN
        raise PolicyError(f"{manifest.name} is a regression guard and will not rank "
                          f"{listed(list(scores), most=20)}: their paired differences have no "
                          f"spread (SE {se!r}), so no lead can be told "
                          "apart from the selection bias")
    from ragnb.ledger.guard import check_ranking

    winner = max(scores, key=lambda c: scores[c])
    return check_ranking(manifest.name, scores, winner, manifest.selections_against, se,
                         inflation=inflation)
