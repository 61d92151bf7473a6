"""A comparison table (challengers vs one baseline) as a :class:`~ragnb.result.Finding`.

The table is :func:`ragnb.stats.family.compare_metrics`'s, the one ``ragnb compare``
prints; this module only reads it. The headline reads the pooled rows.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from ragnb.metrics.registry import metric_label, metric_short
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    checks_frame,
    display_name,
    interval,
    points,
    table_section,
)

#: Columns of the display table: name shown -> column of the comparison table.
SHOWN = {"n": "n", "baseline": "baseline_mean", "challenger mean": "challenger_mean",
         "Δ (points)": "delta"}


#: What a dash in the comparison table means.
DASH = "A dash: no test for the row (too few queries to say)."


def row_side(row: Mapping) -> int:
    """+1 / -1 when the row resolves a gain / loss (interval on that side of 0 *and* Holm p
    within ``1 - ci``), else 0.
    """
    alpha = 1 - float(row["ci"])
    if pd.isna(row["p_holm"]) or row["p_holm"] > alpha:
        return 0
    return 1 if row["ci_low"] > 0 else -1 if row["ci_high"] < 0 else 0


def comparison_headline(table: pd.DataFrame, display_names: Mapping[str, str]) -> Headline:
    """The comparison's answer, next step and verdict: a pure function of the pooled rows.

    =====================================  =============================================
    sentence                               licensed when
    =====================================  =============================================
    "gains" / verdict "better"             interval above 0 and Holm p <= 1 - ci (every
                                           row, for the verdict)
    "loses" / verdict "worse"              interval below 0 and Holm p <= 1 - ci
    "no difference shown" / "inconclusive  otherwise; gives the queries that would
    at this n"                             resolve a difference of the observed size
    the row's own statement                a row without an interval (too few queries)
    =====================================  =============================================
    """
    rows = table[table["stratum"] == "pooled"] if "stratum" in table else table
    base = display_name(str(rows["baseline"].iloc[0]), display_names)
    parts, sides, needed = [], [], []
    for row in rows.to_dict("records"):
        chal = display_name(str(row["challenger"]), display_names)
        if row.get("statement"):
            parts.append(f"{chal} on {row['metric']}: {row['statement']}")
            sides.append(0)
            continue
        side = row_side(row)
        sides.append(side)
        word = {1: "gains", -1: "loses", 0: "shows no difference beyond the noise:"}[side]
        parts.append(f"{chal} {word} {points(row['delta'], signed=True)} "
                     f"{interval(row['ci_low'], row['ci_high'], signed=True)} points of "
                     f"{metric_short(str(row['metric']))} (Holm p = {row['p_holm']:.2g}, "
                     f"n = {int(row['n'])})")   # the gain map is said in Why
        if side == 0 and math.isfinite(row["queries_needed"]):
            needed.append(int(row["queries_needed"]))
    strata = _strata_clause(table, display_names)
    better, worse = sides.count(1), sides.count(-1)
    if better == len(sides):
        verdict, next_step = "better", (
            "Check that the gain carries over to queries nobody selected against "
            "(ragnb report 01-fit) before shipping.")
    elif worse == len(sides):
        verdict, next_step = "worse", f"Keep {base}."
    elif better or worse:
        verdict = f"{better} of {len(sides)} better, {worse} worse"
        next_step = "Ship only what gains; the other rows are not shown better."
    else:
        verdict = "inconclusive at this n"
        next_step = ("Collect more queries before deciding" + (
            f": about {max(needed):,} would resolve a difference of the observed size."
            if needed else "."))
    if strata:
        parts.append(strata)
        next_step += (" Whether the strata differ (not only which resolve on their own): "
                      "ragnb report 03-strata.")
    why = tuple(f"Metric: {metric_label(str(m))}." for m in dict.fromkeys(rows["metric"]))
    return Headline(f"Is the challenger better than {base}?", "; ".join(parts) + ".",
                    next_step, verdict, why)


#: Strata named in the comparison's answer, at most (the largest moves first).
STRATA_NAMED = 3


def _strata_clause(table: pd.DataFrame, display_names: Mapping[str, str]) -> str:
    """The stratum rows that resolve an effect on their own (interval and Holm p over every
    row agree, :func:`row_side`), largest first; "" when none does or there are no strata.
    That a stratum resolves is licensed by Holm over the whole family; that strata *differ*
    is not (no test of it here), so the clause never says so.
    """
    if "stratum" not in table:
        return ""
    rows = table[~table["stratum"].isin(["pooled", "macro"])]
    moved = [r for r in rows.to_dict("records") if row_side(r)]
    if not moved:
        return ""
    moved.sort(key=lambda r: -abs(r["delta"]))
    many = table["challenger"].nunique() > 1 or table["metric"].nunique() > 1
    said = [(f"{display_name(str(r['challenger']), display_names)} on {r['metric']}, "
             if many else "")
            + f"{r['stratum']} {'gains' if row_side(r) > 0 else 'loses'} "
            f"{points(r['delta'], signed=True)} "
            f"{interval(r['ci_low'], r['ci_high'], signed=True)} (n = {int(r['n'])})"
            for r in moved[:STRATA_NAMED]]
    more = len(moved) - STRATA_NAMED
    return ("by stratum, on its own (Holm over every row): " + ", ".join(said)
            + (f" and {more} more stratum rows" if more > 0 else ""))


def comparison_finding(table: pd.DataFrame, *, display_names: Mapping[str, str] | None = None
                       ) -> Finding:
    """The comparison table's headline, its display table in points, checks and method."""
    names = dict(display_names or {})
    shown = pd.DataFrame({
        "challenger": [display_name(str(c), names) for c in table["challenger"]],
        "metric": table["metric"],
        **({"stratum": table["stratum"]} if table["stratum"].nunique() > 1 else {}),
        **{k: [points(v, signed=k.startswith("Δ")) for v in table[c]] for k, c in SHOWN.items()
           if k != "n"},
        "n": table["n"],
        "95% interval": [interval(lo, hi, signed=True) if lo == lo and hi == hi else "—"
                         for lo, hi in zip(table["ci_low"], table["ci_high"])],
        "p (Holm)": [f"{p:.2g}" if p == p else "—" for p in table["p_holm"]],
    })
    checks = checks_frame([(f"{c['challenger']}: {c['check']}", c["holds"], c["detail"])
                           for c in table.attrs.get("checks", [])])
    return Finding(comparison_headline(table, names), shown, None, checks,
                   table.attrs.get("description", ""),
                   caption=f"Challenger − baseline in {POINTS}; Holm over every row",
                   source=table,
                   sections=(table_section(shown, f"Challenger − baseline in {POINTS}; Holm "
                                           "over every row", note=DASH if table["p_holm"].isna()
                                           .any() else ""),),
                   objects={"table": table})
