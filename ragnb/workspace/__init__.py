"""Workspaces: one manifest (``ragnb.toml``) that every notebook, report and command reads.

- :mod:`ragnb.workspace.manifest` — the keys and their one validation place
- :mod:`ragnb.workspace.workspace` — :class:`Workspace`, reading test sets, runs, strata
- :mod:`ragnb.workspace.needs` — which inputs each notebook needs (skip reasons)
- :mod:`ragnb.workspace.init` — scaffolding a workspace from existing files
"""
from ragnb.workspace.manifest import MANIFEST_NAME, Manifest, describe_keys, parse_manifest
from ragnb.workspace.needs import NEEDS, skip_reason
from ragnb.workspace.workspace import Workspace, open_workspace

__all__ = [
    "MANIFEST_NAME",
    "NEEDS",
    "Manifest",
    "Workspace",
    "describe_keys",
    "open_workspace",
    "parse_manifest",
    "skip_reason",
]
