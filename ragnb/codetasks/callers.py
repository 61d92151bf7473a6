"""Callers of changed signatures, resolved from the parent tree's syntax (not its text).

For each function whose parameters changed
(:func:`ragnb.codetasks.symbols.signature_changes`), every call site in the
other Python files of the parent tree that reaches it, each with how it was
resolved (:data:`HOW`). A name is followed through ``import``,
``from x import Y as Z``, module attributes (``core.Command``) and re-exports
(a package's ``__init__`` importing the name from a submodule), up to
:data:`MAX_HOPS` modules; a name a module imports from outside the tree
(``compat.py``: ``from json import JSONDecodeError``) stops there: that module
provides it.

What counts as a call of the changed function:

- a module-level function ``f``: calls of the name or attribute that resolves
  to ``f``;
- a constructor ``C.__init__``: instantiations ``C(...)``, instantiations of
  a subclass that does not define its own ``__init__``, and
  ``super().__init__(...)`` in a subclass — never a ``super().__init__`` of
  an unrelated class;
- a method ``C.m``: ``x.m(...)`` where the receiver's class is ``C`` or a
  subclass (``self`` in their methods, a variable assigned ``C(...)`` or
  annotated ``C``, narrowed by ``isinstance(x, C)``, assigned the result
  of a function that returns a ``C``, or a test's parameter naming a pytest fixture
  that returns a ``C``), ``C.m(...)``, ``super().m(...)`` in a
  subclass. Class-valued attributes and dicts of classes called
  (``self.Cls(...)``, ``HANDLERS[k](...)``) are constructor calls of those
  classes (:mod:`ragnb.codetasks.pysyntax`). A call
  ``x.m(...)`` whose receiver cannot be told (unknown, or the result of a
  function rather than a class) is **unresolved**: listed with
  ``how="unresolved"``, counted, and not in the caller set.

A file that could hold a call but does not parse as Python 3 (``except E, e:``)
is listed once with ``how="unparsed"`` (line 0), counted; calls of a function or
constructor in its text (``f(``, ``m.C(``, outside comments and triple-quoted
strings) that its import lines resolve to the changed one are callers
(``how="text"``); method calls there need types the text does not give.

Subclasses are found among the files with a ``class X(... C ...)`` line
(two rounds: a subclass of a subclass). A file is parsed only when its text
could hold a call: the name followed by ``(``, imported ``as`` another name,
or (for a method) ``.m(``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ragnb.codetasks.pysyntax import (
    FIXTURE,
    Call,
    Module,
    module_index,
    resolve_module,
    sketch_module,
)
from ragnb.codetasks.symbols import SignatureChange

#: How a caller entry was resolved.
HOW = {
    "import": "the name imported from the defining module (`from m import f`)",
    "alias": "imported under another name (`from m import f as g`)",
    "module": "an attribute of the imported module (`m.f(...)`, `import m as n`)",
    "reexport": "imported from a package that re-exports it",
    "class": "called on the class (`C.m(...)`)",
    "receiver": "a method called on a variable of the class (assigned or annotated)",
    "self": "`self.m(...)` / `cls.m(...)` in a subclass",
    "super": "`super().m(...)` in a subclass",
    "subclass": "instantiating a subclass that inherits the constructor",
    "factory": "a method called on what a function returns (`x = make()`, where `make` "
               "returns the class)",
    "fixture": "a method called on a pytest fixture that returns the class "
               "(`def test_x(app): app.run()`, the fixture in the file or a conftest.py)",
    "unresolved": "`x.m(...)` with a receiver of unknown class (not in the caller set)",
    "unparsed": "a file that could call it does not parse as Python 3 (not in the caller set)",
    "text": "in a file that does not parse as Python 3 (a Python 2 example): `f(` or `C(` in "
            "its code lines, the name resolved through its import lines",
}
#: Sites that are counted but never in a caller set.
NOT_CALLERS = frozenset({"unresolved", "unparsed"})
#: Most modules followed when chasing a re-exported name.
MAX_HOPS = 6

Symbol = tuple[str, "str | None"]   # (file, top-level name) or (file, None) for the module


@dataclass(frozen=True)
class CallerSite:
    """One call site of a changed function."""

    path: str
    line: int
    target: str
    how: str


class Resolver:
    """Names of the parent tree's Python files, resolved to the file and name defining them."""

    def __init__(self, paths: Iterable[str], load: Callable[[str], Module | None]) -> None:
        self.paths = [p for p in paths if p.endswith(".py")]
        self.known = set(self.paths)
        self.index = module_index(self.paths)
        self.load = load
        self._resolved: dict[tuple[str, str], tuple[Symbol, list[str], str] | None] = {}

    def _module(self, level: int, name: str, importer: str) -> str | None:
        return resolve_module(level, name, importer, self.index)

    def member(self, path: str, name: str, hops: int = 0) -> tuple[Symbol, bool] | None:
        """``name`` as an attribute of the module ``path``: ``(symbol, via re-export)``."""
        m = self.load(path)
        if m is None or hops > MAX_HOPS:
            return None
        if m.defines(name):
            return (path, name), hops > 0
        if name in m.imports:
            level, module, attr = m.imports[name]
            found = self._import(path, level, module, attr, hops + 1)
            if found is not None:
                return found[0], True
            if self._module(level, module, path) is None:   # an outside name it provides
                return (path, name), hops > 0
        if name in m.aliases:                              # `s = attributes = attrs`
            r = self._resolve(path, m.aliases[name], hops + 1)
            return ((r[0], r[2] != "local" or hops > 0) if r is not None and not r[1]
                    else None)
        if path.endswith("__init__.py"):                   # a submodule of the package
            sub = self._module(1, name, path)
            if sub is not None:
                return (sub, None), hops > 0
        for level, module in m.star:
            target = self._module(level, module, path)
            if target is not None:
                found = self.member(target, name, hops + 1)
                if found is not None:
                    return found[0], True
        return None

    def _import(self, importer: str, level: int, module: str, attr: str | None,
                hops: int) -> tuple[Symbol, bool] | None:
        target = self._module(level, module, importer)
        if attr is None:
            return ((target, None), False) if target is not None else None
        if target is not None:
            found = self.member(target, attr, hops)
            if found is not None:
                return found
        sub = self._module(level, f"{module}.{attr}" if module else attr, importer)
        return ((sub, None), False) if sub is not None else None

    def resolve(self, path: str, name: str) -> tuple[Symbol, list[str], str] | None:
        """A dotted name used in ``path``: ``(symbol, attributes left over, how)``.

        ``how`` is ``local`` (defined in ``path``), ``import``, ``alias``,
        ``module`` or ``reexport`` (:data:`HOW`).
        """
        key = (path, name)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(path, name)
        return self._resolved[key]

    def resolve_call(self, path: str, call: Call) -> tuple[Symbol, list[str], str] | None:
        """What a call's callee names: :meth:`resolve`, or, when the function it is in
        imports the callee's first name (``Call.bound``), through that import.
        """
        if call.bound is None or not call.callee:
            return self.resolve(path, call.callee or "")
        return self._resolve(path, call.callee, bound=call.bound)

    def _resolve(self, path: str, name: str, hops: int = 0,
                 bound: tuple[int, str, str | None] | None = None
                 ) -> tuple[Symbol, list[str], str] | None:
        m = self.load(path)
        if m is None or hops > MAX_HOPS:
            return None
        parts = name.split(".")
        if bound is not None:                        # a function's own import of the name
            head, k = parts[0], 1
            level, module, attr = bound
        else:
            if m.defines(parts[0]):
                return (path, parts[0]), parts[1:], "local"
            for k in range(len(parts), 0, -1):       # `import a.b` then `a.b.f(...)`
                head = ".".join(parts[:k])
                if head in m.imports:
                    break
            else:
                if parts[0] not in m.aliases:
                    return None
                held = self._resolve(path, ".".join([m.aliases[parts[0]], *parts[1:]]),
                                     hops + 1)
                return (held[0], held[1], "alias") if held is not None else None
            level, module, attr = m.imports[head]
        found = self._import(path, level, module, attr, 0)
        if found is None:
            return None
        symbol, reexport = found
        how = ("reexport" if reexport else "module" if attr is None
               else "alias" if head != attr else "import")
        rest = parts[k:]
        while rest and symbol[1] is None:              # attributes of a module
            inner = self.member(symbol[0], rest[0])
            if inner is None:
                return None
            symbol, rest = inner[0], rest[1:]
            how = "reexport" if inner[1] else ("module" if how in ("import", "alias") else how)
        return symbol, rest, how


