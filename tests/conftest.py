"""Shared fixtures: the real-data folder (skipped with a reason when absent)."""
from __future__ import annotations

import pytest

from ragnb.paths import REAL_DATA_DIR


@pytest.fixture(scope="session")
def real_data():
    """Path of ``../shared/data/real``; the test is skipped when it is absent."""
    if not REAL_DATA_DIR.is_dir():
        pytest.skip(f"real benchmark data not found at {REAL_DATA_DIR} "
                    "(shared folder absent on this machine)")
    return REAL_DATA_DIR
