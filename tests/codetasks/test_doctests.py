"""The examples in the code-task docstrings run and print what they claim."""
import doctest
import importlib

import pytest

MODULES = ["diff", "editset", "keep", "readset", "recall", "symbols", "text"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"ragnb.codetasks.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