def imported_files(resolver: Resolver, importer: str, binding: tuple[int, str, str | None],
                   attrs: Sequence[str]) -> list[str]:
    """Files defining what ``importer`` uses of one import binding (see ``readset.read_set``).

    ``from m import f`` gives the file defining ``f`` (through re-exports); an
    imported module gives, for each attribute used on it, the file defining it.
    """
    level, module, attr = binding
    found = resolver._import(importer, level, module, attr, 0)
    if found is None:
        return []
    (path, name), _ = found
    if name is not None:
        return [path]
    files = []
    for a in dict.fromkeys(attrs):
        inner = resolver.member(path, a)
        if inner is not None:
            files.append(inner[0][0])
    return files


def _subclasses(resolver: Resolver, files: Sequence[str], targets: set[Symbol],
                text: Callable[[str], str | None]) -> set[Symbol]:
    """Classes in ``files`` whose bases resolve to one of ``targets`` (or to one found)."""
    found: set[Symbol] = set()
    for _ in range(2):
        names = "|".join(sorted({re.escape(n) for _, n in targets | found if n}))
        # a base named by an alias ends with the name too (`from flask import Flask as _Flask`)
        line = re.compile(rf"^[ \t]*class[ \t]+\w+[ \t]*\([^)]*(?:{names})\b", re.MULTILINE)
        for path in files:
            t = text(path) or ""
            if "class" not in t or not line.search(t):
                continue
            m = resolver.load(path)
            if m is None:
                continue
            for name, (bases, _methods) in m.classes.items():
                for base in bases:
                    r = resolver.resolve(path, base)
                    if r is not None and not r[1] and r[0] in targets | found:
                        found.add((path, name))
    return found


