"""The package's layers, read from its source: no import runs upward, no cycles, no private reach.

Every module under ``ragnb/`` is parsed with :mod:`ast`; every ``import`` and
``from ... import`` counts, at module level or inside a function (a
function-level import still ties the two modules together, it only delays
it). Imports under ``if TYPE_CHECKING:`` count too.

Layers, from the bottom (a module may import its own layer and the ones below):

==========================  ================================================
foundation                  ``ragnb`` itself, ``errors``, ``paths``, ``filefacts``,
                            ``_atomic``, ``result`` (the result protocol), ``vocab``
                            (the allowed option values), ``progress`` (bars on a
                            terminal), ``startup`` (ragnb's own processes),
                            ``spreadsheet`` (CSV made for people)
inputs                      ``ragnb.io``
scoring                     ``ragnb.metrics``
statistics                  ``ragnb.stats``
contract and policy         ``ragnb.workspace``, ``ragnb.ledger``
analyses                    ``ragnb.fit``, ``ragnb.trajectory``, ``ragnb.strata``,
                            ``ragnb.labelbias``, ``ragnb.health``,
                            ``ragnb.codetasks``, ``ragnb.perquery``, ``ragnb.gate``,
                            ``ragnb.watch``, ``ragnb.judge``
demo data                   ``ragnb.demo`` (writes demo inputs with the analyses)
surfaces                    ``ragnb.report``, ``ragnb.widgets``, ``ragnb.cli``
==========================  ================================================
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import ragnb

ROOT = Path(ragnb.__file__).parent

LAYERS: dict[str, list[str]] = {
    "foundation": ["ragnb", "ragnb.errors", "ragnb.paths", "ragnb._atomic", "ragnb.filefacts",
                   "ragnb.result", "ragnb.vocab", "ragnb.progress", "ragnb.startup",
                   "ragnb.spreadsheet"],
    "inputs": ["ragnb.io"],
    "scoring": ["ragnb.metrics"],
    "statistics": ["ragnb.stats"],
    "contract and policy": ["ragnb.workspace", "ragnb.ledger"],
    "analyses": ["ragnb.fit", "ragnb.trajectory", "ragnb.strata", "ragnb.labelbias",
                 "ragnb.health", "ragnb.codetasks", "ragnb.perquery", "ragnb.gate",
                 "ragnb.watch", "ragnb.comparison", "ragnb.judge"],
    "demo data": ["ragnb.demo"],
    "pages": ["ragnb.pages"],
    "surfaces": ["ragnb.report", "ragnb.widgets", "ragnb.cli", "ragnb.__main__"],
}
LEVEL = {unit: i for i, units in enumerate(LAYERS.values()) for unit in units}
LAYER_NAME = {unit: name for name, units in LAYERS.items() for unit in units}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for f in sorted(root.rglob("*.py")):
        parts = f.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def unit_of(module: str) -> str:
    """The layer unit of a module: a top-level module, or a subpackage."""
    parts = module.split(".")
    return ".".join(parts[:2])


def imports(modules: dict[str, Path]) -> list[tuple[str, str, str, int]]:
    """Every ``(importer, imported module, imported name or "", line)`` inside the package.

    ``from pkg import name`` imports the submodule ``pkg.name`` when there is
    one, else the name from ``pkg``.
    """
    found = []
    for module, path in modules.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found += [(module, a.name, "", node.lineno) for a in node.names
                          if a.name.split(".")[0] == "ragnb"]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")
                    anchor = anchor[:len(anchor) - node.level + (1 if is_pkg else 0)]
                    base = ".".join(anchor + ([base] if base else []))
                if base.split(".")[0] != "ragnb":
                    continue
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    found.append((module, sub, "", node.lineno) if sub in modules
                                 else (module, base, a.name, node.lineno))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def owner(module: str) -> str:
    """The package a module belongs to (itself, for a package's ``__init__``)."""
    return module if (ROOT.parent / module.replace(".", "/")).is_dir() else \
        module.rsplit(".", 1)[0]


MODULES = module_files()
IMPORTS = imports(MODULES)


def test_the_graph_sees_every_module_and_import():
    # Not vacuous: the parser finds the modules and the function-level imports.
    assert {"ragnb.result", "ragnb.io.run", "ragnb.metrics.score", "ragnb.cli"} <= set(MODULES)
    assert len(IMPORTS) > 300
    assert ("ragnb.result", "ragnb.errors", "InputError") in {i[:3] for i in IMPORTS}


def test_every_module_has_a_layer():
    assert sorted({unit_of(m) for m in MODULES} - set(LEVEL)) == []


def test_no_import_runs_upward():
    upward = [f"{src} (line {line}, {LAYER_NAME[unit_of(src)]}) imports {dst} "
              f"({LAYER_NAME[unit_of(dst)]})"
              for src, dst, _, line in IMPORTS
              if LEVEL[unit_of(dst)] > LEVEL[unit_of(src)]]
    assert upward == []


def test_no_cycle_between_subpackages():
    edges: dict[str, set[str]] = defaultdict(set)
    for src, dst, _, _ in IMPORTS:
        if unit_of(src) != unit_of(dst):
            edges[unit_of(src)].add(unit_of(dst))
    assert cycles(edges) == []


def test_no_cycle_between_modules():
    edges: dict[str, set[str]] = defaultdict(set)
    for src, dst, _, _ in IMPORTS:
        if src != dst:
            edges[src].add(dst)
    assert cycles(edges) == []


def test_no_private_name_or_module_is_imported_from_another_package():
    # A private module or name is for the package that holds it (and its subpackages).
    reach = []
    for src, dst, name, line in IMPORTS:
        parts = dst.split(".")
        for i, part in enumerate(parts[1:], start=1):
            if is_private(part):
                home = ".".join(parts[:i])
                if not (src == home or src.startswith(home + ".")):
                    reach.append(f"{src} (line {line}) imports private module {dst}")
                break
        else:
            if name and is_private(name) and not (src == owner(dst) or src.startswith(
                    owner(dst) + ".")) and owner(src) != owner(dst):
                reach.append(f"{src} (line {line}) imports private {dst}.{name}")
    assert reach == []


@pytest.mark.parametrize("source, expected", [
    ("from ragnb.errors import InputError\n", [("ragnb.x.a", "ragnb.errors", "InputError")]),
    ("def f():\n    from ragnb.x import b\n", [("ragnb.x.a", "ragnb.x.b", "")]),
    ("import ragnb.x.b\n", [("ragnb.x.a", "ragnb.x.b", "")]),
    ("from . import b\nfrom .b import c\n", [("ragnb.x.a", "ragnb.x.b", ""),
                                             ("ragnb.x.a", "ragnb.x.b", "c")]),
])
def test_imports_are_read_at_every_level(tmp_path, source, expected):
    pkg = tmp_path / "ragnb" / "x"
    pkg.mkdir(parents=True)
    (tmp_path / "ragnb" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(source)
    (pkg / "b.py").write_text("c = 1\n")
    mods = module_files(tmp_path / "ragnb")
    assert [i[:3] for i in imports(mods)] == expected


def test_cycles_are_found_through_any_path():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# --------------------------------------------------------------------------- pages
def _pages():
    from ragnb.pages import PAGES

    return PAGES


def test_every_page_is_a_notebook_with_resolve_and_run():
    import inspect

    from ragnb.pages import NOTEBOOKS
    from ragnb.paths import NOTEBOOKS_DIR
    from ragnb.report.notebooks import discover

    assert [nb.name for nb in discover(NOTEBOOKS_DIR)] == list(NOTEBOOKS)
    pages = _pages()
    assert list(pages) == list(NOTEBOOKS)  # every notebook is a page, in notebook order
    for slug, page in pages.items():
        assert callable(page.resolve) and callable(page.run), slug
        assert list(inspect.signature(page.run).parameters) == ["inputs"], slug
        assert MODULES[f"ragnb.pages.{page.name.replace('-', '_')}"].is_file(), slug


def test_a_page_resolves_exactly_its_notebooks_parameters():
    # the report runner checks -p against the notebook; resolve must take each of them
    import inspect

    from ragnb.paths import NOTEBOOKS_DIR
    from ragnb.report.parameters import read_parameters

    for slug, page in _pages().items():
        declared = read_parameters(NOTEBOOKS_DIR / f"{slug}.ipynb")
        taken = inspect.signature(page.resolve).parameters
        assert list(taken)[0] == "workspace", slug
        assert sorted(taken) == sorted(declared), slug
        for name, param in declared.items():
            if name != "workspace":
                assert taken[name].default == param.default, (slug, name)


def test_a_notebook_with_a_page_builds_no_table_of_its_own():
    import json

    from ragnb.paths import NOTEBOOKS_DIR

    for slug in _pages():
        cells = json.loads((NOTEBOOKS_DIR / f"{slug}.ipynb").read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for built in ("show_table(", "show_markdown(", "show_text(", "show_splits("):
            assert built not in code, (slug, built)
        assert f"{slug.split('-', 1)[1].replace('-', '_')}.run(" in code, slug


@pytest.mark.slow
def test_ragnb_run_the_api_and_the_report_state_the_same_headline(tmp_path):
    import io
    from contextlib import redirect_stdout

    from ragnb.cli import main
    from ragnb.pages import resolve, run
    from ragnb.paths import DEMO_DIR
    from ragnb.report.index import index_rows
    from ragnb.report.runner import build_reports

    small = {"resamples": 200, "seed": 11}
    api = run(resolve("01-fit", DEMO_DIR, **small)).headline
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", "01-fit", "--workspace", str(DEMO_DIR),
                     *(f"-p{k}={v}" for k, v in small.items())]) == 0
    printed = out.getvalue().splitlines()
    (report,) = build_reports(["01-fit"], small, out_dir=tmp_path)
    assert report.ok, report.message
    (row,) = index_rows(tmp_path)
    shown = row["headline"]
    assert shown == api.to_dict()
    nxt = next(i for i, line in enumerate(printed) if line.startswith("Next: "))
    assert printed[0] == shown["question"]
    said = shown["answer"] + "".join(f" - {w}" for w in shown["why"])   # the Why bullets
    assert " ".join(" ".join(printed[1:nxt]).split()) == " ".join(said.split())
    assert f"Verdict: {shown['verdict']}" in printed
