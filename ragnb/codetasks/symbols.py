"""Names in a change: changed symbols, identifiers it uses, signatures it alters.

Changed symbols
    Names defined on a changed line (``def``/``class`` in Python, ``func`` in
    Go, ``function`` in JavaScript/TypeScript) and names in the hunk headers
    (git's diff driver puts the enclosing function there). They are stripped
    from the task text (:mod:`ragnb.codetasks.text`).
Identifiers
    Every name on an added line, comments and string literals removed, minus
    keywords, builtins and dunder names: what the change introduced or
    modified, resolved to definitions by :mod:`ragnb.codetasks.readset`.
Signature changes
    A Python function or method defined in the parent and after the change
    whose parameters changed (names or kinds — positional-only, ``*args``,
    keyword-only, ``**kwargs``; defaults and annotations do not count), found by
    comparing the two versions' syntax trees (files that do not parse are
    skipped).
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ragnb.codetasks.diff import FileDiff

#: A definition on one line: Python ``def``/``class``, Go ``func`` (methods too), JS ``function``.
DEFINITION = re.compile(
    r"^\s*(?:async\s+)?(?:def|class)\s+(?P<py>[A-Za-z_]\w*)"
    r"|\bfunc\s+(?:\([^)]*\)\s*)?(?P<go>[A-Za-z_]\w*)\s*[\[(]"
    r"|\bfunction\s*\*?\s*(?P<js>[A-Za-z_$][\w$]*)\s*\(")
_NAME = re.compile(r"[A-Za-z_]\w*")
_STRING = re.compile(r"""(?:[rbuf]{0,2})("[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*')""",
                     re.IGNORECASE)
_COMMON = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | {
    "self", "cls"}


def defined_names(line: str) -> list[str]:
    """Names a line defines (``def``, ``class``, ``func``, ``function``).

    Examples
    --------
    >>> defined_names("    async def fetch_page(url):"), defined_names("func (s *Srv) Serve(l net.Listener) {")
    (['fetch_page'], ['Serve'])
    """
    return [m["py"] or m["go"] or m["js"] for m in DEFINITION.finditer(line)]


def changed_symbols(diffs: Iterable[FileDiff]) -> list[str]:
    """Sorted names defined on the changed lines or named in the hunk headers."""
    names: set[str] = set()
    for d in diffs:
        for line in (*d.added, *d.removed, *d.contexts):
            names.update(defined_names(line))
    return sorted(names)


def identifiers(lines: Iterable[str]) -> list[str]:
    """Sorted names used on ``lines``, without comments, strings, keywords and builtins.

    Examples
    --------
    >>> identifiers(['    total = rate_limited(order.amount, "per day")  # retry once'])
    ['amount', 'order', 'rate_limited', 'total']
    """
    names: set[str] = set()
    for line in lines:
        code = _STRING.sub(" ", line).split("#", 1)[0]
        names.update(n for n in _NAME.findall(code)
                     if n not in _COMMON and not (n.startswith("__") and n.endswith("__")))
    return sorted(names)


@dataclass(frozen=True)
class SignatureChange:
    """A function whose parameters changed.

    Attributes
    ----------
    path : str
        The file that defines it (in the parent).
    name : str
        The function's name (what callers write before ``(``).
    qualname : str
        ``Class.method`` for a method, else the name.
    before, after : str
        The parameter lists, as written (defaults and annotations included).
    """

    path: str
    name: str
    qualname: str
    before: str
    after: str


def _params(args: ast.arguments) -> tuple:
    return (tuple(a.arg for a in args.posonlyargs), tuple(a.arg for a in args.args),
            args.vararg.arg if args.vararg else None, tuple(a.arg for a in args.kwonlyargs),
            args.kwarg.arg if args.kwarg else None)


def _functions(text: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """Module-level functions and class methods (nested classes too) by qualified name."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(prefix + node.name, node)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found


_DEF_START = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(", re.MULTILINE)


def def_headers(text: str) -> Counter:
    """Every ``def name(...)`` header of a Python text, whitespace removed, counted.

    A cheap test before parsing: two versions with the same headers cannot
    differ in any function's parameters.
    """
    found: Counter = Counter()
    for m in _DEF_START.finditer(text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        found["".join(text[m.start():i].split())] += 1
    return found


def signature_changes(path: str, before: str | None, after: str | None) -> list[SignatureChange]:
    """Functions of one Python file whose parameters differ between two versions.

    Examples
    --------
    >>> [(c.name, c.before, c.after) for c in signature_changes(
    ...     "bill.py", "def prorate(amount, days=30):\\n    pass\\n",
    ...     "def prorate(amount, cycle, days=31):\\n    pass\\n")]
    [('prorate', 'amount, days=30', 'amount, cycle, days=31')]
    """
    if before is None or after is None or not path.endswith(".py"):
        return []
    if def_headers(before) == def_headers(after):     # no ``def`` line changed: no parse
        return []
    old, new = _functions(before), _functions(after)
    if old is None or new is None:
        return []
    changes = []
    for qualname, node in old.items():
        other = new.get(qualname)
        if other is not None and _params(node.args) != _params(other.args):
            changes.append(SignatureChange(path, node.name, qualname, ast.unparse(node.args),
                                           ast.unparse(other.args)))
    return changes