def _aliased(names: set[str], texts: Iterable[str | None]) -> set[str]:
    """``names`` and the module-level names bound to them (``s = attributes = attrs``,
    ``BaseRequest = Request``), found in ``texts`` (two rounds: an alias of an alias).
    """
    out = set(names)
    found = [t for t in texts if t and "=" in t]
    for _ in range(2):
        alt = "|".join(map(re.escape, sorted(out)))
        line = re.compile(rf"^((?:[A-Za-z_]\w*[ \t]*=[ \t]*)+)(?:[\w.]*\.)?(?:{alt})[ \t]*"
                          r"(?:#.*)?$", re.MULTILINE)
        more = {n for t in found if any(n in t for n in out) for m in line.finditer(t)
                for n in re.findall(r"([A-Za-z_]\w*)[ \t]*=", m[1])}
        if more <= out:
            break
        out |= more
    return out


def _could_call(names: Iterable[str], method: str | None) -> Callable[[str | None], bool]:
    """Whether a text could hold a call of ``names`` (or of ``.method``): a test before parsing.

    The name followed by ``(``, by ``as`` (an alias) or by ``.attr(``, a bare
    decorator (``@attr.s``), or held by a variable at the end of a line
    (``cls = C``, ``... or C``, ``pop("cls", C)``).
    """
    names = sorted(set(names) | ({method} if method else set()))
    alt = "|".join(map(re.escape, names))
    extra = rf"|\.{re.escape(method)}\s*\(" if method else ""
    pattern = re.compile(rf"\b(?:{alt})(?:\s*\(|\s+as\b|\.\w+\s*\()"
                         rf"|(?:=|\bor|,|:|[{{(\[])\s*(?:\w+\.)*(?:{alt})\b\s*[,)}}\]]*\s*$"
                         rf"|^[ \t]*@(?:\w+\.)*(?:{alt})[ \t]*(?:#.*)?$"
                         + extra, re.MULTILINE)

    def could(text: str | None) -> bool:
        if not text:
            return False
        return any(n in text for n in names) and bool(pattern.search(text))

    return could


