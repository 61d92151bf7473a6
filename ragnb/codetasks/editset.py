"""The edit set: the files a merged change had to change, minus the ones nobody chose.

Vendored code, lockfiles and generated files change with every dependency bump
or code generation run; left in, they flood every label with the same paths
(seed 002). A path is excluded when it matches any of :data:`DEFAULT_EXCLUDE`
(or the patterns given): ``fnmatch`` patterns matched against the whole path
and against its file name, so ``*.lock`` excludes ``poetry.lock`` at any depth
and ``vendor/*`` excludes a top-level ``vendor`` folder; a pattern ending in
``/`` names a folder at any depth (``node_modules/``).

Bookkeeping files (changelogs, changelog fragments, ``AUTHORS`` and other
credits lists, :func:`ragnb.codetasks.kinds.is_bookkeeping`) change alongside
the code without being what the change is about: listed apart and counted, not
scored (left in, a perfect code retriever misses one in every task that
updates ``HISTORY.rst``).

Files the change *added* are listed apart: they do not exist in the parent
commit, which is what the retriever indexes, so no run can retrieve them and
they are not scored (:func:`split_changes`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import translate
from functools import lru_cache

from ragnb.codetasks.kinds import is_bookkeeping

#: Vendored folders, lockfiles and generated files (override with ``exclude=``).
DEFAULT_EXCLUDE: tuple[str, ...] = (
    "vendor/", "vendors/", "_vendor/", "vendored/", "third_party/", "third-party/",
    "thirdparty/", "node_modules/", "bower_components/",
    "*.lock", "go.sum", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml",
    "poetry.lock", "Cargo.lock", "Gemfile.lock", "composer.lock", "uv.lock",
    "*.pb.go", "*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py", "*.pb.h", "*.pb.cc", "*.generated.ts",
    "*.generated.*", "*.min.js", "*.min.css",
)


def is_excluded(path: str, patterns: Sequence[str] = DEFAULT_EXCLUDE) -> bool:
    """Whether ``path`` is vendored, a lockfile or generated under ``patterns``.

    Examples
    --------
    >>> is_excluded("frontend/node_modules/left-pad/index.js")
    True
    >>> is_excluded("poetry.lock"), is_excluded("api/v1/user.pb.go"), is_excluded("app/user.py")
    (True, True, False)
    """
    folders, regex = _compiled(tuple(patterns))
    parts = path.split("/")
    if folders and not folders.isdisjoint(parts[:-1]):
        return True
    return regex is not None and bool(regex.match(path) or regex.match(parts[-1]))


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern | None]:
    """Folder names and one regular expression for the other patterns (``fnmatch`` rules)."""
    folders = frozenset(p[:-1] for p in patterns if p.endswith("/"))
    globs = [translate(p) for p in patterns if not p.endswith("/")]
    return folders, (re.compile("|".join(f"(?:{g})" for g in globs)) if globs else None)


@dataclass(frozen=True)
class Changes:
    """The files of one change, sorted into what is scored and what is not.

    Attributes
    ----------
    edit_set : tuple of str
        Files that existed in the parent and changed (modified or deleted, the
        old path of a rename), not excluded: what a retriever must find.
    added : tuple of str
        Files the change created (absent from the parent; not scored).
    excluded : tuple of str
        Vendored, lock and generated files the change touched.
    bookkeeping : tuple of str
        Changelogs and credits lists it touched (not excluded; not scored).
    """

    edit_set: tuple[str, ...]
    added: tuple[str, ...]
    excluded: tuple[str, ...]
    bookkeeping: tuple[str, ...] = ()


def split_changes(changed: Iterable[tuple[str, str]],
                  patterns: Sequence[str] = DEFAULT_EXCLUDE) -> Changes:
    """Sort ``(status, path)`` pairs (git's ``A``/``D``/``M``/``T``) into a :class:`Changes`.

    Examples
    --------
    >>> c = split_changes([("M", "pkg/api.py"), ("M", "HISTORY.rst"), ("M", "AUTHORS.rst"),
    ...                    ("A", "pkg/new.py"), ("M", "poetry.lock")])
    >>> c.edit_set, c.added, c.excluded, c.bookkeeping
    (('pkg/api.py',), ('pkg/new.py',), ('poetry.lock',), ('AUTHORS.rst', 'HISTORY.rst'))
    """
    edit, added, excluded, books = [], [], [], []
    for status, path in changed:
        if is_excluded(path, patterns):
            excluded.append(path)
        elif is_bookkeeping(path):
            books.append(path)
        elif status == "A":
            added.append(path)
        else:
            edit.append(path)
    return Changes(tuple(sorted(edit)), tuple(sorted(added)), tuple(sorted(excluded)),
                   tuple(sorted(books)))


def attribute_excludes(text: str | None) -> tuple[str, ...]:
    r"""Patterns a ``.gitattributes`` marks ``linguist-vendored`` or ``linguist-generated``.

    Only set attributes count (``linguist-vendored``, ``linguist-generated=true``);
    a leading ``/`` (anchored to the root) is dropped, since patterns match the
    whole path anyway.

    Examples
    --------
    >>> attribute_excludes("static/lib/** linguist-vendored\n*.gen.py linguist-generated=true\n"
    ...                    "docs/* -linguist-vendored\n# comment linguist-vendored")
    ('static/lib/**', '*.gen.py')
    """
    found = []
    for line in (text or "").splitlines():
        bits = line.split()
        if not bits or bits[0].startswith("#"):
            continue
        for attr in bits[1:]:
            if attr in ("linguist-vendored", "linguist-generated", "linguist-vendored=true",
                        "linguist-generated=true"):
                found.append(bits[0].lstrip("/"))
                break
    return tuple(found)


def exclude_pathspecs(patterns: Sequence[str]) -> list[str]:
    """Git pathspecs that leave ``patterns`` out of a ``git log -p`` (from the top level)."""
    specs = []
    for p in patterns:
        if p.endswith("/"):
            specs.append(f":(exclude,glob,top)**/{p}**")
        elif "/" in p:
            specs.append(f":(exclude,glob,top){p}")
        else:
            specs.append(f":(exclude,glob,top)**/{p}")
    return specs


def matching_pattern(path: str, patterns: Sequence[str] = DEFAULT_EXCLUDE) -> str | None:
    """The first of ``patterns`` that excludes ``path`` (``None`` if none does)."""
    for p in patterns:
        if is_excluded(path, (p,)):
            return p
    return None
