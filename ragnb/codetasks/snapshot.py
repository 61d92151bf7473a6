"""A commit's tree, read once: file texts, definitions and syntax, cached by blob.

Consecutive tasks share almost every file, so what is derived from a file
(its text, the names it defines, its parsed
:class:`~ragnb.codetasks.pysyntax.Module`) is kept per blob sha and a file is
read or parsed only the first time any task needs it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

from ragnb.codetasks.git import ObjectReader
from ragnb.codetasks.pysyntax import Module, parse_module, sketch_module
from ragnb.codetasks.readset import SOURCE_SUFFIXES, defined_in
from ragnb.codetasks.vendored import sets_version


class Blobs:
    """Facts about blobs (by sha), each computed once."""

    def __init__(self, objects: ObjectReader) -> None:
        self.objects = objects
        self._defs: dict[str, frozenset[str]] = {}
        self._versions: dict[str, bool] = {}
        self._modules: dict[tuple[str, str], Module | None] = {}
        self._sketches: dict[tuple[str, str], Module] = {}
        self.text = lru_cache(maxsize=512)(self._text)

    def _text(self, sha: str) -> str | None:
        return self.objects.text(sha)

    def definitions(self, sha: str) -> frozenset[str]:
        if sha not in self._defs:
            self._defs[sha] = defined_in(self.text(sha) or "")
        return self._defs[sha]

    def sets_version(self, sha: str) -> bool:
        """Whether the blob (an ``__init__.py``) assigns ``__version__``."""
        if sha not in self._versions:
            self._versions[sha] = sets_version(self.text(sha))
        return self._versions[sha]

    def module(self, sha: str, path: str) -> Module | None:
        key = (sha, path)
        if key not in self._modules:
            text = self.text(sha)
            self._modules[key] = parse_module(path, text) if text is not None else None
        return self._modules[key]

    def sketch(self, sha: str, path: str) -> Module:
        key = (sha, path)
        if key not in self._sketches:
            self._sketches[key] = sketch_module(path, self.text(sha) or "")
        return self._sketches[key]


class Snapshot:
    """The files of one commit's tree, with ``excluded`` paths hidden from every lookup."""

    def __init__(self, files: Mapping[str, str], blobs: Blobs,
                 excluded: Callable[[str], bool]) -> None:
        self.all = files
        self.files = {p: b for p, b in files.items() if not excluded(p)}
        self.blobs = blobs

    def text(self, path: str) -> str | None:
        blob = self.all.get(path)
        return self.blobs.text(blob) if blob else None

    def load(self, path: str) -> Module | None:
        blob = self.files.get(path)
        return self.blobs.module(blob, path) if blob else None

    def sketch(self, path: str) -> Module | None:
        """Imports and top-level names of a Python file, without parsing it."""
        blob = self.files.get(path)
        return self.blobs.sketch(blob, path) if blob else None

    def definitions(self, names: Iterable[str]) -> dict[str, set[str]]:
        """Name -> source files of the tree defining it (for ``names`` only)."""
        wanted = set(names)
        found: dict[str, set[str]] = {}
        for path, blob in self.files.items():
            if path.endswith(SOURCE_SUFFIXES):
                for name in self.blobs.definitions(blob) & wanted:
                    found.setdefault(name, set()).add(path)
        return found