def find_callers(changes: Sequence[SignatureChange], paths: Iterable[str],
                 load: Callable[[str], Module | None],
                 text: Callable[[str], str | None]) -> list[CallerSite]:
    """Call sites of the changed functions in the parent tree (see the module docstring).

    Parameters
    ----------
    changes : sequence of SignatureChange
    paths : iterable of str
        Files of the parent tree (only ``.py`` files are read).
    load : callable
        Path -> :class:`~ragnb.codetasks.pysyntax.Module` (``None`` if it does not parse).
    text : callable
        Path -> its text (files are parsed only when it could hold a call).
    """
    resolver = Resolver(paths, load)
    sites: set[CallerSite] = set()
    for change in changes:
        if "." in change.qualname and change.qualname.count(".") > 1:
            continue                                     # a method of a nested class
        cls, _, method = change.qualname.rpartition(".")
        others = [p for p in resolver.paths if p != change.path]
        if cls:
            klass = (change.path, cls)
            subs = _subclasses(resolver, resolver.paths, {klass}, text)
            names = _aliased({cls} | {name for _, name in subs if name},
                             map(text, resolver.paths))
            could = _could_call(names, None if method == "__init__" else method)
            sub_files = {p for p, _ in subs}
            files = [p for p in others if p in sub_files or could(text(p))]
            sites.update(_method_sites(resolver, files, change, klass, subs, text))
        else:
            could = _could_call(_aliased({change.name}, map(text, resolver.paths)), None)
            files = [p for p in others if could(text(p))]
            sites.update(_function_sites(resolver, files, change, text))
    return sorted(sites, key=lambda s: (s.path, s.line, s.target, s.how))


def _text_sites(resolver: Resolver, path: str, source: str | None, change: SignatureChange,
                targets: set[Symbol]):
    """Calls of ``targets`` in a file that does not parse: ``name(`` or ``a.name(`` outside
    comments and triple-quoted strings, each resolved through the file's import lines
    (:func:`~ragnb.codetasks.pysyntax.sketch_module`); how ``text``.
    """
    if not source:
        return
    names = "|".join(sorted({re.escape(n) for _, n in targets if n}))
    code = re.sub(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'',
                  lambda m: "\n" * m[0].count("\n"), source)
    sketch = sketch_module(path, source)
    local = Resolver(resolver.paths, lambda p: sketch if p == path else resolver.load(p))
    call = re.compile(rf"(?<![\w.])((?:[A-Za-z_]\w*\.)*(?:{names}))\s*\(")
    for number, line in enumerate(code.split("\n"), start=1):
        for m in call.finditer(line.split("#", 1)[0]):
            r = local.resolve(path, m[1])
            if r is not None and not r[1] and r[0] in targets:
                yield CallerSite(path, number, change.qualname, "text")


def _function_sites(resolver: Resolver, files: Sequence[str], change: SignatureChange,
                    text: Callable[[str], str | None]):
    target = (change.path, change.name)
    for path in files:
        m = resolver.load(path)
        if m is None:
            yield CallerSite(path, 0, change.qualname, "unparsed")
            yield from _text_sites(resolver, path, text(path), change, {target})
            continue
        for call in m.calls:
            if call.callee is None or call.receiver is not None:
                continue
            r = resolver.resolve_call(path, call)
            if r is None:
                if "." in call.callee and call.attr == change.name:
                    yield CallerSite(path, call.line, change.qualname, "unresolved")
                continue
            if r[0] == target and not r[1]:
                yield CallerSite(path, call.line, change.qualname, r[2])


