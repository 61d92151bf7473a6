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
    >>> (defined_names("    async def fetch_page(url):"),
    ...  defined_names("func (s *Srv) Serve(l net.Listener) {"))
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


_BLOCK = re.compile(
    r"^([ \t]*)(?:async[ \t]+)?(?:(class)[ \t]+([A-Za-z_]\w*)"
    r"|(def[ \t]+([A-Za-z_]\w*)[ \t]*\((?:[^()]++|\((?:[^()]++|\([^()]*+\))*+\))*+\)))",
    re.MULTILINE)


def def_headers(text: str) -> dict[str, tuple[str, str]]:
    """Module-level functions and class methods (nested classes too): qualname -> header.

    The header is ``def name(...)`` as written (parameters, defaults,
    annotations; up to three levels of parentheses); found from ``def`` and
    ``class`` lines and their indentation, without parsing the file. A
    function nested in a function is not listed; of two definitions with the
    same qualified name the first is kept.
    """
    found: dict[str, tuple[str, str]] = {}
    stack: list[tuple[int, str, bool]] = []      # (indent, name, is a class)
    for m in _BLOCK.finditer(text):
        indent = len(m.group(1).expandtabs())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        is_class = m.group(2) is not None
        name = m.group(3) if is_class else m.group(5)
        if not is_class and all(c for _, _, c in stack):
            qualname = "".join(f"{n}." for _, n, _ in stack) + name
            found.setdefault(qualname, (name, m.group(4)))
        stack.append((indent, name, is_class))
    return found


def _arguments(header: str) -> ast.arguments | None:
    try:
        node = ast.parse(header + ": pass").body[0]
    except (SyntaxError, ValueError, IndexError):
        return None
    return node.args if isinstance(node, ast.FunctionDef) else None


def signature_changes(path: str, before: str | None, after: str | None) -> list[SignatureChange]:
    r"""Functions of one Python file whose parameters differ between two versions.

    Only the ``def`` headers whose text changed are parsed (:func:`def_headers`).

    Examples
    --------
    >>> [(c.name, c.before, c.after) for c in signature_changes(
    ...     "bill.py", "def prorate(amount, days=30):\n    pass\n",
    ...     "def prorate(amount, cycle, days=31):\n    pass\n")]
    [('prorate', 'amount, days=30', 'amount, cycle, days=31')]
    """
    if before is None or after is None or not path.endswith(".py"):
        return []
    old, new = def_headers(before), def_headers(after)
    changes = []
    for qualname, (name, header) in old.items():
        other = new.get(qualname)
        if other is None or "".join(header.split()) == "".join(other[1].split()):
            continue
        a, b = _arguments(header), _arguments(other[1])
        if a is not None and b is not None and _params(a) != _params(b):
            changes.append(SignatureChange(path, name, qualname, ast.unparse(a),
                                           ast.unparse(b)))
    return changes
