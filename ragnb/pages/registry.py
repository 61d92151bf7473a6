"""The page registry: notebook slug -> how a page resolves its inputs and runs.

A page is one analysis as every surface shows it (notebook, report, ``ragnb
run``, the API): ``resolve(workspace, **parameters)`` turns a workspace and the
notebook's parameters into one typed, frozen inputs object, reading only the
manifest (no data file is opened, so ``ragnb report --all`` can ask every page
cheaply), and raises :class:`MissingInput` with the reason when the workspace
lacks something; ``run(inputs)`` reads the data and returns the
:class:`~ragnb.result.Finding` with every section the page shows.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ragnb.errors import InputError, RagnbError
from ragnb.metrics.judged import Policy
from ragnb.paths import NOTEBOOKS_DIR
from ragnb.result import Finding
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED, POLICIES


class MissingInput(RagnbError):
    """A page's input is absent from the workspace; ``reason`` says which, in one line."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def no_run(ws: Any, split: str, lacking: Sequence[str], what: str = "") -> MissingInput:
    """The reason a page cannot run: ``split`` has no run of ``lacking``, with the configs it
    has and the closest name to each (a manifest typo: ``org_convdrr``; issue 36 #4).
    """
    import difflib

    known = list(ws.configs(split))
    close = [f"{c}: did you mean {m[0]}?" for c in lacking
             if (m := difflib.get_close_matches(c, known, n=1))]
    return MissingInput(f"test set {split!r} has no run of {what}{', '.join(lacking)}"
                        + (f" ({'; '.join(close)})" if close else "")
                        + f"; its configs: {', '.join(known) or 'none'}")


@dataclass(frozen=True)
class Inputs:
    """What every page's inputs hold: the workspace (its manifest resolved), the bootstrap's
    ``resamples`` and ``seed``; a page's own inputs add the names it resolved.
    """

    PAGE: ClassVar[str] = ""
    workspace: Any
    resamples: int = field(default=DEFAULT_RESAMPLES, kw_only=True)
    seed: int = field(default=DEFAULT_SEED, kw_only=True)


@dataclass(frozen=True)
class Page:
    """One registered page: its notebook ``slug`` (``01-fit``), ``resolve`` and ``run``."""

    slug: str
    resolve: Callable[..., Any]
    run: Callable[[Any], Finding]

    @property
    def name(self) -> str:
        """The slug without its number (``fit``), as ``[report.<name>]`` names it."""
        return self.slug.split("-", 1)[1]


#: Every notebook's slug in order (``NN-name.ipynb`` in the notebooks folder); each has its
#: page in :data:`PAGES` (a module of :mod:`ragnb.pages`; ``tests/test_layers.py`` holds it so).
NOTEBOOKS = tuple(sorted(p.stem for p in NOTEBOOKS_DIR.glob("*.ipynb")
                        if re.fullmatch(r"[0-9]{2}-[a-z0-9-]+", p.stem)))
#: Notebook slug (``01-fit``) -> :class:`Page`.
PAGES: dict[str, Page] = {}


def register(slug: str, resolve: Callable[..., Any], run: Callable[[Any], Finding]) -> Page:
    """Register the page of notebook ``slug`` (``NN-name``)."""
    if slug not in NOTEBOOKS:
        raise InputError(f"a page is one of the notebooks {', '.join(NOTEBOOKS)}, not {slug!r}",
                         key="slug")
    PAGES[slug] = Page(slug, resolve, run)
    return PAGES[slug]


def page(slug: str) -> Page:
    """The page registered as ``slug``: ``01-fit``, ``fit`` or ``01``."""
    for p in PAGES.values():
        if slug in (p.slug, p.name, p.slug.split("-", 1)[0]):
            return p
    raise InputError(f"no page `{slug}`; pages: {', '.join(PAGES)}", key="page")


def workspace_of(workspace: Any):
    """A :class:`~ragnb.workspace.Workspace` from one, a manifest path or its folder;
    ``""`` is the notebooks' default: ``$RAGNB_WORKSPACE``, else the bundled demo.
    """
    from ragnb.workspace import open_workspace

    if isinstance(workspace, str) and workspace.strip():
        workspace = Path(workspace)
    return open_workspace(workspace)


def policy_of(value: str) -> Policy:
    """A label policy named in a manifest or a parameter, checked against :data:`POLICIES`."""
    for known in POLICIES:
        if value == known:
            return known
    raise InputError(f"policy must be one of {', '.join(POLICIES)}, not {value!r}", key="policy")


def given(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters a page's ``resolve`` takes: every one but ``workspace``."""
    return {k: v for k, v in parameters.items() if k != "workspace"}
