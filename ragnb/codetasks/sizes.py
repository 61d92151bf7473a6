"""How large the label sets are: edit set, read set, callers, per task."""
from __future__ import annotations

import numpy as np
import pandas as pd

#: Set column -> what it holds.
SETS = {
    "edit_set": "edit set (files the change had to change)",
    "read_set": "read set (definitions used, not changed)",
    "callers": "caller set (tasks changing a signature)",
    "added": "added files (not in the parent; not scored)",
    "excluded": "vendored / lock / generated files touched",
    "bookkeeping": "changelogs and credits lists touched (not scored)",
}


def set_sizes(tasks: pd.DataFrame) -> pd.DataFrame:
    """Per set: tasks with one, mean / median / max size over those tasks, total files.

    The caller row counts the tasks that change a signature (``tasks_with``
    those with at least one caller), and ``in_edit_set`` how many caller
    files the change itself touched.
    """
    rows = []
    for column, label in SETS.items():
        sizes = np.array([len(v) for v in tasks[column]], dtype=float)
        if column == "callers":
            sig = np.array([bool(s) for s in tasks["signature_changes"]])
            sizes = sizes[sig]
        present = sizes[sizes > 0]
        row = {"set": label, "tasks": len(sizes), "tasks_with": int(present.size),
               "mean": float(present.mean()) if present.size else np.nan,
               "median": float(np.median(present)) if present.size else np.nan,
               "max": int(present.max()) if present.size else 0, "total": int(sizes.sum()),
               "in_edit_set": pd.NA}
        if column == "callers":
            row["in_edit_set"] = int(sum(len(set(c) & set(e)) for c, e in
                                         zip(tasks["callers"], tasks["edit_set"])))
        rows.append(row)
    return pd.DataFrame(rows).astype({"in_edit_set": "Int64"})
