"""The workspace a notebook reads when none is named: ``$RAGNB_WORKSPACE``, else the demo.

Every notebook's ``workspace`` parameter defaults to ``""``, which means this
default. ``ragnb lab`` and ``ragnb app`` set :data:`WORKSPACE_ENV` for the
server they start, so a notebook opened there reads the user's workspace
without an edit; ``ragnb report`` and the notebooks honour it the same way.
"""
from __future__ import annotations

import os
from pathlib import Path

from ragnb.paths import DEMO_DIR, ensure_demo

#: Environment variable naming the default workspace (a ``ragnb.toml`` or its folder).
WORKSPACE_ENV = "RAGNB_WORKSPACE"
#: The bundled demo's manifest: the default when :data:`WORKSPACE_ENV` is unset or empty.
DEMO_MANIFEST = DEMO_DIR / "ragnb.toml"


def default_workspace() -> Path:
    """``$RAGNB_WORKSPACE`` (absolute, ``~`` expanded), else the bundled demo's manifest."""
    value = os.environ.get(WORKSPACE_ENV, "").strip()
    if not value:
        ensure_demo()  # an installed ragnb copies its demo out of the package once
        return DEMO_MANIFEST
    return Path(value).expanduser().resolve()
