"""Mining tasks from a local git repository: one task per merged change on the mainline.

The mainline is the first-parent history of a branch. Each merge commit on it
is one change, diffed against its first parent; with ``every_commit=True``
(squash-merge repositories) every mainline commit is one (the root commit,
which has no parent, never is). The first parent is what a retriever must
index: a repository that already holds the change leaks the answer (seed 002).

Per change (see the modules named for each part):

- edit set, added and excluded files — :mod:`ragnb.codetasks.editset`;
- changed symbols and the task text — :mod:`ragnb.codetasks.symbols`,
  :mod:`ragnb.codetasks.text`;
- read set, signature changes and caller set — :mod:`ragnb.codetasks.readset`.

Filters (:data:`FILTERS`, in this order). Every mined change is kept in the
table with the filters it fails, so nothing is dropped silently
(:func:`filter_table`):

``revert``
    the change is a revert (its title starts with ``Revert "`` or one of its
    commits says ``This reverts commit``);
``reverted``
    a later commit on the branch reverts it (names one of its commits);
``edit_files``
    its edit set has fewer than ``min_files`` (1) or more than ``max_files``
    (15) files — a rename of 40 files, a lockfile-only bump;
``description``
    its task text has fewer than ``min_words`` (3) words once stripped.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd

from ragnb.codetasks.diff import parse_diff
from ragnb.codetasks.editset import DEFAULT_EXCLUDE, split_changes
from ragnb.codetasks.git import Repo
from ragnb.codetasks.readset import callers, definitions, read_set
from ragnb.codetasks.symbols import changed_symbols, identifiers, signature_changes
from ragnb.codetasks.text import description, split_title, task_text, word_count
from ragnb.errors import InputError

FILTERS = ("revert", "reverted", "edit_files", "description")
FILTER_HELP = {
    "revert": "is a revert",
    "reverted": "reverted later on the branch",
    "edit_files": "edit set outside {min_files}..{max_files} files",
    "description": "fewer than {min_words} words of task text once stripped",
}
#: Columns of a task table, in file order.
TASK_COLUMNS = ["task_id", "sha", "parent", "date", "kind", "text", "description",
                "body_dropped", "edit_set", "added", "excluded", "symbols", "read_set",
                "signature_changes", "callers", "failed", "kept"]
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")


@dataclass(frozen=True)
class MineOptions:
    """How tasks were mined (stored in the first line of a tasks file)."""

    branch: str = "main"
    every_commit: bool = False
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    min_files: int = 1
    max_files: int = 15
    min_words: int = 3
    head: str = ""

    def check(self) -> MineOptions:
        for name in ("min_files", "max_files", "min_words"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"must be a non-negative integer, got {value!r}", key=name)
        if self.max_files < self.min_files:
            raise InputError(f"max_files {self.max_files} is below min_files {self.min_files}",
                             key="max_files")
        return self


@dataclass(frozen=True)
class Mined:
    """Mined tasks: every change (kept or not) and the options used.

    Attributes
    ----------
    tasks : DataFrame
        One row per mined change (:data:`TASK_COLUMNS`), oldest first; ``failed``
        lists the filters a change fails, ``kept`` is true when it fails none.
    options : MineOptions
    """

    tasks: pd.DataFrame
    options: MineOptions = field(default_factory=MineOptions)

    @property
    def kept(self) -> pd.DataFrame:
        """The tasks that pass every filter."""
        return self.tasks[self.tasks["kept"]].reset_index(drop=True)


def _is_revert(message: str, branch_messages: Sequence[str]) -> bool:
    title = split_title(description(message))[0]
    return title.startswith('Revert "') or any(_REVERTS.search(m) for m in
                                               (message, *branch_messages))


def mine_tasks(repo: str | Path | Repo, branch: str = "main", *, every_commit: bool = False,
               exclude: Sequence[str] = DEFAULT_EXCLUDE, min_files: int = 1,
               max_files: int = 15, min_words: int = 3) -> Mined:
    """One task per merged change on the first-parent history of ``branch``.

    Parameters
    ----------
    repo : str, Path or Repo
        A local repository (nothing is fetched).
    branch : str
        The mainline branch (any revision git accepts).
    every_commit : bool
        Every mainline commit is a change (squash-merge repositories), not only
        merge commits.
    exclude : sequence of str
        Vendored / lock / generated patterns (:mod:`ragnb.codetasks.editset`).
    min_files, max_files, min_words : int
        Filter bounds (see the module docstring).

    Returns
    -------
    Mined
    """
    repo = repo if isinstance(repo, Repo) else Repo(repo)
    head = repo.resolve(branch)
    options = MineOptions(branch, bool(every_commit), tuple(exclude), min_files, max_files,
                          min_words, head).check()
    mainline = repo.mainline(branch)
    reverted_refs = set(_REVERTS.findall(repo.git("log", "--format=%B", branch, "--")))
    rows = [_mine_one(repo, c, options, reverted_refs) for c in mainline
            if c.parents and (c.is_merge or options.every_commit)]
    tasks = pd.DataFrame(rows, columns=TASK_COLUMNS)
    return Mined(tasks, options)


def _mine_one(repo: Repo, commit, options: MineOptions, reverted_refs: set[str]) -> dict:
    parent, sha = commit.parents[0], commit.sha
    changes = split_changes(repo.changed_files(parent, sha), options.exclude)
    diffs = parse_diff(repo.diff(parent, sha, [*changes.edit_set, *changes.added]))
    symbols = changed_symbols(diffs.values())
    parent_files = repo.files(parent)
    changed_lines = [ln for d in diffs.values() for ln in (*d.added, *d.removed)]
    text, body_dropped = task_text(commit.message, symbols, [*parent_files, *changes.added],
                                   changed_lines)

    index = definitions(repo, parent, options.exclude)
    added_lines = [ln for d in diffs.values() for ln in d.added]
    reads = read_set(identifiers(added_lines), index, changes.edit_set)
    sig = [c for path in changes.edit_set if path.endswith(".py")
           for c in signature_changes(path, repo.show(parent, path), repo.show(sha, path))]
    calls = callers(repo, parent, sig, options.exclude)

    branch_log = repo.git("log", "--format=%H%x1f%B%x1e", f"{parent}..{sha}", "--")
    own = [r.lstrip("\n").split("\x1f", 1) for r in branch_log.split("\x1e") if r.strip()]
    own_shas = [s for s, _ in own]
    failed = []
    if _is_revert(commit.message, [m for _, m in own]):
        failed.append("revert")
    if any(s.startswith(ref) for s in own_shas for ref in reverted_refs):
        failed.append("reverted")
    if not options.min_files <= len(changes.edit_set) <= options.max_files:
        failed.append("edit_files")
    if word_count(text) < options.min_words:
        failed.append("description")
    return {
        "task_id": sha[:12], "sha": sha, "parent": parent, "date": commit.date,
        "kind": "merge" if commit.is_merge else "commit", "text": text,
        "description": description(commit.message), "body_dropped": body_dropped,
        "edit_set": list(changes.edit_set), "added": list(changes.added),
        "excluded": list(changes.excluded), "symbols": symbols, "read_set": reads,
        "signature_changes": [asdict(c) for c in sig], "callers": calls,
        "failed": failed, "kept": not failed,
    }


def filter_table(tasks: pd.DataFrame, options: MineOptions | None = None) -> pd.DataFrame:
    """Mined, kept, and dropped by which filter.

    Columns ``step, rule, fails, dropped, remaining``: ``fails`` counts the
    changes failing a filter (a change can fail several), ``dropped`` those
    whose *first* failing filter (in :data:`FILTERS` order) it is, so the
    ``dropped`` column sums to mined minus kept.
    """
    options = options or MineOptions()
    failed = tasks["failed"]
    n = len(tasks)
    rows = [{"step": "mined", "rule": "merged changes on the mainline", "fails": None,
             "dropped": None, "remaining": n}]
    remaining = n
    for name in FILTERS:
        fails = int(sum(name in f for f in failed))
        dropped = int(sum(bool(f) and f[0] == name for f in failed))
        remaining -= dropped
        rows.append({"step": name, "rule": FILTER_HELP[name].format(**asdict(options)),
                     "fails": fails, "dropped": dropped, "remaining": remaining})
    rows.append({"step": "kept", "rule": "tasks", "fails": None, "dropped": None,
                 "remaining": int(tasks["kept"].sum())})
    return pd.DataFrame(rows).astype({"fails": "Int64", "dropped": "Int64"})
