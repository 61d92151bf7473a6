"""Reader for query metadata (strata): CSV/TSV/Parquet/JSONL keyed by ``query_id``.

A stratum is a group of queries defined before any per-stratum score is seen.
The reader checks the table once; :func:`assign_strata` then maps every query
of a test set to a stratum, putting queries the file does not classify into an
explicit ``unclassified`` stratum and counting them.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.source import (
    InputPath,
    Source,
    decode_utf8,
    json_id,
    json_objects,
    loads,
    open_binary,
    read_bytes,
    read_table_file,
    sniff_format,
    source_of,
    table_ids,
)
from ragnb.io.testset import Note

UNCLASSIFIED = "unclassified"


def read_strata(path: InputPath, *, format: str = "auto", key: str = "query_id",
                columns: list[str] | tuple[str, ...] | None = None) -> pd.DataFrame:
    """Query metadata as a DataFrame with a unique ``query_id`` column.

    CSV/TSV/Parquet tables and JSON Lines need a ``query_id`` column (or the
    column named by ``key``); a JSON object mapping query ids to their fields
    (CODEC's ``topics.json``) works too.

    Query ids are text: in JSON a non-empty string, or an integer read as its
    digits (``null``, booleans, decimals, lists and objects are errors); in a
    table a non-empty cell (Parquet: text or integers). A JSON field value is a
    string, a number, ``true``/``false`` (kept as the text ``"true"``/``"false"``)
    or ``null`` (no value: the query is unclassified by that field); a list or
    an object is an error, as is a repeated key. ``line`` is reserved for the
    line number and cannot be a field.

    Parameters
    ----------
    key : str
        The column holding query ids (renamed ``query_id``).
    columns : list of str, optional
        Column names of a header-less CSV/TSV file (its first line is data);
        a file of another extension is read as TSV when its first line has a tab.
    """
    path = source_of(path)
    fmt = sniff_format(path) if format == "auto" else format
    if columns:
        columns = list(columns)
        if key not in columns:
            raise InputError(f"the key column {key!r} is not among the columns "
                             f"{listed(columns, most=20)}",
                             source=path, key="columns")
        if fmt not in ("csv", "tsv"):
            fmt = _headerless_format(path)
        df = _read_headerless(path, fmt, columns)
    elif fmt == "jsonl":
        text = decode_utf8(read_bytes(path), path)
        rows = _keyed_object(text, path)
        if rows is None:
            rows = _conversations(text, path)
        df = pd.DataFrame(rows if rows is not None else _json_lines(text, path, key))
    elif fmt in ("csv", "tsv", "parquet"):
        df = read_table_file(path, fmt)
        _no_line_column(df.columns, path)
        first = 2 if fmt != "parquet" else 1
        df["line"] = np.arange(first, first + len(df))
        if key in df:
            df[key] = table_ids(df[key], key, path, first)
    else:
        raise InputError(f"strata must be CSV, TSV, Parquet or JSONL, not {fmt!r}", source=path)
    if not len(df):
        raise InputError("the strata file has no rows", source=path)
    if key != "query_id" and key in df:
        if "query_id" in df:
            raise InputError(f"both {key!r} and 'query_id' are columns; name one key",
                             source=path, key=key)
        df = df.rename(columns={key: "query_id"})
    elif key != "query_id":
        found = ", ".join(str(c) for c in df.columns if c != "line")
        raise InputError(f"no {key!r} column (the header reads: {found})", source=path, key=key)
    if "query_id" not in df:
        found = ", ".join(str(c) for c in df.columns if c != "line")
        raise InputError(f"no query_id column (the header reads: {found}); if the file has no "
                         "header row, name its columns: --strata-columns query_id,COLUMN,... "
                         "(manifest: [test_sets.NAME.strata] columns)", source=path)
    df["query_id"] = df["query_id"].astype("str")
    empty = (df["query_id"] == "").to_numpy()
    if empty.any():
        raise InputError("empty query_id", source=path, line=int(df["line"].iloc[empty.argmax()]))
    dup = df["query_id"].duplicated()
    if dup.any():
        row = df.loc[dup].iloc[0]
        raise InputError(f"query {row['query_id']!r} is classified more than once",
                         source=path, line=int(row["line"]))
    df.attrs["source"] = str(path)
    return df


def _headerless_format(path: Source) -> str:
    with open_binary(path) as fh:
        first = fh.readline()
    if b"\t" in first:
        return "tsv"
    if b"," in first:
        return "csv"
    raise InputError("a header-less strata file must be tab- or comma-separated", source=path)


def _read_headerless(path: Source, fmt: str, columns: list[str]) -> pd.DataFrame:
    with open_binary(path) as fh:
        try:
            df = pd.read_csv(fh, sep="\t" if fmt == "tsv" else ",", header=None, dtype=str,
                             keep_default_na=False, skip_blank_lines=True)
        except Exception as exc:  # noqa: BLE001 - pandas raises many parser error types
            raise InputError(f"cannot read as header-less {fmt}: {exc}", source=path) from None
    if df.shape[1] != len(columns):
        raise InputError(f"{df.shape[1]} columns in the file, {len(columns)} names given "
                         f"({listed(columns, most=20)})", source=path, key="columns")
    _no_line_column(columns, path)
    df.columns = columns
    df["line"] = np.arange(1, len(df) + 1)
    # a header row that repeats the names given is a header, not a query (issue 36 #4)
    first = [str(v).strip().lower() for v in df.iloc[0, :len(columns)]] if len(df) else []
    if first == [c.lower() for c in columns]:
        df = df.iloc[1:].reset_index(drop=True)
        df.attrs["header_skipped"] = True
    return df


def _no_line_column(columns, path) -> None:
    if "line" in columns:
        raise InputError("'line' is reserved for the line number; rename that column",
                         source=path, key="line")


def _json_fields(obj: dict, path, number: int) -> dict:
    """A JSON object's fields as table cells: scalars kept, lists and objects refused."""
    out = {}
    for name, value in obj.items():
        if name == "line":
            raise InputError("'line' is reserved for the line number; rename that key",
                             source=path, line=number, key="line")
        if isinstance(value, (list, dict)):
            raise InputError(f"{name!r} must be a string, a number, true/false or null, "
                             f"got {json.dumps(value)[:60]}", source=path, line=number, key=name)
        out[name] = ("true" if value else "false") if isinstance(value, bool) else value
    return out


def _json_lines(text: str, path: Source, key: str = "query_id") -> list[dict]:
    rows = []
    for number, obj in json_objects(text, path):
        if key not in obj:
            raise InputError(f"missing key {key!r}", source=path, line=number)
        qid = json_id(obj[key], repr(key), path, number)
        row = _json_fields(obj, path, number)
        row[key] = qid
        row["line"] = number
        rows.append(row)
    return rows


def _keyed_object(text: str, path: Source) -> list[dict] | None:
    """Rows of a JSON object keyed by query id (``{"q1": {"domain": ...}, ...}``,
    e.g. CODEC's topics.json), or None when the file is JSON Lines.
    """
    stripped = text.strip()
    if not stripped.startswith("{") or "\n" not in stripped:
        return None
    try:
        whole = loads(stripped, path)
    except InputError as exc:
        if "appears twice" in exc.problem:
            raise
        return None  # JSON Lines: one object per line
    if not isinstance(whole, dict) or not all(isinstance(v, dict) for v in whole.values()):
        raise InputError(f"a JSON object is read as query id -> fields; this one is not. A "
                         f"strata file is {STRATA_SHAPES}", source=path)
    rows = []
    for qid, fields in whole.items():
        json_id(qid, "query id (a key of the object)", path, None)
        row = _json_fields(fields, path, 1)
        if row.get("query_id", qid) != qid:
            raise InputError(f"query {qid!r} has a different query_id {row['query_id']!r}",
                             source=path, key=qid)
        rows.append({**row, "query_id": qid, "line": 1})
    return rows


#: The shapes a strata file may have, for error messages.
STRATA_SHAPES = ("a table keyed by query_id (CSV/TSV/Parquet), JSON Lines (one object per line "
                 "with a query_id), a JSON object mapping each query id to its fields (CODEC's "
                 "topics.json), or a JSON list of conversations with numbered turns (TREC "
                 "CAsT's topics: query id <conversation>_<turn>)")


def _conversations(text: str, path: Source) -> list[dict] | None:
    """Rows of a JSON list of conversations (TREC CAsT's topics files), or None when the
    text is not one JSON list (JSON Lines).

    Each conversation ``{"number": 106, "turn": [{"number": 1, ...}, ...]}`` gives one
    query per turn, ``106_1``, with the fields ``conversation`` (106), ``turn`` (1) and
    the turn's other scalar fields (its utterances); lists and objects are left out.
    """
    stripped = text.strip()
    if not stripped.startswith("["):
        return None
    whole = loads(stripped, path)
    ok = isinstance(whole, list) and whole and all(
        isinstance(c, dict) and isinstance(c.get("number"), (int, str))
        and isinstance(c.get("turn"), list)
        and all(isinstance(t, dict) and isinstance(t.get("number"), (int, str))
                for t in c["turn"]) for c in whole)
    if not ok:
        raise InputError(f"a JSON list is read as TREC CAsT's conversations ({{\"number\": "
                         f"106, \"turn\": [{{\"number\": 1, ...}}]}}); this one is not. A "
                         f"strata file is {STRATA_SHAPES}", source=path)
    rows = []
    for conv in whole:
        for turn in conv["turn"]:
            fields = {k: v for k, v in turn.items()
                      if k != "number" and not isinstance(v, (list, dict))}
            rows.append({**_json_fields(fields, path, 1), "conversation": conv["number"],
                         "turn": turn["number"],
                         "query_id": f"{conv['number']}_{turn['number']}", "line": 1})
    return rows


def assign_strata(
    strata: pd.DataFrame | pd.Series,
    query_ids,
    column: str | None = None,
    *,
    source: str | None = None,
) -> tuple[pd.Series, tuple[Note, ...]]:
    """Map each query to its stratum; unknown ids are an error, gaps are shown.

    Parameters
    ----------
    strata : DataFrame or Series
        A table with ``query_id`` and ``column`` (or a Series indexed by query id).
    query_ids : sequence
        The queries to classify (the test set's).
    column : str
        Which metadata column defines the strata.

    Returns
    -------
    (Series, notes)
        Stratum label per query id (``"unclassified"`` where the table has no
        value), and notes counting unclassified queries and annotated queries
        the test set lacks (a strata file may cover a whole collection).
    """
    source = source or (strata.attrs.get("source", "strata") if hasattr(strata, "attrs")
                        else "strata")
    if isinstance(strata, pd.DataFrame):
        if column is None or column not in strata:
            choices = [c for c in strata.columns if c not in ("query_id", "line")]
            raise InputError(f"choose a stratum column with --by; available: "
                             f"{listed(choices, most=20)}",
                             source=source, key=column)
        series = pd.Series(strata[column].to_numpy(), index=strata["query_id"].astype("str"))
    else:
        series = strata.copy()
        series.index = series.index.astype("str")
    labels, n_unclassified, n_outside = label_queries(series, query_ids)
    labels = labels.astype("str").rename(column or "stratum")
    notes = outside_note(n_outside, source)
    if n_unclassified:
        notes += (Note("unclassified", n_unclassified,
                       f"queries with no {column!r} value form the stratum {UNCLASSIFIED!r}"),)
    return labels, notes


def label_queries(labels: pd.Series, query_ids) -> tuple[pd.Series, int, int]:
    """The one stratum labelling: each query's label, :data:`UNCLASSIFIED` where it has none.

    Parameters
    ----------
    labels : Series
        Stratum label indexed by query id (ids compared as text).
    query_ids : sequence
        The queries to label, in the order wanted.

    Returns
    -------
    (Series, int, int)
        Labels indexed by ``query_ids`` as text (values kept as given, object
        dtype; a missing, NaN or empty label becomes :data:`UNCLASSIFIED`), the
        number of queries so made unclassified, and the number of labelled ids
        that are not among ``query_ids`` (ignored, for the caller to count).

    Examples
    --------
    >>> out, n_unclassified, n_outside = label_queries(
    ...     pd.Series(["a", "", "b"], index=["q1", "q2", "q9"]), ["q1", "q2", "q3"])
    >>> list(out), n_unclassified, n_outside
    (['a', 'unclassified', 'unclassified'], 2, 1)
    """
    series = labels.copy()
    series.index = series.index.astype("str")
    ids = pd.Index(query_ids, dtype="str")
    n_outside = len(series.index.difference(ids))
    out = series.reindex(ids)
    out = out.astype("object").where(out.notna() & (out.astype("str") != ""), None)
    missing = out.isna()
    return out.fillna(UNCLASSIFIED), int(missing.sum()), n_outside


def outside_note(n: int, source) -> tuple[Note, ...]:
    """The note for annotated queries outside the test set (a wider strata file)."""
    if not n:
        return ()
    return (Note("strata_outside_test_set", int(n),
                 f"queries annotated in {source} but not in the test set (not used)"),)
