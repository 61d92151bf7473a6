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
from typing import Self

from ragnb.errors import InputError, listed

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
        The work tree or ``.git`` folder (or a bare repository). A folder inside
        a work tree stands for the whole repository: ``path`` becomes its top
        level (``given`` keeps what was passed), since diffs cut to one folder
        would change every task.

    Attributes
    ----------
    shallow : bool
        Whether the clone is shallow (its history stops at grafted commits).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not git_available():
            raise InputError("git is not installed (needed to mine tasks)", source=self.path)
        if not self.path.is_dir():
            raise InputError("no such folder", source=self.path)
        self.given = self.path
        inside, shallow = self.git("rev-parse", "--is-inside-work-tree",
                                   "--is-shallow-repository", what="a git repository").split()
        if inside == "true":                 # a subfolder stands for the whole work tree
            self.path = Path(self.git("rev-parse", "--show-toplevel").strip())
        self.shallow = shallow == "true"

    def git(self, *args: str, what: str | None = None) -> str:
        """Run ``git args...`` in the repository and return its standard output."""
        cmd = ["git", "-c", f"core.attributesFile={_attributes_file()}",
               "-c", "core.quotePath=false", "-C", str(self.path), *args]
        proc = subprocess.run(cmd, capture_output=True, env=neutral_env(), check=False)
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError(f"not {what}" if what else
                             f"`git {' '.join(args[:3])}` failed: {err[-1] if err else ''}",
                             source=self.path)
        return proc.stdout.decode("utf-8", "replace")

    def resolve(self, rev: str) -> str:
        """The full sha of ``rev`` (a branch, tag or sha); an error names the branches there
        are (``--branch master`` on a repository whose mainline is ``main``).
        """
        try:
            out = self.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
                           what=f"a commit: {rev!r}")
        except InputError:
            known = self.git("for-each-ref", "--format=%(refname:short)", "refs/heads").split()
            known = known or [n for n in self.git("for-each-ref", "--format=%(refname:short)",
                                                  "refs/remotes").split()
                              if not n.endswith("/HEAD")]
            if not known:
                raise
            raise InputError(f"not a commit: {rev!r}; branches: {listed(known, most=8)} "
                             "(choose one with --branch)", source=self.path) from None
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
        """Unified diff without context (``-U0``) of ``paths``; hunk headers name functions."""
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
        """``(path, line number, text)`` of lines in ``sha``'s tree matching ``pattern`` (ERE)."""
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


@dataclass(frozen=True)
class CommitInfo:
    """Any commit of the history: parents, author and message (from one ``git log``)."""

    sha: str
    parents: tuple[str, ...]
    date: str
    author: str
    email: str
    message: str


def history(repo: Repo, branch: str) -> dict[str, CommitInfo]:
    """Every commit reachable from ``branch`` (one ``git log``), by sha."""
    sep, end = "\x1f", "\x1e"
    out = repo.git("log", "--no-color", f"--format=%H{sep}%P{sep}%cI{sep}%an{sep}%ae{sep}%B{end}",
                   branch, "--")
    found = {}
    for record in out.split(end):
        record = record.lstrip("\n")
        if record:
            sha, parents, date, author, email, message = record.split(sep, 5)
            found[sha] = CommitInfo(sha, tuple(parents.split()), date, author, email,
                                    message.strip("\n"))
    return found


def mainline_changes(repo: Repo, branch: str) -> dict[str, list[tuple[str, str]]]:
    """``(status, path)`` of every mainline commit against its first parent (one ``git log``).

    Statuses are ``A, D, M, T`` (no rename detection: a rename is ``D`` + ``A``).
    """
    out = repo.git("log", "--first-parent", "--diff-merges=first-parent", "--name-status",
                   "--no-renames", "-z", "--no-color", "--format=%x1e%H", branch, "--")
    found = {}
    for record in out.split("\x1e"):
        if not record:
            continue
        sha, _, rest = record.partition("\0")
        parts = rest.lstrip("\n").split("\0")
        found[sha.strip()] = [(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)
                              if parts[i]]
    return found


def mainline_patches(repo: Repo, branch: str, exclude_pathspecs: list[str]) -> dict[str, str]:
    """The ``-U0`` diff of every mainline commit against its first parent (one ``git log``).

    Hunk headers name the enclosing function (built-in diff drivers, see
    :data:`ATTRIBUTES`); ``exclude_pathspecs`` keeps lockfiles and vendored
    trees out of the output.
    """
    out = repo.git("log", "--first-parent", "--diff-merges=first-parent", "-p", "-U0",
                   "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv",
                   "--format=%x1e%H", branch, "--", ":(top)", *exclude_pathspecs)
    found = {}
    for record in out.split("\x1e"):
        if record:
            sha, _, patch = record.partition("\n")
            found[sha.strip()] = patch
    return found


class ObjectReader:
    """Blobs and trees through one ``git cat-file --batch`` process.

    Trees are read once each (cached by their sha), so walking the parent tree
    of consecutive tasks reads only the folders that changed in between.
    """

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        cmd = ["git", "-C", str(repo.path), "cat-file", "--batch"]
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, env=neutral_env())
        self._trees: dict[str, dict[str, str]] = {}

    def read(self, sha: str) -> tuple[str, bytes] | None:
        """``(type, content)`` of object ``sha``, or ``None`` when it is missing."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(sha.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline()
        if not header or header.endswith(b" missing\n"):
            if not header:
                raise InputError("`git cat-file --batch` stopped", source=self.repo.path)
            return None
        _, kind, size = header.split()
        data = self._proc.stdout.read(int(size))
        self._proc.stdout.read(1)
        return kind.decode(), data

    def text(self, sha: str) -> str | None:
        """A blob decoded as UTF-8 (bad bytes replaced); ``None`` if missing or binary."""
        obj = self.read(sha)
        if obj is None or obj[0] != "blob" or b"\0" in obj[1][:8000]:
            return None
        return obj[1].decode("utf-8", "replace")

    def _tree(self, sha: str, cache: bool = True) -> dict[str, str]:
        """``relative path -> blob sha`` of each file under tree ``sha`` (cached below the root)."""
        cached = self._trees.get(sha)
        if cached is not None:
            return cached
        obj = self.read(sha)
        files: dict[str, str] = {}
        data = obj[1] if obj is not None else b""
        i = 0
        while i < len(data):
            space = data.index(b" ", i)
            nul = data.index(b"\0", space)
            mode, name = data[i:space], data[space + 1:nul].decode("utf-8", "replace")
            entry = data[nul + 1:nul + 21].hex()
            i = nul + 21
            if mode == b"40000":
                for sub, blob in self._tree(entry).items():
                    files[f"{name}/{sub}"] = blob
            elif mode.startswith(b"10"):       # regular files (not links or submodules)
                files[name] = entry
        if cache:
            self._trees[sha] = files
        return files

    def files(self, commit: str) -> dict[str, str]:
        """``path -> blob sha`` of every regular file in the tree of ``commit``."""
        obj = self.read(commit)
        if obj is None or obj[0] != "commit":
            raise InputError(f"not a commit: {commit!r}", source=self.repo.path)
        tree = obj[1].split(b"\n", 1)[0].split()[1].decode()
        return self._tree(tree, cache=False)

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
