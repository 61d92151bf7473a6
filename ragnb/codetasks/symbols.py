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
    comparing the two versions' syntax trees (:mod:`ragnb.codetasks.pysyntax`;
    a version that does not parse gives none).
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ragnb.codetasks.diff import FileDiff
from ragnb.codetasks.pysyntax import Module, parse_module

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


def parameter_diff(before: str, after: str) -> str:
    """What changed between two parameter lists, in a few characters.

    ``+p`` added, ``-p`` removed, ``~p`` its default, annotation or kind (positional,
    keyword-only, ``*args``) changed, ``reordered`` when the shared parameters moved;
    the lists as written when either does not parse.

    Examples
    --------
    >>> parameter_diff("self, method, path, root_path", "self, method, scheme, root_path, path")
    '+scheme, reordered'
    >>> parameter_diff("order, value, now=None", "order, *, now=1")
    '-value, ~now'
    """
    def read(text: str) -> dict[str, object] | None:
        try:
            args = ast.parse(f"def f({text}):\n    pass\n").body[0].args  # type: ignore[attr-defined]
        except SyntaxError:
            return None
        plain = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(plain) - len(args.defaults)) + list(args.defaults)
        out: dict[str, object] = {   # name -> kind, annotation, default
            a.arg: (kind, a.annotation and ast.unparse(a.annotation), d and ast.unparse(d))
            for kind, pairs in (("pos", zip(plain, defaults)),
                                ("kw", zip(args.kwonlyargs, args.kw_defaults)))
            for a, d in pairs}
        for star, a in (("*", args.vararg), ("**", args.kwarg)):
            if a is not None:
                out[a.arg] = star
        return out

    old, new = read(before), read(after)
    if old is None or new is None:
        return f"({before}) -> ({after})"
    parts = [f"+{p}" for p in new if p not in old] + [f"-{p}" for p in old if p not in new]
    parts += [f"~{p}" for p in old if p in new and old[p] != new[p]]
    shared = [p for p in old if p in new]
    if shared != [p for p in new if p in old]:
        parts.append("reordered")
    return ", ".join(parts) or "unchanged names"


def signature_changes(path: str, before: str | Module | None,
                      after: str | Module | None) -> list[SignatureChange]:
    r"""Functions of one Python file whose parameters differ between two versions.

    Both versions' syntax trees are compared (``Module.signatures`` of
    :mod:`ragnb.codetasks.pysyntax`: module-level functions, also under a
    module-level ``if``/``try``, and methods); a version may be given as text
    or as its parsed module. A version that is
    missing or does not parse gives no change.

    Examples
    --------
    >>> [(c.name, c.before, c.after) for c in signature_changes(
    ...     "bill.py", "def prorate(amount, days=30):\n    pass\n",
    ...     "def prorate(amount, cycle, days=31):\n    pass\n")]
    [('prorate', 'amount, days=30', 'amount, cycle, days=31')]
    """
    if before is None or after is None or not path.endswith(".py"):
        return []
    old = parse_module(path, before) if isinstance(before, str) else before
    new = parse_module(path, after) if isinstance(after, str) else after
    if old is None or new is None:
        return []
    changes = []
    for qualname, sig in old.signatures.items():
        other = new.signatures.get(qualname)
        if other is not None and sig.params != other.params:
            changes.append(SignatureChange(path, sig.name, qualname, sig.text, other.text))
    return changes
