"""Notebook parameters: the ``parameters`` cell, its declared types, checked values.

A notebook declares its parameters in exactly one code cell tagged
``parameters``, one line per parameter, in papermill's convention::

    data_dir: str = "../data/demo"  # folder with judgments and runs
    k: int = 10  # rank cut-off of the metric
    seed: int = 0  # seed of the bootstrap

so that ``papermill --help-notebook`` documents them. Papermill itself checks
no types and only *warns* about an unknown parameter; this module is the one
place where a notebook's parameters are read (:func:`read_parameters`) and a
value is checked against the declared type (:func:`resolve_value`), so a typo
or a mistyped value fails before any kernel starts.

Rules of the parameters cell (each broken rule is an :class:`~ragnb.errors.InputError`
naming the notebook and line):

- every statement is ``name: type = default  # help`` on one line;
- ``type`` is one of :data:`TYPES` (``int``, ``float``, ``str``, ``bool``,
  ``list``, ``list[int]``, ``list[float]``, ``list[str]``, ``dict``), or
  ``Optional[T]`` for one of the scalar types (``T | None`` is not read by
  papermill's parser, so it is refused);
- ``default`` is a Python literal of that type (the report header and the type
  check need its value without running the notebook);
- the help comment is not empty;
- papermill's own reader (:func:`papermill.inspect_notebook`) finds the same
  names in the same order (it silently skips, e.g., a line holding two ``=``).

A parameter named in :data:`ragnb.vocab.RANGES` (``resamples``, ``seed``, ``k``,
grades, shares) must lie in its range, the same bound the command line's options
and the workspace manifest apply (``-p resamples=1000000000`` is refused).

Values given on the command line arrive as text and are parsed to the declared
type (``-p k=20`` gives ``20``; ``-p strata=a,b`` or ``-p 'strata=["a","b"]'``
gives ``["a", "b"]``; ``-p flag=true|false|1|0|yes|no``; ``-p x=None`` for an
``Optional``). Python values are checked as they are (``True`` is not an ``int``;
an ``int`` is accepted for a ``float`` and converted).
"""
from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

import nbformat

from ragnb.errors import InputError, listed
from ragnb.vocab import out_of_range

#: Tag of the one cell holding a notebook's parameters (papermill's convention).
PARAMETERS_TAG = "parameters"
#: Tag papermill puts on the cell it injects with the values of a run.
INJECTED_TAG = "injected-parameters"

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_NONE = {"none", "null"}


@dataclass(frozen=True)
class ParamType:
    """One declarable parameter type.

    Attributes
    ----------
    name : str
        The annotation as written in the parameters cell (``"list[str]"``).
    check : callable
        ``check(value) -> value`` for a Python value: returns the value (possibly
        converted, e.g. ``int`` to ``float``) or raises ``ValueError``.
    parse : callable
        ``parse(text) -> value`` for text from the command line; raises
        ``ValueError`` when the text does not read as this type.
    """

    name: str
    check: Callable[[Any], Any] = field(repr=False)
    parse: Callable[[str], Any] = field(repr=False)


def _check_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError
    return value


def _check_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError
    return float(value)


def _check_str(value: Any) -> str:
    if isinstance(value, PathLike):
        return str(value)
    if not isinstance(value, str):
        raise ValueError
    return value


def _check_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError
    return value


def _parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError


