"""A unified diff read into what the labels need: changed lines and hunk headers per file."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<new>\d+)(?:,\d+)? @@ ?(?P<context>.*)$")


@dataclass
class FileDiff:
    """The changed lines of one file.

    Attributes
    ----------
    path : str
        The file's path before the change (after it, for an added file).
    added, removed : list of str
        Text of the ``+`` and ``-`` lines (without the sign).
    added_at : list of int
        The line number of each ``added`` line in the new version.
    contexts : list of str
        The text git put after each hunk header's ``@@``: the enclosing
        function or class line, where git's diff driver finds one.
    """

    path: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)
    added_at: list[int] = field(default_factory=list)


def parse_diff(text: str) -> dict[str, FileDiff]:
    """Changed lines per file of a ``git diff`` (any context size; binary files have none).

    Examples
    --------
    >>> d = parse_diff('''diff --git a/m.py b/m.py
    ... --- a/m.py
    ... +++ b/m.py
    ... @@ -3 +3 @@ def area(w, h):
    ... -    return w * h
    ... +    return abs(w * h)
    ... ''')
    >>> d["m.py"].contexts, d["m.py"].added, d["m.py"].added_at
    (['def area(w, h):'], ['    return abs(w * h)'], [3])
    """
    files: dict[str, FileDiff] = {}
    current: FileDiff | None = None
    old = new = None
    in_hunk = False
    at = 0
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current, old, new, in_hunk = None, None, None, False
        elif not in_hunk and line.startswith("--- "):
            old = None if line == "--- /dev/null" else line[4:].removeprefix("a/")
        elif not in_hunk and line.startswith("+++ "):
            new = None if line == "+++ /dev/null" else line[4:].removeprefix("b/")
            path = old if old is not None else new
            current = None if path is None else files.setdefault(path, FileDiff(path))
        elif line.startswith("@@ ") and current is not None:
            m = _HUNK.match(line)
            in_hunk = True
            at = int(m["new"]) if m else 0
            if m and m["context"].strip():
                current.contexts.append(m["context"])
        elif in_hunk and current is not None:
            if line.startswith("+"):
                current.added.append(line[1:])
                current.added_at.append(at)
                at += 1
            elif line.startswith("-"):
                current.removed.append(line[1:])
            elif line.startswith(" "):
                at += 1
    return files
