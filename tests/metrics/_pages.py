"""A page's Finding compared across two ways of scoring: headline and every section."""
from __future__ import annotations

import pandas as pd


def assert_same_page(there, here, tables: int = 3) -> None:
    """Same headline; every section of the same kind and caption, each table's cells and
    each Markdown text equal exactly; at least ``tables`` tables compared.
    """
    assert there.headline == here.headline
    compared = 0
    for mine, theirs in zip(there.sections, here.sections, strict=True):
        assert (mine.kind, mine.caption) == (theirs.kind, theirs.caption)
        if mine.kind == "table":
            pd.testing.assert_frame_equal(mine.content, theirs.content, check_exact=True)
            compared += 1
        elif mine.kind == "markdown":
            assert mine.content == theirs.content
    assert compared >= tables
