"""The content hash that names a split: ``<name>@sha256:<hex>``.

A split is identified by what a metric reads from it: the list of query ids
(queries without judgments included, since they still score) and every
judgment ``(query_id, passage_id, grade)``. The hash is SHA-256 over a
canonical form of that content, so reordering rows leaves the id unchanged and
any change a metric could see (one grade, one judgment, one query added or
removed) changes it.

``doc_version`` is deliberately **not** part of the content. No retrieval
metric reads it; it records which build of a document a label was made
against, which is test-set health (staleness), not identity. It changes on
every re-crawl even when no label changes, and if it were hashed every
re-crawl would mint a "new" split with ``selections_against = 0``: the
quietest way to launder a spent split into a fresh-looking one. When the
column is present its own digest is returned separately
(:attr:`SplitContent.doc_versions_sha256`) and recorded at registration, so a
version change is visible without changing the split's identity.

Canonical form (version 1), UTF-8 encoded compact JSON::

    {"format":"ragnb-split/1","queries":[q1,q2,...],
     "judgments":[[q,p,g],...]}

with ids as JSON strings (so any character in an id is escaped, and no
separator can be forged by an id), query ids sorted and unique, judgments
sorted by ``(query_id, passage_id)``, and grades as JSON integers. Ids are
hashed as strings: the integer query id ``101`` and the string ``"101"`` are
the same query, as they are once a TREC file has been read either way.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ragnb.errors import InputError, listed

#: Version tag inside the canonical form; bump it if the form ever changes.
CANONICAL_FORMAT = "ragnb-split/1"
#: A split name is used in file names and in the id before the ``@``.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
SPLIT_ID_PATTERN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,127})@sha256:(?P<hex>[0-9a-f]{64})$")

_REQUIRED = ("query_id", "passage_id", "grade")


@dataclass(frozen=True)
class SplitContent:
    """What a split's id is computed from, plus a few counts for the manifest.

    Attributes
    ----------
    split_id : str
        ``<name>@sha256:<hex>`` over the canonical form.
    sha256 : str
        The hex digest alone.
    queries_sha256 : str
        Digest of the sorted query ids alone: equal for two splits that hold
        the same queries with different labels (a relabelled split).
    doc_versions_sha256 : str or None
        Digest of ``(query_id, passage_id, doc_version)`` when the column is
        given; provenance only, not part of the id.
    n_queries, n_judgments : int
        Sizes of the split.
    """

    split_id: str
    sha256: str
    queries_sha256: str
    doc_versions_sha256: str | None
    n_queries: int
    n_judgments: int


def check_name(name: object, *, source: str = "name") -> str:
    """Return ``name`` if it is a valid split name, else raise :class:`InputError`."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise InputError(
            f"split name {name!r} must start with a letter or digit and contain only "
            "letters, digits, '.', '_' or '-' (at most 128 characters)",
            source=source,
        )
    return name


def parse_split_id(split_id: object, *, source: str = "split_id",
                   key: str | None = "split_id") -> tuple[str, str]:
    """Split ``<name>@sha256:<hex>`` into ``(name, hex)``; :class:`InputError` if malformed."""
    m = SPLIT_ID_PATTERN.match(split_id) if isinstance(split_id, str) else None
    if m is None:
        raise InputError(
            f"{split_id!r} is not a split id of the form '<name>@sha256:<64 lowercase hex digits>'",
            source=source, key=key,
        )
    return m["name"], m["hex"]


def _values(column: pd.Series) -> list:
    """A column's values as a list: through an object array, because ``tolist()`` of an
    arrow-backed column boxes one value at a time (6,000 ids: 32 ms against 0.3 ms).
    """
    return column.to_numpy(dtype=object).tolist()


def _missing(v: object) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA


def _ids(values: Iterable[object], what: str, source: str) -> list[str]:
    items = _values(values) if isinstance(values, pd.Series) else list(values)
    texts = [v for v in items if type(v) is str]  # exactly str: then str(v) is v
    if len(texts) == len(items) and all(s and s == s.strip() for s in texts):
        return texts  # the usual case: every id already a clean string
    out = []
    for i, v in enumerate(items):
        if _missing(v):
            raise InputError(f"{what} number {i + 1} is missing", source=source, key=what)
        s = str(v)
        if s == "" or s != s.strip():
            raise InputError(f"{what} {s!r} is empty or has surrounding whitespace",
                             source=source, key=what)
        out.append(s)
    return out


