"""What reports show of the ledger: selection counts over time and the inflation curve.

Pure functions from the ledger's history (and a standard error) to tidy
tables; charts for them are in :mod:`ragnb.ledger.charts`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ragnb.stats import expected_max_normal, selection_inflation
from ragnb.stats.inflation import range_columns


def selection_counts(history: pd.DataFrame) -> pd.DataFrame:
    """Running ``selections_against`` per split: ``split, ts, selections_against, event``.

    One row per registration, selection and demotion event (from
    :meth:`ragnb.ledger.Ledger.history`); ``demoted`` is true on the event that
    retired the split for selection.
    """
    h = history[history["event"].isin(["registered", "selection", "demoted"])].copy()
    h["step"] = (h["event"] == "selection").astype(int)
    h["selections_against"] = h.groupby("split")["step"].cumsum()
    h["demoted"] = (h["event"] == "demoted") | h["summary"].str.contains("DEMOTED", regex=False)
    h["ts"] = pd.to_datetime(h["ts"])
    return h[["split", "ts", "selections_against", "event", "demoted"]].reset_index(drop=True)


def inflation_curve(se: float, n_max: int = 60) -> pd.DataFrame:
    """Worst-case selection inflation after N choices, ``selection_inflation(N, se)``.

    ``se`` is the SE of a paired difference between candidates on the split; the
    curve is ``E[max of N standard normals] x se / sqrt(2)``
    (:func:`ragnb.stats.selection_inflation`), the worst case (all candidates
    equal) for each N.
    """
    n = np.arange(1, n_max + 1)
    emax = np.array([expected_max_normal(int(k)) for k in n])
    return pd.DataFrame({"selections": n, "expected_max": emax,
                         "inflation": [selection_inflation(int(k), se) for k in n]})


def ask_holdout(ledger, split: str, working: pd.DataFrame, confirmation: pd.DataFrame,
                configs) -> pd.DataFrame:
    """Ask a reusable-holdout split about each config in turn (Thresholdout).

    ``working`` and ``confirmation`` are per-query score tables (query x config,
    values in [0, 1]). Every answer is recorded in the ledger; the table shows
    the working mean, the answer, whether it came from the holdout (spending
    budget) and the budget left. The raw confirmation mean is deliberately not
    shown: reading it would spend the holdout outside its mechanism.
    """
    rows = []
    for config in configs:
        a = ledger.holdout_query(split, config, working[config].to_numpy(),
                                 confirmation[config].to_numpy())
        rows.append({"config": config, "working_mean": float(working[config].mean()),
                     "answer": a.value, "from_holdout": a.from_holdout,
                     "budget_left": a.budget_left})
    return pd.DataFrame(rows)


def guard_report(split: str, scores: dict[str, float], winner: str, n_selections: int,
                 se: float, alert_drop: float, threshold: float = 0.15,
                 inflation=None, *, guard: bool = True) -> pd.DataFrame:
    """What a regression guard says about a close ranking and about a large drop.

    Two rows: the ranking of ``scores`` (allowed or refused by
    :func:`ragnb.ledger.guard.check_ranking`, with its reason) and an alert for a
    hypothetical drop of ``alert_drop`` from the winner's score
    (:func:`ragnb.ledger.guard.alert`). ``inflation`` is the split's one figure
    (:func:`ragnb.stats.split_inflation`; without it the worst case from ``se``).
    ``guard=False``: the split is still a working split, whose ranking is "allowed" on a
    clear lead and otherwise "not told apart" (never "refused": only a guard refuses).
    """
    from ragnb.errors import PolicyError
    from ragnb.ledger.guard import alert, check_ranking, ranking_margin

    margin, bias = ranking_margin(n_selections, se, inflation=inflation)
    try:
        check_ranking(split, scores, winner, n_selections, se, inflation=inflation,
                      guard=guard)
        ranking = ("allowed", f"{winner} leads by more than the {margin * 100:.2f}-point margin")
    except PolicyError as exc:
        ranking = ("refused" if guard else "not told apart", str(exc))
    a = alert(scores[winner], scores[winner] - alert_drop, threshold)
    return pd.DataFrame([
        {"check": f"rank {', '.join(scores)} on {split}", "outcome": ranking[0],
         "detail": ranking[1]},
        {"check": f"alert on a {alert_drop * 100:.0f}-point drop", "outcome":
         "fires" if a.fired else "silent", "detail": a.message},
    ]).assign(selection_bias_points=round(bias * 100, 2), margin_points=round(margin * 100, 2))


def split_status(ledger_dir, test_sets: dict, se=None) -> pd.DataFrame:
    """The ledger rows of the test sets a report scores, matched by content hash.

    One row per test set, in the shape of :meth:`ragnb.ledger.Ledger.manifests`
    (``split`` is the name used in the report). A test set the ledger does not
    know — or no ledger at all — gives a row that says so
    (``role = "not registered"``, ``selections_against`` missing): how often it
    was selected against is unknown, and the report shows that. ``se`` (one
    value or name -> value: the split's :class:`ragnb.stats.SelectionInflation`,
    or the SE of a paired difference on it for the worst case) gives the
    ``inflation`` and ``inflation_method`` columns (:meth:`ragnb.ledger.Manifest.inflation`).
    """
    from ragnb.ledger import Ledger

    ledger = Ledger(ledger_dir) if ledger_dir else None
    rows = []
    for name, ts in test_sets.items():
        m = None if ledger is None else ledger.find(ts.judgments.drop(columns="line"),
                                                    list(ts.query_ids))
        if m is None:
            rows.append({"split": name, "split_id": f"{name} (not in the ledger)",
                         "role": "not registered", "selections_against": None,
                         "budget": None, "sealed": None, "retired_for_selection_at": None,
                         "inflation": None, "inflation_method": None,
                         "inflation_low": None, "inflation_high": None})
            continue
        n = m.selections_against
        figure = m.inflation(se.get(name) if isinstance(se, dict) else se)
        rows.append({"split": name, "split_id": m.split_id, "role": m.role,
                     "selections_against": n, "budget": m.budget, "sealed": m.sealed,
                     "retired_for_selection_at": m.retired_for_selection_at,
                     "inflation": None if figure is None else figure.inflation,
                     "inflation_method": None if figure is None else figure.method,
                     **range_columns(figure)})
    table = pd.DataFrame(rows)
    table["selections_against"] = table["selections_against"].astype("Int64")
    table["budget"] = table["budget"].astype("Int64")
    table["inflation"] = table["inflation"].astype("Float64")
    return table
