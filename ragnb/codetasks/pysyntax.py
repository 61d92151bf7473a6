"""A Python module read from its syntax tree: what it imports, defines and calls.

What the caller set needs (:mod:`ragnb.codetasks.callers`), read with :mod:`ast`
once per file version:

imports
    local name -> where it comes from: ``import a.b as c`` binds ``c`` to the
    module ``a.b``; ``from .x import Y as Z`` binds ``Z`` to the name ``Y`` of
    the module ``.x`` (relative imports are resolved against the file's folder
    later, :func:`resolve_module`).
classes
    top-level classes, their bases (as dotted names) and their methods.
strings, import_lines
    where each string literal spanning several lines (docstrings) starts and
    ends, and the lines of each import statement, so that their words are not
    read as uses (:func:`code_lines`).
aliases
    module-level names bound to another name (``s = attributes = attrs``), so
    ``attr.s(...)`` calls ``attrs``.
factories (``returns``)
    top-level function -> the class it returns, where the code shows it: a
    return annotation naming a class, or every ``return`` of the function
    being ``C(...)`` of one class ``C`` (a factory).
class_attrs, class_maps
    class-valued attributes — ``Cls = Foo`` in a class body or
    ``self.Cls = Foo`` in a method, so ``self.Cls(...)`` calls ``Foo`` — and
    names holding a dict, list or tuple of classes (``HANDLERS = {"a": A,
    "b": B}``, module level or class body), so ``HANDLERS[k](...)`` calls
    each of them.
signatures
    every function not inside another function — at module level, under a
    module-level ``if``/``try``/``with``, or a method of a (nested) class —
    by qualified name, with its parameters (:func:`params`); of two
    definitions with one qualified name the first is kept.
calls
    every call, with the dotted name it calls (``Command``, ``core.Command``,
    ``self.invoke``), the called attribute, and the receiver's class where
    the syntax tells it: ``self``/``cls`` in a method, a variable assigned
    ``X(...)`` or annotated ``x: X`` in the same function, ``X(...).m()``,
    ``super().m()`` (the enclosing class's bases). A variable holding a
    class (``cls = Command``, ``cls = attrs.pop("cls", None) or Argument``)
    and then called (in the same function or a function nested in it)
    counts as a call of that class; so do ``self.Cls(...)`` and
    ``HANDLERS[k](...)`` (see ``class_attrs``); so does a bare decorator
    (``@attr.s`` calls ``attr.s`` with the class). ``isinstance(x, C)`` in an
    ``if`` test (or an ``assert``) gives ``x`` the class ``C`` in that branch;
    an attribute a method assigns an instance (``self._netrc = NetRCInfo()``)
    gives ``self._netrc.m()`` the receiver ``NetRCInfo`` in the class's later
    methods (``attr_types``).
"""
from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Call:
    """One call site.

    Attributes
    ----------
    line : int
    callee : str or None
        The dotted name called (``Command``, ``click.Command``, ``self.invoke``),
        ``None`` when the callee is not a dotted name.
    attr : str
        The last name of the callee (the function or method name).
    receiver : str or None
        The receiver's class as a dotted name in this module when known
        (``self`` in a method of ``Cmd`` gives ``Cmd``); ``super`` for
        ``super().m()``; ``None`` for a plain name or an unknown receiver.
    in_class : str or None
        The top-level class the call is in.
    bound : tuple or None
        Where the callee's first name comes from when a function imports it
        (``def run(): from ._reloader import run_with_reloader``): that import,
        not a module-level name of the same spelling, is what the call reaches.
    """

    line: int
    callee: str | None
    attr: str
    receiver: str | None
    in_class: str | None
    bound: tuple[int, str, str | None] | None = None


@dataclass(frozen=True)
class Signature:
    """A function's parameters: ``params`` compares them, ``text`` shows them."""

    name: str
    params: tuple
    text: str


def params(args: ast.arguments) -> tuple:
    """Parameter names by kind (positional-only, positional, ``*args``, keyword-only, ``**kw``).

    Defaults and annotations do not count: a signature change is a change of
    what a caller may pass.
    """
    return (tuple(a.arg for a in args.posonlyargs), tuple(a.arg for a in args.args),
            args.vararg.arg if args.vararg else None, tuple(a.arg for a in args.kwonlyargs),
            args.kwarg.arg if args.kwarg else None)


