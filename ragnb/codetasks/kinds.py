"""What kind of change a merged change is: by a bot, docs only, changelog only.

Bot authors
    A change is a bot's when the author of its first commit on the branch (the
    commit itself for a squash-merged change) or the owner in the merge line
    (``Merge pull request #12 from owner/branch``) matches one of
    :data:`DEFAULT_BOTS` (``*`` and ``?`` wildcards, ``[`` literal, any case,
    on the author's name and the e-mail's local part), or the merged branch is
    one only bots open (:data:`BOT_BRANCHES`, e.g. ``dependabot/pip/...``).
Changelog only
    Every changed file (edit set and added, excluded files aside) is a
    changelog: ``CHANGES``, ``CHANGELOG``, ``HISTORY``, ``NEWS``,
    ``RELEASE_NOTES``, ``WHATSNEW`` (any extension) or a fragment in
    ``changelog.d/``, ``changes/``, ``newsfragments/`` or ``.changeset/``.
Release
    The title says it cuts a release (:func:`is_release`): ``v2.31.0``,
    ``Release 2.0``, ``Version 0.28.1 (#3445)``, ``Bump version to 1.2``.
Chore
    The title or merge line says it is housekeeping (:func:`chore`): a dependency
    bump, a formatting pass, a merge of a maintenance branch.
Config only
    Every changed file is configuration, CI or packaging metadata
    (:func:`is_config`: ``.github/``, ``tox.ini``, ``setup.cfg``,
    ``pyproject.toml``, ``requirements*.txt``, ``Makefile``,
    ``.pre-commit-config.yaml`` ...; Python files such as ``setup.py`` are
    code) or documentation, and at least one is configuration.
Docs only
    Every changed file is documentation (changelogs included, but not all of
    them changelogs): under ``docs/``, ``doc/`` or ``documentation/``, a
    Markdown / reStructuredText / AsciiDoc file, or a ``README``, ``LICENSE``,
    ``AUTHORS``, ``CONTRIBUTING`` or ``CODE_OF_CONDUCT`` file.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

#: Author patterns of bots (override with ``bots=``).
DEFAULT_BOTS: tuple[str, ...] = (
    "*[bot]", "dependabot*", "renovate*", "pre-commit-ci*", "github-actions*",
    "greenkeeper*", "pyup*bot*", "snyk-bot*", "imgbot*", "allcontributors*", "mergify*",
    "deepsource-autofix*", "whitesource*", "web-flow-bot*",
)
#: Branches only bots open (matched on the merge line's branch, not configurable).
BOT_BRANCHES: tuple[str, ...] = ("dependabot/*", "renovate/*", "pre-commit-ci-update-config",
                                 "greenkeeper/*", "snyk-fix-*", "snyk-upgrade-*", "imgbot",
                                 "all-contributors/*", "pyup-*", "whitesource/*")
_CHANGELOG_NAMES = ("changes", "changelog", "history", "news", "release_notes",
                    "release-notes", "releasenotes", "whatsnew")
_CHANGELOG_DIRS = {"changelog.d", "changes", "newsfragments", ".changeset", "changelog"}
_CREDIT_NAMES = ("authors", "contributors", "credits", "thanks", "maintainers", "owners",
                 "codeowners", "mailmap", ".mailmap")
_DOC_DIRS = {"docs", "doc", "documentation"}
_CONFIG_DIRS = {".github", ".circleci", ".gitlab", ".azure-pipelines", ".buildkite", ".ci",
                ".devcontainer", "requirements"}
_CONFIG_NAMES = {"tox.ini", "setup.cfg", "pyproject.toml", "manifest.in", "makefile",
                 "pytest.ini", "mypy.ini", ".coveragerc",
                 ".flake8", ".pylintrc", "pylintrc", ".editorconfig", ".gitignore",
                 ".gitattributes", ".pre-commit-config.yaml", ".readthedocs.yml",
                 ".readthedocs.yaml", "codecov.yml", ".codecov.yml", ".travis.yml",
                 "appveyor.yml", ".appveyor.yml", "azure-pipelines.yml", ".gitlab-ci.yml",
                 "dockerfile", ".dockerignore", "ruff.toml", ".ruff.toml", "renovate.json",
                 ".mailmap", "pipfile", "pipfile.lock", "environment.yml", "tox.toml"}
_RELEASE = re.compile(
    r"^(?:(?:release|releasing|released|version|prepare|preparing|cut|tag|bump(?:ed|ing)?"
    r"(?: the)? version(?: to)?)(?:\s+(?:version|v))?\s+)?v?\d+(?:\.\d+)+[\w.+-]*"
    r"(?:\s+(?:release|final|changelog|in history))?\.?$"
    r"|^(?:prepare|preparing|prep)\s+(?:for\s+)?(?:the\s+)?(?:next\s+)?release\b",
    re.IGNORECASE)
#: Branches whose merge brings maintenance work back: any way (``Merge branch '2.3.x'``)
#: and, from a pull request, only version and stable branches (a fork's ``main`` is a
#: person's change).
_MAINTENANCE = r"\d+(?:\.\d+)*\.x|stable|maint\S*"
#: ``Merge branch '0.10-maintenance'`` too (werkzeug): a version before the name; from a
#: fork's pull request such a branch is a person's fix (``alexhenrie/0.14-maintenance``).
_SYNCED = (_MAINTENANCE + r"|v?\d+(?:\.\d+)*[-_](?:stable|maint\S*)"
           r"|release[-/]\S+|main|master|develop")
#: Titles of housekeeping changes (:func:`chore`), by what they are.
_CHORES = {
    "dependency bump": re.compile(
        r"^(?:\[?(?:deps?|build|chore)\]?(?:\(\w+\))?:?\s+)?"
        r"(?:bump|bumps|bumped|upgrade|update|pin|unpin)\s+"
        r"(?:(?:the\s+)?(?:requirements|dependencies|deps|dev[- ]dependencies|pins|"
        r"lock\s?files?|pinned\s+\S+)\b"
        r"|[\w.\[\]-]+(?:\s+(?:from\s+\S+\s+)?to)?\s+v?\d+(?:\.\d+)+\S*\s*$"
        r"|[\w.\[\]-]+\s+requirement\b)", re.IGNORECASE),
    "formatting pass": re.compile(
        r"^(?:\w+:\s+)?(?:(?:run|apply|ran|applied)\s+(?:the\s+)?(?:black|isort|ruff format|"
        r"pyupgrade|autopep8|yapf|prettier)\b|(?:re)?format(?:ted|ting)?\s+(?:\w+\s+)*?"
        r"(?:with|using|by)\s+(?:black|ruff|isort|yapf|autopep8|prettier)\b"
        r"|(?:black|isort|ruff format|pyupgrade)\s*(?:formatting|pass|reformat)?\s*$"
        r"|(?:re)?format\s+(?:all\s+|the\s+)?(?:code|codebase|files|sources)\s*$"
        r"|pre-commit autoupdate\b|\[pre-commit\.ci\])", re.IGNORECASE),
    "maintenance-branch merge": re.compile(
        rf"^merge\s+(?:(?:remote-tracking\s+)?branch\s+)?'?(?:origin/)?(?:{_SYNCED})'?"
        r"(?:\s+into\s+\S+)?\s*$", re.IGNORECASE),
}
_MAINTENANCE_BRANCH = re.compile(rf"^(?:{_MAINTENANCE})$", re.IGNORECASE)
_SYNCED_BRANCH = re.compile(rf"^(?:{_SYNCED})$", re.IGNORECASE)
_MERGE_BRANCH = re.compile(r"^Merge (?:remote-tracking )?branch '([^']+)'")
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_DOC_SUFFIXES = {".md", ".rst", ".adoc", ".asciidoc", ".markdown"}
_DOC_NAMES = ("readme", "license", "licence", "authors", "contributing", "code_of_conduct",
              "contributors", "copying", "notice")
_MERGE_FROM = re.compile(r"^Merge pull request #\d+ from (?P<owner>[^/\s]+)/(?P<branch>\S+)")


def is_bot(names: Iterable[str], patterns: Sequence[str] = DEFAULT_BOTS) -> bool:
    """Whether any of ``names`` (authors, e-mails, branch names) matches a bot pattern.

    Examples
    --------
    >>> is_bot(["dependabot[bot]"]), is_bot(["pre-commit-ci"]), is_bot(["Ada Lovelace"])
    (True, True, False)
    """
    for name in names:
        name = name.strip().lower()
        if "@" in name:
            name = name.split("@", 1)[0]
        if name and any(_glob(p).fullmatch(name) for p in patterns):
            return True
    return False


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern:
    """A pattern where only ``*`` and ``?`` are wildcards (``[bot]`` is literal), any case."""
    return re.compile(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."), re.IGNORECASE)


def merge_source(message: str) -> list[str]:
    """Who a ``Merge pull request #N from owner/branch`` line names as a bot (else ``[]``).

    The owner (a bot account pushing to its own fork) and the branch when it
    is one bots open (:data:`BOT_BRANCHES`): a person's branch named
    ``github-actions`` or ``pre-commit-ci-schedule`` is not a bot's.

    Examples
    --------
    >>> merge_source("Merge pull request #9 from pallets/dependabot/pip/requests-2.32")
    ['pallets', 'dependabot[bot]']
    >>> merge_source("Merge pull request #8 from pallets/pre-commit-ci-schedule")
    ['pallets']
    """
    m = _MERGE_FROM.match(message.strip())
    if not m:
        return []
    bot_branch = any(_glob(p).fullmatch(m["branch"]) for p in BOT_BRANCHES)
    return [m["owner"], *(["dependabot[bot]"] if bot_branch else [])]


def is_changelog(path: str) -> bool:
    """Whether ``path`` is a changelog or a changelog fragment."""
    p = PurePosixPath(path)
    stem = p.name.lower().split(".")[0]
    return stem in _CHANGELOG_NAMES or bool(_CHANGELOG_DIRS & {d.lower() for d in p.parts[:-1]})


def is_bookkeeping(path: str) -> bool:
    """Whether ``path`` is a bookkeeping file: a changelog (or fragment) or a credits list.

    Credits lists: ``AUTHORS``, ``CONTRIBUTORS``, ``CREDITS``, ``THANKS``,
    ``MAINTAINERS``, ``CODEOWNERS``, ``.mailmap`` (any extension, any depth).
    They change with a change without being what it changes: kept out of the
    edit set and counted (:mod:`ragnb.codetasks.editset`).

    Examples
    --------
    >>> is_bookkeeping("HISTORY.rst"), is_bookkeeping("AUTHORS.rst"), is_bookkeeping("news/1.md")
    (True, True, False)
    >>> is_bookkeeping("changes/1234.bugfix"), is_bookkeeping("src/authors.py")
    (True, False)
    """
    p = PurePosixPath(path)
    if p.suffix == ".py":
        return False
    name = p.name.lower()
    return is_changelog(path) or name.split(".")[0] in _CREDIT_NAMES or name in _CREDIT_NAMES


def is_doc(path: str) -> bool:
    """Whether ``path`` is documentation (a changelog is too)."""
    p = PurePosixPath(path)
    return (is_changelog(path) or bool(_DOC_DIRS & {d.lower() for d in p.parts[:-1]})
            or p.suffix.lower() in _DOC_SUFFIXES
            or p.name.lower().split(".")[0] in _DOC_NAMES)


def is_release(title: str) -> bool:
    """Whether a change's title says it cuts a release (see the module docstring).

    Examples
    --------
    >>> [is_release(t) for t in ("v2.31.0", "Release 2.0", "Version 0.28.0. (#3419)",
    ...                          "Release the connection on error", "Support Python 3.12")]
    [True, True, True, False, False]
    """
    return bool(_RELEASE.match(_PR_SUFFIX.sub("", title.strip())))


def chore(title: str, message: str = "") -> str | None:
    r"""What housekeeping a change is, from its title and merge line, else ``None``.

    ``dependency bump`` (``Bump attrs 2.3.7``, ``Update requirements``), ``formatting
    pass`` (``Run black``, ``Reformat with ruff``) or ``maintenance-branch merge`` (a
    title ``Merge 2.3.x into main``, or a merge line naming a branch such as ``2.3.x``,
    ``stable`` or ``main``). A change's own work named alike (``Update the bump
    logic``, ``Format dates with babel``) is not one.

    Examples
    --------
    >>> [chore(t) for t in ("Bump attrs 2.3.7", "update requirements", "Run black",
    ...                     "Merge 2.3.x into main", "Update the bump logic",
    ...                     "Format dates with babel")]  # doctest: +NORMALIZE_WHITESPACE
    ['dependency bump', 'dependency bump', 'formatting pass', 'maintenance-branch merge',
     None, None]
    >>> chore("Fix the parser", "Merge pull request #9 from pallets/2.3.x")
    'maintenance-branch merge'
    >>> chore("Reverts #669", "Merge branch '0.10-maintenance'\n\nReverts #669")
    'maintenance-branch merge'
    >>> chore("Include charset", "Merge pull request #1439 from alexhenrie/0.14-maintenance")
    """
    title = _PR_SUFFIX.sub("", title.strip())
    for what, pattern in _CHORES.items():
        if pattern.match(title):
            return what
    first = message.strip().split("\n", 1)[0]
    if m := _MERGE_FROM.match(first):
        branch, names = m["branch"], _MAINTENANCE_BRANCH
    elif m := _MERGE_BRANCH.match(first):
        branch, names = m[1].split("/")[-1], _SYNCED_BRANCH
    else:
        return None
    return "maintenance-branch merge" if names.match(branch) else None


def is_config(path: str) -> bool:
    """Whether ``path`` is configuration, CI or packaging (not the program's code).

    Examples
    --------
    >>> is_config(".github/workflows/ci.yml"), is_config("requirements-dev.txt")
    (True, True)
    >>> is_config("src/pkg/config.py"), is_config("docs/conf.py"), is_config("setup.py")
    (False, False, False)
    """
    p = PurePosixPath(path)
    name = p.name.lower()
    return (bool(_CONFIG_DIRS & {d.lower() for d in p.parts[:-1]}) or name in _CONFIG_NAMES
            or (name.startswith("requirements") and name.endswith((".txt", ".in")))
            or (len(p.parts) == 1 and name.endswith((".yml", ".yaml", ".toml", ".ini",
                                                      ".cfg"))))


def doc_kind(paths: Sequence[str]) -> str | None:
    """``changelog``, ``docs`` or ``config`` when every path is one, else ``None``.

    ``config``: every path is configuration or documentation, at least one configuration.

    Examples
    --------
    >>> doc_kind(["CHANGES.rst"]), doc_kind(["CHANGES.rst", "docs/api.rst"]), doc_kind(["a.py"])
    ('changelog', 'docs', None)
    >>> doc_kind(["tox.ini", ".github/workflows/ci.yml", "docs/index.rst"])
    'config'
    """
    if not paths:
        return None
    if all(is_changelog(p) for p in paths):
        return "changelog"
    if all(is_doc(p) for p in paths):
        return "docs"
    if all(is_config(p) or is_doc(p) for p in paths):
        return "config"
    return None
