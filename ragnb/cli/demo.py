"""``ragnb demo``: regenerate the bundled demo data (byte-identical, fixed seeds)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ragnb.paths import DEMO_DIR

NAME = "demo"
HELP = "regenerate the demo data set (fixed seeds; byte-identical)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=str(DEMO_DIR), help=f"output folder (default {DEMO_DIR})")


def run(args: argparse.Namespace) -> int:
    from ragnb.demo import generate_all

    files = generate_all(Path(args.out))
    print(f"wrote {len(files)} files under {args.out}")
    return 0
