"""Shared fixtures: real data (skipped with a reason when absent) and a real-browser
check of report pages (see tests/browser.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragnb.paths import REAL_DATA_DIR

_TESTS_DIR = str(Path(__file__).resolve().parent)
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

import browser  # noqa: E402

#: Set in CI (.ci/run) so that a missing chromium fails instead of skipping.
REQUIRE_BROWSER_ENV = browser.REQUIRE_BROWSER_ENV


@pytest.fixture(scope="session")
def real_data():
    """Path of ``../shared/data/real``; the test is skipped when it is absent."""
    if not REAL_DATA_DIR.is_dir():
        pytest.skip(f"real benchmark data not found at {REAL_DATA_DIR} "
                    "(shared folder absent on this machine)")
    return REAL_DATA_DIR


@pytest.fixture
def open_report():
    """``open_report(html_path, screenshot=None) -> browser.PageCheck`` (chromium, offline).

    Skips with a reason when /usr/bin/chromium is absent, unless
    ``RAGNB_REQUIRE_BROWSER=1`` (CI), where that is a failure.
    """
    if not browser.chromium_available():
        browser.needs(browser.CHROMIUM_MISSING)
    return browser.open_page
