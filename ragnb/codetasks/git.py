"""The one place ragnb talks to ``git``: a local repository, read only, no network.

Every call runs ``git`` in a subprocess with a neutral configuration (no
system or user config, no pager, no colour, no external diff or textconv), so
that what is mined depends on the repository alone. Python files are diffed
with git's built-in ``python`` driver, whose hunk headers name the enclosing
``def``/``class`` (an attributes file passed with ``-c core.attributesFile``;
the repository's own ``.gitattributes`` still applies on top).

Failures become :class:`~ragnb.errors.InputError` naming the repository and
what was asked.
"""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ragnb.errors import InputError

#: Built-in diff drivers (hunk headers naming the enclosing function) by file name.
ATTRIBUTES = "*.py diff=python\n*.go diff=golang\n*.rs diff=rust\n*.java diff=java\n"


@cache
def _attributes_file() -> str:
    """A temporary attributes file holding :data:`ATTRIBUTES` (removed at exit)."""
    with tempfile.NamedTemporaryFile("w", suffix=".gitattributes", delete=False) as handle:
        handle.write(ATTRIBUTES)
    atexit.register(Path(handle.name).unlink, missing_ok=True)
    return handle.name


def git_available() -> bool:
    """Whether a ``git`` executable is on the ``PATH``."""
    return shutil.which("git") is not None


def neutral_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a ``git`` subprocess: no system/user config, no pager, C locale."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"})
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class Commit:
    """A mainline commit: its sha, parents (first parent first) and message."""

    sha: str
    parents: tuple[str, ...]
    date: str
    message: str

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


class Repo:
    """A local git repository, read with ``git`` subprocesses.

    Parameters
    ----------
    path : str or Path
        The work tree or ``.git`` folder (or a bare repository).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not git_available():
            raise InputError("git is not installed (needed to mine tasks)", source=self.path)
        if not self.path.is_dir():
            raise InputError("no such folder", source=self.path)
        self.git("rev-parse", "--git-dir", what="a git repository")

    def git(self, *args: str, what: str | None = None) -> str:
        """Run ``git args...`` in the repository and return its standard output."""
        cmd = ["git", "-c", f"core.attributesFile={_attributes_file()}", "-c", "core.quotePath=false",
               "-C", str(self.path), *args]
        proc = subprocess.run(cmd, capture_output=True, env=neutral_env(), check=False)
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError(f"not {what}" if what else
                             f"`git {' '.join(args[:3])}` failed: {err[-1] if err else ''}",
                             source=self.path)
        return proc.stdout.decode("utf-8", "replace")

    def resolve(self, rev: str) -> str:
        """The full sha of ``rev`` (a branch, tag or sha)."""
        out = self.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
                       what=f"a commit: {rev!r}")
        return out.strip()

    def mainline(self, branch: str) -> list[Commit]:
        """The first-parent history of ``branch``, oldest first."""
        self.resolve(branch)
        sep, end = "\x1f", "\x1e"
        out = self.git("log", "--first-parent", "--reverse", "--no-color",
                       f"--format=%H{sep}%P{sep}%cI{sep}%B{end}", branch, "--")
        commits = []
        for record in out.split(end):
            record = record.lstrip("\n")
            if not record:
                continue
            sha, parents, date, message = record.split(sep, 3)
            commits.append(Commit(sha, tuple(parents.split()), date, message.strip("\n")))
        return commits

    def changed_files(self, parent: str, sha: str) -> list[tuple[str, str]]:
        """``(status, path)`` of every file changed from ``parent`` to ``sha`` (no renames).

        A rename shows as ``D old`` + ``A new``; status is one of ``A, D, M, T``.
        """
        out = self.git("diff", "--name-status", "--no-renames", "-z", parent, sha, "--")
        parts = out.split("\0")
        return [(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]

    def diff(self, parent: str, sha: str, paths: list[str]) -> str:
        """Unified diff with no context lines (``-U0``) of ``paths``; hunk headers name functions."""
        if not paths:
            return ""
        return self.git("diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
                        "-U0", parent, sha, "--", *paths)

    def show(self, sha: str, path: str) -> str | None:
        """The text of ``path`` at ``sha`` (``None`` when it does not exist there)."""
        try:
            return self.git("show", f"{sha}:{path}")
        except InputError:
            return None

    def files(self, sha: str) -> list[str]:
        """Every file path in the tree of ``sha``."""
        return [p for p in self.git("ls-tree", "-r", "-z", "--name-only", sha).split("\0") if p]

    def grep(self, sha: str, pattern: str, globs: list[str]) -> list[tuple[str, int, str]]:
        """``(path, line number, text)`` of the lines of ``sha``'s tree matching ``pattern`` (ERE)."""
        cmd = ["git", "-c", "core.quotePath=false", "-C", str(self.path), "grep", "-n", "-I",
               "-z", "-E", "--no-color", "-e", pattern, sha, "--", *globs]
        proc = subprocess.run(cmd, capture_output=True, env=neutral_env(), check=False)
        if proc.returncode not in (0, 1):  # 1: nothing matched
            raise InputError(f"`git grep` failed: {proc.stderr.decode('utf-8', 'replace')}",
                             source=self.path)
        hits = []
        prefix = f"{sha}:"
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            if not line.startswith(prefix):
                continue
            path, number, text = line[len(prefix):].split("\0", 2)
            hits.append((path, int(number), text))
        return hits
