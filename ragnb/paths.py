"""Project paths, built from the package location (not the working directory).

Papermill runs notebooks from any directory, so nothing here depends on ``cwd``.
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJ_ROOT = PACKAGE_DIR.parent
DATA_DIR = PROJ_ROOT / "data"
DEMO_DIR = DATA_DIR / "demo"
NOTEBOOKS_DIR = PROJ_ROOT / "notebooks"
REPORTS_DIR = PROJ_ROOT / "reports"
#: Real public benchmark data shared between projects (never copied into the repo).
REAL_DATA_DIR = PROJ_ROOT.parent / "shared" / "data" / "real"
