"""Notebook conventions: where notebooks live, their names, and how they are stored.

Notebooks live in :data:`ragnb.paths.NOTEBOOKS_DIR` (``notebooks/``) and are
named ``NN-slug.ipynb`` (``01-fit.ipynb``): the number orders them, the slug
says what they show. On the command line a notebook is named by its number
(``01``, or ``1``), its slug (``fit``) or both (``01-fit``, ``01-fit.ipynb``).

Notebooks are kept in git without outputs, execution counts or papermill
metadata, with one valid ``parameters`` cell (:mod:`ragnb.report.parameters`),
and their first code cell calls ``ragnb.report.setup_notebook()``;
:func:`check_stored` lists every departure and runs in the test suite (CI also
has ``nbstripout --verify notebooks/*.ipynb``).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from ragnb.errors import InputError
from ragnb.paths import NOTEBOOKS_DIR

#: What the first code cell of every notebook calls (see :func:`ragnb.report.setup_notebook`).
SETUP_CALL = "setup_notebook("
#: File name of a workbook notebook: two digits, a dash, a slug.
NOTEBOOK_NAME = re.compile(r"^(?P<number>\d{2})-(?P<slug>[A-Za-z0-9][\w-]*)\.ipynb$")


@dataclass(frozen=True)
class NotebookRef:
    """A notebook found in the notebooks folder."""

    path: Path
    number: str
    slug: str

    @property
    def name(self) -> str:
        """``NN-slug``, the stem used for the report files."""
        return f"{self.number}-{self.slug}"

    def matches(self, name: str) -> bool:
        """Whether a command-line NAME designates this notebook."""
        name = name.removesuffix(".ipynb")
        if name.isdigit():
            return int(name) == int(self.number)
        return name in (self.slug, self.name)


def discover(directory: str | PathLike[str] = NOTEBOOKS_DIR) -> list[NotebookRef]:
    """The conventionally named notebooks of ``directory``, in number order."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.glob("*.ipynb")):
        m = NOTEBOOK_NAME.match(path.name)
        if m:
            found.append(NotebookRef(path, m["number"], m["slug"]))
    return found


def resolve(
    names: Sequence[str], directory: str | PathLike[str] = NOTEBOOKS_DIR
) -> list[NotebookRef]:
    """The notebooks designated by ``names``, in the order given, without repeats.

    Raises
    ------
    InputError
        For a name that matches no notebook or several, listing the available ones.
    """
    available = discover(directory)
    listing = ", ".join(nb.name for nb in available) or f"none in {directory}"
    chosen: list[NotebookRef] = []
    for name in names:
        hits = [nb for nb in available if nb.matches(name)]
        if not hits:
            raise InputError(f"no notebook named `{name}`; available: {listing}", key=name)
        if len(hits) > 1:
            raise InputError(
                f"`{name}` is ambiguous: {', '.join(nb.name for nb in hits)}", key=name
            )
        if hits[0] not in chosen:
            chosen.append(hits[0])
    return chosen


def check_stored(paths: Iterable[str | PathLike[str]] | str | PathLike[str] = NOTEBOOKS_DIR
                 ) -> list[str]:
    """Problems of notebooks as stored in git (empty when all is well).

    Parameters
    ----------
    paths : folder or iterable of ``.ipynb`` paths
        A folder is checked as the notebooks folder: every ``.ipynb`` in it must
        follow the naming convention and numbers must be unique.

    Returns
    -------
    list of str
        One line per problem, naming the file (and cell): outputs or execution
        counts stored, papermill metadata stored, no or an invalid ``parameters``
        cell, no ``setup_notebook()`` call in the first code cell, a badly named
        file, a number used twice.
    """
    from ragnb.report.parameters import read_parameters

    problems: list[str] = []
    if isinstance(paths, (str, PathLike)):
        folder = Path(paths)
        files = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
        numbers: dict[str, str] = {}
        for path in files:
            m = NOTEBOOK_NAME.match(path.name)
            if not m:
                problems.append(f"{path}: name must look like `01-fit.ipynb` "
                                "(two digits, a dash, a slug)")
            elif m["number"] in numbers:
                problems.append(f"{path}: number {m['number']} already used by "
                                f"{numbers[m['number']]}")
            else:
                numbers[m["number"]] = path.name
    else:
        files = [Path(p) for p in paths]
    import nbformat  # here, not at the top: its jsonschema import is slow; naming needs none

    for path in files:
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception as exc:  # noqa: BLE001 - any unreadable file is a problem to list
            problems.append(f"{path}: not a readable notebook ({exc})")
            continue
        for i, cell in enumerate(nb.cells, start=1):
            if cell.cell_type != "code":
                continue
            if cell.get("outputs"):
                problems.append(f"{path}: cell {i} is stored with outputs (run nbstripout)")
            if cell.get("execution_count") is not None:
                problems.append(f"{path}: cell {i} is stored with an execution count "
                                "(run nbstripout)")
        first_code = next((c for c in nb.cells if c.cell_type == "code"), None)
        if first_code is None or SETUP_CALL not in first_code.source:
            problems.append(
                f"{path}: the first code cell must call `ragnb.report.{SETUP_CALL})` "
                "(charts that draw offline in JupyterLab and in reports)"
            )
        if "papermill" in nb.metadata:
            problems.append(f"{path}: stored with papermill metadata "
                            "(an executed copy, not the source)")
        try:
            read_parameters(path)
        except InputError as exc:
            problems.append(f"{path}: {exc.problem}" + (f" (line {exc.line})" if exc.line else ""))
    return problems
