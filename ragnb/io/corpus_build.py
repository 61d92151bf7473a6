"""Corpus builds: which passages the current index holds, at which document version.

A corpus build is a table ``passage_id, doc_version`` (any other columns, such
as ``doc_id`` or ``title``, are kept): one row per passage in the index. The
test-set health analyses (:mod:`ragnb.health`) join the judgments to it —
coverage asks whether a query's answering passage is still in the build,
staleness whether the document changed since the passage was judged.

``doc_version`` is the version of the passage's document in this build: the
version at which its text last changed (an ISO 8601 date such as
``2026-03-11``, or a dotted number such as ``v4`` / ``1.2.0``). A judgment
made against an older version is stale; one made against this version or a
later build of an unchanged document is current.

:func:`validate_corpus` is the one place a corpus build is checked, whatever
file it came from.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io._columns import id_column, line_numbers

CORPUS_COLUMNS = ("passage_id", "doc_version")

_NUMBER = re.compile(r"^[vV]?(\d+(?:\.\d+)*)$", re.ASCII)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}", re.ASCII)
#: Version schemes a build may use; all versions of one build follow one scheme.
SCHEMES = ("date", "number")


@dataclass(frozen=True)
class CorpusBuild:
    """The passages of one index build with their document versions.

    Attributes
    ----------
    passages : DataFrame
        ``passage_id, doc_version, line`` plus any extra columns of the file;
        passage ids are unique.
    scheme : {"date", "number"}
        How versions are ordered (:func:`version_scheme`).
    name : str
        The build's name (file stem unless given).
    source : str
        Where it was read from.
    """

    passages: pd.DataFrame
    scheme: str
    name: str = "corpus"
    source: str = ""

    def __len__(self) -> int:
        return len(self.passages)


def version_scheme(version: str) -> str | None:
    """``"date"`` for an ISO 8601 date/datetime, ``"number"`` for ``v1.2``-style, else None."""
    if _DATE.match(version) and _parse_date(version) is not None:
        return "date"
    if _NUMBER.match(version):
        return "number"
    return None


def _parse_date(version: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(version)
    except ValueError:
        return None
    if value.tzinfo is not None:  # compare aware times in UTC, naive ones as written
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def version_key(version: str, scheme: str):
    """A sortable key of ``version`` under ``scheme`` (None when it does not follow it).

    Dates compare as times (``2026-03-11 < 2026-03-11T09:00``); numbers compare
    part by part as integers (``v1.10 > v1.9``, ``1.2 < 1.2.1``).

    Examples
    --------
    >>> version_key("v1.10", "number") > version_key("1.9", "number")
    True
    >>> version_key("2026-03-11", "date") < version_key("2026-05-04", "date")
    True
    """
    if scheme == "date":
        return _parse_date(version) if _DATE.match(version) else None
    match = _NUMBER.match(version)
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def validate_corpus(raw: pd.DataFrame, source: object, *, name: str | None = None
                    ) -> CorpusBuild:
    """Check a corpus build table; the one place corpus builds are validated.

    Rules: columns ``passage_id`` and ``doc_version``; ids non-empty and unique
    (a repeated id is an error naming both lines); every ``doc_version``
    non-empty and all of them in one scheme (ISO dates, or dotted numbers with
    an optional ``v``), so that "older than" is defined; the first version
    that breaks the scheme of the first row is an error naming its line.
    """
    missing = [c for c in CORPUS_COLUMNS if c not in raw]
    if missing:
        found = [c for c in raw.columns if c != "line"]
        raise InputError(f"a corpus build lacks column(s) {listed(missing, most=20)}; expected "
                         f"{listed(list(CORPUS_COLUMNS), most=20)} (found "
                         f"{listed(found, most=20)})", source=source)
    if not len(raw):
        raise InputError("the corpus build has no passages", source=source)
    line = line_numbers(raw, len(raw))
    passage = id_column(raw["passage_id"], "passage_id", line, source)
    dup = passage.duplicated(keep=False).to_numpy()
    if dup.any():
        first = passage[dup].iloc[0]
        lines = [int(x) for x in line[dup & (passage == first).to_numpy()]]
        raise InputError(f"passage {first!r} appears more than once (lines {listed(lines)})",
                         source=source, line=lines[-1])
    versions = raw["doc_version"].astype("object")
    text = ["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v).strip()
            for v in versions]
    empty = [i for i, v in enumerate(text) if not v]
    if empty:
        raise InputError(f"passage {passage.iloc[empty[0]]!r} has no doc_version",
                         source=source, line=int(line[empty[0]]))
    scheme = version_scheme(text[0])
    if scheme is None:
        raise InputError(f"doc_version {text[0]!r} is neither an ISO 8601 date (2026-03-11) "
                         "nor a version number (v4, 1.2.0)", source=source, line=int(line[0]))
    for i, v in enumerate(text):
        if version_key(v, scheme) is None:
            raise InputError(f"doc_version {v!r} does not follow the build's {scheme} versions "
                             f"(line {int(line[0])} has {text[0]!r}); one build uses one scheme",
                             source=source, line=int(line[i]))
    passages = raw.drop(columns=["line"], errors="ignore").reset_index(drop=True)
    passages["passage_id"] = passage.set_axis(passages.index)
    passages["doc_version"] = text
    passages["line"] = line
    return CorpusBuild(passages, scheme, name or Path(str(source)).name.split(".")[0],
                       str(source))
