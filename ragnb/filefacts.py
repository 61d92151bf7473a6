"""Facts about one file: its sha256, when it was modified, when git first saw it; spans in words.

The report's provenance (:mod:`ragnb.report.provenance`) and the analyses that
date their inputs (:mod:`ragnb.strata.timing`) read files the same way, so the
one implementation lives here, below both.
"""
from __future__ import annotations

import hashlib
import subprocess
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path


def sha256_file(path: str | PathLike[str], chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def modified_at(path: Path) -> datetime:
    """The file's modification time (UTC)."""
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)


def git_output(args: list[str], cwd: Path) -> str | None:
    """Stripped stdout of ``git ARGS`` run in ``cwd``; ``None`` when git fails or is absent."""
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=20, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def git_history(path: Path) -> tuple[str | None, bool | None]:
    """``(first commit time, modified since)`` of a file tracked by git, else ``(None, None)``.

    The first commit time is the ISO 8601 committer date of the commit that
    added the file, followed through renames (``git log --follow --diff-filter=A``), so a
    spec moved keeps the date it was pre-registered by; "modified" is whether the
    working tree differs from the last commit (``git status --porcelain``).
    """
    if git_output(["ls-files", "--error-unmatch", path.name], path.parent) is None:
        return None, None
    added = git_output(["log", "--follow", "--diff-filter=A", "--format=%cI", "--", path.name],
                       path.parent)
    first = added.splitlines()[-1] if added else None
    return first, bool(git_output(["status", "--porcelain", "--", path.name], path.parent))


def span_text(seconds: float) -> str:
    """A duration in words: "2 d 3 h", "5 min", "42 s" (two largest units)."""
    seconds = abs(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            parts.append(f"{int(seconds // size)} {unit}")
            seconds %= size
        if len(parts) == 2:
            break
    if not parts:
        parts.append(f"{seconds:.0f} s")
    return " ".join(parts)
