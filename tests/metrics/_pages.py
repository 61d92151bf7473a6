"""What the parallel and the cluster tests share: three small runs whose notes differ (a
query the qrels lack, a query missing, ranks that disagree with scores; the
``runs_folder`` fixture of ``tests/metrics/conftest.py`` writes them), and a page's
Finding compared across two ways of scoring, headline and every section.
"""
from __future__ import annotations

import pandas as pd

QRELS = "q1 0 p1 2\nq1 0 p2 0\nq2 0 p3 1\nq3 0 p4 1\n"
RUNS = {
    "a.run": "q1 Q0 p1 1 0.9 a\nq1 Q0 p2 2 0.5 a\nq2 Q0 p9 1 0.8 a\nq2 Q0 p3 2 0.7 a\n"
             "q3 Q0 p4 1 0.3 a\nq9 Q0 p1 1 0.1 a\n",                  # a query qrels lack
    "b.run": "q1 Q0 p2 1 0.9 b\nq1 Q0 p1 2 0.5 b\nq2 Q0 p3 1 0.8 b\n",  # q3 missing
    "c.run": "q1 Q0 p1 1 0.2 c\nq1 Q0 p2 2 0.5 c\nq3 Q0 p4 1 0.8 c\n",  # rank disagrees
}


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
