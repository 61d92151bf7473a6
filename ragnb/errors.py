"""The one error type for bad input.

Every reader and validator raises :class:`InputError`, whose message names the
file, the line (or key) and what is wrong, so the CLI can print it on one line
and a notebook shows it as it is.
"""
from __future__ import annotations


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
    """

    def __init__(
        self,
        problem: str,
        *,
        source: object = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.problem = problem
        self.source = None if source is None else str(source)
        self.line = line
        self.key = key
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.source or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        if self.key is not None:
            where = f"{where} [{self.key}]" if where else f"[{self.key}]"
        return f"{where}: {self.problem}" if where else self.problem


class PolicyError(RagnbError):
    """An action the split ledger's rules forbid (e.g. scoring a sealed split)."""
