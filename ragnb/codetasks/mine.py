"""Mining tasks from a local git repository: one task per merged change on the mainline.

The mainline is the first-parent history of a branch. Each merge commit on it
is one change, diffed against its first parent, and so is each squash-merged
pull request (a commit whose title ends ``(#123)``; ``squash=False`` leaves
them out); with ``every_commit=True`` every mainline commit is one (the root
commit, which has no parent, never is). A shallow clone, or a history with
nothing to mine, gives a warning (:attr:`Mined.warnings`). The first parent is what a retriever must
index: a repository that already holds the change leaks the answer (seed 002).

Per change (see the modules named for each part):

- edit set, added and excluded files (the default patterns, the ones given
  and what the repository's ``.gitattributes`` marks ``linguist-vendored`` /
  ``linguist-generated``) — :mod:`ragnb.codetasks.editset`;
- changed symbols and the task text — :mod:`ragnb.codetasks.symbols`,
  :mod:`ragnb.codetasks.text`;
- read set — :mod:`ragnb.codetasks.readset`; signature changes and their
  callers, resolved from the parent tree's syntax — :mod:`ragnb.codetasks.callers`.

Git is called a fixed number of times, whatever the number of changes: one
``git log`` of the whole history (parents, authors, messages), one
first-parent ``git log --name-status``, one first-parent ``git log -p -U0``,
and one ``git cat-file --batch`` process for trees and blobs
(:mod:`ragnb.codetasks.git`); what is derived from a file is cached by blob
(:mod:`ragnb.codetasks.snapshot`). A progress bar goes to standard error when
it is a terminal.

Filters (:data:`FILTERS`, in this order). Every mined change is kept in the
table with the filters it fails, so nothing is dropped silently
(:func:`filter_table`):

``bot``
    the change's author is a bot (:mod:`ragnb.codetasks.kinds`; patterns
    ``bots``);
``revert``
    the change is a revert (its title starts with ``Revert "`` or one of its
    commits says ``This reverts commit`` of a commit the change did not bring
    in: a pull request reverting its own work in progress is no revert);
``reverted``
    a commit outside the change reverts one of its commits;
``release``
    its title says it cuts a release (``v2.31.0``, ``Version 0.28.1``);
``chore``
    its title or merge line says it is housekeeping: a dependency bump (``Bump attrs
    2.3.7``), a formatting pass (``Run black``), a merge of a maintenance branch
    (``2.3.x``, ``stable``) (:func:`ragnb.codetasks.kinds.chore`);
``changelog_only``, ``docs_only``, ``config_only``
    every file it changed is a changelog / documentation / configuration, CI
    or packaging (:mod:`ragnb.codetasks.kinds`);
``edit_files``
    its edit set has fewer than ``min_files`` (1) or more than ``max_files``
    (15) files — a rename of 40 files, a lockfile-only bump;
``description``
    its task text has fewer than ``min_words`` (3) words once stripped.
"""
from __future__ import annotations

import glob
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from ragnb.codetasks.callers import NOT_CALLERS, Resolver, find_callers, imported_files
from ragnb.codetasks.diff import parse_diff
from ragnb.codetasks.editset import (
    DEFAULT_EXCLUDE,
    attribute_excludes,
    exclude_pathspecs,
    is_excluded,
    is_generated,
    split_changes,
)
from ragnb.codetasks.git import (
    CommitInfo,
    ObjectReader,
    Repo,
    history,
    mainline_changes,
    mainline_patches,
)
from ragnb.codetasks.kinds import DEFAULT_BOTS, chore, doc_kind, is_bot, is_release, merge_source
from ragnb.codetasks.pysyntax import code_lines
from ragnb.codetasks.readset import read_set
from ragnb.codetasks.snapshot import Blobs, Snapshot
from ragnb.codetasks.symbols import changed_symbols, signature_changes
from ragnb.codetasks.text import description, split_title, task_text, word_count
from ragnb.codetasks.vendored import beside_roots, nested_roots, under_root, wholesale_roots
from ragnb.errors import InputError

