"""One page per analysis: the same :class:`~ragnb.result.Finding` in the notebook, its
report, ``ragnb run`` and the API.

Each module is one notebook's page, registered by the notebook's slug
(:mod:`ragnb.pages.registry`)::

    from ragnb.pages import resolve, run
    inputs = resolve("01-fit", "data/demo", metric="rr@10")   # names only; MissingInput if absent
    finding = run(inputs)                                      # reads, computes, every section
    print(finding.to_text())                                   # or show_finding(finding)

- :mod:`ragnb.pages.fit` — ``01-fit``, the four-cell table
- :mod:`ragnb.pages.trajectory` — ``02-trajectory``, golden vs production across rounds
- :mod:`ragnb.pages.strata` — ``03-strata``, the stratified breakdown
- :mod:`ragnb.pages.label_bias` — ``04-label-bias``, bounds, three-way verdict, judge next
- :mod:`ragnb.pages.ledger` — ``05-ledger``, selections per split and the regression guard
- :mod:`ragnb.pages.health` — ``06-health``, test-set health and its review
- :mod:`ragnb.pages.code_tasks` — ``07-code-tasks``, recall on tasks from merged commits

Adding an analysis is adding three files: its page module here (it registers itself),
its notebook (``notebooks/NN-name.ipynb``, parameters named as ``resolve`` takes them)
and its test; the report runner, ``ragnb run``, ``ragnb report --all``'s skip reasons and
``ragnb init``'s list find it through this registry.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from ragnb.pages.registry import (
    NOTEBOOKS,
    PAGES,
    MissingInput,
    Page,
    given,
    page,
)
from ragnb.result import Finding

#: Page modules, discovered: adding a page is adding its module (it registers itself).
MODULES = {info.name: importlib.import_module(f"{__name__}.{info.name}")
           for info in pkgutil.iter_modules(__path__) if info.name != "registry"}
_ordered = {slug: PAGES[slug] for slug in sorted(PAGES)}  # notebook order, not module order
PAGES.clear()
PAGES.update(_ordered)

__all__ = ["MODULES", "NOTEBOOKS", "PAGES", "MissingInput", "Page", "manifest_specs", "page",
           "resolve", "run", "run_page", "skip_reason", "skip_reasons"]


def resolve(slug: str, workspace: Any, /, **parameters: Any) -> Any:
    """The inputs of page ``slug`` on ``workspace`` (see :func:`ragnb.pages.registry.page`)."""
    return page(slug).resolve(workspace, **given(parameters))


def run(inputs: Any) -> Finding:
    """The page's :class:`~ragnb.result.Finding` for resolved ``inputs`` (they name their page)."""
    return page(inputs.PAGE).run(inputs)


def run_page(slug: str, workspace: Any = "", /, **parameters: Any) -> Finding:
    """Page ``slug``'s Finding on ``workspace`` (``""``: ``$RAGNB_WORKSPACE``, else the demo):
    :func:`resolve` then :func:`run`; ``parameters`` are the notebook's (``metric``,
    ``resamples``, ...). The same Finding as ``ragnb run slug`` and the page's report.

    >>> import ragnb  # doctest: +SKIP
    >>> print(ragnb.run_page("03-strata", "data/demo", resamples=2000).to_text())  # doctest: +SKIP
    """
    return run(resolve(slug, workspace, **parameters))


def skip_reason(workspace: Any, slug: str, parameters: Mapping[str, Any] | None = None
                ) -> str | None:
    """Why page ``slug`` cannot run on ``workspace`` with ``parameters`` (None: it can):
    the :class:`MissingInput` reason its ``resolve`` gives (the manifest only is read).
    """
    try:
        page(slug).resolve(workspace, **given(parameters or {}))
    except MissingInput as missing:
        return missing.reason
    return None


def skip_reasons(workspace: Any) -> dict[str, str | None]:
    """Every notebook's name (``fit``) -> why it cannot run on ``workspace`` (None: it can)."""
    return {slug.split("-", 1)[1]: skip_reason(workspace, slug) for slug in NOTEBOOKS}


def manifest_specs(workspace: Any, slug: str, values: Mapping[str, Any]) -> dict[str, str]:
    """Spec files page ``slug`` reads from the manifest: parameter -> path, for each spec
    parameter (``*_spec``) left empty in ``values`` that its ``resolve`` fills from the
    manifest (the report runner states them in the spec-timing table).
    """
    inputs = page(slug).resolve(workspace, **given(values))
    return {name: str(getattr(inputs, name)) for name in vars(inputs)
            if name.endswith("_spec") and not values.get(name) and getattr(inputs, name)}
