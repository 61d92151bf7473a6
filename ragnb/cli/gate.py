"""``ragnb gate``: pass or fail one change on a workspace's split, by the ``[gate]`` rule,
with the split's ledger told (exit 0 pass, 1 fail, 2 error or refusal).
"""
from __future__ import annotations

import argparse

from ragnb.cli._options import SCORING, add

NAME = "gate"
HELP = "pass/fail a change by the workspace's [gate] rule (exit 0/1/2), ledger-aware"
DESCRIPTION = (
    "Gate one change: the challenger (--challenger CONFIG of the workspace, or --run FILE,\n"
    "e.g. the run a pull request produced) against the [gate] baseline on the [gate] split.\n\n"
    "The rule comes from the manifest's [gate] table (kind, margin in points, alpha,\n"
    "metric(s), stratum_drop, by; `ragnb init --help` lists them); options override it.\n"
    "  non_inferiority  pass when the challenger is shown no worse than MARGIN points\n"
    "  superiority      pass when it is shown better by more than MARGIN points\n"
    "  no_regression    fail only when a drop of more than MARGIN points is shown\n"
    "The decision reads the most powerful valid bound of the mean per-query\n"
    "difference: superiority with no margin, the paired sign-flip test inverted\n"
    "(exchangeable configs, valid at any n); otherwise the headline interval's bound:\n"
    "calibrated t where Cochran's rule trusts it, Hall's skew-corrected t where it\n"
    "does not, the betting interval (Waudby-Smith & Ramdas 2024, valid for any\n"
    "distribution) where fewer than 3 queries differ. Each end is one-sided 1 - alpha.\n\n"
    "Ledger: the decision is recorded once per key (--key, else $GITHUB_SHA, else the\n"
    "git commit) as a selection on the split; a sealed split is refused unless an\n"
    "unseal run declares both configs; on a regression guard a superiority gate is\n"
    "refused unless the lead is clear, and other kinds only alert on drops.\n\n"
    "Output: the finding (answer first) on stdout; --json FILE for machines (- for\n"
    "stdout, the finding then going to stderr); a Markdown summary to --summary FILE\n"
    "and appended to $GITHUB_STEP_SUMMARY when set. Exit code 0 pass, 1 fail, 2 bad\n"
    "input or a ledger refusal."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "workspace", "split", "baseline", *SCORING, "ledger",
        workspace={"required": True, "help": "the workspace (ragnb.toml or its folder)"},
        split={"help": "the test set gated on (default: [gate] split, else as every command)"},
        baseline={"help": "the baseline config (default: [gate] baseline, [report] baseline)"})
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--challenger", metavar="CONFIG", default=None,
                     help="the challenger: a config of the workspace's split")
    who.add_argument("--run", metavar="NAME=FILE", default=None,
                     help="the challenger: a run file (TREC, JSONL, CSV/Parquet)")
    p.add_argument("--metric", action="append", default=None, metavar="METRIC",
                   help="metric (repeatable, each must pass; default: [gate] metric)")
    p.add_argument("--kind", choices=("non_inferiority", "superiority", "no_regression"),
                   default=None, help="the rule's kind (default: [gate] kind, non_inferiority)")
    add(p, "margin", "alpha", margin={"help": "margin in points (default: [gate] margin, 0)"},
        alpha={"help": "one-sided error rate (default: [gate] alpha, 0.05)"})
    p.add_argument("--stratum-drop", type=float, default=None, metavar="POINTS",
                   help="also fail when a stratum's drop beyond POINTS is shown")
    add(p, "by", by={"help": "stratum column for --stratum-drop (default: [gate] by, the "
                             "split's strata `by`)"})
    add(p, "key", key={"help": "idempotency key of this decision (default: $GITHUB_SHA, else "
                               "the git commit of the workspace's folder)"})
    p.add_argument("--no-record", action="store_true",
                   help="decide without recording in the ledger (a dry run; said in the output)")
    p.add_argument("--json", metavar="FILE", default=None, help="write the decision as JSON")
    p.add_argument("--summary", metavar="FILE", default=None,
                   help="write the Markdown summary (also appended to $GITHUB_STEP_SUMMARY)")


