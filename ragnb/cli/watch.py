"""``ragnb watch``: production judged in batches, an anytime-valid confidence sequence for the
champion's gain after every batch, and when to stop labelling.
"""
from __future__ import annotations

import argparse

from ragnb.cli._options import SCORING, add

NAME = "watch"
HELP = "production judged in batches: anytime-valid gain of the champion, and a stop rule"
DESCRIPTION = (
    "Watch the champion's production gain over the baseline as judged queries arrive.\n\n"
    "Batches: --batch [DATE=]FILE (repeatable, in arrival order; each a test-set file of\n"
    "newly judged queries), else the manifest's [watch] batches (a folder, name order, or a\n"
    "list of {path, date}), else --batch-size N: the split's own queries in file order, N\n"
    "at a time. Both configs' runs are the workspace's runs of the split.\n\n"
    "After every batch: the betting confidence sequence (Waudby-Smith & Ramdas 2024) of\n"
    "the mean per-query difference champion - baseline, valid simultaneously over every\n"
    "batch, so it may be looked at after each one (a fixed-n interval looked at 30 times\n"
    "misses far more often than 5%). Stop rule: 'gain below zero established' (high < 0),\n"
    "'gain of at least MARGIN points established' (low > margin), else 'keep labelling\n"
    "(about N more queries)', a projection that assumes the gain and spread stay.\n"
    "Expected stopping batch at a true gain of -5, -2, +2 and +5 points: the batch by\n"
    "which half of 200 streams resampled from these differences (mean removed, shifted\n"
    "to the gain) stopped.\n"
    "Values in points on the text table; --format csv/json keep 0-1."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add(p, "workspace", "split", "baseline", "metric", *SCORING, "format", "out",
        workspace={"required": True, "help": "the workspace (ragnb.toml or its folder)"},
        split={"help": "the test set whose runs are watched (default: [watch] split, else the "
                       "production test set)"},
        baseline={"help": "the baseline config (default: [watch] baseline, [report] baseline)"},
        metric={"help": "the metric (default: [watch] metric, [report] metric, ndcg@10)"})
    p.add_argument("--champion", metavar="CONFIG", default=None,
                   help="the config watched (default: [watch] champion, [report] challenger)")
    p.add_argument("--batch", action="append", default=[], metavar="[DATE=]FILE",
                   help="a judged batch (repeatable, in arrival order)")
    p.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help="no batch files: the split's queries in file order, N at a time")
    add(p, "margin", "alpha",
        margin={"help": "the gain 'at least the margin' stops on, in points (default: [watch] "
                        "margin, 0)"},
        alpha={"help": "error rate, simultaneous over batches (default: [watch] alpha, 0.05)"})


def run(args: argparse.Namespace) -> int:
    import math
    from pathlib import Path

    import pandas as pd

    from ragnb.cli._common import emit, name_file, resolve_inputs
    from ragnb.errors import InputError
    from ragnb.io import read_test_set
    from ragnb.metrics import parse_metric
    from ragnb.metrics.score import score
    from ragnb.watch import batches_of, differences_table, watch
    from ragnb.watch.stream import stopping_text
    from ragnb.workspace import open_workspace
    from ragnb.workspace.manifest import WatchRules

    ws = open_workspace(args.workspace)
    rules = ws.manifest.watch or WatchRules()
    split = args.split or rules.split or ws.role("production") or ws.test_set_for("watch")
    baseline = args.baseline or rules.baseline or ws.setting("watch", "baseline")
    champion = args.champion or rules.champion or ws.setting("watch", "challenger")
    if not baseline or not champion:
        raise InputError("name the baseline and the champion: [watch] baseline/champion, "
                         "[report] baseline/challenger, or --baseline/--champion",
                         source=ws.manifest.path, key="watch")
    if champion == baseline:
        raise InputError(f"the champion is the baseline {baseline!r}; name another config",
                         key="--champion")
    margin = rules.margin if args.margin is None else args.margin
    alpha = rules.alpha if args.alpha is None else args.alpha
    if not (math.isfinite(margin) and margin >= 0):
        raise InputError(f"must be a number of points >= 0, got {margin}", key="--margin")
    if not 0 < alpha < 1:
        raise InputError(f"must be in (0, 1), got {alpha}", key="--alpha")
    args.split, args.judgments = split, None
    inputs = resolve_inputs(args, [baseline, champion], run_flag="--baseline")
    metric = str(parse_metric(inputs.metric(args.metric or rules.metric
                                            or ws.setting("watch", "metric") or "ndcg@10")))
    opts = {"policy": args.policy, "upper_grade": args.upper_grade,
            "no_relevant": args.no_relevant}
    notes: list[str] = []
    batches: list[tuple[Path | str, str]] = []
    for text in args.batch:
        date, path = name_file(text, "--batch")
        batches.append((path, date or ""))
    if not batches and rules.batches and args.batch_size is None:
        batches = [(b.path, b.date) for b in rules.batches]
    if batches:
        parts: list[pd.DataFrame] = []
        seen: dict[str, str] = {}
        for path, date in batches:
            ts = read_test_set(path)
            s = score(ts, inputs.runs, [metric], missing=inputs.options["missing"],
                      extra="drop", **opts)
            notes += [f"{path}: {n}" for n in (*ts.notes, *s.notes)]
            label = ts.name
            again = [q for q in ts.query_ids if q in seen]
            if again:
                raise InputError(f"query {again[0]!r} was judged in batch {seen[again[0]]} "
                                 f"already ({len(again)} such)", source=path)
            seen.update(dict.fromkeys(ts.query_ids, label))
            labels = pd.Series(label, index=list(ts.query_ids))
            parts.append(differences_table(s.wide(metric), baseline, champion, labels,
                                           {label: date}))
        diffs = pd.concat(parts, ignore_index=True)
    else:
        args.batch_size = args.batch_size or rules.batch_size
        if args.batch_size is None:
            raise InputError("name the batches: --batch FILE, [watch] batches, or "
                             "--batch-size N ([watch] batch_size) to split the test set's "
                             "queries in file order",
                             key="--batch")
        s = score(inputs.test_set, inputs.runs, [metric], **inputs.options, **opts)
        notes += [str(n) for n in (*inputs.test_set.notes, *s.notes)]
        ids = list(inputs.test_set.query_ids)
        diffs = differences_table(s.wide(metric), baseline, champion,
                                  batches_of(ids, args.batch_size))
    w = watch(diffs, margin=margin, alpha=alpha)
    header = [f"# {w.decision} — {champion} vs {baseline} on {split}, {metric}"
              + (f", margin {margin:g} points" if margin else ""),
              f"# {w.description}",
              f"# first batch at which a stop rule held: {w.stopped_at or 'none yet'}",
              f"# expected stopping batch at a true gain of {stopping_text(w.stopping)}"]
    header += [f"# note: {n}" for n in notes]
    emit(w.batches, args.format, args.out, header, points=("estimate", "low", "high"))
    return 0
