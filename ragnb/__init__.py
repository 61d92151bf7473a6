"""ragnb: a statistically honest analysis workbook for retrieval evaluation."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ragnb")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"

from ragnb.errors import InputError, PolicyError, RagnbError

__all__ = ["InputError", "PolicyError", "RagnbError", "__version__"]
