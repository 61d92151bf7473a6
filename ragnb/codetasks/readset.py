"""Read set: files the author read and did not change, resolved in the parent tree.

An approximation (seed 002) from two sources, each entry saying which
identifier brought the file in (``read_from``: path -> ``["text:Name", ...]``):

``import:<name>``
    A name used on an added line of a changed Python file that the new
    version of the file imports (its parsed syntax tree says so) from a module of
    the parent tree
    (``from pkg.limits import rate_limited`` then ``rate_limited(...)``; an
    imported module used as ``limits.check(...)``) — the file defining the name
    was read, found through re-exports (``import click`` then ``click.echo``
    is the file defining ``echo``, not the package's ``__init__``); a module
    used without an attribute brings nothing in.
    Only imported names count, so words of docstrings and comments do not.
``text:<name>``, ``trace:<path>``
    Identifiers in the *code context* of the change's description — fenced
    code blocks, backticked spans, stack traces — that are defined
    (``def``/``class``/``func``/``function``) in exactly one file of the
    parent tree, and files a stack trace's ``File "..."`` line names. Prose is
    not code: in a fenced block a bare lowercase word counts only where the
    syntax marks it as a name (called ``name(``, an attribute ``.name``,
    ``import name``, ``class``/``def``), while ``CamelCase``, ``snake_case``
    and dotted names always count. Names shorter than :data:`MIN_IDENTIFIER`
    or in :data:`STOP_WORDS` never count.

Files already in the edit set, and vendored / lock / generated files, are
left out: the read set is what the author read *and did not change*. It
misses files read that leave no trace: an undercount in a known direction.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePosixPath

from ragnb.codetasks.pysyntax import import_bindings
from ragnb.codetasks.symbols import _COMMON, _STRING, identifiers

#: An import binding: name -> ``(level, module, attribute)``.
Bindings = dict[str, tuple[int, str, "str | None"]]

#: Shortest identifier that counts.
MIN_IDENTIFIER = 4
#: Words that are never identifiers of the read set, even in code context.
STOP_WORDS = frozenset({
    "self", "args", "kwargs", "none", "true", "false", "null", "main", "test", "tests",
    "data", "value", "values", "name", "names", "type", "types", "path", "file", "files",
    "text", "result", "default", "error", "errors", "item", "items", "keys", "list", "dict",
    "string", "object", "func", "function", "method", "class", "module", "config", "setup",
    "init", "param", "params", "option", "options", "example", "spam", "eggs", "line",
    "return", "import", "from", "print", "python", "traceback", "most", "recent", "call",
    "last", "usage", "help", "output", "input", "info", "debug", "warning",
})
#: File globs whose definitions are indexed.
SOURCE_SUFFIXES = (".py", ".go", ".js", ".jsx", ".ts", ".tsx")

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n(.*?)^[ \t]*\1", re.DOTALL | re.MULTILINE)
_TICKS = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_TRACE_FILE = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+(?:, in (?P<func>[\w<>]+))?',
                         re.MULTILINE)
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?(?P<name>[A-Z]\w*(?:Error|Exception|Warning))\b",
                        re.MULTILINE)
_CODE_NAME = re.compile(
    r"(?:(?<=\.)|(?<=\bimport )|(?<=\bclass )|(?<=\bdef )|(?<=\bfrom ))(?P<a>[A-Za-z_]\w*)"
    r"|(?P<b>[A-Za-z_]\w*)(?=\s*\()"
    r"|(?P<c>\b(?:[A-Z][a-z0-9]+){2,}\w*|\b[A-Za-z]\w*_\w+)")
_DEFS = re.compile(
    r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(?P<py>[A-Za-z_]\w*)"
    r"|\bfunc[ \t]+(?:\([^)]*\)[ \t]*)?(?P<go>[A-Za-z_]\w*)[ \t]*[\[(]"
    r"|\bfunction[ \t]*\*?[ \t]*(?P<js>[A-Za-z_$][\w$]*)[ \t]*\(", re.MULTILINE)



def defined_in(text: str) -> frozenset[str]:
    """Names a source file defines (any depth): ``def``, ``class``, ``func``, ``function``."""
    return frozenset(m["py"] or m["go"] or m["js"] for m in _DEFS.finditer(text))


def _usable(name: str) -> bool:
    return (len(name) >= MIN_IDENTIFIER and name.lower() not in STOP_WORDS
            and name not in _COMMON and not (name.startswith("__") and name.endswith("__")))


def text_identifiers(text: str) -> list[str]:
    r"""Identifiers in the code context of a description (see the module docstring).

    Examples
    --------
    >>> text_identifiers("Calling `Context.invoke` fails:\n\n```\n"
    ...                  "ctx = make_context(cli, args)\nthe command crashes\n```")
    ['Context', 'invoke', 'make_context']
    """
    found: set[str] = set()
    for m in _FENCE.finditer(text):
        for line in m.group(2).splitlines():
            code = line if _TRACE_FILE.match(line) else _strip_strings(line)
            for n in _CODE_NAME.finditer(code):
                found.add(n["a"] or n["b"] or n["c"])
    outside = _FENCE.sub(" ", text)
    for m in _TICKS.finditer(outside):
        found.update(re.findall(r"[A-Za-z_]\w*", m.group(1)))
    for m in _TRACE_FILE.finditer(text):
        if m["func"] and not m["func"].startswith("<"):
            found.add(m["func"])
    found.update(m["name"] for m in _EXCEPTION.finditer(text))
    return sorted(n for n in found if _usable(n))


def _strip_strings(line: str) -> str:
    """A line of code with string literals and the comment removed."""
    return _STRING.sub(" ", line).split("#", 1)[0]


def trace_files(text: str, files: Iterable[str]) -> dict[str, str]:
    """Files of the tree named by ``File "..."`` lines of a stack trace -> that path.

    A trace path matches the tree file sharing the longest tail of path parts
    (two parts at least: ``.../site-packages/click/core.py`` is
    ``src/click/core.py``), when one file shares it alone.
    """
    by_name: dict[str, list[str]] = {}
    for f in files:
        by_name.setdefault(PurePosixPath(f).name, []).append(f)
    found = {}
    for m in _TRACE_FILE.finditer(text):
        parts = PurePosixPath(m["path"].replace("\\", "/")).parts
        if len(parts) < 2:
            continue
        best, best_n = [], 1
        for f in by_name.get(parts[-1], []):
            fp = PurePosixPath(f).parts
            n = 0
            while n < min(len(fp), len(parts)) and fp[-1 - n] == parts[-1 - n]:
                n += 1
            if n > best_n:
                best, best_n = [f], n
            elif n == best_n and n > 1:
                best.append(f)
        if len(best) == 1:
            found[best[0]] = m["path"]
    return found


def read_set(*, edit_set: Iterable[str], tree: Iterable[str],
             added_code: Mapping[str, tuple[str, list[str], Bindings | None]],
             description: str,
             definitions: Callable[[Iterable[str]], Mapping[str, set[str]]],
             locate: Callable[[str, tuple, list[str]], Iterable[str]],
             excluded: Callable[[str], bool]) -> dict[str, list[str]]:
    """Read-set files -> the identifiers that brought each in (see the module docstring).

    Parameters
    ----------
    edit_set : iterable of str
    tree : iterable of str
        Files of the parent tree.
    added_code : mapping
        Changed Python file -> ``(its text after the change, its added lines,
        its import bindings)``: the lines with multi-line strings blanked and the
        bindings from the parsed module (:mod:`ragnb.codetasks.pysyntax`), so a
        docstring's words and ``import`` lines count for nothing; bindings
        ``None`` (a file that does not parse): read from the text
        (:func:`import_bindings`).
    description : str
        The change's description (before stripping).
    definitions : callable
        Names -> ``{name: files of the parent tree defining it}``.
    locate : callable
        ``(importing file, import binding, attributes used on it)`` -> the
        files defining what is used (a name followed through re-exports; for a
        module, each attribute used) — :func:`ragnb.codetasks.callers.imported_files`.
    excluded : callable
        Whether a path is vendored, lock or generated.
    """
    edits = set(edit_set)
    tree = list(tree)
    found: dict[str, set[str]] = {}

    def add(path: str, why: str) -> None:
        if path not in edits and not excluded(path):
            found.setdefault(path, set()).add(why)

    if added_code:
        for path, (after, lines, parsed) in added_code.items():
            binds = parsed if parsed is not None else import_bindings(after)
            code = " ".join(_strip_strings(ln) for ln in lines)
            used: dict[str, list[str]] = {n: [] for n in identifiers(lines)}
            for dotted in re.findall(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", code):
                head, *attrs = dotted.split(".")
                used.setdefault(head, [])
                if attrs:
                    used[head].append(attrs[0])
            for name in sorted(used.keys() & binds.keys()):
                for target in locate(path, binds[name], used[name]):
                    if target != path:
                        add(target, f"import:{name}")
    names = text_identifiers(description)
    if names:
        for name, where in definitions(names).items():
            if len(where) == 1:
                add(next(iter(where)), f"text:{name}")
    for path in trace_files(description, tree):
        add(path, f"trace:{PurePosixPath(path).name}")
    return {p: sorted(found[p]) for p in sorted(found)}