@dataclass
class Module:
    """What one Python file imports, defines and calls (see the module docstring)."""

    path: str
    imports: dict[str, tuple[int, str, str | None]] = field(default_factory=dict)
    functions: set[str] = field(default_factory=set)
    classes: dict[str, tuple[list[str], set[str]]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    star: list[tuple[int, str]] = field(default_factory=list)
    signatures: dict[str, Signature] = field(default_factory=dict)
    strings: list[tuple[int, int, int, int]] = field(default_factory=list)
    import_lines: list[tuple[int, int]] = field(default_factory=list)
    returns: dict[str, str] = field(default_factory=dict)
    class_attrs: dict[str, dict[str, str]] = field(default_factory=dict)
    class_maps: dict[str, list[str]] = field(default_factory=dict)
    attr_types: dict[str, dict[str, str]] = field(default_factory=dict)
    fixtures: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    def defines(self, name: str) -> bool:
        return name in self.functions or name in self.classes


#: The receiver a test's or fixture's parameter gets (``FIXTURE + name``): pytest passes
#: it the fixture of that name (:attr:`Module.fixtures`, resolved by
#: :mod:`ragnb.codetasks.callers` in the file and its ``conftest.py`` files).
FIXTURE = "fixture:"
_FIXTURE_DECORATORS = {"pytest.fixture", "fixture", "pytest_asyncio.fixture"}


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` of a Name/Attribute chain (``None`` for anything else)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _annotation(node: ast.AST | None) -> str | None:
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.strip() or None
    if isinstance(node, ast.Subscript) and dotted(node.value) in ("t.Optional", "Optional",
                                                                 "typing.Optional"):
        return _annotation(node.slice)
    return dotted(node)


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: Module) -> None:
        self.m = module
        self.cls: str | None = None          # enclosing top-level class
        self.bases: list[str] = []
        self.types: list[dict[str, str]] = [{}]   # variable -> class, per function scope
        self.aliases: list[dict[str, str]] = [{}]  # variable -> the name it holds (`cls = C`)
        self.imported: list[dict[str, tuple[int, str, str | None]]] = [{}]  # per function
        self.depth = 0                       # nesting below module level
        self.qual: list[str] = []            # enclosing classes (outside any function)
        self.in_function = 0

    def visit_Import(self, node: ast.Import) -> None:
        self.m.import_lines.append((node.lineno, node.end_lineno or node.lineno))
        for a in node.names:                    # imports inside functions bind too
            if a.asname:
                self.m.imports[a.asname] = (0, a.name, None)
                self._local(a.asname, (0, a.name, None))
            else:                               # `import a.b` binds `a` (and `a.b`)
                head = a.name.split(".")[0]
                self.m.imports.setdefault(head, (0, head, None))
                self.m.imports.setdefault(a.name, (0, a.name, None))
                self._local(head, (0, head, None))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.m.import_lines.append((node.lineno, node.end_lineno or node.lineno))
        for a in node.names:
            if a.name == "*":
                self.m.star.append((node.level, node.module or ""))
            else:
                self.m.imports[a.asname or a.name] = (node.level, node.module or "", a.name)
                self._local(a.asname or a.name, (node.level, node.module or "", a.name))

    def _local(self, name: str, binding: tuple[int, str, str | None]) -> None:
        """An import inside a function binds the name in that function's scope."""
        if self.in_function:
            self.imported[-1][name] = binding

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if not self.in_function:
            self.qual.append(node.name)
            self._class(node)
            self.qual.pop()
        else:
            self._class(node)

    def _class(self, node: ast.ClassDef) -> None:
        self._decorators(node)
        if self.depth == 0:
            bases = [b for b in (dotted(x) for x in node.bases) if b]
            methods = {n.name for n in node.body
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            self.m.classes[node.name] = (bases, methods)
            outer = self.cls, self.bases
            self.cls, self.bases = node.name, bases
            self.depth += 1
            self.generic_visit(node)
            self.depth -= 1
            self.cls, self.bases = outer
        else:
            self.depth += 1
            self.generic_visit(node)
            self.depth -= 1

    def _decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """A bare decorator (``@attr.s``) calls its function with what it decorates."""
        for d in node.decorator_list:
            name = dotted(d) if isinstance(d, (ast.Name, ast.Attribute)) else None
            if name:
                self.m.calls.append(Call(d.lineno, name, name.rsplit(".", 1)[-1], None,
                                         self.cls))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._decorators(node)
        fixture = any(dotted(d.func if isinstance(d, ast.Call) else d) in _FIXTURE_DECORATORS
                      for d in node.decorator_list)
        if self.depth == 0:
            self.m.functions.add(node.name)
            made = _returned_class(node)
            if made:
                self.m.returns[node.name] = made
            if fixture:
                self.m.fixtures[node.name] = _returned_class(node, yields=True) or ""
        if not self.in_function:
            qualname = ".".join([*self.qual, node.name])
            if qualname not in self.m.signatures:
                self.m.signatures[qualname] = Signature(node.name, params(node.args),
                                                        ast.unparse(node.args))
        scope: dict[str, str] = {}
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        for i, a in enumerate(args):
            ann = _annotation(a.annotation)
            if ann:
                scope[a.arg] = ann
            elif i == 0 and self.cls and a.arg in ("self", "cls"):
                scope[a.arg] = self.cls
            elif (fixture or node.name.startswith("test")) and a.arg != "request":
                scope[a.arg] = FIXTURE + a.arg   # pytest passes the fixture of that name
        self.types.append(scope)
        self.aliases.append({})
        self.imported.append({})
        self.depth += 1
        self.in_function += 1
        self.generic_visit(node)
        self.in_function -= 1
        self.depth -= 1
        self.types.pop()
        self.aliases.pop()
        self.imported.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def _assign(self, targets: Iterable[ast.AST], value: ast.AST | None,
                annotation: ast.AST | None = None) -> None:
        kind = _annotation(annotation)
        if kind is None and isinstance(value, ast.Call):
            kind = dotted(value.func)
        alias = _class_reference(value)
        held = _class_collection(value)
        same = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        for t in targets:
            if same and self.depth == 0 and isinstance(t, ast.Name):
                self.m.aliases[t.id] = same          # `s = attributes = attrs`
            if self.in_function == 0 and isinstance(t, ast.Name):
                owner = f"{self.cls}." if self.cls and self.depth == 1 else ""
                if alias and owner:
                    self.m.class_attrs.setdefault(self.cls or "", {})[t.id] = alias
                if held and (owner or self.depth == 0):
                    self.m.class_maps[owner + t.id] = held
            if (self.cls and isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                    and t.value.id == "self"):
                if kind and kind.rsplit(".", 1)[-1][:1].isupper():
                    self.m.attr_types.setdefault(self.cls, {}).setdefault(t.attr, kind)
                if alias:
                    self.m.class_attrs.setdefault(self.cls, {})[t.attr] = alias
                if held:
                    self.m.class_maps[f"{self.cls}.{t.attr}"] = held
            if isinstance(t, ast.Name):
                self.aliases[-1].pop(t.id, None)
                if kind:
                    self.types[-1][t.id] = kind
                else:
                    self.types[-1].pop(t.id, None)
                if alias:
                    self.aliases[-1][t.id] = alias

    def visit_Assign(self, node: ast.Assign) -> None:
        self._assign(node.targets, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._assign([node.target], node.value, node.annotation)
        self.generic_visit(node)

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._assign([item.optional_vars], item.context_expr)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_Constant(self, node: ast.Constant) -> None:
        self._string(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self._string(node)
        self.generic_visit(node)

    def _string(self, node: ast.expr) -> None:
        end = node.end_lineno or node.lineno
        if end > node.lineno and isinstance(node, ast.JoinedStr) or (
                end > node.lineno and isinstance(getattr(node, "value", None), (str, bytes))):
            self.m.strings.append((node.lineno, node.col_offset, end, node.end_col_offset or 0))

    def visit_If(self, node: ast.If) -> None:
        narrowed = _isinstance(node.test)
        self.visit(node.test)
        scope = self.types[-1]
        before = scope.get(narrowed[0]) if narrowed else None
        if narrowed:
            scope[narrowed[0]] = narrowed[1]
        for stmt in node.body:
            self.visit(stmt)
        if narrowed:
            if before is None:
                scope.pop(narrowed[0], None)
            else:
                scope[narrowed[0]] = before
        for stmt in node.orelse:
            self.visit(stmt)

    def visit_Assert(self, node: ast.Assert) -> None:
        narrowed = _isinstance(node.test)
        if narrowed:
            self.types[-1][narrowed[0]] = narrowed[1]
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        callee = dotted(func)
        receiver = None
        refs = self._held_classes(func)
        if refs:                          # `self.Cls(...)`, `HANDLERS[k](...)`
            for ref in refs:
                self.m.calls.append(Call(node.lineno, ref, ref.rsplit(".", 1)[-1], None,
                                         self.cls))
            self.generic_visit(node)
            return
        if isinstance(func, ast.Attribute):
            attr = func.attr
            value = func.value
            if isinstance(value, ast.Name):
                receiver = self.types[-1].get(value.id)
            elif (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
                  and value.value.id == "self" and self.cls):     # `self._x = C()` earlier
                receiver = self.m.attr_types.get(self.cls, {}).get(value.attr)
            elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                  and value.func.id == "super"):
                receiver = "super"
            elif isinstance(value, ast.Call):
                receiver = dotted(value.func)
        elif isinstance(func, ast.Name):
            attr = func.id
            held = next((a[attr] for a in reversed(self.aliases) if attr in a), None)
            if held:                                   # `cls = Command` ... `cls(...)`
                callee, attr = held, held.rsplit(".", 1)[-1]
        else:
            attr = ""
        if attr:
            bound = None
            if callee and self.in_function:     # the module level's scope is never written
                head = callee.split(".", 1)[0]
                bound = next((s[head] for s in reversed(self.imported) if head in s), None)
            self.m.calls.append(Call(node.lineno, callee, attr, receiver, self.cls, bound))
        self.generic_visit(node)


    def _held_classes(self, func: ast.expr) -> list[str]:
        """Classes a callee holds: ``self.Cls`` (a class attribute), ``MAP[k]``, ``self.MAP[k]``."""
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in ("self", "cls") and self.cls):
            ref = self.m.class_attrs.get(self.cls, {}).get(func.attr)
            return [ref] if ref else []
        if isinstance(func, ast.Subscript):
            name = dotted(func.value)
            if name and name.startswith(("self.", "cls.")) and self.cls:
                name = f"{self.cls}.{name.split('.', 1)[1]}"
            return list(self.m.class_maps.get(name or "", []))
        return []


def _isinstance(test: ast.expr) -> tuple[str, str] | None:
    """``(variable, class)`` of an ``isinstance(x, C)`` test (one class, a dotted name)."""
    if (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance" and len(test.args) == 2
            and isinstance(test.args[0], ast.Name)):
        cls = dotted(test.args[1])
        if cls and cls.rsplit(".", 1)[-1][:1].isupper():
            return test.args[0].id, cls
    return None


def _returned_class(node: ast.FunctionDef | ast.AsyncFunctionDef, yields: bool = False
                    ) -> str | None:
    """The class a function returns (with ``yields``, also yields: a fixture) where the code
    shows it (see ``returns``), else ``None``.
    """
    ann = _annotation(node.returns)
    if ann:
        return ann if ann.rsplit(".", 1)[-1][:1].isupper() else None
    made: set[str | None] = set()
    returned: set[str] = set()          # names returned: `app = Flask(...)` ... `return app`
    assigned: dict[str, set[str | None]] = {}
    stack: list[ast.AST] = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Return) or (yields and isinstance(n, ast.Yield)):
            value = n.value
            if isinstance(value, ast.Name):
                returned.add(value.id)
            else:
                made.add(dotted(value.func) if isinstance(value, ast.Call) else None)
            continue
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            value = n.value if not isinstance(n, ast.AugAssign) else None
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, set()).add(
                        dotted(value.func) if isinstance(value, ast.Call) else None)
        stack.extend(ast.iter_child_nodes(n))
    for var in returned:                # a name assigned anything but one class is unknown
        made |= assigned.get(var, {None})
    if len(made) == 1:
        name = next(iter(made))
        if name and name.rsplit(".", 1)[-1][:1].isupper():
            return name
    return None


def _class_collection(value: ast.AST | None) -> list[str]:
    """The classes a dict (its values), list, tuple or set literal holds (only classes)."""
    if isinstance(value, ast.Dict):
        items = list(value.values)
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        items = list(value.elts)
    else:
        return []
    refs = [dotted(v) if isinstance(v, (ast.Name, ast.Attribute)) else None for v in items]
    if refs and all(r and r.rsplit(".", 1)[-1][:1].isupper() for r in refs):
        return list(dict.fromkeys(r for r in refs if r))
    return []


def _class_reference(value: ast.AST | None) -> str | None:
    """The dotted name a variable is given when it holds a name, not a call's result.

    ``cls = Command``, ``cls = attrs.pop("cls", None) or Argument`` and
    ``cls = attrs.pop("cls", Option)`` (the default of a ``pop``/``get``) hold
    ``Command``, ``Argument`` and ``Option``.
    """
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        value = value.values[-1]
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("pop", "get") and len(value.args) == 2):
        value = value.args[1]
    if isinstance(value, (ast.Name, ast.Attribute)):
        name = dotted(value)
        return name if name and name.rsplit(".", 1)[-1][:1].isupper() else None
    return None


def parse_module(path: str, text: str) -> Module | None:
    r"""The :class:`Module` of one Python file (``None`` when it does not parse).

    What the compiler would warn about in the repository's code (``"\ "``, an invalid
    escape: a SyntaxWarning on every file from Python 3.12) is not the miner's to say.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    module = Module(path)
    _Visitor(module).visit(tree)
    return module


def code_lines(text: str, numbers: Iterable[int], module: Module | None) -> list[str]:
    r"""Lines ``numbers`` of ``text`` (1-based); multi-line strings and import statements blanked.

    A docstring's body is text, not code: its words are no identifiers and its
    ``import`` lines bind nothing. An import statement binds names but uses
    none (a change that tidies imports reads nothing). Single-line strings are
    left to the caller.
    Without a parsed ``module`` the lines are returned as they are.

    Examples
    --------
    >>> text = "def f():\n    '''Return a Thing.\n\n    import os\n    '''\n    return g()\n"
    >>> code_lines(text, [2, 4, 5, 6], parse_module("m.py", text))
    ['    ', '', '', '    return g()']
    """
    lines = text.splitlines()
    spans = module.strings if module is not None else []
    imports = module.import_lines if module is not None else []
    found = []
    for n in numbers:
        if not 1 <= n <= len(lines):
            continue
        if any(start <= n <= end for start, end in imports):
            found.append("")
            continue
        line = lines[n - 1]
        for start, col, end, end_col in spans:
            if start < n < end:
                line = ""
            elif n == start:
                line = line.encode()[:col].decode("utf-8", "replace")
            elif n == end:
                line = line.encode()[end_col:].decode("utf-8", "replace")
        found.append(line)
    return found


_FROM = re.compile(r"^[ \t]*from[ \t]+(?P<mod>\.*[\w.]*)[ \t]+import[ \t]+"
                   r"(?P<names>\([^)]*\)|(?:[^\n#;\\]*\\\n)*[^\n#;]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?P<names>(?:[^\n#;(\\]*\\\n)*[^\n#;(]+)",
                     re.MULTILINE)
_STAR = re.compile(r"^[ \t]*from[ \t]+(?P<mod>\.*[\w.]*)[ \t]+import[ \t]+\*", re.MULTILINE)
_TOP = re.compile(r"^(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)|^([A-Za-z_]\w*)[ \t]*[:=]",
                  re.MULTILINE)


def import_bindings(text: str) -> dict[str, tuple[int, str, str | None]]:
    r"""Names a Python file's import lines bind: name -> ``(level, module, attribute)``.

    A regular expression over the text (no parse): ``from .x import (a, b as c)``
    (or continued with backslashes) and ``import a.b as c`` at any indentation.

    Examples
    --------
    >>> import_bindings("from pkg.limits import rate_limited as rl\nimport pkg.billing")
    {'rl': (0, 'pkg.limits', 'rate_limited'), 'pkg': (0, 'pkg', None),
     'pkg.billing': (0, 'pkg.billing', None)}
    """
    found: dict[str, tuple[int, str, str | None]] = {}
    for m in _FROM.finditer(text):
        mod = m["mod"]
        level = len(mod) - len(mod.lstrip("."))
        names = re.sub(r"#[^\n]*|\\\n", " ", m["names"]).strip("() \t\n")
        for item in names.split(","):
            bits = item.split()
            if len(bits) == 1 and bits[0] != "*":
                found[bits[0]] = (level, mod[level:], bits[0])
            elif len(bits) == 3 and bits[1] == "as":
                found[bits[2]] = (level, mod[level:], bits[0])
    for m in _IMPORT.finditer(text):
        for item in m["names"].replace("\\\n", " ").split(","):
            bits = item.split()
            if len(bits) == 1:
                found.setdefault(bits[0].split(".")[0], (0, bits[0].split(".")[0], None))
                found.setdefault(bits[0], (0, bits[0], None))
            elif len(bits) == 3 and bits[1] == "as":
                found[bits[2]] = (0, bits[0], None)
    return found



def sketch_module(path: str, text: str) -> Module:
    """A :class:`Module` read without parsing: imports and top-level names only (no calls).

    Top-level ``def``/``class`` lines and assignments (``NAME =``) found by
    regular expression, imports by :func:`import_bindings` and star imports
    (``from ._api import *``); enough to follow a name through re-exports, at
    a fraction of a parse.
    """
    m = Module(path, imports=import_bindings(text))
    for hit in _STAR.finditer(text):
        mod = hit["mod"]
        m.star.append((len(mod) - len(mod.lstrip(".")), mod.lstrip(".")))
    for hit in _TOP.finditer(text):
        if hit.group(1) == "class":
            m.classes[hit.group(2)] = ([], set())
        else:
            m.functions.add(hit.group(2) or hit.group(3))
    return m


def module_names(path: str) -> list[str]:
    """Dotted names a Python file can be imported as, longest first.

    Examples
    --------
    >>> module_names("src/click/core.py"), module_names("pkg/__init__.py")
    (['src.click.core', 'click.core', 'core'], ['pkg'])
    """
    parts = path[:-3].split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[i:]) for i in range(len(parts))]


def module_index(paths: Iterable[str]) -> dict[str, list[str]]:
    """Dotted module name -> Python files it can name (every suffix of the path)."""
    return _module_index(tuple(sorted(p for p in paths if p.endswith(".py"))))


@lru_cache(maxsize=8)
def _module_index(paths: tuple[str, ...]) -> dict[str, list[str]]:
    index: dict[str, list[str]] = {}
    for p in paths:
        if p.endswith(".py"):
            for name in module_names(p):
                index.setdefault(name, []).append(p)
    return index


#: Where a project's top-level modules are imported from, in order: the repository root,
#: then the src layout and its variants (as dotted prefixes of a file's full name).
IMPORT_ROOTS = ("", "src.", "lib.", "python.")


def resolve_module(level: int, name: str, importer: str,
                   index: dict[str, list[str]]) -> str | None:
    """The file of module ``name`` imported from ``importer`` (``level`` dots), if unique.

    Absolute names take the only file whose path ends with ``name``, else the one that
    is ``name`` under an import root (:data:`IMPORT_ROOTS`: ``pkg`` is ``src/pkg/``
    before a fixture ``tests/x/pkg.py``); relative ones are resolved against
    ``importer``'s folder.
    """
    if level:
        folder = PurePosixPath(importer).parent
        for _ in range(level - 1):
            folder = folder.parent
        base = str(folder / name.replace(".", "/")) if name else str(folder)
        base = base.removeprefix("./")
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if candidate in index.get(name.split(".")[-1] if name else
                                      PurePosixPath(base).name, ()):
                return candidate
        return None
    found = index.get(name, [])
    if len(found) == 1:
        return found[0]
    for root in IMPORT_ROOTS:   # the import system's roots before any same-named file
        rooted = [p for p in found if module_names(p)[0] == f"{root}{name}"]
        if len(rooted) == 1:
            return rooted[0]
    return None