def _literal(text: str) -> Any:
    """A Python or JSON literal from text (``[1, 2]``, ``{"a": 1}``, ``true``)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return json.loads(text)  # JSON's true/false/null; raises ValueError


def _list_of(element: ParamType | None) -> tuple[Callable, Callable]:
    def check(value: Any) -> list:
        if not isinstance(value, (list, tuple)):
            raise ValueError
        return [element.check(v) for v in value] if element else list(value)

    def parse(text: str) -> list:
        stripped = text.strip()
        if stripped.startswith("["):
            return check(_literal(stripped))
        if element is None:
            raise ValueError
        if not stripped:
            return []
        return [element.parse(part.strip()) for part in stripped.split(",")]

    return check, parse


def _check_dict(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError
    return dict(value)


_INT = ParamType("int", _check_int, lambda t: int(t.strip()))
_FLOAT = ParamType("float", _check_float, lambda t: float(t.strip()))
_STR = ParamType("str", _check_str, lambda t: t)
_BOOL = ParamType("bool", _check_bool, _parse_bool)

#: Registry of declarable types, keyed by the annotation text.
TYPES: dict[str, ParamType] = {
    t.name: t
    for t in (
        _INT,
        _FLOAT,
        _STR,
        _BOOL,
        ParamType("list", *_list_of(None)),
        ParamType("list[int]", *_list_of(_INT)),
        ParamType("list[float]", *_list_of(_FLOAT)),
        ParamType("list[str]", *_list_of(_STR)),
        ParamType("dict", _check_dict, lambda t: _check_dict(_literal(t.strip()))),
    )
}


def _optional(inner: ParamType) -> ParamType:
    def check(value: Any) -> Any:
        return None if value is None else inner.check(value)

    def parse(text: str) -> Any:
        return None if text.strip().lower() in _NONE else inner.parse(text)

    return ParamType(f"Optional[{inner.name}]", check, parse)


for _scalar in (_INT, _FLOAT, _STR, _BOOL):
    TYPES[f"Optional[{_scalar.name}]"] = _optional(_scalar)


def param_type(annotation: str) -> ParamType:
    """The registered type for an annotation (whitespace ignored).

    Raises
    ------
    KeyError
        When the annotation is not in :data:`TYPES`.
    """
    return TYPES["".join(annotation.split())]


@dataclass(frozen=True)
class Parameter:
    """A declared notebook parameter.

    Attributes
    ----------
    name, type, default, help : as declared in the parameters cell
        ``default`` is the literal's value (checked against ``type``).
    line : int
        1-based line in the parameters cell.
    """

    name: str
    type: ParamType
    default: Any
    help: str
    line: int


def tagged_cells(nb: nbformat.NotebookNode, tag: str) -> list[int]:
    """Indices of the cells carrying ``tag``."""
    return [i for i, c in enumerate(nb.cells) if tag in c.get("metadata", {}).get("tags", [])]


def read_parameters(path: str | PathLike[str]) -> dict[str, Parameter]:
    """Read and validate a notebook's declared parameters.

    Parameters
    ----------
    path : path
        The ``.ipynb`` file.

    Returns
    -------
    dict of str to Parameter
        In declaration order.

    Raises
    ------
    InputError
        When the notebook has no or several ``parameters`` cells, or a line of it
        breaks the rules in this module's docstring.
    """
    import papermill

    path = Path(path)
    source = path.name
    nb = nbformat.read(path, as_version=4)
    cells = tagged_cells(nb, PARAMETERS_TAG)
    if len(cells) != 1:
        found = "no cell" if not cells else f"{len(cells)} cells ({', '.join(map(str, cells))})"
        raise InputError(
            f"needs exactly one code cell tagged `{PARAMETERS_TAG}`, found {found}", source=source
        )
    cell = nb.cells[cells[0]]
    if cell.cell_type != "code":
        raise InputError(f"the `{PARAMETERS_TAG}` cell must be a code cell", source=source)
    text = cell.source
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise InputError(f"parameters cell: {exc.msg}", source=source, line=exc.lineno) from None
    lines = text.splitlines()
    declared = papermill.inspect_notebook(str(path))
    params: dict[str, Parameter] = {}
    for stmt in tree.body:
        line = stmt.lineno
        if not (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.value is not None
        ):
            raise InputError(
                "parameters cell: expected `name: type = default  # help`",
                source=source, line=line,
            )
        name = stmt.target.id
        if stmt.end_lineno != line:
            raise InputError(
                f"parameters cell: `{name}` must fit on one line", source=source, line=line
            )
        annotation = ast.get_source_segment(text, stmt.annotation) or ""
        try:
            ptype = param_type(annotation)
        except KeyError:
            raise InputError(
                f"parameters cell: `{name}` has type `{annotation}`; "
                f"declare one of {', '.join(TYPES)}",
                source=source, line=line,
            ) from None
        try:
            default = ptype.check(ast.literal_eval(stmt.value))
        except ValueError:
            raise InputError(
                f"parameters cell: the default of `{name}` must be a literal {ptype.name}, "
                f"got `{ast.get_source_segment(text, stmt.value)}`",
                source=source, line=line,
            ) from None
        info = declared.get(name)
        inferred = None if info is None else info["inferred_type_name"].replace(" ", "")
        if inferred != annotation.replace(" ", ""):
            raise InputError(
                f"parameters cell: papermill does not read `{lines[line - 1].strip()}` "
                "(one `=` per line, annotation without `|`)",
                source=source, line=line,
            )
        if not info["help"]:
            raise InputError(
                f"parameters cell: `{name}` needs a help comment (`# what it is`)",
                source=source, line=line,
            )
        if name in params:
            raise InputError(f"parameters cell: `{name}` declared twice", source=source, line=line)
        params[name] = Parameter(name, ptype, default, info["help"], line)
    if list(declared) != list(params):
        raise InputError(
            f"parameters cell: papermill reads {listed(declared, most=30) or 'none'}, the cell "
            f"declares {listed(params, most=30) or 'none'}",
            source=source,
        )
    return params


def resolve_value(param: Parameter, value: Any, *, source: str) -> Any:
    """Check ``value`` against the declared type; text is parsed to that type.

    Parameters
    ----------
    param : Parameter
        The declared parameter.
    value : object
        A Python value, or text (from ``-p key=value``) for a non-``str`` type.
    source : str
        The notebook's name, for the error message.

    Raises
    ------
    InputError
        Naming the notebook, the parameter, the expected type and the value.
    """
    try:
        if isinstance(value, str) and param.type.name != "str":
            checked = param.type.parse(value)
        else:
            checked = param.type.check(value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise InputError(
            f"parameter `{param.name}` expects {param.type.name}, got {value!r}",
            source=source, key=param.name,
        ) from None
    problem = out_of_range(param.name, checked)
    if problem:
        raise InputError(f"parameter `{param.name}` {problem}; the bound every command "
                         "shares", source=source, key=param.name)
    return checked


def unknown_parameter(name: str, declared: Mapping[str, Parameter], *, source: str) -> InputError:
    """The error for a parameter a notebook does not declare (with a suggestion)."""
    close = difflib.get_close_matches(name, list(declared), n=1)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    known = ", ".join(declared) or "none"
    return InputError(
        f"unknown parameter `{name}`{hint} (declared: {known})", source=source, key=name
    )
