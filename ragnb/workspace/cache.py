"""A workspace's on-disk cache of derived figures (``.ragnb-cache/`` beside its ``ragnb.toml``).

Only figures that are expensive and fully determined by files on disk are kept
here: today the per-split selection-inflation figure
(:func:`ragnb.workspace.inflation.workspace_inflation`), which scores every
round's run on the split. An entry is one JSON file per *slot* (what is asked:
split, metric, policy, seed), holding the *key* (everything the figure depends
on: each input file's path, size and sha256 of its bytes, the options, the
estimator's parameters, :data:`VERSION`, numpy's version and a stamp of ragnb's own
modules, :func:`code_stamp`), the value, and a sha256 of the three. A lookup
recomputes the key and uses the value only when the stored key is equal and the
entry's checksum verifies; a missing, stale, edited, unreadable or malformed entry
is ignored (the figure is computed and the entry rewritten). Entries are written
atomically (:func:`ragnb._atomic.write_atomic`), so a reader sees a whole entry
or none; a workspace folder that cannot be written (a read-only checkout) only
goes uncached. The folder holds a ``.gitignore`` of ``*``, so that a workspace kept
in git never commits it.

The cache never changes a figure: a hit returns the value the same computation
stored, floats round-tripped exactly through JSON (``repr``). Set
:data:`CACHE_ENV` to ``off`` (or ``0``, ``no``, ``false``) to neither read nor
write it, or to a folder to keep the cache there instead of in the workspace.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

#: ``off`` (``0``, ``no``, ``false``): no cache; a folder: the cache's folder; unset: the
#: workspace's ``.ragnb-cache/``.
CACHE_ENV = "RAGNB_CACHE"
#: The cache folder's name beside a workspace's ``ragnb.toml``.
CACHE_DIRNAME = ".ragnb-cache"
#: Bumped whenever what an entry holds, or how a cached figure is computed, changes.
VERSION = 2
_OFF = {"off", "0", "no", "false", "none"}


def cache_dir(root: Path) -> Path | None:
    """The cache folder of a workspace whose manifest is in ``root`` (None: caching is off)."""
    value = os.environ.get(CACHE_ENV, "").strip()
    if value.lower() in _OFF:
        return None
    return Path(value).expanduser() if value else Path(root) / CACHE_DIRNAME


def file_stamp(path: str | os.PathLike[str]) -> list:
    """``[resolved path, size, sha256 of the bytes]`` of a file (its target, for a link):
    the content, so a file rewritten with its size and mtime kept (``touch -r``) is new.

    Raises
    ------
    OSError
        When the file cannot be read: the caller does not cache.
    """
    resolved = Path(path).resolve()
    with open(resolved, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    return [str(resolved), resolved.stat().st_size, digest]


def _checksum(body: dict) -> str:
    """The sha256 of an entry's fields: an entry edited by hand no longer verifies."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def code_stamp() -> str:
    """A digest of the path, size and mtime_ns of every module of the installed ``ragnb``:
    an entry made by other code (another version, an edited checkout) is stale.
    """
    global _CODE_STAMP
    if _CODE_STAMP is None:
        package = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for folder, subfolders, files in os.walk(package):
            subfolders.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        _CODE_STAMP = digest.hexdigest()
    return _CODE_STAMP


_CODE_STAMP: str | None = None


def _entry_path(folder: Path, kind: str, slot: Any) -> Path:
    name = hashlib.sha256(json.dumps(slot, sort_keys=True).encode()).hexdigest()[:32]
    return folder / kind / f"{name}.json"


def load(folder: Path | None, kind: str, slot: Any, key: Any) -> dict | None:
    """The value stored for ``slot`` when it was stored under ``key``, else None."""
    if folder is None:
        return None
    try:
        entry = json.loads(_entry_path(folder, kind, slot).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # absent, unreadable, not JSON: ignored
        return None
    if not isinstance(entry, dict) or entry.get("version") != VERSION \
            or entry.get("slot") != _plain(slot) or entry.get("key") != _plain(key) \
            or not isinstance(entry.get("value"), dict):
        return None
    body = {k: entry[k] for k in ("version", "slot", "key", "value")}
    if entry.get("sha256") != _checksum(body):   # edited, or cut short: computed afresh
        return None
    return entry["value"]


def store(folder: Path | None, kind: str, slot: Any, key: Any, value: dict) -> None:
    """Keep ``value`` for ``slot`` under ``key``; a folder that cannot be written is skipped."""
    if folder is None:
        return
    from ragnb._atomic import write_atomic

    body = _plain({"version": VERSION, "slot": slot, "key": key, "value": value})
    text = json.dumps({**body, "sha256": _checksum(body)}, sort_keys=True, indent=1)
    with contextlib.suppress(OSError):
        write_atomic(_entry_path(folder, kind, slot), text + "\n")
        ignore = folder / ".gitignore"
        if not ignore.exists():  # a workspace kept in git does not pick the cache up
            write_atomic(ignore, "# made by ragnb: derived figures, safe to delete\n*\n")


def _plain(obj: Any) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(obj, sort_keys=True))
