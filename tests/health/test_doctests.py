"""The examples in the health and corpus docstrings run and print what they claim."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["ragnb.io.corpus_build", "ragnb.health.shares", "ragnb.health.duplicates",
           "ragnb.health.holdout"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
