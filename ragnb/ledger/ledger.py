"""The :class:`Ledger`: one directory holding the event log and the manifest exports.

Layout of a ledger directory::

    events.jsonl          the append-only log (the truth)
    events.jsonl.lock     the lock file (empty)
    events.jsonl.torn     partial records quarantined from the log, if any
    manifests/<name>.json the current manifest of each split (an export)

Every action takes the lock, replays the log into the current state
(:func:`ragnb.ledger.state.fold`), checks the rule
(:mod:`ragnb.ledger.rules`), appends one event and rewrites that split's
manifest export, all before releasing the lock.

Every read and every action first checks the log against the heads the
manifest exports record (:meth:`Ledger.integrity`): a head the log no longer
reaches (cut short), one it reaches with another hash (rewritten), or a split
with chained records and no export (the exports deleted, and with them what a
cut would be checked against) makes the log unverified, and the ledger then
refuses it (:class:`LedgerIntegrityError`, an :class:`~ragnb.errors.InputError`)
or, for a reader made with ``unverified="warn"``, warns. Every write rewrites
every split's export with the new head, so a log cut back to any earlier record
contradicts every export left. What this cannot see: a log emptied along with
every export, a log of only pre-chain records, or a cut whose exports were
rewritten to match (whoever can write the folder can forge what it holds);
a head kept elsewhere (a report's provenance, ``ragnb ledger verify --head``)
still does.
"""
from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError
from ragnb.ledger import rules
from ragnb.ledger.content import SplitContent, split_content
from ragnb.ledger.log import (
    Event,
    EventLog,
    Head,
    LogContents,
    TornTail,
    Verification,
    now_utc,
)
from ragnb.ledger.manifest import Manifest, UnsealPolicy, write_manifest
from ragnb.ledger.state import SplitState, fold
from ragnb.ledger.thresholdout import (
    HoldoutAnswer,
    ThresholdoutParams,
    mean_score,
    thresholdout_answer,
)
from ragnb.result import points
from ragnb.stats.inflation import range_columns


class ManifestExportWarning(UserWarning):
    """An event was recorded but its manifest export could not be rewritten."""


class LedgerIntegrityError(InputError):
    """The log does not verify against the heads recorded beside it (cut, rewritten,
    or its manifest exports deleted), so nothing read from it can be trusted.
    """


class LedgerIntegrityWarning(UserWarning):
    """The same finding as :class:`LedgerIntegrityError`, for a reader that shows the
    log anyway (``ragnb ledger show`` and ``history``).
    """


#: What a reader does when the log does not verify: raise, or warn and go on.
UNVERIFIED = ("refuse", "warn")


def _find(states: Mapping[str, SplitState], split: str) -> SplitState:
    name = split.split("@", 1)[0] if isinstance(split, str) else split
    s = states.get(name)
    if s is None:
        known = ", ".join(sorted(states)) or "none"
        raise InputError(f"no split {split!r} in the ledger (registered: {known})",
                         source="split")
    if "@" in split and split != s.split_id:
        raise InputError(f"{split!r} does not match the registered {s.split_id}: the content "
                         "has changed since registration", source="split")
    return s