def _method_sites(resolver: Resolver, files: Sequence[str], change: SignatureChange,
                  klass: Symbol, subs: set[Symbol], text: Callable[[str], str | None]):
    method = change.name
    constructor = method == "__init__"
    family = _inheritors(resolver, klass, subs, method)
    inherits = family - {klass}

    def is_class(path: str, name: str) -> bool:
        r = resolver.resolve(path, name)
        if r is None or r[1] or r[0][1] is None:
            return False
        target = resolver.load(r[0][0])
        return target is not None and r[0][1] in target.classes

    def is_family(path: str, name: str | None) -> bool:
        if not name:
            return False
        r = resolver.resolve(path, name)
        return r is not None and not r[1] and r[0] in family

    def made_by(path: str, name: str) -> bool:
        """Whether ``name`` is a function whose returned class is in the family."""
        r = resolver.resolve(path, name)
        if r is None or r[1] or r[0][1] is None:
            return False
        home = resolver.load(r[0][0])
        made = home.returns.get(r[0][1]) if home is not None else None
        return made is not None and is_family(r[0][0], made)

    def fixture_of_family(path: str, name: str) -> bool:
        """Whether the fixture ``name`` a test in ``path`` gets returns a family class."""
        for home in _fixture_homes(path, resolver.known):
            m = resolver.load(home)
            if m is not None and name in m.fixtures:
                return is_family(home, m.fixtures[name])
        return False

    for path in files:
        m = resolver.load(path)
        if m is None:
            yield CallerSite(path, 0, change.qualname, "unparsed")
            if constructor:
                yield from _text_sites(resolver, path, text(path), change, family)
            continue
        for call in m.calls:
            how = None
            if constructor and call.callee and call.attr != method:
                r = resolver.resolve_call(path, call)
                if r is not None and not r[1]:
                    if r[0] == klass:  # a call inside the class's own module is no caller
                        how = r[2] if r[2] != "local" else None
                    elif r[0] in inherits:
                        how = "subclass"
            elif call.attr == method:
                if call.receiver == "super":
                    bases = _class_info(m, call.in_class)[0]
                    if any(is_family(path, b) for b in bases):
                        how = "super"
                elif call.receiver is not None and call.receiver.startswith(FIXTURE):
                    if fixture_of_family(path, call.receiver.removeprefix(FIXTURE)):
                        how = "fixture"
                    elif not constructor:
                        how = "unresolved"
                elif call.receiver is not None:
                    if is_family(path, call.receiver):
                        how = "self" if call.callee and call.callee.count(".") == 1 and (
                            call.callee.split(".")[0] in ("self", "cls")) else "receiver"
                    elif not constructor and made_by(path, call.receiver):
                        how = "factory"
                    elif not constructor and not is_class(path, call.receiver):
                        how = "unresolved"      # `bar = progressbar(...)`: not a class
                elif call.callee and "." in call.callee:
                    head = call.callee.rsplit(".", 1)[0]
                    r = resolver.resolve(path, head)
                    if r is None:
                        if not constructor:
                            how = "unresolved"
                    elif not r[1] and r[0] in family:
                        how = "class"
            if how:
                yield CallerSite(path, call.line, change.qualname, how)


_EMPTY = Module("")


def _inheritors(resolver: Resolver, klass: Symbol, subs: set[Symbol],
                method: str) -> set[Symbol]:
    """``klass`` and the subclasses whose ``method`` is its own: a subclass that defines
    ``method`` overrides it, and so do the subclasses that inherit from that one.

    A subclass inherits from the first of its bases that is ``klass`` or one of ``subs``
    (the order of the bases, as the MRO reads them).
    """
    family = {klass} | subs
    first: dict[Symbol, Symbol] = {}
    for sub in subs:
        m = resolver.load(sub[0]) or _EMPTY
        bases, methods = _class_info(m, sub[1])
        if method in methods:
            continue
        for base in bases:
            r = resolver.resolve(sub[0], base)
            if r is not None and not r[1] and r[0] in family:
                first[sub] = r[0]
                break
    reach = {klass}
    while True:
        more = {sub for sub, base in first.items() if base in reach} - reach
        if not more:
            return reach
        reach |= more


def _fixture_homes(path: str, known: set[str]) -> list[str]:
    """Where pytest looks for the fixtures of a test in ``path``: the file, then each
    ``conftest.py`` from its folder up to the root.
    """
    parts = path.split("/")[:-1]
    homes = [path]
    for i in range(len(parts), -1, -1):
        conftest = "/".join([*parts[:i], "conftest.py"])
        if conftest in known:
            homes.append(conftest)
    return homes


def _class_info(m: Module, name: str | None) -> tuple[list[str], set[str]]:
    """``(bases, methods)`` of class ``name`` in ``m`` (empty when it has no such class)."""
    return m.classes.get(name or "", ([], set()))
