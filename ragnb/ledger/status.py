"""The split-status table: how often each split a page scores has been used to choose."""
from __future__ import annotations

import pandas as pd

#: Caption of :func:`split_status_table` on every page.
SPLIT_STATUS_CAPTION = "How often each split has been used to choose (split ledger)"


def split_status_table(manifests: pd.DataFrame) -> pd.DataFrame:
    """The display table of :func:`ragnb.ledger.views.split_status` rows (text; inflation in
    points; a split the ledger does not know shows a dash, never zero).
    """
    cols = [c for c in ("split", "role", "selections_against", "budget", "sealed",
                        "retired_for_selection_at", "inflation") if c in manifests]
    table = manifests[cols].copy().astype(object).where(manifests[cols].notna(), "—")
    if "role" in table:
        table["role"] = [str(r).replace("_", " ") for r in table["role"]]
    if "inflation" in manifests:
        table["inflation"] = ["—" if pd.isna(v) else f"{v * 100:.2f}"
                              for v in manifests["inflation"]]
        table = table.rename(columns={"inflation": "implied inflation (points)"})
    return table.rename(columns={"selections_against": "selections against",
                                 "retired_for_selection_at": "retired for selection"})
