"""Merging new judgments into a new test-set version (the old one is kept).

:func:`merge_judgments` is the rule, on tables: new judgments for the same
queries join the old ones; a judgment that repeats an old one with the same
grade is counted and kept once; the same (query, passage) with a *different*
grade is a conflict, and conflicts are an error listing them (the old key is
not silently overwritten, nor the new label dropped); a judgment for a query
the test set lacks is an error too.

:func:`merge_files` does it on files: it reads both with the core readers
(test-set JSONL, TREC qrels or CSV/Parquet), writes the merged key as a new
JSONL file in seed 004's format and a small JSON *merge record* beside it
(``<output>.merge.json``: the three files' SHA-256, counts, time), each written
atomically (temporary file + rename), and refuses to overwrite its inputs.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb._atomic import write_atomic
from ragnb.errors import InputError, listed
from ragnb.io import read_test_set
from ragnb.io.testset import Note, TestSet, validate_judgments

RECORD_SUFFIX = ".merge.json"


@dataclass(frozen=True)
class MergeCounts:
    """What a merge did: judgments before, received, added, already present; queries touched."""

    base_judgments: int
    received: int
    added: int
    already_present: int
    merged_judgments: int
    queries_touched: int
    new_relevant: int

    @property
    def share_relevant(self) -> float:
        return self.new_relevant / self.added if self.added else 0.0


def merge_judgments(test_set: TestSet, labels: TestSet | pd.DataFrame, *,
                    name: str | None = None) -> tuple[TestSet, MergeCounts]:
    """Merge ``labels`` into ``test_set``; returns the new version and the counts.

    Raises
    ------
    InputError
        Listing (up to ten) conflicting judgments — same query and passage,
        different grade — with their lines, or queries the test set lacks.
    """
    source = labels.source if isinstance(labels, TestSet) else "new judgments"
    new = labels.judgments if isinstance(labels, TestSet) else validate_judgments(labels, source)
    if new.empty:
        raise InputError("no new judgments to merge", source=source)
    known = set(test_set.queries["query_id"].astype("str"))
    unknown = pd.unique(new.loc[~new["query_id"].isin(known), "query_id"])
    if len(unknown):
        raise InputError(f"{len(unknown)} quer{'y' if len(unknown) == 1 else 'ies'} not in the "
                         f"test set {test_set.name!r}: "
                         f"{listed(list(unknown[:10]), most=20)}", source=source)
    old = test_set.judgments
    both = new.merge(old[["query_id", "passage_id", "grade", "line"]],
                     on=["query_id", "passage_id"], how="left", suffixes=("", "_old"))
    seen = both["grade_old"].notna()
    conflict = seen & (both["grade"] != both["grade_old"])
    if conflict.any():
        c = both[conflict]
        listing = "; ".join(
            f"({r.query_id}, {r.passage_id}) old grade {int(r.grade_old)} at line "
            f"{int(r.line_old)}, new grade {int(r.grade)} at line {int(r.line)}"
            for r in c.head(10).itertuples())
        more = f" (and {len(c) - 10} more)" if len(c) > 10 else ""
        raise InputError(f"{len(c)} conflicting judgment(s): {listing}{more}", source=source,
                         line=int(c["line"].iloc[0]))
    added = new[~seen.to_numpy()]
    merged = pd.concat([old, added.assign(line=np.arange(len(old) + 1,
                                                         len(old) + len(added) + 1))],
                       ignore_index=True)
    counts = MergeCounts(
        base_judgments=len(old), received=len(new), added=len(added),
        already_present=int(seen.sum()), merged_judgments=len(merged),
        queries_touched=int(added["query_id"].nunique()),
        new_relevant=int((added["grade"] > 0).sum()),
    )
    note = Note("merged", counts.added, f"judgments added from {source} "
                f"({counts.already_present} already present, {counts.new_relevant} relevant)")
    return test_set.with_judgments(merged, name=name or test_set.name, notes=(note,)), counts


def sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class MergeRecord:
    """The JSON record written beside a merged test set."""

    base: str
    base_sha256: str
    labels: str
    labels_sha256: str
    output: str
    output_sha256: str
    merged_at: str
    counts: MergeCounts

    def to_dict(self) -> dict:
        d = asdict(self)
        d["counts"]["share_relevant"] = self.counts.share_relevant
        return d


def merge_files(base: str | Path, labels: str | Path, output: str | Path, *,
                now: datetime | None = None, overwrite: bool = False) -> MergeRecord:
    """Merge the judgments in ``labels`` into ``base``; write ``output`` and its record.

    Parameters
    ----------
    base : path
        The current test set (any format :func:`ragnb.io.read_test_set` reads); kept.
    labels : path
        New judgments (test-set JSONL, qrels or CSV/Parquet with ``query_id,
        passage_id, grade``).
    output : path
        The new version, in the format its suffix names
        (:func:`ragnb.io.writers.format_of`: ``.jsonl`` seed 004's format,
        ``.qrels`` TREC, ``.csv``/``.tsv``/``.parquet``). Must differ from both inputs.
    now : datetime, optional
        Time stamped on the record (default: now, UTC).
    overwrite : bool
        Replace an existing ``output`` (never an input).
    """
    from ragnb.io.writers import format_of, write_test_set

    base, labels, output = Path(base), Path(labels), Path(output)
    format_of(output)  # an unknown suffix is an error before anything is read
    for p in (base, labels):
        if output.resolve() == p.resolve():
            raise InputError("the output would overwrite an input; the old version is kept, "
                             "so choose a new file name", source=output)
    if output.exists() and not overwrite:
        raise InputError("the output exists; choose a new file name or pass overwrite",
                         source=output)
    old = read_test_set(base)
    new = read_test_set(labels)
    merged, counts = merge_judgments(old, new, name=output.name.split(".")[0])
    write_test_set(merged, output)
    stamp = (now or datetime.now(UTC)).astimezone(UTC)
    record = MergeRecord(str(base), sha256(base), str(labels), sha256(labels), str(output),
                         sha256(output), stamp.isoformat(timespec="seconds"), counts)
    write_atomic(record_path(output), json.dumps(record.to_dict(), indent=1) + "\n")
    return record


def record_path(output: str | Path) -> Path:
    """Where the merge record of ``output`` is written."""
    output = Path(output)
    return output.with_name(output.name + RECORD_SUFFIX)
