"""``ragnb convert``: a test set or a run from any supported format to any other."""
from __future__ import annotations

import argparse

from ragnb.errors import InputError
from ragnb.io.run import ORDERS

NAME = "convert"
HELP = "convert a test set or a run between TREC, JSONL, CSV/TSV and Parquet"
DESCRIPTION = """\
Convert a test set (qrels <-> JSONL test set <-> CSV/TSV/Parquet long table) or a
run (TREC <-> JSONL <-> CSV/TSV/Parquet). The input format is read from the file
(gzip transparently); the output format is the one the --out suffix names:
.qrels/.qrel/.trec/.run/.txt = TREC, .jsonl/.json = JSON Lines, .csv, .tsv,
.parquet/.pq, each optionally followed by .gz. The input is validated as any
input is (errors name the file and line, exit 2).

A run written as TREC keeps its ranking (ranks 1..n in ranking order; a run with
no scores gets score = n - rank + 1). Runs are read in trec_eval's order (score
descending, docno descending) where they have scores; --order rank opts in to
the rank column.

examples:
  ragnb convert qrels.txt --out testset.jsonl
  ragnb convert testset.jsonl --out judgments.parquet
  ragnb convert bm25.run.gz --out bm25.jsonl
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="FILE", help="the test set or run to convert")
    p.add_argument("--out", metavar="FILE", required=True,
                   help="the output; its suffix names the format")
    p.add_argument("--kind", choices=("auto", "test-set", "run"), default="auto",
                   help="what the input is (default: from its content: 4 TREC fields or a "
                        "`grade` column = test set, 6 fields or rank/score = run)")
    p.add_argument("--order", choices=ORDERS, default=None,
                   help="ranking order of a run (default: score where the run has scores)")
    p.add_argument("--name", default=None, help="run tag / split name (default: file name)")


def input_kind(path) -> str:
    """``test-set`` or ``run``, from the file's first record."""
    import json

    from ragnb.io.source import open_binary, read_table_file, sniff_format

    fmt = sniff_format(path)
    if fmt in ("csv", "tsv", "parquet"):
        columns = set(read_table_file(path, fmt).columns)
        return "test-set" if "grade" in columns else "run"
    with open_binary(path) as fh:
        first = b""
        while not first.strip():
            first = fh.readline()
            if not first:
                raise InputError("the file is empty", source=path)
    if fmt == "jsonl":
        try:
            obj = json.loads(first)
        except json.JSONDecodeError:
            return "run"  # one object for the whole file: a run {qid: [...]}
        return "test-set" if isinstance(obj, dict) and "query_id" in obj else "run"
    fields = first.split()
    if len(fields) == 4:
        return "test-set"
    if len(fields) == 6:
        return "run"
    raise InputError(f"the first line has {len(fields)} fields: neither qrels (4) nor a run "
                     "(6); give --kind", source=path, line=1)


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from ragnb.io import read_run, read_test_set
    from ragnb.io.writers import format_of, write_run, write_test_set

    format_of(args.out)  # fail on an unknown suffix before reading
    if Path(args.out).resolve() == Path(args.input).resolve():
        raise InputError("--out would overwrite the input", source=args.out, key="--out")
    kind = input_kind(args.input) if args.kind == "auto" else args.kind
    if kind == "test-set":
        ts = read_test_set(args.input, name=args.name)
        out = write_test_set(ts, args.out)
        what = f"test set {ts.name}: {len(ts.queries)} queries, {len(ts.judgments)} judgments"
        notes = ts.notes
    else:
        r = read_run(args.input, name=args.name, order=args.order)
        out = write_run(r, args.out)
        what = (f"run {r.name}: {r.query_ids.size} queries, {len(r)} ranked passages, "
                f"ranking order {r.order}")
        notes = r.notes
    for note in notes:
        print(f"# note: {note}", file=sys.stderr)
    print(f"wrote {out} ({what}; format {format_of(out)[0]})")
    return 0
