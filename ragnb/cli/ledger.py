"""``ragnb ledger``: register splits, record selections, seal, unseal, score, read history."""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from dataclasses import asdict
from pathlib import Path

from ragnb.cli._options import action, actions, add
from ragnb.errors import InputError

NAME = "ledger"
HELP = "the split ledger: selection budget, sealed confirmation splits, demotion"
DESCRIPTION = """\
Record how many times each split has been used to choose, and enforce what follows:
a split past its budget becomes a regression guard; a sealed confirmation split is
scored only through its unseal policy. The ledger directory holds an append-only
log (events.jsonl) and manifest exports (manifests/<split>.json).

Ledger directory: --ledger DIR, else $RAGNB_LEDGER, else <project>/data/ledger.

examples:
  ragnb ledger register golden --judgments golden.qrels --budget 40
  ragnb ledger select golden --candidates round-17 round-18 --winner round-18
  ragnb ledger register prod-2026Q2 --judgments prod.jsonl --role confirmation
  ragnb ledger unseal prod-2026Q2 --candidates a b c --reason "end of Q2"
  ragnb ledger score prod-2026Q2 --config a --metric ndcg@10 --value 0.512
  ragnb ledger show
  ragnb ledger verify --head 41:5f2c...

Every record is hash-chained to the one before; the head (SEQ:HASH of the last
record) is printed by `show`, recorded in each manifest export and in report
provenance. `verify` checks the chain and the log against every recorded head
(and any --head you kept), so a log cut short or rewritten, or its manifest
exports deleted, is detected. Every other command that reads the ledger checks
the same and refuses a log that does not verify; `show` and `history` print it
under a warning, and `export` writes deleted exports again (never over a
recorded head the log contradicts).
"""


def _default_dir() -> Path:
    from ragnb.ledger import DEFAULT_LEDGER_DIR

    return Path(os.environ.get("RAGNB_LEDGER") or DEFAULT_LEDGER_DIR)


def _read_ids(path: Path) -> list[str]:
    r"""One query id a line, read with every reader's line rules (:mod:`ragnb.io.source`).

    UTF-8 (one leading BOM ignored); lines end at ``\n`` only, so U+2028 or a
    form feed inside an id is part of it; surrounding ASCII whitespace (space,
    tab, CR, VT, FF) is dropped and blank lines are skipped.
    """
    from ragnb.io.source import decode_utf8, source_of, text_lines

    src = source_of(path)
    text = decode_utf8(src.content(), src)
    ids = [raw.strip(" \t\r\x0b\x0c") for _, raw in text_lines(text)]
    return [i for i in ids if i]


