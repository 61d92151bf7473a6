"""Readers for test sets (the answer key) in three formats.

- JSONL, one query per line, seed 004's format: ``query_id, query, source,
  intent, answer, judgments[{passage_id, grade, doc_version}], unanswerable``.
- TREC qrels: ``query_id iteration passage_id grade`` per line.
- CSV/TSV/Parquet long table with columns ``query_id, passage_id, grade``
  (``doc_version`` optional); one row per judgment.

All of them end in :func:`ragnb.io.testset.validate_judgments`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ragnb.errors import InputError, listed
from ragnb.io.keys import ID_DTYPE, block_codes, release_memory
from ragnb.io.source import (
    InputPath,
    decode_utf8,
    json_id,
    json_objects,
    parse_integer,
    read_bytes,
    read_table_file,
    read_whitespace_frame,
    sniff_format,
    source_of,
    split_lines,
    table_ids,
    table_numbers,
)
from ragnb.io.testset import (
    Note,
    TestSet,
    check_unanswerable,
    validate_judgments,
    validate_queries,
)
from ragnb.io.trec import (
    POOLED_GRADE,
    blank_comments,
    comment_note,
    has_comment_ids,
    pooled_note,
)

_QUERY_KEYS = {"query_id", "query", "source", "intent", "answer", "judgments", "unanswerable"}


def read_test_set(path: InputPath, *, format: str = "auto", name: str | None = None) -> TestSet:
    """Read a test set from JSONL (seed 004), TREC qrels or a CSV/Parquet table.

    Parameters
    ----------
    path : str or Path
        The file; gzip is decompressed transparently; ``-`` or a pipe is read once.
    format : {"auto", "jsonl", "trec", "csv", "tsv", "parquet"}
        ``auto`` decides from the file name, else from the first line.
    name : str, optional
        Split name; defaults to the file name without extensions.
    """
    path = source_of(path)
    fmt = sniff_format(path) if format == "auto" else format
    reader = _READERS.get(fmt)
    if reader is None:
        raise InputError(f"unknown test-set format {fmt!r}; choose one of "
                         f"{listed(sorted(_READERS), most=20)}",
                         source=path)
    queries, judgments, *more = reader(path)  # TREC qrels add notes and pooled passages
    split = name or path.name.split(".")[0]
    ts = TestSet(queries=queries, judgments=judgments, name=split, source=str(path),
                 **(more[0] if more else {}))
    release_memory()
    return ts


def _read_jsonl(path) -> tuple[pd.DataFrame, pd.DataFrame]:
    text = decode_utf8(read_bytes(path), path)
    queries, rows = [], []
    for number, obj in json_objects(text, path):
        if "query_id" not in obj:
            raise InputError("missing key 'query_id'", source=path, line=number)
        qid = json_id(obj["query_id"], "'query_id'", path, number)
        judged = obj.get("judgments", [])
        if not isinstance(judged, list):
            raise InputError(f"'judgments' of query {qid!r} must be a list", source=path,
                             line=number)
        for j in judged:
            if not isinstance(j, dict) or "passage_id" not in j or "grade" not in j:
                raise InputError(
                    f"each judgment of query {qid!r} needs 'passage_id' and 'grade', got {j!r}",
                    source=path, line=number)
            pid = json_id(j["passage_id"], f"a 'passage_id' of query {qid!r}", path, number)
            grade = j["grade"]
            if isinstance(grade, bool) or not isinstance(grade, int):
                raise InputError(f"grade {grade!r} of passage {pid!r} is not an integer",
                                 source=path, line=number)
            version = j.get("doc_version")
            if version is not None and not isinstance(version, str):
                raise InputError(f"'doc_version' of passage {pid!r} must be a string, "
                                 f"got {version!r}", source=path, line=number)
            rows.append((qid, pid, grade, version, number))
        meta = {k: v for k, v in obj.items() if k != "judgments"}
        meta["query_id"] = str(qid)
        meta["line"] = number
        queries.append(meta)
    if not queries:
        raise InputError("no queries in the file", source=path)
    qdf = validate_queries(pd.DataFrame(queries), path)
    jdf = pd.DataFrame(rows, columns=["query_id", "passage_id", "grade", "doc_version", "line"])
    jdf["doc_version"] = jdf["doc_version"].astype(ID_DTYPE)
    jdf = validate_judgments(jdf, path)
    check_unanswerable(qdf, jdf, path)
    return qdf, jdf


def _read_qrels(path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    names = ["query_id", "iteration", "passage_id", "grade"]
    # judgments' passage ids are read at random rows by the join: one chunk
    df = read_whitespace_frame(
        path, names, {"query_id": pa.string(), "passage_id": pa.string(), "grade": pa.int64()},
        one_chunk=("passage_id",))
    if df is not None and has_comment_ids(df["query_id"]):
        df = None  # a '#' line with four fields: read line by line to skip it
    notes: tuple[Note, ...] = ()
    pooled = None
    if df is None:  # the slow path: one line at a time, errors name the line
        text, comments = blank_comments(decode_utf8(read_bytes(path), path))
        rows = []
        for number, (q, _, p, g) in split_lines(text, path, 4):
            rows.append((q, p, parse_integer(g, "grade", path, number), number))
        if not rows and comments:
            raise InputError(f"no judgment lines, only {comments} comment line(s)", source=path)
        df = pd.DataFrame(rows, columns=["query_id", "passage_id", "grade", "line"])
        df, pooled = _pooled(df, path)
        notes = comment_note(comments, path) + pooled_note(
            0 if pooled is None else len(pooled), path)
    judgments = validate_judgments(df, path)
    queries = _queries_of(judgments if pooled is None else
                          pd.concat([judgments[["query_id"]], pooled[["query_id"]]]))
    return queries, judgments, {"notes": notes, "pooled": pooled}


def _pooled(df: pd.DataFrame, source) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Split qrels rows of grade -1 (pooled, not judged: trec_eval) from the judgments.

    Another negative grade stays in the judgments, whose validation refuses it; a
    pooled passage also judged (or pooled twice) is an error naming both lines.
    """
    at = (df["grade"] == POOLED_GRADE).to_numpy()
    if not at.any():
        return df, None
    pooled = df.loc[at, ["query_id", "passage_id", "line"]].reset_index(drop=True)
    judged = df.loc[~at].reset_index(drop=True)
    both = pd.concat([judged[["query_id", "passage_id", "line"]], pooled])
    twice = both.duplicated(["query_id", "passage_id"], keep=False).to_numpy()
    if twice.any():
        first = both.loc[twice].iloc[0]
        lines = sorted(both.loc[twice & (both["query_id"] == first["query_id"]).to_numpy()
                                & (both["passage_id"] == first["passage_id"]).to_numpy(),
                                "line"])
        raise InputError(f"passage {first['passage_id']!r} of query {first['query_id']!r} is "
                         f"listed more than once, once as pooled but unjudged (grade -1), at "
                         f"lines {lines}", source=source, line=int(lines[-1]))
    for c in ("query_id", "passage_id"):
        pooled[c] = pooled[c].astype(ID_DTYPE)
    return judged, pooled


