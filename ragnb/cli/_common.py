"""Argument helpers shared by subcommands (one place for NAME=FILE parsing and output)."""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError
from ragnb.metrics import POLICIES
from ragnb.run import ORDERS
from ragnb.testset import MAX_GRADE


def name_file(text: str, option: str = "--run") -> tuple[str | None, Path]:
    """Parse ``NAME=FILE`` (or just ``FILE``: the name is the file name).

    A path that exists as given is a file even when it contains ``=``; ``-`` is
    standard input.
    """
    if "=" in text and not os.path.lexists(text):
        name, _, path = text.partition("=")
        if not name or not path:
            raise InputError(f"expected NAME=FILE or FILE, got {text!r}", key=option)
        return name, Path(path)
    if not text:
        raise InputError("expected NAME=FILE or FILE, got an empty argument", key=option)
    return None, Path(text) if text != "-" else "-"


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


#: Largest number of bootstrap/permutation resamples a command accepts: 10 x the
#: default; memory and time grow linearly with it (resamples x queries).
MAX_RESAMPLES = 100_000


def bounded_int(lo: int, hi: int):
    """An argparse ``type``: a strict ASCII integer in ``[lo, hi]``, else a one-line error."""
    def parse(text: str) -> int:
        if not re.fullmatch(r"-?[0-9]{1,18}", text):
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer")
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside [{lo:,}, {hi:,}]")
        return value

    parse.__name__ = "integer"
    return parse


def terminal_safe(text: object, *, newlines: bool = True) -> str:
    """``text`` with control characters shown as escapes (``\\x1b``, ``\\u202e``).

    Ids, actors and reasons come from files and other users; printed raw, an
    escape sequence could rewrite the terminal (hide a line, fake a verdict).
    Tabs and (unless ``newlines`` is False) newlines are kept.
    """
    text = str(text)
    if not newlines:
        text = text.replace("\n", "\\n")
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def add_judgment_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--judgments", "--test-set", dest="judgments", required=required,
                   metavar="FILE",
                   help="test set JSONL (seed 004 format), TREC qrels, or CSV/Parquet table")
    p.add_argument("--policy", choices=POLICIES, default="lower",
                   help="unjudged passages: lower = not relevant (default), condensed = removed "
                        "before the cut, upper = relevant at --upper-grade and added to the ideal")
    p.add_argument("--upper-grade", type=bounded_int(0, MAX_GRADE), default=None,
                   help="grade given to unjudged passages under --policy upper (default: top grade)")
    p.add_argument("--order", choices=ORDERS, default=None,
                   help="ranking order: 'score' = score descending, ties by passage id descending "
                        "(trec_eval; default where the run has scores), 'rank' = the rank column "
                        "(opt-in; default for JSONL lists). A note counts queries whose ranks "
                        "disagree with the scores")
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


#: ``--out`` suffixes that name a table format (they win over ``--format``).
OUT_SUFFIXES = {".csv": "csv", ".json": "json", ".tsv": "tsv"}


def emit(df: pd.DataFrame, fmt: str, out: str | None, header_lines: list[str] = ()) -> None:
    """Write a table as text, CSV, TSV or JSON records; header lines go to stderr unless text.

    An ``out`` file ending in ``.csv``, ``.tsv`` or ``.json`` gets that format
    whatever ``fmt`` says: every ``--out`` writes the format its suffix names.
    """
    if out:
        fmt = OUT_SUFFIXES.get(Path(out).suffix.lower(), fmt)
    if fmt == "tsv":
        text = df.to_csv(index=False, sep="\t")
    elif fmt == "csv":
        text = df.to_csv(index=False)
    elif fmt == "json":
        text = df.to_json(orient="records", indent=1) + "\n"
    else:
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200, "display.float_format", "{:.4f}".format):
            text = "\n".join([*header_lines, df.to_string(index=False), ""])
        text = terminal_safe(text)
    if fmt != "table":
        for line in header_lines:
            print(terminal_safe(line), file=sys.stderr)
    if out:
        from ragnb._atomic import write_atomic

        try:
            write_atomic(out, text)
        except OSError as exc:
            raise InputError(f"cannot write the output ({exc.strerror})", source=out) from None
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
    from ragnb.stats import expected_max_normal, selection_inflation

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
                 f"{factor:.2f} x SE of a paired comparison / √2 (configs' noise assumed "
                 f"exchangeable)"
                 + (f" = {selection_inflation(n, se) * 100:.2f} points" if se else ""))
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


def add_strata_args(p: argparse.ArgumentParser, by_help: str) -> None:
    """--strata FILE, --strata-key, --strata-columns and --by COLUMN."""
    p.add_argument("--strata", metavar="FILE", default=None,
                   help="query annotations: CSV/TSV/Parquet/JSONL keyed by query id, or a JSON "
                        "object query id -> fields (CODEC's topics.json); may cover more "
                        "queries than the test set (counted in a note)")
    p.add_argument("--strata-key", metavar="COLUMN", default="query_id",
                   help="the column of --strata holding query ids (default query_id)")
    p.add_argument("--strata-columns", metavar="A,B,...", default=None,
                   help="column names of a header-less --strata file (its first line is data)")
    p.add_argument("--by", metavar="COLUMN", default=None, help=by_help)


def strata_labels(args: argparse.Namespace, test_set, query_ids):
    """Stratum label per query (``--by`` in ``--strata`` or the query metadata) and notes."""
    from ragnb.io import read_strata
    from ragnb.io.strata import assign_strata

    if args.strata and not args.by:
        raise InputError("--strata needs --by COLUMN", key="--by")
    columns = [c.strip() for c in args.strata_columns.split(",")] if args.strata_columns else None
    if args.strata:
        table = read_strata(args.strata, key=args.strata_key, columns=columns)
        source = args.strata
    else:
        table, source = test_set.queries, f"{test_set.source} (query metadata)"
    return assign_strata(table, query_ids, args.by, source=source)
