"""Fixtures of the parallel and cluster tests."""
from __future__ import annotations

import pytest

from tests.metrics._pages import QRELS, RUNS


@pytest.fixture
def runs_folder(tmp_path):
    """A folder with ``qrels.txt`` and the three runs of :data:`RUNS`."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    return tmp_path
