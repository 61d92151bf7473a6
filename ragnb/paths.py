"""Project paths, built from the package location (not the working directory).

Papermill runs notebooks from any directory, so nothing here depends on ``cwd``.
"""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJ_ROOT = PACKAGE_DIR.parent
DATA_DIR = PROJ_ROOT / "data"
DEMO_DIR = DATA_DIR / "demo"
#: The pages: ``notebooks/`` in the repository, reached through the link ``ragnb/notebooks``
#: there and shipped inside an installed package (pyproject.toml).
NOTEBOOKS_DIR = PACKAGE_DIR / "notebooks"
REPORTS_DIR = PROJ_ROOT / "reports"


def _real_data_dir() -> Path:
    """``$RAGNB_REAL_DATA``, else the first ``<ancestor>/shared/data/real`` above the repo."""
    if os.environ.get("RAGNB_REAL_DATA"):
        return Path(os.environ["RAGNB_REAL_DATA"])
    for ancestor in PROJ_ROOT.parents:
        candidate = ancestor / "shared" / "data" / "real"
        if candidate.is_dir():
            return candidate
    return PROJ_ROOT.parent / "shared" / "data" / "real"


#: Real public benchmark data shared between projects (never copied into the repo).
REAL_DATA_DIR = _real_data_dir()