def _grades(values: pd.Series, source: str) -> list[int]:
    out = []
    for i, g in enumerate(values.tolist()):
        ok = isinstance(g, (int, float)) and not isinstance(g, bool) and math.isfinite(g)
        if not ok or g != int(g) or g < 0:
            raise InputError(
                f"grade {g!r} in judgment row {i + 1} is not a non-negative integer",
                source=source, key="grade",
            )
        out.append(int(g))
    return out


def _digest(obj: object) -> str:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_content(
    name: str,
    judgments: pd.DataFrame,
    query_ids: Iterable[object] | None = None,
    *,
    source: str = "judgments",
    judge: pd.DataFrame | None = None,
) -> SplitContent:
    """Validate a split's content and compute its id.

    Parameters
    ----------
    name : str
        Split name (``golden``, ``production-2026Q2``).
    judgments : pandas.DataFrame
        Columns ``query_id``, ``passage_id``, ``grade`` (non-negative
        integers), optionally ``doc_version``; one row per judgment.
    query_ids : iterable, optional
        Every query of the split, including those with no judgment. Defaults
        to the query ids in ``judgments``.
    source : str
        Named in error messages (a file name when the frame was read from one).
    judge : DataFrame, optional
        A model judge's labels of the split (same columns): part of the id, so a
        judge file swapped under a sealed split is another content, as a human one is.
        Without it the id is what it always was.

    Returns
    -------
    SplitContent

    Raises
    ------
    InputError
        Missing column, missing id, non-integer or negative grade, a
        ``(query_id, passage_id)`` judged twice, a judgment for a query not in
        ``query_ids``, a query listed twice, or no queries at all.
    """
    check_name(name)
    if not isinstance(judgments, pd.DataFrame):
        raise InputError(f"judgments must be a pandas DataFrame, got {type(judgments).__name__}",
                         source=source)
    missing = [c for c in _REQUIRED if c not in judgments.columns]
    if missing:
        raise InputError(f"missing column(s) {listed(missing)}; need "
                         f"{listed(_REQUIRED, most=9)}", source=source)

    qids = _ids(judgments["query_id"], "query_id", source)
    pids = _ids(judgments["passage_id"], "passage_id", source)
    grades = _grades(judgments["grade"], source)
    rows = sorted(zip(qids, pids, grades))
    for a, b in zip(rows, rows[1:]):
        if a[:2] == b[:2]:
            raise InputError(f"passage {a[1]!r} is judged more than once for query {a[0]!r}",
                             source=source, key="passage_id")

    if query_ids is None:
        queries = sorted(set(qids))
    else:
        given = _ids(query_ids, "query_id", "query_ids")
        queries = sorted(set(given))
        if len(queries) != len(given):
            dup = next(q for q in queries if given.count(q) > 1)
            raise InputError(f"query {dup!r} is listed more than once", source="query_ids",
                             key="query_id")
        unknown = sorted(set(qids) - set(queries))
        if unknown:
            raise InputError(
                f"{len(unknown)} judged query id(s) are not in the split's query list, "
                f"first {unknown[0]!r}", source=source, key="query_id",
            )
    if not queries:
        raise InputError("a split needs at least one query", source=source)

    canonical: dict = {"format": CANONICAL_FORMAT, "queries": queries,
                       "judgments": [list(r) for r in rows]}
    if judge is not None:
        canonical["judge"] = [list(r) for r in sorted(zip(
            _ids(judge["query_id"], "query_id", f"{source} (judge)"),
            _ids(judge["passage_id"], "passage_id", f"{source} (judge)"),
            _grades(judge["grade"], f"{source} (judge)")))]
    sha = _digest(canonical)
    doc_sha = None
    if "doc_version" in judgments.columns:
        versions = ["" if _missing(v) else str(v) for v in _values(judgments["doc_version"])]
        doc_sha = _digest(sorted(zip(qids, pids, versions)))
    return SplitContent(
        split_id=f"{name}@sha256:{sha}",
        sha256=sha,
        queries_sha256=_digest({"format": CANONICAL_FORMAT, "queries": queries}),
        doc_versions_sha256=doc_sha,
        n_queries=len(queries),
        n_judgments=len(rows),
    )
