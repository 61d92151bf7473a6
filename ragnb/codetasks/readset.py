"""Read set and caller set, resolved in the parent tree (the state the author started from).

Read set (an approximation, seed 002)
    Every identifier the change introduced or modified (names on its added
    lines, :func:`ragnb.codetasks.symbols.identifiers`) resolved to the file
    that defines it in the parent — ``def name``/``class name`` in Python,
    ``func name`` in Go, ``function name`` in JavaScript/TypeScript. A name
    defined in more than one file is ambiguous and left out; files already in
    the edit set are left out too, so the read set is what the author read
    *and did not change*. It misses files read that leave no trace in the diff:
    an undercount in a known direction.
Caller set
    For each function whose signature changed
    (:func:`ragnb.codetasks.symbols.signature_changes`), the files of the parent
    tree with a line calling ``name(`` — a ``def name(`` line is not a call —
    other than the file defining it, among files of the same language.
    Matching is by name, so a method shares its callers with every function
    of the same name.

Vendored, lock and generated files (:mod:`ragnb.codetasks.editset`) are never
in either set.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from ragnb.codetasks.editset import DEFAULT_EXCLUDE, is_excluded
from ragnb.codetasks.git import Repo
from ragnb.codetasks.symbols import SignatureChange, defined_names

#: File globs searched for definitions and callers.
SOURCE_GLOBS = ("*.py", "*.go", "*.js", "*.jsx", "*.ts", "*.tsx")
_DEFINITION_ERE = (r"^[[:space:]]*(async[[:space:]]+)?(def|class)[[:space:]]"
                   r"|(^|[^A-Za-z0-9_$])(func|function)[^A-Za-z0-9_$]")


def definitions(repo: Repo, sha: str,
                exclude: Sequence[str] = DEFAULT_EXCLUDE) -> dict[str, set[str]]:
    """Name -> files defining it, in the tree of ``sha``."""
    index: dict[str, set[str]] = defaultdict(set)
    for path, _, text in repo.grep(sha, _DEFINITION_ERE, list(SOURCE_GLOBS)):
        if not is_excluded(path, exclude):
            for name in defined_names(text):
                index[name].add(path)
    return dict(index)


def read_set(names: Iterable[str], index: dict[str, set[str]],
             edit_set: Iterable[str]) -> list[str]:
    """Files defining ``names`` unambiguously (one file each), minus the edit set.

    Examples
    --------
    >>> read_set(["rate_limited", "save", "total"],
    ...          {"rate_limited": {"mw/rate.py"}, "save": {"a.py", "b.py"}}, ["api/views.py"])
    ['mw/rate.py']
    """
    edits = set(edit_set)
    files = {next(iter(index[n])) for n in names if len(index.get(n, ())) == 1}
    return sorted(files - edits)


def _language(path: str) -> str:
    suffix = PurePosixPath(path).suffix
    return {".jsx": ".js", ".tsx": ".ts"}.get(suffix, suffix)


def callers(repo: Repo, sha: str, changes: Sequence[SignatureChange],
            exclude: Sequence[str] = DEFAULT_EXCLUDE) -> list[str]:
    """Files of ``sha``'s tree calling a changed function, other than its definition's file."""
    if not changes:
        return []
    names = sorted({c.name for c in changes})
    pattern = (r"(^|[^A-Za-z0-9_])(" + "|".join(map(re.escape, names)) + r")[[:space:]]*\(")
    call = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names)) + r")\s*\(")
    where = defaultdict(set)  # name -> (definition file, language)
    for c in changes:
        where[c.name].add((c.path, _language(c.path)))
    found = set()
    for path, _, text in repo.grep(sha, pattern, list(SOURCE_GLOBS)):
        if is_excluded(path, exclude):
            continue
        defined_here = set(defined_names(text))
        for m in call.finditer(text):
            name = m.group(1)
            if name in defined_here:
                continue
            for def_path, language in where[name]:
                if path != def_path and _language(path) == language:
                    found.add(path)
    return sorted(found)
