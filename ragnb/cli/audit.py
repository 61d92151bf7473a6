"""``ragnb audit``: what a published figure over n queries can support (no per-query data)."""
from __future__ import annotations

import argparse

from ragnb.cli._options import add

NAME = "audit"
HELP = "audit a published figure: its interval at that n, the smallest reachable p, the MDE"
DESCRIPTION = (
    "Audit a claim such as 'recall@5 = 1.00 on 10 queries, baseline 0.70' from the figures\n"
    "alone (no per-query values needed):\n"
    "  * the interval the figure supports at that n: Hoeffding's (1963) Bernoulli-KL bound,\n"
    "    valid for any metric in [0, 1] and any distribution, and the difference from\n"
    "    --baseline (that interval minus the baseline, taken as exact);\n"
    "  * the smallest p-value any paired comparison at that n could reach (exact sign-flip\n"
    "    test: 2 / 2^n);\n"
    "  * the minimum detectable effect at --power (t quantiles), with --sd the SD of the\n"
    "    per-query differences, else the largest SD the two means allow (an upper bound).\n"
    "Values are metric values in [0, 1] (give 0.70, not 70); the text is in points."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=int, required=True, help="number of queries behind the figure")
    add(p, "value", value={"required": True, "help": "the reported mean, 0-1 (not points)"})
    p.add_argument("--baseline", type=float, default=None,
                   help="the baseline's reported mean on the same queries, in [0, 1]")
    add(p, "metric", metric={"default": "metric", "help": "the metric's name (for the text)"})
    add(p, "alpha", alpha={"default": 0.05, "help": "error rate (default 0.05)"})
    p.add_argument("--power", type=float, default=0.8, help="power of the MDE (default 0.8)")
    p.add_argument("--sd", type=float, default=None,
                   help="SD of the per-query differences, if known (default: the largest the "
                        "two means allow)")
    add(p, "format")


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from ragnb.cli._common import terminal_safe
    from ragnb.stats.audit import audit

    a = audit(args.n, args.value, args.baseline, metric=args.metric, alpha=args.alpha,
              power=args.power, sd=args.sd)
    if args.format == "json":
        sys.stdout.write(json.dumps(a.to_dict(), indent=1) + "\n")
    elif args.format == "csv":
        import pandas as pd

        sys.stdout.write(pd.DataFrame([a.to_dict()]).to_csv(index=False))
    else:
        sys.stdout.write(terminal_safe("\n".join(a.lines()) + "\n"))
    return 0