def _queries_of(judgments: pd.DataFrame) -> pd.DataFrame:
    """The query table of a judgments-only file: ids in order of first appearance."""
    _, uniques = block_codes(judgments["query_id"])
    return pd.DataFrame({"query_id": pd.Series(uniques, dtype="str")})


def _read_table(path, fmt: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    df = read_table_file(path, fmt)
    if not len(df):
        raise InputError("the table has no rows", source=path)
    first_line = 2 if fmt != "parquet" else 1  # header is line 1 of a CSV
    df = df.assign(line=np.arange(first_line, first_line + len(df)))
    for c in ("query_id", "passage_id"):
        if c in df:
            df[c] = table_ids(df[c], c, path, first_line)
    if "grade" in df and not pd.api.types.is_numeric_dtype(df["grade"].dtype):
        if (df["grade"].astype("str") == "").any():
            i = int((df["grade"].astype("str") == "").to_numpy().argmax())
            raise InputError("empty grade", source=path, line=first_line + i)
        df["grade"] = table_numbers(df["grade"], True, "grade", path, first_line)
    judgments = validate_judgments(df, path)
    return _queries_of(judgments), judgments


_READERS = {
    "jsonl": _read_jsonl,
    "trec": _read_qrels,
    "csv": lambda p: _read_table(p, "csv"),
    "tsv": lambda p: _read_table(p, "tsv"),
    "parquet": lambda p: _read_table(p, "parquet"),
}
