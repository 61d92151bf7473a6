"""The one error type for bad input.

Every reader and validator raises :class:`InputError`, whose message names the
file, the line (or key) and what is wrong, so the CLI can print it on one line
and a notebook shows it as it is.
"""
from __future__ import annotations

from collections.abc import Iterable

#: The longest problem an :class:`InputError` quotes, in characters; the rest is
#: counted, never printed (an error about a 7 MB line or a million duplicate lines
#: stays one short line).
MAX_PROBLEM_CHARS = 500


def listed(items: Iterable[object], most: int = 5) -> str:
    """The first ``most`` of ``items`` joined by commas, the rest counted.

    A string (or any non-iterable) is one item, shown as it is, so a message
    never prints a Python list or tuple.

    >>> listed(range(1, 9), most=3)
    '1, 2, 3 and 5 more'
    >>> listed(("org_convdr", "org_manual_bm25"))
    'org_convdr, org_manual_bm25'
    >>> listed("a, b")
    'a, b'
    """
    if isinstance(items, str) or not isinstance(items, Iterable):
        return str(items)
    items = list(items)
    shown = ", ".join(map(str, items[:most]))
    rest = len(items) - most
    return f"{shown} and {rest:,} more" if rest > 0 else shown


def bounded(text: str, most: int = MAX_PROBLEM_CHARS) -> str:
    """``text`` cut to ``most`` characters, the cut counted.

    >>> bounded("x" * 12, most=4)
    'xxxx... (8 more characters)'
    """
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(text) - most:,} more characters)"


class RagnbError(Exception):
    """Base class of the errors ragnb raises on purpose."""


class InputError(RagnbError, ValueError):
    """Bad input: names the source, the line or key, and the problem.

    Parameters
    ----------
    problem : str
        What is wrong, in words a user can act on.
    source : str, path or :class:`ragnb.io.Source`, optional
        The file (or argument name) the bad value came from; kept as ``str(source)``.
    line : int, optional
        1-based line number in ``source``.
    key : str, optional
        A key (query id, column, parameter) when there is no line.

    The problem is cut to :data:`MAX_PROBLEM_CHARS` characters (the source to 300,
    the key to 200), whatever quoted it.
    """

    def __init__(
        self,
        problem: str,
        *,
        source: object = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.problem = bounded(problem)
        self.source = None if source is None else bounded(str(source), 300)
        self.line = line
        self.key = key
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        if self.key is not None:
            key = bounded(str(self.key), 200)
            where = f"{where} [{key}]" if where else f"[{key}]"
        return f"{where}: {self.problem}" if where else self.problem


class PolicyError(RagnbError):
    """An action the split ledger's rules forbid (e.g. scoring a sealed split)."""