FILTERS = ("bot", "revert", "reverted", "release", "chore", "changelog_only", "docs_only",
           "config_only", "edit_files", "description")
FILTER_HELP = {
    "bot": "authored by a bot",
    "revert": "is a revert",
    "reverted": "reverted later on the branch",
    "release": "cuts a release (its title is a version)",
    "chore": "housekeeping: a dependency bump, a formatting pass, a maintenance-branch merge",
    "changelog_only": "changes only changelog files",
    "docs_only": "changes only documentation",
    "config_only": "changes only configuration / CI / packaging (and docs)",
    "edit_files": "edit set outside {min_files}..{max_files} files",
    "description": "fewer than {min_words} words of task text once stripped",
}
#: Columns of a task table, in file order.
TASK_COLUMNS = ["task_id", "sha", "parent", "date", "kind", "author", "text", "description",
                "body_dropped", "edit_set", "added", "excluded", "bookkeeping", "symbols",
                "read_set",
                "read_from", "signature_changes", "callers", "caller_sites",
                "unresolved_calls", "unparsed", "failed", "kept"]
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,40})")


@dataclass(frozen=True)
class MineOptions:
    """How tasks were mined (stored in the first line of a tasks file)."""

    branch: str = "main"
    every_commit: bool = False
    squash: bool = True
    vendored: bool = True
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    bots: tuple[str, ...] = DEFAULT_BOTS
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
        for name in ("exclude", "bots"):
            if not all(isinstance(p, str) and p for p in getattr(self, name)):
                raise InputError("must be a list of non-empty patterns", key=name)
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
    warnings : tuple of str
        What a user must see about the history mined (a shallow clone, nothing
        to mine).
    vendored : dict
        Vendored root folder -> why (:mod:`ragnb.codetasks.vendored`), over the
        whole history; their files are excluded.
    """

    tasks: pd.DataFrame
    options: MineOptions = field(default_factory=MineOptions)
    warnings: tuple[str, ...] = ()
    vendored: dict[str, str] = field(default_factory=dict)

    @property
    def kept(self) -> pd.DataFrame:
        """The tasks that pass every filter."""
        return self.tasks[self.tasks["kept"]].reset_index(drop=True)


#: A squash-merged pull request: a first-parent commit whose title ends ``(#123)``.
SQUASH_TITLE = re.compile(r"\(#\d+\)\s*$")


def is_squash_merge(message: str) -> bool:
    r"""Whether a (non-merge) mainline commit's title names a pull request: ``Fix x (#123)``.

    Examples
    --------
    >>> is_squash_merge("Fix redirects (#6012)\n\n* first commit"), is_squash_merge("Fix (#1) x")
    (True, False)
    """
    return bool(SQUASH_TITLE.search(message.strip().partition("\n")[0]))


def _reverted_by(commits: dict[str, CommitInfo]) -> dict[str, set[str]]:
    """Sha prefix named by a ``This reverts commit`` line -> the commits that say it."""
    found: dict[str, set[str]] = {}
    for c in commits.values():
        for ref in _REVERTS.findall(c.message):
            found.setdefault(ref, set()).add(c.sha)
    return found


def _is_revert(message: str, branch: Sequence[CommitInfo], own: set[str]) -> bool:
    """A revert: titled ``Revert "``, or a commit of it reverts a commit it did not bring.

    A pull request reverting its own work-in-progress commit (both on its
    branch) is not a revert.
    """
    title = split_title(description(message))[0]
    if title.startswith('Revert "'):
        return True
    for c in branch:
        for ref in _REVERTS.findall(c.message):
            if not any(o.startswith(ref) for o in own):
                return True
    return False


def _is_reverted(own: set[str], reverted_by: dict[str, set[str]]) -> bool:
    """Whether a commit outside ``own`` reverts one of ``own`` (a later change undoes it)."""
    return any(o.startswith(ref) and not (by <= own)
               for ref, by in reverted_by.items() for o in own)


def branch_commits(commits: dict[str, CommitInfo], mainline: Sequence[str]) -> dict[str, list[str]]:
    """Mainline sha -> the commits it brought in (itself first, then its branch's, newest first).

    A merge brings in the commits reachable from its other parents that are
    neither on the mainline nor brought in by an earlier merge (``parent..sha``).
    """
    seen = set(mainline)
    own: dict[str, list[str]] = {}
    for sha in mainline:
        found = [sha]
        stack = list(commits[sha].parents[1:]) if sha in commits else []
        while stack:
            c = stack.pop()
            if c in seen or c not in commits:
                continue
            seen.add(c)
            found.append(c)
            stack.extend(commits[c].parents)
        own[sha] = found
    return own


def mine_tasks(repo: str | Path | Repo, branch: str = "main", *, every_commit: bool = False,
               squash: bool = True, vendored: bool = True,
               exclude: Sequence[str] = DEFAULT_EXCLUDE, bots: Sequence[str] = DEFAULT_BOTS,
               min_files: int = 1, max_files: int = 15, min_words: int = 3,
               progress: bool | None = None) -> Mined:
    """One task per merged change on the first-parent history of ``branch``.

    Parameters
    ----------
    repo : str, Path or Repo
        A local repository (nothing is fetched).
    branch : str
        The mainline branch (any revision git accepts).
    every_commit : bool
        Every mainline commit is a change, not only merges and squash merges.
    squash : bool
        A mainline commit whose title names a pull request (``Fix x (#123)``,
        GitHub's squash merge) is a change (kind ``squash``), as a merge is.
    vendored : bool
        Detect vendored roots (:mod:`ragnb.codetasks.vendored`) and exclude their files.
    exclude : sequence of str
        Vendored / lock / generated patterns (:mod:`ragnb.codetasks.editset`).
    bots : sequence of str
        Bot author patterns (:mod:`ragnb.codetasks.kinds`).
    min_files, max_files, min_words : int
        Filter bounds (see the module docstring).
    progress : bool or None
        Show a progress bar on standard error; ``None``: when it is a terminal.

    Returns
    -------
    Mined
    """
    repo = repo if isinstance(repo, Repo) else Repo(repo)
    head = repo.resolve(branch)
    options = MineOptions(branch, bool(every_commit), bool(squash), bool(vendored),
                          tuple(exclude), tuple(bots), min_files, max_files, min_words,
                          head).check()
    commits = history(repo, head)
    mainline = []
    sha: str | None = head
    while sha is not None and sha in commits:
        mainline.append(sha)
        sha = commits[sha].parents[0] if commits[sha].parents else None
    mainline.reverse()
    changes = mainline_changes(repo, head)
    patches = mainline_patches(repo, head, exclude_pathspecs(options.exclude))
    reverted_refs = _reverted_by(commits)
    own = branch_commits(commits, mainline)
    chosen = [s for s in mainline if commits[s].parents
              and (len(commits[s].parents) > 1 or options.every_commit
                   or (options.squash and is_squash_merge(commits[s].message)))]
    warnings = _warnings(repo, options, chosen, mainline, commits)
    roots: dict[str, str] = {}
    if options.vendored:
        roots = wholesale_roots((split_title(description(commits[s].message))[0],
                                 [p for _, p in changes.get(s, [])]) for s in chosen)
    rows = []
    show = sys.stderr.isatty() if progress is None else progress
    with ObjectReader(repo) as objects:
        blobs = Blobs(objects)
        for sha in tqdm(chosen, desc="mining", unit="change", disable=not show,
                        file=sys.stderr, leave=False):
            rows.append(_mine_one(sha, commits, own[sha],
                                  changes.get(sha, []), patches.get(sha, ""), objects, blobs,
                                  options, reverted_refs, roots))
    tasks = pd.DataFrame(rows, columns=TASK_COLUMNS)
    return Mined(tasks, options, tuple(warnings), dict(sorted(roots.items())))


def _warnings(repo: Repo, options: MineOptions, chosen: Sequence[str], mainline: Sequence[str],
              commits: dict[str, CommitInfo]) -> list[str]:
    """What a user must know about the history mined: shallow, nothing to mine."""
    found = []
    if repo.shallow:
        found.append("the clone is shallow: its history stops at grafted commits, so changes "
                     "before them are missing and branch authors and revert flags can be "
                     "wrong; fetch the full history (git fetch --unshallow)")
    if not chosen:
        singles = sum(1 for s in mainline if len(commits[s].parents) == 1)
        what = ("no commit with a parent" if options.every_commit else
                "no merge commit and no squash-merged pull request (title ending '(#N)')")
        hint = (f"; its {singles} single-parent commit(s) are changes with --every-commit"
                if singles and not options.every_commit else "")
        found.append(f"nothing to mine on the first-parent history of {options.branch}: "
                     f"{what}{hint}")
    return found


def _mine_one(sha: str, commits: dict[str, CommitInfo], own: list[str],
              changed: list[tuple[str, str]], patch: str, objects: ObjectReader, blobs: Blobs,
              options: MineOptions, reverted_refs: dict[str, set[str]],
              vendored: dict[str, str]) -> dict:
    commit = commits[sha]
    parent = commit.parents[0]
    parent_files, after_files = objects.files(parent), objects.files(sha)
    attributes = [p for f in (parent_files, after_files) if ".gitattributes" in f
                  for p in attribute_excludes(blobs.text(f[".gitattributes"]))]
    if options.vendored:
        for files in (parent_files, after_files):
            for root, why in nested_roots(files, blobs.sets_version).items():
                vendored.setdefault(root, why)
        for files in (parent_files, after_files):
            for root, why in beside_roots(files, vendored).items():
                vendored.setdefault(root, why)
    roots = [f"{r}/*" for r in vendored] if options.vendored else []
    patterns = tuple(dict.fromkeys((*options.exclude, *attributes, *roots)))

    def excluded(path: str) -> bool:
        return is_excluded(path, patterns)

    split = split_changes(changed, patterns)
    generated = [glob.escape(p) for p in (*split.edit_set, *split.added)
                 if is_generated(blobs.text(after_files.get(p) or parent_files.get(p) or ""))]
    if generated:  # a tool's output (pip-compile) is excluded however it is named
        patterns = (*patterns, *generated)
        split = split_changes(changed, patterns)
    wanted = {*split.edit_set, *split.added}
    diffs = {p: d for p, d in parse_diff(patch).items() if p in wanted}
    symbols = changed_symbols(diffs.values())
    changed_lines = [ln for d in diffs.values() for ln in (*d.added, *d.removed)]
    own_messages = [commits[c].message for c in reversed(own[1:])
                    if c in commits and len(commits[c].parents) == 1]
    text, body_dropped = task_text(commit.message, symbols, [*parent_files, *split.added],
                                   changed_lines, own_messages)
    desc = description(commit.message)

    tree = Snapshot(parent_files, blobs, excluded)
    after = Snapshot(after_files, blobs, excluded)
    added_code = {}
    for p in sorted(wanted):
        if p.endswith(".py") and p in diffs and diffs[p].added:
            source, parsed = after.text(p) or "", after.load(p)
            lines = code_lines(source, diffs[p].added_at, parsed) if parsed else diffs[p].added
            added_code[p] = (source, lines, parsed.imports if parsed else None)
    sketches = Resolver(tree.files, tree.sketch)
    reads = read_set(edit_set=split.edit_set, tree=tree.files, added_code=added_code,
                     description=desc, definitions=tree.definitions,
                     locate=lambda *a: imported_files(sketches, *a), excluded=excluded)
    sig = [c for path in split.edit_set if path.endswith(".py")
           for c in signature_changes(path, tree.load(path), after.load(path))]
    sites = find_callers(sig, tree.files, tree.load, tree.text) if sig else []
    resolved = [s for s in sites if s.how not in NOT_CALLERS]
    unparsed = sorted({s.path for s in sites if s.how == "unparsed"}
                      | {p for p in split.edit_set if p.endswith(".py") and tree.text(p)
                         is not None and tree.load(p) is None and not excluded(p)})

    branch = [commits[c] for c in own if c in commits]
    first = branch[-1] if len(branch) > 1 else branch[0]
    author = first.author
    failed = []
    if is_bot([first.author, first.email, *merge_source(commit.message)], options.bots):
        failed.append("bot")
    mine = set(own)
    if _is_revert(commit.message, branch, mine):
        failed.append("revert")
    if _is_reverted(mine, reverted_refs):
        failed.append("reverted")
    title = split_title(desc)[0]
    if is_release(title):
        failed.append("release")
    if chore(title, commit.message):
        failed.append("chore")
    kind = doc_kind([*split.edit_set, *split.added, *split.bookkeeping])
    if kind is not None:
        failed.append(f"{kind}_only")
    if not options.min_files <= len(split.edit_set) <= options.max_files:
        failed.append("edit_files")
    if word_count(text) < options.min_words:
        failed.append("description")
    return {
        "task_id": sha[:12], "sha": sha, "parent": parent, "date": commit.date,
        "kind": ("merge" if len(commit.parents) > 1 else "squash"
                 if options.squash and is_squash_merge(commit.message) else "commit"),
        "author": author,
        "text": text, "description": desc, "body_dropped": body_dropped,
        "edit_set": list(split.edit_set), "added": list(split.added),
        "excluded": list(split.excluded), "bookkeeping": list(split.bookkeeping),
        "symbols": symbols, "read_set": list(reads),
        "read_from": reads, "signature_changes": [asdict(c) for c in sig],
        "callers": sorted({s.path for s in resolved}),
        "caller_sites": [asdict(s) for s in sites],
        "unresolved_calls": sum(s.how == "unresolved" for s in sites), "unparsed": unparsed,
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


def caller_resolution(tasks: pd.DataFrame) -> pd.DataFrame:
    """Caller sites by how they were resolved: ``how, sites, files, tasks, meaning``.

    ``files`` counts distinct (task, file) pairs; ``unresolved`` sites are
    counted here and never in a caller set (:mod:`ragnb.codetasks.callers`).
    """
    from ragnb.codetasks.callers import HOW

    rows = []
    for how, meaning in HOW.items():
        sites = [(t, s["path"]) for t, ss in zip(tasks["task_id"], tasks["caller_sites"])
                 for s in (ss or []) if s.get("how") == how]
        rows.append({"how": how, "sites": len(sites), "files": len(set(sites)),
                     "tasks": len({t for t, _ in sites}), "meaning": meaning})
    return pd.DataFrame(rows)


def exclusion_table(tasks: pd.DataFrame, options: MineOptions | None = None,
                    vendored: dict[str, str] | None = None) -> pd.DataFrame:
    """Files left out of the edit sets, by the pattern that matched: ``pattern, files, changes``.

    A file under a vendored root (``vendored``, :attr:`Mined.vendored`) is
    counted under that root and why; a file matching neither was marked by the
    repository's ``.gitattributes`` (``linguist-vendored`` / ``linguist-generated``).
    Bookkeeping files are counted by :func:`bookkeeping_table`.
    """
    from ragnb.codetasks.editset import matching_pattern

    options = options or MineOptions()
    counts: dict[str, tuple[int, set[str]]] = {}
    roots = vendored or {}
    for tid, files in zip(tasks["task_id"], tasks["excluded"]):
        for f in files or []:
            root = under_root(f, roots)
            key = (matching_pattern(f, options.exclude)
                   or (f"{root}/ (vendored: {roots[root]})" if root else None)
                   or ".gitattributes linguist-*")
            n, changes = counts.get(key, (0, set()))
            changes.add(tid)
            counts[key] = (n + 1, changes)
    rows = [{"pattern": k, "files": n, "changes": len(c)}
            for k, (n, c) in sorted(counts.items(), key=lambda kv: -kv[1][0])]
    return pd.DataFrame(rows, columns=["pattern", "files", "changes"])


def bookkeeping_table(tasks: pd.DataFrame) -> pd.DataFrame:
    """Bookkeeping files kept out of the edit sets, by name: ``file, changes``, most first."""
    counts: dict[str, int] = {}
    for files in tasks["bookkeeping"]:
        for f in files or []:
            counts[f] = counts.get(f, 0) + 1
    rows = [{"file": f, "changes": n} for f, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    return pd.DataFrame(rows, columns=["file", "changes"])
