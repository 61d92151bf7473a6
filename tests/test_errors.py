"""Error messages and notes read as text: no Python list, tuple or set reprs (issue 36 #4)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ragnb
from ragnb.errors import InputError, listed

PACKAGE = Path(ragnb.__file__).parent
#: What a user reads: the errors ragnb raises and the notes it counts.
MESSAGES = {"InputError", "PolicyError", "RagnbError", "Note"}
COLLECTIONS = {"list", "sorted", "tuple", "set", "frozenset"}


def _repr_fields(call: ast.AST) -> list[str]:
    """The f-string fields of a ragnb error or note that print a collection's repr."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id in MESSAGES):
        return []
    bad = []
    for field in (n for arg in call.args for n in ast.walk(arg)
                  if isinstance(n, ast.FormattedValue)):
        v = field.value
        if field.conversion == ord("r") and not isinstance(v, (ast.Name, ast.Attribute,
                                                                ast.Subscript, ast.Call)):
            continue
        literal = isinstance(v, (ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp))
        builds = (isinstance(v, ast.Call) and isinstance(v.func, ast.Name)
                  and v.func.id in COLLECTIONS)
        if literal or builds:
            bad.append(ast.unparse(v))
    return bad


def test_no_message_formats_a_collection_repr() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            found += [f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}: {{{f}}}"
                      for f in _repr_fields(node)]
    assert not found, "use ragnb.errors.listed(...) for:\n" + "\n".join(found)


def test_the_scan_sees_a_list_field() -> None:
    for code in ('raise InputError(f"unknown: {sorted(names)}")',
                 'notes.append(Note("x", 2, f"e.g. {list(names[:3])}"))'):
        fields = [f for n in ast.walk(ast.parse(code)) for f in _repr_fields(n)]
        assert fields in (["sorted(names)"], ["list(names[:3])"]), code


@pytest.mark.parametrize(("items", "most", "text"), [
    (["106_9", "109_1"], 5, "106_9, 109_1"),
    ([3, 1, 2], 2, "3, 1 and 1 more"),
    (range(1200), 1, "0 and 1,199 more"),
    ((), 5, ""),
])
def test_listed_reads_as_text(items, most, text) -> None:
    assert listed(items, most=most) == text


def test_extra_queries_in_a_run_are_named_without_brackets(tmp_path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1_1 0 d1 1\n1_1 0 d2 0\n")
    run = tmp_path / "a.run"
    run.write_text("".join(f"{q} Q0 d1 1 1.0 a\n" for q in ("1_1", "106_9", "109_1")))
    other = tmp_path / "b.run"
    other.write_text("1_1 Q0 d2 1 1.0 b\n")
    with pytest.raises(InputError) as err:
        ragnb.compare(qrels, [run, other], "ndcg_cut_10")
    message = str(err.value)
    assert "2 queries in run 'a' not in the test set" in message
    assert "e.g. 106_9, 109_1;" in message and "['" not in message
    assert 'Python: extra="drop"' in message
