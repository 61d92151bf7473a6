"""Argument helpers shared by subcommands (one place for NAME=FILE parsing and output)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError
from ragnb.metrics import POLICIES
from ragnb.run import ORDERS


def name_file(text: str) -> tuple[str | None, Path]:
    """Parse ``NAME=FILE`` (or just ``FILE``: the name is the file name)."""
    if "=" in text:
        name, _, path = text.partition("=")
        if not name or not path:
            raise argparse.ArgumentTypeError(f"expected NAME=FILE, got {text!r}")
        return name, Path(path)
    return None, Path(text)


def add_judgment_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judgments", "--test-set", dest="judgments", required=True, metavar="FILE",
                   help="test set JSONL (the ragnb test-set format), TREC qrels, or CSV/Parquet table")
    p.add_argument("--policy", choices=POLICIES, default="lower",
                   help="unjudged passages: lower = not relevant (default), condensed = removed "
                        "before the cut, upper = relevant at --upper-grade and added to the ideal")
    p.add_argument("--upper-grade", type=int, default=None,
                   help="grade given to unjudged passages under --policy upper (default: top grade)")
    p.add_argument("--order", choices=ORDERS, default=None,
                   help="ranking order: 'rank' = the rank column (default where present), "
                        "'score' = score descending, ties by passage id descending (trec_eval)")
    p.add_argument("--no-relevant", choices=("keep", "drop"), default="keep",
                   help="queries with no relevant passage: keep (scored, counted; default) or "
                        "drop (counted)")
    p.add_argument("--missing", choices=("error", "empty", "drop"), default="error",
                   help="test-set queries a run has no ranking for (default: error)")
    p.add_argument("--extra", choices=("error", "drop"), default="error",
                   help="run queries the test set lacks (default: error; drop counts them)")


def add_output_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--out", metavar="FILE", default=None, help="write here instead of stdout")


#: The text table's unit line (CSV and JSON keep metric values as they are, 0-1).
POINTS_LINE = "# metric values and differences in points (metric x 100); csv and json keep 0-1"


def emit(df: pd.DataFrame, fmt: str, out: str | None, header_lines: list[str] = (),
         points: tuple[str, ...] = ()) -> None:
    """Write a table as text, CSV or JSON records; header lines go to stderr for csv/json.

    ``points`` names the columns of metric values: the text table shows them in
    points (x100, two decimals) and says so in a header line; CSV and JSON keep
    the values as computed.
    """
    shown = [c for c in points if c in df]
    if fmt == "table" and shown:
        df = df.assign(**{c: [f"{v * 100:.2f}" if v == v else "—"
                              for v in pd.to_numeric(df[c], errors="coerce")] for c in shown})
        header_lines = [*header_lines, POINTS_LINE]
    if fmt == "csv":
        text = df.to_csv(index=False)
    elif fmt == "json":
        text = df.to_json(orient="records", indent=1) + "\n"
    else:
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200, "display.float_format", "{:.4f}".format):
            text = "\n".join([*header_lines, df.to_string(index=False), ""])
    if fmt != "table":
        for line in header_lines:
            print(line, file=sys.stderr)
    if out:
        Path(out).write_text(text)
    else:
        sys.stdout.write(text)


def load_runs(specs: list[str], order) -> list:
    from ragnb.io import read_run

    runs = []
    for spec in specs:
        name, path = name_file(spec)
        runs.append(read_run(path, name=name, order=order))
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise InputError(f"two runs share the name(s) {sorted({n for n in names if names.count(n) > 1})}; "
                         "use NAME=FILE", key="--run")
    return runs


def add_ledger_arg(p: argparse.ArgumentParser) -> None:
    import os

    p.add_argument("--ledger", metavar="DIR", default=os.environ.get("RAGNB_LEDGER") or None,
                   help="split ledger: show how often this test set has been selected against "
                        "and the inflation that implies (default $RAGNB_LEDGER)")


def split_manifest(ledger_dir: str | None, test_set):
    """The ledger manifest of ``test_set`` (matched by content hash), or None."""
    if not ledger_dir:
        return None
    from ragnb.ledger import Ledger

    return Ledger(ledger_dir).find(test_set.judgments.drop(columns="line"),
                                   list(test_set.query_ids))


def ledger_line(manifest, ledger_dir: str | None, se: float | None = None) -> list[str]:
    """Header line(s) stating a split's selections_against and implied inflation."""
    from ragnb.stats import expected_max_normal

    if not ledger_dir:
        return []
    if manifest is None:
        return [f"# split ledger {ledger_dir}: this test set is not registered (its content "
                "hash matches no split), so how often it was selected against is unknown"]
    n = manifest.selections_against
    text = (f"# split {manifest.split_id}: role {manifest.role}, selections_against {n}"
            + (f", retired for selection {manifest.retired_for_selection_at}"
               if manifest.retired_for_selection_at else "")
            + (", sealed" if manifest.sealed else ""))
    if n:
        factor = expected_max_normal(n)
        text += (f"; selection alone inflates the best of {n} choices by about "
                 f"{factor:.2f} x SE of a paired comparison"
                 + (f" = {factor * se * 100:.2f} points" if se else ""))
    return [text]


def guard_sealed(ledger_dir: str | None, manifest, values: dict[str, float], metric: str) -> None:
    """On a confirmation split, record each config's scoring through its unseal policy.

    Raises :class:`~ragnb.errors.PolicyError` (before anything is printed) when
    the split is sealed with no open unseal run for these configs; every allowed
    scoring is recorded in the ledger, as the policy requires.
    """
    if manifest is None or manifest.role != "confirmation":
        return
    from ragnb.ledger import Ledger

    ledger = Ledger(ledger_dir)
    for config, value in values.items():
        ledger.score(manifest.split_id, config, metric=metric, value=float(value),
                     note="ragnb CLI")
