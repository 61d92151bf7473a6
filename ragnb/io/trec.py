"""What trec_eval reads in a qrels or run line, beyond the fields themselves.

trec_eval (``get_qrels.c``, ``get_trec_results.c``) skips lines that start with
``#`` (comments), ignores any text after a run line's sixth field, and reads a
qrels grade of ``-1`` as "in the judging pool but not judged" (what infAP's
sampling needs). The TREC readers (:mod:`ragnb.io.testsets`, :mod:`ragnb.io.runs`)
do the same, and count what they skip or ignore in a :class:`~ragnb.io.testset.Note`:
nothing is dropped silently.
"""
from __future__ import annotations

import re

import pandas as pd
import pyarrow.compute as pc

from ragnb.io.keys import as_arrow
from ragnb.io.testset import Note

#: A comment line: ``#`` first (after optional spaces or tabs), as trec_eval skips.
_COMMENT = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)

#: The qrels grade trec_eval reads as "pooled but not judged".
POOLED_GRADE = -1


def blank_comments(text: str) -> tuple[str, int]:
    r"""``text`` with its comment lines emptied (line numbers kept) and how many there were.

    >>> blank_comments("# judged by NIST\nq1 0 d1 1\n")
    ('\nq1 0 d1 1\n', 1)
    """
    return _COMMENT.subn("", text)


def has_comment_ids(query_ids: pd.Series) -> bool:
    """Whether a first column read by the fast path holds a ``#`` line (a comment that
    happened to have the right number of fields): the reader then re-reads line by line.
    """
    return bool(len(query_ids)) and bool(
        pc.any(pc.starts_with(as_arrow(query_ids), "#")).as_py())


def comment_note(count: int, source) -> tuple[Note, ...]:
    """The note for ``count`` skipped comment lines (none when 0)."""
    if not count:
        return ()
    return (Note("comment_lines", count,
                 f"{source}: lines starting with # skipped as comments (as trec_eval does)"),)


def extra_fields_note(count: int, source) -> tuple[Note, ...]:
    """The note for ``count`` run lines with text after the sixth field (none when 0)."""
    if not count:
        return ()
    return (Note("extra_fields", count,
                 f"{source}: run lines with text after the sixth field (the tag); the text "
                 "is ignored, as trec_eval does"),)


def pooled_note(count: int, source) -> tuple[Note, ...]:
    """The note for ``count`` qrels lines of grade -1 (none when 0)."""
    if not count:
        return ()
    return (Note("pooled_unjudged", count,
                 f"{source}: qrels lines of grade -1, read as in the pool but not judged "
                 "(trec_eval): unjudged for every metric and label policy, and in infAP's "
                 "pool"),)