class Ledger:
    """The split ledger in directory ``path``.

    Parameters
    ----------
    path : path
        Ledger directory, created on first write.
    clock : callable, optional
        Returns the current time as an aware :class:`datetime`; defaults to
        UTC now. A generator of demo data can pass a clock it advances.
    lock_timeout : float
        Seconds to wait for another process's append.
    unverified : {'refuse', 'warn'}
        Every read checks the log against the heads recorded in the manifest
        exports (:meth:`integrity`); when it does not verify, ``'refuse'`` (the
        default) raises :class:`LedgerIntegrityError` and ``'warn'`` issues a
        :class:`LedgerIntegrityWarning` and reads the log as it is. Writes are
        refused either way: appending would anchor a cut or rewritten log anew.

    Examples
    --------
    >>> import pandas as pd, tempfile
    >>> led = Ledger(tempfile.mkdtemp())
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q2"], "passage_id": ["p1", "p7"],
    ...                       "grade": [2, 1]})
    >>> led.register("golden", qrels, budget=2).role
    'working'
    >>> led.record_selection("golden", ["a", "b"], winner="b").selections_against
    1
    >>> m = led.record_selection("golden", ["b", "c"], winner="c")
    >>> m.role, m.selections_against
    ('regression_guard', 2)
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 clock: Callable[[], datetime] | None = None, lock_timeout: float = 60.0,
                 unverified: str = "refuse") -> None:
        if unverified not in UNVERIFIED:
            raise ValueError(f"unverified must be one of {UNVERIFIED}, got {unverified!r}")
        self.unverified = unverified
        self.root = Path(path)
        self.log = EventLog(self.root / "events.jsonl", lock_timeout=lock_timeout)
        self.manifest_dir = self.root / "manifests"
        self._clock = clock or now_utc
        self._source = str(self.log.path)

    def __repr__(self) -> str:
        return f"Ledger({str(self.root)!r})"

    # -- the one write path ----------------------------------------------------------------
    @contextmanager
    def _transaction(self) -> Iterator:
        """The log's transaction, refused when the log does not verify (under the lock,
        so the check and the append see the same log).
        """
        with self.log.transaction(self._clock) as tx:
            problems = self._anchor_problems(tx.events, self.recorded_heads())
            if problems:
                raise self._integrity_error(problems, "nothing was recorded")
            yield tx

    def _act(self, split: str, check: Callable[[SplitState, str], tuple[str, dict]],
             actor: str | None, key: str | None = None) -> tuple[Manifest, Event | None]:
        with self._transaction() as tx:
            s = _find(fold(tx.events, source=self._source), split)
            if key is not None:
                done = [e for e in tx.events if e.split == s.name and e.payload.get("key") == key]
                if done:  # a retry of a recorded action: record nothing
                    return s.manifest(), None
            now = self._clock()
            kind, payload = check(s, now.astimezone(UTC).date().isoformat())
            if key is not None:
                payload = {**payload, "key": key}
            event = tx.append(s.name, kind, actor, payload, at=now)
            manifest = _find(fold(tx.events, source=self._source), s.name).manifest()
            self._export(s.name, manifest, tx)
        return manifest, event

    def _export(self, name: str, manifest: Manifest, tx) -> None:
        """Rewrite the manifest export of ``name``, then every other split's with the new
        head: each export records the log's head as of the last write, so a log cut back
        to any earlier record contradicts every export left. The event is already
        durable, so a failure only warns.
        """
        head = tx.events[-1] if tx.events else None
        head_text = None if head is None else f"{head.seq}:{head.sha256}"
        others = {n: s.manifest() for n, s in fold(tx.events, source=self._source).items()
                  if n != name}
        for split, m in {name: manifest, **others}.items():
            try:
                write_manifest(self.manifest_dir / f"{split}.json", m, head_text)
            except OSError as exc:
                warnings.warn(f"{self.manifest_dir / (split + '.json')}: the event is recorded "
                              f"in {self.log.path}, but this manifest export could not be "
                              f"rewritten ({exc.strerror}); run `ragnb ledger export` later",
                              ManifestExportWarning, stacklevel=3)
                return

    # -- actions ---------------------------------------------------------------------------
    def register(self, name: str, judgments: pd.DataFrame,
                 query_ids: Iterable[object] | None = None, *, role: str = "working",
                 budget: int | None = None, unseal_policy: UnsealPolicy | None = None,
                 reusable_holdout: ThresholdoutParams | None = None, actor: str | None = None,
                 source: str = "judgments", judge: pd.DataFrame | None = None) -> Manifest:
        """Register a split; its id is the content hash of its queries and judgments.

        Parameters
        ----------
        name : str
            Split name (letters, digits, ``.``, ``_``, ``-``).
        judgments : pandas.DataFrame
            ``query_id``, ``passage_id``, ``grade`` (``doc_version`` optional,
            not part of the id; see :mod:`ragnb.ledger.content`).
        query_ids : iterable, optional
            All queries of the split, including unjudged ones; defaults to
            those in ``judgments``.
        role : {'working', 'regression_guard', 'confirmation'}
            A confirmation split is registered sealed.
        budget : int, optional
            Selections before automatic demotion to regression guard. For a
            confirmation split it defaults to ``unseal_policy.max_scoring_runs``.
        unseal_policy : UnsealPolicy, optional
            Confirmation splits only; defaults to :class:`UnsealPolicy()`.
        reusable_holdout : ThresholdoutParams, optional
            Confirmation splits only: answer through Thresholdout.
        actor : str, optional
            Who registers it.
        source : str
            Named in input errors (the file the judgments came from).
        judge : DataFrame, optional
            A model judge's labels of the split: part of its content hash
            (:func:`ragnb.ledger.content.split_content`).

        Returns
        -------
        Manifest
            Registering identical content with identical settings again
            returns the existing manifest and records nothing.
        """
        content = split_content(name, judgments, query_ids, source=source, judge=judge)
        with self._transaction() as tx:
            states = fold(tx.events, source=self._source)
            payload = rules.check_register(states, content, role, budget, unseal_policy,
                                           reusable_holdout)
            if payload is not None:
                tx.append(name, "registered", actor, payload)
                states = fold(tx.events, source=self._source)
            manifest = states[name].manifest()
            self._export(name, manifest, tx)
        return manifest

    def record_selection(self, split: str, candidates: Sequence[str], winner: str, *,
                         scores: Mapping[str, float] | None = None, se: float | None = None,
                         actor: str | None = None, key: str | None = None) -> Manifest:
        """Record that ``winner`` was chosen from ``candidates`` on ``split``.

        Increments ``selections_against``; the selection that reaches the
        budget also demotes the split (same event). On a regression guard it
        needs ``scores`` and ``se`` and refuses a lead smaller than the
        selection bias plus noise (:func:`ragnb.ledger.guard.check_ranking`).

        Parameters
        ----------
        split : str
            Name or full split id.
        candidates : sequence of str
            Configurations compared (at least two).
        winner : str
            The one kept.
        scores : mapping, optional
            Candidate -> mean score on the split (recorded).
        se : float, optional
            SE of a paired difference on the split (score units).
        actor : str, optional
        key : str, optional
            Idempotency key: when a selection with this key is already recorded
            on the split, nothing is recorded again (a retry after an error or
            a lost reply cannot count twice).
        """
        if key is not None and (not isinstance(key, str) or not key.strip()):
            raise InputError("must be a non-empty string", source="key")
        return self._act(split, lambda s, today: (
            "selection", rules.check_selection(s, candidates, winner, scores, se, today)),
            actor, key)[0]

    def score(self, split: str, config: str, *, metric: str | None = None,
              value: float | None = None, note: str | None = None,
              actor: str | None = None) -> Manifest:
        """Record that ``config`` was scored on ``split`` (refused on a sealed split
        outside its unseal policy); :meth:`score_all` for one config.
        """
        return self.score_all(split, [config], metric=metric, values={config: value},
                              note=note, actor=actor)

    def score_all(self, split: str, configs: Sequence[str], *, metric: str | None = None,
                  values: Mapping[str, float | None] | None = None, note: str | None = None,
                  actor: str | None = None) -> Manifest:
        """Record that each of ``configs`` was scored on ``split``: all checked, then all
        recorded, under one lock (a refusal of one records none).

        ``values`` maps a config to its score (missing: recorded as None).
        """
        values = dict(values or {})
        with self._transaction() as tx:
            s = _find(fold(tx.events, source=self._source), split)
            payloads = []
            for config in configs:
                payload = rules.check_score(s, config, metric, values.get(config), note)
                if s.window is not None:  # a config listed twice is scored twice: refused
                    s.window.scored[config] = payload["value"]
                payloads.append(payload)
            for payload in payloads:
                tx.append(s.name, "scored", actor, payload, at=self._clock())
            manifest = _find(fold(tx.events, source=self._source), s.name).manifest()
            if payloads:
                self._export(s.name, manifest, tx)
        return manifest

    def seal(self, split: str, *, unseal_policy: UnsealPolicy | None = None,
             reusable_holdout: ThresholdoutParams | None = None,
             actor: str | None = None) -> Manifest:
        """Close an unseal run, or seal a fresh (never selected, never scored) split
        as a confirmation split.
        """
        return self._act(split, lambda s, today: (
            "sealed", rules.check_seal(s, unseal_policy, reusable_holdout)), actor)[0]

    def unseal(self, split: str, candidates: Sequence[str], *, reason: str | None = None,
               actor: str | None = None) -> Manifest:
        """Open one scoring run of a sealed split for the declared candidates."""
        return self._act(split, lambda s, today: (
            "unsealed", rules.check_unseal(s, candidates, reason)), actor)[0]

    def demote(self, split: str, reason: str, *, actor: str | None = None) -> Manifest:
        """Retire ``split`` from selection: it becomes a regression guard, dated today."""
        return self._act(split, lambda s, today: (
            "demoted", rules.check_demote(s, reason, today)), actor)[0]

    def holdout_query(self, split: str, config: str, working_scores: object,
                      confirmation_scores: object, *, actor: str | None = None) -> HoldoutAnswer:
        """Ask a reusable-holdout split about ``config`` (Thresholdout).

        Parameters
        ----------
        split : str
            A confirmation split sealed with ``reusable_holdout``.
        config : str
            The configuration asked about (recorded).
        working_scores, confirmation_scores : array-like
            Its per-query scores in ``[0, 1]`` on the working and on this split.

        Returns
        -------
        HoldoutAnswer
            The working mean unless the two differ by more than the noisy
            threshold; then the confirmation mean plus Laplace noise, and one
            unit of budget is spent. The answer (never the raw confirmation
            mean) is recorded.
        """
        w = mean_score(working_scores, "working_scores")
        h = mean_score(confirmation_scores, "confirmation_scores")
        if not isinstance(config, str) or not config.strip():
            raise InputError("must be a non-empty configuration name", source="config")
        answer: list[HoldoutAnswer] = []

        def check(s: SplitState, today: str) -> tuple[str, dict]:
            params = rules.check_holdout(s)
            a = thresholdout_answer(w, h, params, spent=s.holdout_spent,
                                    index=s.holdout_answers)
            answer.append(a)
            return "holdout_answered", {"config": config, "index": a.index, "value": a.value,
                                        "from_holdout": a.from_holdout,
                                        "budget_left": a.budget_left}

        self._act(split, check, actor)
        return answer[0]

    # -- reading ---------------------------------------------------------------------------
    def head(self) -> Head:
        """The log's head: ``seq`` and chained hash of its last record (unverified: the
        head of the log as it is, which is what a report records).
        """
        return self.log.read().head

    def recorded_heads(self) -> list[tuple[str, Head | str | None]]:
        """Heads recorded in the manifest exports, as ``(file, head)``.

        A manifest export that cannot be read or holds no head is returned with
        the head ``None``: it anchors nothing, and :meth:`verify` says so.
        """
        out: list = []
        if self.manifest_dir.is_dir():
            for path in sorted(self.manifest_dir.glob("*.json")):
                try:
                    text = json.loads(path.read_text(encoding="utf-8")).get("ledger_head")
                    head = Head.parse(text, source=str(path)) if text else None
                except (OSError, ValueError, AttributeError, RecursionError):
                    head = None
                out.append((str(path), head))
        return out

    def _anchor_problems(self, events: Sequence[Event],
                         recorded: list[tuple[str, Head | str | None]]) -> list[str]:
        """What the manifest exports say against ``events``: a recorded head the log
        does not reach (cut short) or reaches with another hash (rewritten), and a split
        with hash-chained records whose export is gone or holds no readable head (the
        exports deleted or replaced, so a cut could not be seen). Every chained write
        exports its split with the head; a split of pre-chain records only needs none.
        """
        contents = LogContents(tuple(events), ())
        problems = list(self.log.check_heads(contents, [
            (where, h) for where, h in recorded if h is not None]))
        chained = {e.split for e in events if e.split is not None and e.prev is not None}
        headless = {Path(where).stem: where for where, h in recorded if h is None}
        problems += [f"{headless[name]}: no readable ledger_head (the export was damaged or "
                     "replaced), so the log cannot be checked against it"
                     for name in sorted(chained & set(headless))]
        missing = sorted(chained - {Path(where).stem for where, _ in recorded})
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more"
                                              if len(missing) > 5 else "")
            problems.append(
                f"{self.manifest_dir}: no manifest export for {len(missing)} split(s) in the "
                f"log ({shown}): the heads they record are gone, so a log cut short since "
                "cannot be told apart (if you trust the log, `ragnb ledger export` writes "
                "them again)")
        return problems

    def _integrity_error(self, problems: Sequence[str], what: str) -> LedgerIntegrityError:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return LedgerIntegrityError(
            f"the ledger does not verify, {what}: {problems[0]}{more}; see `ragnb ledger "
            f"--ledger {self.root} verify`", source=self.log.path)

    def integrity(self) -> list[str]:
        """Problems of the log against the heads recorded beside it (empty: it verifies).

        See :meth:`_checked`; a corrupt record raises (its file and line) instead.
        """
        return self._checked()[0]

    def _checked(self) -> tuple[list[str], LogContents]:
        """The log and its problems against the recorded heads (:meth:`_anchor_problems`).

        The heads are read before the log (a writer appends first and exports
        after, so a head read first is in the log read next). A problem is
        looked at again under a shared lock (:meth:`ragnb.ledger.log.EventLog.settled`,
        no write access needed), when no writer can be between its append and its
        export, so a reader never mistakes a write in progress for a missing export.
        Parsing is cached (the verified prefix, see
        :meth:`ragnb.ledger.log.EventLog._cached_prefix`), so a read costs a
        SHA-256 of the log's bytes and of its new lines.
        """
        recorded = self.recorded_heads()
        contents = self.log.read()
        problems = self._anchor_problems(contents.events, recorded)
        if problems:
            with self.log.settled():
                recorded = self.recorded_heads()
                contents = self.log.read()
                problems = self._anchor_problems(contents.events, recorded)
        return problems, contents

    def verify(self, heads: Iterable[Head | str] = ()) -> Verification:
        """Check the hash chain and the log against ``heads`` and every manifest's head.

        A head recorded anywhere (a manifest, a report's provenance, a note
        someone kept) that the log no longer reaches, or reaches with another
        hash, means the log was cut short or rewritten since; a split with
        hash-chained records but no manifest export means the exports (and the
        heads they held) were deleted.
        """
        recorded = self.recorded_heads()
        result = self.log.verify([("--head", h) for h in heads])
        try:
            events = self.log._read_unlocked().events
        except InputError:  # a corrupt record: the result says so, with its line
            return result
        problems = (*result.problems, *self._anchor_problems(events, recorded))
        return Verification(result.head, result.n_records, result.unchained, problems)

    def _read(self) -> LogContents:
        """The log, verified (:meth:`_checked`): refused or warned about per ``unverified``."""
        problems, contents = self._checked()
        if problems:
            fold(contents.events, source=self._source)  # an impossible record: its line first
            if self.unverified == "refuse":
                raise self._integrity_error(problems, "so nothing read from it is trusted")
            for problem in problems:
                warnings.warn(f"the ledger does not verify: {problem}", LedgerIntegrityWarning,
                              stacklevel=3)
        return contents

    def _states(self) -> dict[str, SplitState]:
        return fold(self._read().events, source=self._source)

    def manifest(self, split: str) -> Manifest:
        """The current manifest of ``split`` (name or full id), derived from the log."""
        return _find(self._states(), split).manifest()

    def find(self, judgments: pd.DataFrame, query_ids: Iterable[object] | None = None
             ) -> Manifest | None:
        """The registered split this test set is, if any: :meth:`match` without the how."""
        return self.match(judgments, query_ids)[0]

    def match(self, judgments: pd.DataFrame, query_ids: Iterable[object] | None = None,
              *, content: SplitContent | None = None) -> tuple[Manifest | None, str]:
        """The registered split this test set is, and how it was matched.

        First on the content hash (queries and judgments), whatever name the
        split was registered under, so a score table can show the
        selections_against of the split it was computed on (``"content"``).
        Failing that, on the query ids alone (``"queries"``): a copy of a split
        with a grade changed or a judgment added (a junk grade-0 one, say) reads
        the same queries, and how often they were used to choose, and whether
        they are sealed, are properties of the queries, not of the labels (as a
        new registration of the same queries inherits them,
        :func:`ragnb.ledger.rules.check_register`). Of several splits with those
        queries, a confirmation split comes first (its seal holds), then the most
        selected against. A test set with other queries (one added or removed)
        is a new split: ``(None, "")`` until it is registered.
        """
        if content is None:  # else: that of these judgments and queries, computed before
            content = split_content("lookup", judgments, query_ids)
        digest = content.split_id.split("@", 1)[1]
        states = self._states()
        for state in states.values():
            manifest = state.manifest()
            if manifest.split_id.split("@", 1)[1] == digest:
                return manifest, "content"
        same = [s.manifest() for s in states.values()
                if s.queries_sha256 == content.queries_sha256]
        if not same:
            return None, ""
        return max(same, key=lambda m: (m.role == "confirmation", m.selections_against)
                   ), "queries"

    def splits(self) -> list[str]:
        """Names of the registered splits, in registration order."""
        return list(self._states())

    def manifests(self, se=None) -> pd.DataFrame:
        """One row per split: the fields a report shows beside any score on it.

        Parameters
        ----------
        se : SelectionInflation, float or mapping, optional
            Each split's selection inflation (:func:`ragnb.stats.split_inflation`)
            or the SE of a paired difference on it (the worst case), one value
            or split name -> value. When given, ``inflation`` and
            ``inflation_method`` columns hold :meth:`Manifest.inflation`.
        """
        rows = []
        for s in self._states().values():
            m = s.manifest()
            row = {"split": m.name, "split_id": m.split_id, "role": m.role,
                   "selections_against": m.selections_against, "budget": m.budget,
                   "sealed": m.sealed, "retired_for_selection_at": m.retired_for_selection_at,
                   "scoring_runs_used": m.scoring_runs_used,
                   "unseal_policy": None if m.unseal_policy is None else m.unseal_policy.text,
                   "n_queries": m.n_queries}
            if se is not None:
                figure = m.inflation(se.get(m.name) if isinstance(se, Mapping) else se)
                row["inflation"] = None if figure is None else figure.inflation
                row["inflation_method"] = None if figure is None else figure.method
                row.update(range_columns(figure))
            rows.append(row)
        columns = ["split", "split_id", "role", "selections_against", "budget", "sealed",
                   "retired_for_selection_at", "scoring_runs_used", "unseal_policy", "n_queries"]
        table = pd.DataFrame(rows, columns=columns + (
            ["inflation", "inflation_method", "inflation_low", "inflation_high"]
            if se is not None else []))
        table["budget"] = table["budget"].astype("Int64")
        if se is not None:
            table["inflation"] = table["inflation"].astype("Float64")
        return table

    def events(self, split: str | None = None) -> list[Event]:
        """The raw events, all or for one split."""
        events = self._read().events
        if split is None:
            return list(events)
        name = _find(fold(events, source=self._source), split).name
        return [e for e in events if e.split == name]

    def history(self, split: str | None = None) -> pd.DataFrame:
        """The events as a table: ``seq, ts, split, event, actor, summary``."""
        rows = [{"seq": e.seq, "ts": e.ts, "split": e.split, "event": e.event,
                 "actor": e.actor, "summary": summarise(e)} for e in self.events(split)]
        return pd.DataFrame(rows, columns=["seq", "ts", "split", "event", "actor", "summary"])

    def torn(self) -> tuple[TornTail, ...]:
        """Partial records at the end of the log not yet quarantined (normally empty)."""
        return self.log.read().torn

    def export(self) -> list[Path]:
        """Rewrite every manifest export from the log; returns the files written.

        This is how deleted or damaged exports are written again (after a
        :class:`ManifestExportWarning`, say), so a missing export does not stop
        it; a recorded head that the log contradicts does (rewriting the exports
        then would hide a cut or a rewrite). It holds the write lock, so no
        action's export is overwritten by an older one; a folder that cannot be
        written (read-only) is a one-line :class:`~ragnb.errors.InputError`.
        """
        out = []
        with self.log._locked():
            recorded = self.recorded_heads()
            contents = self.log.read()
            contradicted = self.log.check_heads(contents, [(w, h) for w, h in recorded if h])
            if contradicted:
                raise self._integrity_error(contradicted, "so its exports are not rewritten")
            for name, s in fold(contents.events, source=self._source).items():
                path = self.manifest_dir / f"{name}.json"
                write_manifest(path, s.manifest(), contents.head)
                out.append(path)
        return out


def summarise(e: Event) -> str:
    """One line describing an event, for ``history`` and the CLI."""
    p = e.payload
    if e.event == "registered":
        text = (f"registered {p['split_id'][:40]}... as {p['role']} ({p['n_queries']} queries, "
                f"{p['n_judgments']} judgments, "
                + ("no budget)" if p["budget"] is None else f"budget {p['budget']})"))
        inherits = p.get("inherits")
        if inherits:
            text += (f"; same queries as {inherits['split_id'][:40]}...: carries over its "
                     f"{inherits['selections_against']} selections"
                     + (", retired" if inherits.get("retired_for_selection_at") else ""))
        return text
    if e.event == "selection":
        s = f"selection #{p['selections_against']}: {p['winner']} from {p['candidates']}"
        if p.get("demotion"):
            d = p["demotion"]
            s += f"; DEMOTED to regression_guard on {d['date']} ({d['reason']})"
        return s
    if e.event == "scored":
        val = "" if p["value"] is None else f" = {points(p['value'], digits=2)} points"
        run = "" if p["under_unseal_run"] is None else f" (unseal run {p['under_unseal_run']})"
        return f"scored {p['config']}{' ' + p['metric'] if p['metric'] else ''}{val}{run}"
    if e.event == "sealed":
        if p["closes_run"] is not None:
            return f"re-sealed after unseal run {p['closes_run']}"
        return f"sealed: {p['unseal_policy']['text']}"
    if e.event == "unsealed":
        return f"unsealed for run {p['run']}: {p['candidates']}"
    if e.event == "demoted":
        return f"demoted to regression_guard on {p['date']}: {p['reason']}"
    if e.event == "holdout_answered":
        src = "confirmation split (budget spent)" if p["from_holdout"] else "working score"
        return (f"holdout answer #{p['index'] + 1} for {p['config']}: "
                f"{points(p['value'], digits=2)} points from {src}")
    if e.event == "torn_tail_quarantined":
        return (f"quarantined a partial record ({p['length']} bytes at byte {p['offset']}, "
                f"line {p['line']}) to {p['sidecar']}")
    return e.event