# -- arguments -------------------------------------------------------------------------------------
def _policy_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("unseal policy (confirmation splits)")
    g.add_argument("--max-runs", type=int, help="scoring runs allowed (default 1)")
    g.add_argument("--max-candidates", type=int, help="candidates per run (default 3)")
    g.add_argument("--no-publish", action="store_true",
                   help="allow closing a run before every candidate is scored")
    g.add_argument("--policy-text", help="the policy in words")
    h = p.add_argument_group("reusable holdout (Thresholdout) instead of unseal runs")
    h.add_argument("--thresholdout-budget", type=int, metavar="B",
                   help="answers that may come from the split")
    h.add_argument("--threshold", type=float, default=0.04, help="T (default 0.04)")
    h.add_argument("--sigma", type=float, default=0.01, help="Laplace scale (default 0.01)")
    add(h, "seed", seed={"default": None, "help": "noise seed (default: fresh entropy, recorded)"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ragnb ledger``."""
    add(parser, "ledger",
        ledger={"help": "ledger directory (default $RAGNB_LEDGER or <project>/data/ledger)"})
    parser.add_argument("--actor", default=os.environ.get("USER"),
                        help="who records the action (default $USER)")
    sub = actions(parser)

    p = action(sub, "register", "register a split by content hash")
    p.add_argument("name")
    add(p, "judgments", judgments={"required": True})
    p.add_argument("--queries", type=Path, help="file of query ids, one a line (default: the "
                   "judged queries, or every query of a JSONL test set)")
    add(p, "judge", judge={"metavar": "FILE",
                           "help": "a model judge's labels of the split (any test-set format): "
                                   "part of its content hash, as in a workspace with "
                                   "[test_sets.NAME] judge"})
    p.add_argument("--role", choices=["working", "regression_guard", "confirmation"],
                   default="working")
    p.add_argument("--budget", type=int, help="selections before demotion to regression guard")
    _policy_args(p)

    p = action(sub, "show", "print each split's manifest")
    p.add_argument("splits", nargs="*", metavar="SPLIT")
    p.add_argument("--json", action="store_true", help="print manifest JSON")
    p.add_argument("--se", type=float, help="SE of a paired difference: the worst-case selection "
                   "inflation where the split's workspace (the ragnb.toml beside the ledger) "
                   "does not give the data-driven one")
    p.add_argument("--metric", help="the metric of the selection inflation (default ndcg@10)")

    p = action(sub, "select", "record a selection (increments selections_against)")
    p.add_argument("split")
    p.add_argument("--candidates", nargs="+", required=True)
    p.add_argument("--winner", required=True)
    p.add_argument("--score", action="append", default=[], metavar="CONFIG=VALUE",
                   help="candidate's score on the split (repeat; needed on a regression guard)")
    p.add_argument("--se", type=float, help="SE of a paired difference on the split")
    add(p, "key", key={"help": "idempotency key: if a selection with this key is already "
                               "recorded on the split, record nothing (so a retry cannot count "
                               "twice)"})

    p = action(sub, "seal", "seal a fresh split, or close an unseal run")
    p.add_argument("split")
    _policy_args(p)

    p = action(sub, "unseal", "open one scoring run of a sealed split")
    p.add_argument("split")
    p.add_argument("--candidates", nargs="+", required=True)
    p.add_argument("--reason")

    p = action(sub, "score", "record a scoring (refused on a sealed split outside policy)")
    p.add_argument("split")
    p.add_argument("--config", required=True, help="the config scored")
    add(p, "metric", metric={"help": "the metric scored, e.g. ndcg@10"})
    add(p, "value", value={"help": "the config's mean score on the split, 0-1"})
    p.add_argument("--note")

    p = action(sub, "demote", "retire a split from selection (regression guard)")
    p.add_argument("split")
    p.add_argument("--reason", required=True)

    p = action(sub, "verify", "check the hash chain and the log against recorded heads")
    p.add_argument("--head", action="append", default=[], metavar="SEQ:HASH",
                   help="a head recorded elsewhere (e.g. in a report's provenance); repeatable")

    action(sub, "export", "rewrite every manifest export from the log")

    p = action(sub, "history", "print the event log")
    p.add_argument("split", nargs="?")
    p.add_argument("--json", action="store_true", help="print the raw records")


def _policies(args: argparse.Namespace):
    from ragnb.ledger import ThresholdoutParams, UnsealPolicy

    policy = None
    given = {k: v for k, v in [("max_scoring_runs", args.max_runs),
                               ("max_candidates", args.max_candidates),
                               ("text", args.policy_text)] if v is not None}
    if given or args.no_publish:
        policy = UnsealPolicy(**given, publish_whatever_they_say=not args.no_publish)
    holdout = None
    if args.thresholdout_budget is not None:
        holdout = ThresholdoutParams(budget=args.thresholdout_budget, threshold=args.threshold,
                                     sigma=args.sigma, seed=args.seed)
    return policy, holdout


def _scores(items: list[str]) -> dict[str, float] | None:
    if not items:
        return None
    out = {}
    for item in items:
        config, sep, value = item.rpartition("=")
        try:
            out[config] = float(value)
        except ValueError:
            config = ""
        if not sep or not config:
            raise InputError(f"expected CONFIG=VALUE, got {item!r}", source="--score")
    return out


def _show(m, figure=None) -> str:
    budget = ("none declared" if m.budget is None
              else f"{m.budget} ({m.budget_left} left)")
    lines = [m.split_id,
             f"  role                      {m.role}",
             f"  selections_against        {m.selections_against}",
             f"  budget                    {budget}",
             f"  sealed                    {'yes' if m.sealed else 'no'}",
             f"  retired_for_selection_at  {m.retired_for_selection_at or '-'}",
             f"  queries / judgments       {m.n_queries} / {m.n_judgments}"]
    if m.unseal_policy is not None:
        lines.append(f"  unseal_policy             {m.unseal_policy.text} "
                     f"(runs used {m.scoring_runs_used}/{m.unseal_policy.max_scoring_runs})")
    if m.reusable_holdout is not None:
        lines.append(f"  reusable holdout          Thresholdout, {m.holdout_answers} answers, "
                     f"budget {m.holdout_spent}/{m.reusable_holdout.budget} spent")
    if figure is not None and m.selections_against:
        lines.append(f"  selection inflation       {figure.label()}")
    return "\n".join(lines)


def _figure(root, m, args):
    """The split's one selection-inflation figure: its workspace's (the ``ragnb.toml``
    beside the ledger), else the worst case from ``--se``, else None
    (:func:`ragnb.workspace.inflation.ledger_inflation`).
    """
    if not m.selections_against:
        return None
    from ragnb.ledger.ledger import LedgerIntegrityError
    from ragnb.stats import split_inflation
    from ragnb.workspace.inflation import ledger_inflation

    source = "--se, the SE of a paired difference on the split"
    try:
        return ledger_inflation(root, m, args.metric or "ndcg@10", se=args.se, se_source=source)
    except LedgerIntegrityError:  # shown under its warning: no workspace scoring on such a log
        return split_inflation(m.name, m.selections_against, se=args.se, se_source=source)


class _Printer:
    """``print`` with control characters escaped (text in the ledger comes from users)."""

    def __call__(self, text: str, *, newlines: bool = True, file=None) -> None:
        from ragnb.cli._common import terminal_safe

        print(terminal_safe(text, newlines=newlines), file=file or sys.stdout)


def run(args: argparse.Namespace) -> int:
    """Dispatch one ``ragnb ledger`` action."""
    from ragnb.ledger import Ledger, TornRecordWarning
    from ragnb.ledger.ledger import LedgerIntegrityWarning, ManifestExportWarning

    # show and history print a log that does not verify, under a warning (they are how
    # one looks at it); every other reader and every write refuses it
    led = Ledger(Path(args.ledger) if args.ledger else _default_dir(),
                 unverified="warn" if args.action in ("show", "history") else "refuse")
    actor = args.actor
    with warnings.catch_warnings(record=True) as caught:
        for category in (TornRecordWarning, ManifestExportWarning, LedgerIntegrityWarning):
            warnings.simplefilter("always", category)
        try:
            return _dispatch(led, args, actor)
        finally:
            for message in dict.fromkeys(str(w.message) for w in caught):  # each once
                _Printer()(f"ragnb ledger: warning: {message}", newlines=False,
                           file=sys.stderr)


def _dispatch(led, args: argparse.Namespace, actor: str | None) -> int:
    a = args.action
    out = _Printer()
    if a == "register":
        from ragnb.io import read_test_set

        test_set = read_test_set(args.judgments)  # the one validated reader
        judgments = test_set.judgments.drop(columns="line")
        queries = _read_ids(args.queries) if args.queries else list(test_set.query_ids)
        policy, holdout = _policies(args)
        judge = (read_test_set(args.judge).judgments.drop(columns="line")
                 if args.judge else None)
        m = led.register(args.name, judgments, queries, role=args.role, budget=args.budget,
                         unseal_policy=policy, reusable_holdout=holdout, actor=actor,
                         source=str(args.judgments), judge=judge)
        out(_show(m, None))
    elif a == "show":
        names = args.splits or led.splits()
        if not names:
            out(f"no splits registered in {led.root}")
            return 0
        ms = [led.manifest(n) for n in names]
        if args.json:
            print(json.dumps([m.to_dict() for m in ms], indent=2))
        else:
            out("\n\n".join(_show(m, _figure(led.root, m, args)) for m in ms))
            out(f"\nledger head {led.head()} (record SEQ:HASH; keep it to verify the log later)")
    elif a == "select":
        before = led.head()
        m = led.record_selection(args.split, args.candidates, args.winner,
                                 scores=_scores(args.score), se=args.se, actor=actor,
                                 key=args.key)
        if args.key is not None and led.head() == before:
            out(f"{m.name}: a selection with key {args.key!r} is already recorded; "
                "nothing recorded again")
            return 0
        out(f"{m.name}: selections_against = {m.selections_against}"
              + (f"; demoted to regression_guard on {m.retired_for_selection_at}"
                 if m.role == "regression_guard" else ""))
    elif a == "seal":
        policy, holdout = _policies(args)
        out(_show(led.seal(args.split, unseal_policy=policy, reusable_holdout=holdout,
                             actor=actor), None))
    elif a == "unseal":
        m = led.unseal(args.split, args.candidates, reason=args.reason, actor=actor)
        out(f"{m.name}: unsealed for run {m.scoring_runs_used} of "
              f"{m.unseal_policy.max_scoring_runs}: {', '.join(args.candidates)}")
    elif a == "score":
        led.score(args.split, args.config, metric=args.metric, value=args.value,
                  note=args.note, actor=actor)
        out(f"recorded: {args.config} scored on {args.split}")
    elif a == "demote":
        m = led.demote(args.split, args.reason, actor=actor)
        out(f"{m.name}: regression_guard since {m.retired_for_selection_at}")
    elif a == "history":
        if args.json:
            for e in led.events(args.split):
                print(json.dumps(asdict(e), ensure_ascii=True))
        else:
            h = led.history(args.split)
            for r in h.itertuples():
                who = f" [{r.actor}]" if r.actor else ""
                out(f"{r.seq:>5}  {r.ts[:19]}  {r.split or '-':<16} {r.summary}{who}",
                    newlines=False)
    elif a == "verify":
        from ragnb.ledger.log import Head

        heads = [Head.parse(h) for h in args.head]
        result = led.verify(heads)
        for problem in result.problems:
            out(f"ragnb ledger verify: {problem}", newlines=False, file=sys.stderr)
        chained = result.n_records - result.unchained
        out(f"{led.log.path}: {result.n_records} records ({chained} hash-chained"
            + (f", {result.unchained} written before chaining" if result.unchained else "")
            + f"), head {result.head}; "
            + ("OK" if result.ok else f"{len(result.problems)} problem(s)"))
        return 0 if result.ok else 1
    elif a == "export":
        for path in led.export():
            out(f"wrote {path}")
    return 0
