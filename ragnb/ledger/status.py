"""The split-status table: how often each split a page scores has been used to choose."""
from __future__ import annotations

import pandas as pd

#: Caption of :func:`split_status_table` on every page.
SPLIT_STATUS_CAPTION = "How often each split has been used to choose (split ledger)"
#: What the split-ledger table's inflation column is (read under the table).
INFLATION_NOTE = (
    "Selection inflation: how much a score on a split selected against N times is ahead of "
    "its truth by selection alone, one figure per split (ragnb.stats.split_inflation): from "
    "the candidates' per-query scores where the workspace has them (an empirical-Bayes "
    "selection bootstrap), else the worst case (all candidates equal: E[max of N normals] x "
    "SE / sqrt 2), labelled so. A dash: the ledger does not know the split (how often it was "
    "selected against is unknown).")


def split_status_table(manifests: pd.DataFrame) -> pd.DataFrame:
    """The display table of :func:`ragnb.ledger.views.split_status` rows (text; each split's
    one selection-inflation figure in points with its method, :func:`ragnb.stats.split_inflation`;
    a split the ledger does not know shows a dash, never zero).
    """
    from ragnb.stats.inflation import inflation_text

    cols = [c for c in ("split", "role", "selections_against", "budget", "sealed",
                        "retired_for_selection_at", "inflation") if c in manifests]
    table = manifests[cols].copy().astype(object).where(manifests[cols].notna(), "—")
    if "role" in table:
        table["role"] = [str(r).replace("_", " ") for r in table["role"]]
    if "inflation" in manifests:
        methods = (manifests["inflation_method"] if "inflation_method" in manifests
                   else [None] * len(manifests))
        table["inflation"] = [inflation_text(None if pd.isna(v) else float(v),
                                             None if m is None or m is pd.NA else str(m),
                                             r.get("inflation_low"), r.get("inflation_high"))
                              for v, m, r in zip(manifests["inflation"], methods,
                                                 manifests.to_dict("records"))]
        table = table.rename(columns={"inflation": "selection inflation (points)"})
    return table.rename(columns={"selections_against": "selections against",
                                 "retired_for_selection_at": "retired for selection"})


def split_status_section(manifests: pd.DataFrame):
    """The split-status table as a page's section: its caption and :data:`INFLATION_NOTE`."""
    from ragnb.result import table_section

    return table_section(split_status_table(manifests), SPLIT_STATUS_CAPTION,
                         note=INFLATION_NOTE)
