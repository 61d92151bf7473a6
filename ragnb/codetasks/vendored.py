"""Vendored roots: a dependency copied into the repository, found from the tree and history.

A vendored dependency (``requests/packages/urllib3/``) is code nobody on the
project chose to change: it is replaced wholesale by "Update urllib3 to ..."
changes. A folder is a vendored root when (:data:`REASONS`):

``own version``
    it is a package (``__init__.py``) nested inside another package, and its
    ``__init__.py`` assigns ``__version__`` — a release of its own;
``own licence``
    it is such a nested package and holds its own ``LICENSE``/``LICENCE``/``COPYING`` file;
``wholesale update``
    a mined change titled ``Update|Upgrade|Bump|Vendor|Sync ... <name> ...``
    with a version number (``Update urllib3 to 1.9.1``) changed at least
    :data:`MIN_WHOLESALE` files under a folder ``<name>`` below the top level
    (an "Update dispatch interface" change to ``tests/dispatch/`` is no
    dependency update);
``beside a vendored package``
    a package in the same vendoring folder (:data:`VENDOR_FOLDERS`, nested in a
    package) as a root found by the rules above: ``requests/packages/idna``
    beside ``requests/packages/urllib3`` — a copy too small to carry a licence
    or a version of its own.

(A ``.gitattributes`` ``linguist-vendored`` pattern is read by
:mod:`ragnb.codetasks.editset`.) Files under a root are excluded from edit
sets, read sets and callers, and counted (:func:`ragnb.codetasks.mine.exclusion_table`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePosixPath

#: Why a folder is a vendored root.
REASONS = {
    "own version": "a nested package whose __init__.py sets __version__",
    "own licence": "a nested package with its own licence file",
    "wholesale update": "updated wholesale by an 'Update <name> ...' change",
    "beside a vendored package": "a package in the vendoring folder of another root",
}
#: Folders whose packages are copies of other projects once one of them is
#: (``requests/packages/``, ``setuptools/extern/``); ``_vendor/`` and ``vendor/``
#: are excluded by name already (:data:`ragnb.codetasks.editset.DEFAULT_EXCLUDE`).
VENDOR_FOLDERS = frozenset({"packages", "extern", "externals"})
#: Fewest files under a folder an "Update <name>" change must touch to call it wholesale.
MIN_WHOLESALE = 3
_VERSION = re.compile(r"^__version__\s*[:=]", re.MULTILINE)
_LICENCE = re.compile(r"^(?:licen[cs]e|copying)(?:[.-]\w+)?$", re.IGNORECASE)
_UPDATE = re.compile(r"^\s*(?:update|upgrade|bump|vendor|sync|re-?vendor)\b", re.IGNORECASE)
_VERSION_NUMBER = re.compile(r"\bv?\d+(?:\.\d+)+\b")


def sets_version(text: str | None) -> bool:
    """Whether a module assigns ``__version__`` at the top level (a line starting with it)."""
    return bool(text) and bool(_VERSION.search(text or ""))


def nested_roots(files: Mapping[str, str], version: Callable[[str], bool]) -> dict[str, str]:
    """Vendored roots of one tree from its layout: folder -> reason (:data:`REASONS`).

    Parameters
    ----------
    files : mapping
        Path -> blob sha of every file of the tree.
    version : callable
        Blob sha of an ``__init__.py`` -> whether it sets ``__version__``.

    Examples
    --------
    >>> tree = {"req/__init__.py": "a", "req/packages/__init__.py": "b",
    ...         "req/packages/urllib3/__init__.py": "c", "req/packages/idna/__init__.py": "d",
    ...         "req/packages/idna/LICENSE.rst": "e", "req/models/__init__.py": "a"}
    >>> nested_roots(tree, lambda sha: sha == "c")
    {'req/packages/idna': 'own licence', 'req/packages/urllib3': 'own version'}
    """
    packages = {p[: -len("/__init__.py")] for p in files if p.endswith("/__init__.py")}
    found: dict[str, str] = {}
    for folder in sorted(packages):
        parent = folder.rpartition("/")[0]
        if parent not in packages or any(folder.startswith(f"{r}/") for r in found):
            continue
        if version(files[f"{folder}/__init__.py"]):
            found[folder] = "own version"
    licensed = {str(PurePosixPath(p).parent) for p in files
                if _LICENCE.match(PurePosixPath(p).name)}
    for folder in sorted(packages & licensed):
        parent = folder.rpartition("/")[0]
        if parent in packages and not any(folder == r or folder.startswith(f"{r}/")
                                          for r in found):
            found[folder] = "own licence"
    return dict(sorted(found.items()))


def beside_roots(files: Iterable[str], roots: Mapping[str, str]) -> dict[str, str]:
    """Packages of a tree in the vendoring folder of a known root: folder -> reason.

    Examples
    --------
    >>> tree = ["req/__init__.py", "req/packages/__init__.py", "req/packages/idna/core.py",
    ...         "req/packages/idna/__init__.py", "req/packages/t.py", "req/models/__init__.py"]
    >>> beside_roots(tree, {"req/packages/urllib3": "wholesale update"})
    {'req/packages/idna': 'beside a vendored package'}
    """
    homes = {h for h in (r.rpartition("/")[0] for r in roots)
             if h.rpartition("/")[2] in VENDOR_FOLDERS}
    if not homes:                  # the usual case: no root sits in a vendoring folder
        return {}
    packages = {p[: -len("/__init__.py")] for p in files if p.endswith("/__init__.py")}
    homes = {h for h in homes if h in packages and h.rpartition("/")[0] in packages}
    return {folder: "beside a vendored package" for folder in sorted(packages)
            if folder.rpartition("/")[0] in homes and folder not in roots}


def wholesale_roots(titled_changes: Iterable[tuple[str, Iterable[str]]]) -> dict[str, str]:
    """Folders updated wholesale: ``(title, changed paths)`` per change -> folder -> reason.

    Examples
    --------
    >>> wholesale_roots([("Update urllib3 to 1.9.1",
    ...                   ["req/packages/urllib3/a.py", "req/packages/urllib3/b.py",
    ...                    "req/packages/urllib3/util/c.py", "req/api.py"])])
    {'req/packages/urllib3': 'wholesale update'}
    """
    found: dict[str, str] = {}
    for title, paths in titled_changes:
        if not (_UPDATE.match(title) and _VERSION_NUMBER.search(title)):
            continue
        words = {w.lower() for w in re.findall(r"[A-Za-z_][\w-]*", title)}
        counts: dict[str, int] = {}
        for path in paths:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts)):              # below the top level
                if parts[i].lower() in words:
                    folder = "/".join(parts[: i + 1])
                    counts[folder] = counts.get(folder, 0) + 1
        for folder, n in counts.items():
            if n >= MIN_WHOLESALE:
                found[folder] = "wholesale update"
    return dict(sorted(found.items()))


def under_root(path: str, roots: Iterable[str]) -> str | None:
    """The vendored root ``path`` is under (``None`` if none)."""
    for r in roots:
        if path.startswith(f"{r}/"):
            return r
    return None
