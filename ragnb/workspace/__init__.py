"""Workspaces: one manifest (``ragnb.toml``) that every notebook, report and command reads.

- :mod:`ragnb.workspace.manifest` — the keys and their one validation place
- :mod:`ragnb.workspace.workspace` — :class:`Workspace`, reading test sets, runs, strata
- :mod:`ragnb.workspace.cache` — the selection-inflation figure kept between commands
- :mod:`ragnb.workspace.init` — scaffolding a workspace from existing files
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ragnb.workspace.manifest import MANIFEST_NAME, Manifest, describe_keys, parse_manifest

if TYPE_CHECKING:
    from ragnb.workspace.workspace import Workspace, open_workspace

#: Names loaded on first use (PEP 562): the manifest alone needs no pandas, so
#: ``ragnb init --help`` (which lists the manifest's keys) stays light.
_LAZY = {"Workspace": "ragnb.workspace.workspace", "open_workspace": "ragnb.workspace.workspace"}

__all__ = [
    "MANIFEST_NAME",
    "Manifest",
    "Workspace",
    "describe_keys",
    "open_workspace",
    "parse_manifest",
]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
