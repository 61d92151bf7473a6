"""Project paths, built from the package location (not the working directory).

Papermill runs notebooks from any directory, so nothing here depends on ``cwd``
except the default report folder of an installed ragnb (``./reports``).

In a clone (``pyproject.toml`` beside the package) the demo is ``data/demo`` and
reports go to ``reports/``. An installed ragnb ships the demo (``ragnb/data``, a
link to ``data/`` in the repository) but never writes inside its own install:
:func:`ensure_demo` copies it once to ``$RAGNB_HOME`` (default
``$XDG_DATA_HOME/ragnb``, else ``~/.local/share/ragnb``), again after an
upgrade, and reports go to ``./reports``.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROJ_ROOT = PACKAGE_DIR.parent
#: True in a clone of the repository, False in an installed package.
IN_CHECKOUT = (PROJ_ROOT / "pyproject.toml").is_file()
#: The demo data shipped in the package (the repository's ``data/`` through a link).
BUNDLED_DATA = PACKAGE_DIR / "data"


def _home() -> Path:
    if os.environ.get("RAGNB_HOME"):
        return Path(os.environ["RAGNB_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "ragnb"


DATA_DIR = PROJ_ROOT / "data" if IN_CHECKOUT else _home() / "data"
DEMO_DIR = DATA_DIR / "demo"
#: The pages: ``notebooks/`` in the repository, reached through the link ``ragnb/notebooks``
#: there and shipped inside an installed package (pyproject.toml).
NOTEBOOKS_DIR = PACKAGE_DIR / "notebooks"
REPORTS_DIR = PROJ_ROOT / "reports" if IN_CHECKOUT else Path("reports")


def ensure_demo(data_dir: Path | None = None, bundled: Path = BUNDLED_DATA) -> Path:
    """The demo folder, copied from the package on first use outside a clone.

    The copy is made in a temporary folder beside ``data_dir`` and renamed into
    place, so a copy cut short never passes for the demo. Returns the demo folder.
    """
    from ragnb import __version__  # read on use: importlib.metadata costs ~60 ms

    data_dir = DATA_DIR if data_dir is None else data_dir
    demo, stamp = data_dir / "demo", data_dir / ".version"
    fresh = stamp.is_file() and stamp.read_text().strip() == __version__
    if (IN_CHECKOUT and data_dir == DATA_DIR) or fresh or \
            not (bundled / "demo" / "ragnb.toml").is_file():
        return demo
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".data-", dir=data_dir.parent))
    try:
        shutil.copytree(bundled, tmp / "data", ignore=shutil.ignore_patterns(
            ".ragnb-cache", "*.lock", "__pycache__"))
        (tmp / "data" / ".version").write_text(__version__ + "\n")
        if data_dir.exists():  # an older version's copy (its ledger is the demo's own)
            shutil.rmtree(data_dir)
        os.replace(tmp / "data", data_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return demo


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
