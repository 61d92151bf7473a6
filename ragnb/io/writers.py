"""Writers for test sets and runs: every output's format is the one its suffix names.

=====================================  ==========================================
suffix (``.gz`` adds gzip)             format
=====================================  ==========================================
``.qrels``, ``.qrel``, ``.trec``,      TREC: qrels ``qid 0 docid grade``; runs
``.run``, ``.txt``                     ``qid Q0 docid rank score tag``
``.jsonl``, ``.json``                  JSON Lines: test sets one query per line
                                       with its judgments; runs ``{qid: [docid...]}``
``.csv``, ``.tsv``                     long tables with a header
``.parquet``, ``.pq``                  the same long tables in Parquet
=====================================  ==========================================

Writes are atomic (a temporary file, then a rename). A run written to TREC
keeps its ranking: ranks are positions 1..n in ranking order, and a run with no
scores (JSONL lists) gets ``score = n - rank + 1`` so that trec_eval's order
(score descending) is the same ranking.
"""
from __future__ import annotations

import gzip
import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb._atomic import write_atomic_bytes
from ragnb.errors import InputError
from ragnb.io.run import Run, positions
from ragnb.io.source import SUFFIX_FORMATS, TREC_SUFFIXES
from ragnb.io.testset import TestSet

_SUFFIXES = {**dict.fromkeys(TREC_SUFFIXES, "trec"), **SUFFIX_FORMATS}


def format_of(path: str | Path, key: str = "--out") -> tuple[str, bool]:
    """(format, gzip) named by a file's suffix; an unknown suffix is an error."""
    name = Path(path).name.lower()
    gz = name.endswith(".gz")
    stem = name[:-3] if gz else name
    suffix = Path(stem).suffix
    if suffix not in _SUFFIXES:
        raise InputError(f"cannot tell the format from the suffix {suffix or '(none)'!r}; use "
                         f"one of {', '.join(sorted(_SUFFIXES))} (optionally + .gz)",
                         source=path, key=key)
    return _SUFFIXES[suffix], gz


def _write(path: Path, data: bytes, gz: bool) -> Path:
    return write_atomic_bytes(path, gzip.compress(data, mtime=0) if gz else data)


def _table_bytes(df: pd.DataFrame, fmt: str) -> bytes:
    if fmt == "parquet":
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        return buf.getvalue()
    return df.to_csv(index=False, sep="\t" if fmt == "tsv" else ",").encode("utf-8")


def judgments_table(test_set: TestSet) -> pd.DataFrame:
    """The judgments as a long table ``query_id, passage_id, grade[, doc_version]``."""
    j = test_set.judgments
    cols = ["query_id", "passage_id", "grade"]
    versions = j["doc_version"].astype("object")
    if versions.notna().any() and (versions.astype("str") != "").any():
        cols.append("doc_version")
    return pd.DataFrame({c: j[c].astype("object") if c != "grade" else j[c] for c in cols})


def write_test_set(test_set: TestSet, path: str | Path) -> Path:
    """Write ``test_set`` in the format ``path``'s suffix names (see module docstring)."""
    path = Path(path)
    fmt, gz = format_of(path)
    pooled = test_set.pooled if test_set.pooled is not None else pd.DataFrame(
        {"query_id": [], "passage_id": []})
    if len(pooled) and fmt != "trec":
        raise InputError(f"the test set lists {len(pooled)} passages in the pool but not judged "
                         "(qrels grade -1), which only TREC qrels can hold; write a .qrels file",
                         source=str(path))
    if fmt == "jsonl":
        data = test_set_jsonl(test_set).encode("utf-8")
    elif fmt == "trec":
        j = test_set.judgments
        data = ("".join(f"{q} 0 {p} {int(g)}\n" for q, p, g in
                        zip(j["query_id"], j["passage_id"], j["grade"]))
                + "".join(f"{q} 0 {p} -1\n" for q, p in
                          zip(pooled["query_id"], pooled["passage_id"]))).encode("utf-8")
    else:
        data = _table_bytes(judgments_table(test_set), fmt)
    return _write(path, data, gz)


def run_table(run: Run) -> pd.DataFrame:
    """The run as ``query_id, passage_id, rank, score`` in ranking order (rank 1..n)."""
    t = run.table
    codes = pd.factorize(t["query_id"])[0]
    rank = positions(codes).astype(np.int64) + 1
    score = t["score"].to_numpy(dtype=np.float64)
    if np.isnan(score).all():  # a ranking without scores: n - rank + 1 keeps the order
        sizes = np.bincount(codes)[codes]
        score = (sizes - rank + 1).astype(np.float64)
    return pd.DataFrame({"query_id": t["query_id"].astype("object"),
                         "passage_id": t["passage_id"].astype("object"),
                         "rank": rank, "score": score})


def write_run(run: Run, path: str | Path, tag: str | None = None) -> Path:
    """Write ``run`` in the format ``path``'s suffix names (see module docstring)."""
    path = Path(path)
    fmt, gz = format_of(path)
    df = run_table(run)
    if fmt == "jsonl":
        lines = [json.dumps({q: list(g["passage_id"])}, ensure_ascii=False)
                 for q, g in df.groupby("query_id", sort=False)]
        data = ("\n".join(lines) + "\n").encode("utf-8")
    elif fmt == "trec":
        tag = tag or run.name
        data = "".join(f"{q} Q0 {p} {r} {float(s)!r} {tag}\n" for q, p, r, s in
                       zip(df["query_id"], df["passage_id"], df["rank"], df["score"])
                       ).encode("utf-8")
    else:
        data = _table_bytes(df, fmt)
    return _write(path, data, gz)


def test_set_jsonl(test_set: TestSet) -> str:
    """The test set as seed 004 JSONL: one query per line, its judgments in a list."""
    q = test_set.queries.drop(columns=["line"], errors="ignore")
    j = test_set.judgments
    groups = dict(iter(j.groupby("query_id", sort=False)))
    lines = []
    for row in q.to_dict(orient="records"):
        obj = {k: _plain(v) for k, v in row.items()}
        g = groups.get(row["query_id"])
        judged = []
        if g is not None:
            for pid, grade, version in zip(g["passage_id"], g["grade"], g["doc_version"]):
                item = {"passage_id": str(pid), "grade": int(grade)}
                if not _missing(version):
                    item["doc_version"] = str(version)
                judged.append(item)
        obj["judgments"] = judged
        lines.append(json.dumps(obj, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) or str(v) in (
        "", "nan", "None", "<NA>")


def _plain(v):
    if isinstance(v, (np.bool_,)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return None if math.isnan(v) else float(v)
    if v is pd.NA:
        return None
    return v