def run(args: argparse.Namespace) -> int:
    import math
    import os
    import sys

    from ragnb._atomic import write_atomic
    from ragnb.cli._common import name_file, resolve_inputs, split_manifest, terminal_safe
    from ragnb.errors import InputError
    from ragnb.gate import GateReport, admit, decide, decision_key, gate_key, record, standing
    from ragnb.io import RunFile
    from ragnb.io.strata import assign_strata
    from ragnb.metrics import parse_metric
    from ragnb.metrics.score import score
    from ragnb.stats import paired_se
    from ragnb.workspace import open_workspace
    from ragnb.workspace.manifest import GateRules

    ws = open_workspace(args.workspace)
    rules = ws.manifest.gate or GateRules()
    split = args.split or rules.split or ws.test_set_for("gate")
    baseline: str = args.baseline or rules.baseline or ws.setting("gate", "baseline")
    if not baseline:
        raise InputError("name the baseline: [gate] baseline, [report] baseline or --baseline",
                         source=ws.manifest.path, key="gate.baseline")
    kind = args.kind or rules.kind
    margin = rules.margin if args.margin is None else args.margin
    alpha = rules.alpha if args.alpha is None else args.alpha
    stratum_drop = rules.stratum_drop if args.stratum_drop is None else args.stratum_drop
    for name, value, ok in [("--margin", margin, margin >= 0 and math.isfinite(margin)),
                            ("--alpha", alpha, 0 < alpha <= 0.5),
                            ("--stratum-drop", stratum_drop,
                             stratum_drop is None or stratum_drop >= 0)]:
        if not ok:
            raise InputError(f"out of range: {value!r}", key=name)
    metric_texts = args.metric or list(rules.metrics) or [ws.setting("gate", "metric")
                                                          or "ndcg@10"]
    args.split, args.judgments, args.run_files = split, None, []
    if args.challenger:
        configs, extra = [baseline, args.challenger], None
    else:
        configs = [baseline]
        run_name, path = name_file(args.run)
        extra = RunFile.of(path, name=run_name, order=args.order or ws.run_order)
    inputs = resolve_inputs(args, configs, run_flag="--baseline", read=False)
    runs = [*inputs.runs, *([extra] if extra is not None else [])]
    challenger: str = str(runs[-1].name)
    if challenger == baseline:
        raise InputError(f"the challenger is the baseline {baseline!r}; name another run",
                         key="--run" if extra is not None else "--challenger")
    metrics = list(dict.fromkeys(str(parse_metric(inputs.metric(m))) for m in metric_texts))
    scores = score(inputs.test_set, runs, metrics, policy=args.policy,
                   upper_grade=args.upper_grade, no_relevant=args.no_relevant, **inputs.options)
    notes = [str(n) for n in (*inputs.test_set.notes, *scores.notes)]
    strata = None
    if stratum_drop is not None:
        entry = ws.strata_entry(split)
        by = args.by or rules.by or (entry.by if entry is not None else "")
        if not by or inputs.strata is None:
            raise InputError("stratum_drop needs a stratum column: [gate] by or the split's "
                             "strata `by`", source=ws.manifest.path, key="gate.by")
        strata, strata_notes = assign_strata(inputs.strata, scores.table["query_id"].unique(),
                                             by, source=inputs.strata.attrs.get("source"))
        notes += [str(n) for n in strata_notes]

    wide = scores.wide(metrics[0])[[baseline, challenger]].dropna()
    means = {baseline: float(wide[baseline].mean()), challenger: float(wide[challenger].mean())}
    se, se_source = paired_se(wide[baseline], wide[challenger])
    ledger_dir = inputs.ledger
    manifest = split_manifest(ledger_dir, inputs.test_set)
    admit(ledger_dir, manifest, kind=kind, baseline=baseline, challenger=challenger,
          means=means, se=se, metric=metrics[0], record=not args.no_record)
    decision = decide(scores.table, baseline=baseline, challenger=challenger, metrics=metrics,
                      kind=kind, margin=margin, alpha=alpha, strata=strata,
                      stratum_drop=stratum_drop)
    key = decision_key(gate_key(args.key, ws.root), baseline, challenger)
    if args.no_record:
        recorded = "not recorded (--no-record: a dry run)"
    else:
        manifest, recorded = record(ledger_dir, manifest, passed=decision.passed, kind=kind,
                                    baseline=baseline, challenger=challenger, means=means,
                                    se=se, metric=metrics[0], key=key)
    if ledger_dir and manifest is None:
        notes.append(f"split ledger {ledger_dir}: this test set is not registered, so how often "
                     "it was selected against is unknown")
    report = GateReport(decision, split, baseline, challenger,
                        None if manifest is None else standing(manifest, se, margin, se_source),
                        recorded, key, tuple(notes))
    # with --json -, stdout is the JSON alone (a machine parses it); the finding goes to stderr
    text_out = sys.stderr if args.json == "-" else sys.stdout
    text_out.write(terminal_safe(report.to_text()))
    if args.json:
        if args.json == "-":
            sys.stdout.write(report.to_json())
        else:
            _write(write_atomic, args.json, report.to_json())
    markdown = report.to_markdown()
    if args.summary:
        _write(write_atomic, args.summary, markdown)
    step = os.environ.get("GITHUB_STEP_SUMMARY")
    if step:
        try:
            with open(step, "a", encoding="utf-8") as f:
                f.write(markdown + "\n")
        except OSError as exc:
            raise InputError(f"cannot append the summary ({exc.strerror})",
                             source=step, key="$GITHUB_STEP_SUMMARY") from None
    return report.exit_code


def _write(write_atomic, path: str, text: str) -> None:
    from ragnb.errors import InputError

    try:
        write_atomic(path, text)
    except OSError as exc:
        raise InputError(f"cannot write ({exc.strerror})", source=path) from None
