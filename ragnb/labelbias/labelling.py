"""The pooled labelling list for labellers, and a "judge next" order.

:func:`labelling_list` is depth-k pooling: for each query, the union of the
chosen configs' top k minus what is judged, one row per passage with the
query text (when the test set has it) and which configs retrieved it at which
rank. :func:`pool_counts` gives the counts per query and config;
:func:`export_labelling_list` writes CSV and JSONL.

:func:`judge_next` orders the same passages by how much judging each one could
move the decision, in the spirit of minimal test collections (Carterette,
Allan & Sitaraman 2006, who pick the documents whose labels can change the
sign of a difference in AP). Here each passage's *swing* is the largest change
in the mean challenger-minus-baseline difference that labelling it alone (at
any grade, every other unjudged passage left not relevant) can cause::

    swing(p) = max_x |(m_c(x) - m_b(x)) - (m_c - m_b)| / n_queries

Passages that only one config ranks near the top move the difference most; a
passage both configs rank at the same place cancels out (swing 0 for RR and
P@k). The ``cumulative_swing`` column shows how much of the gap between the
current and the optimistic (or conservative) difference the first passages
can close; judging down the list settles the verdict soonest.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb.errors import InputError, listed
from ragnb.io.testset import TestSet
from ragnb.labelbias import _arrays as A
from ragnb.labelbias.bounds import Bounds, no_bound
from ragnb.labelbias.merge import write_atomic
from ragnb.labelbias.pool import Pool
from ragnb.labelbias.ratio import ideal_from_counts
from ragnb.metrics import parse_metric
from ragnb.metrics.gains import discount
from ragnb.spreadsheet import people_csv

ORDER_EXPLANATION = (
    "Judge next: passages are ordered by their swing, the largest change that labelling the "
    "passage alone (at any grade; the other unjudged passages left not relevant) can make to "
    "the mean challenger-minus-baseline difference, |delta change| / n queries (after "
    "Carterette, Allan & Sitaraman 2006, minimal test collections). Passages only one config "
    "ranks high come first; passages both configs rank alike cancel out."
)


def labelling_list(pool: Pool, test_set: TestSet | None = None) -> pd.DataFrame:
    """One row per pooled unjudged passage: what a labeller needs.

    Columns: ``query_id``, ``query`` (text, when ``test_set`` has it),
    ``passage_id``, ``n_configs`` (how many configs retrieved it in their top
    k), ``best_rank`` (1-based), ``retrieved_by`` (``"config:rank; ..."``), and
    ``rank_<config>`` (1-based, empty where the config did not retrieve it).
    Sorted by query (test-set order), then best rank, then passage id.
    """
    qids = pool.index.query_ids
    ranks = pool.item_rank.T + 1                      # (items, configs), 0 = absent
    present = ranks > 0
    best = np.where(present, ranks, np.iinfo(np.int64).max).min(axis=1)
    out = pd.DataFrame({"query_id": qids[pool.item_q].to_numpy(dtype=object)})
    if test_set is not None and "query" in test_set.queries:
        text = test_set.queries.set_index("query_id")["query"]
        out["query"] = text.reindex(out["query_id"]).to_numpy()
    out["passage_id"] = pool.item_passage
    out["n_configs"] = present.sum(axis=1)
    out["best_rank"] = best
    out["retrieved_by"] = [
        "; ".join(f"{c}:{r}" for c, r, p in zip(pool.configs, row, pres) if p)
        for row, pres in zip(ranks, present)]
    for c, config in enumerate(pool.configs):
        out[f"rank_{config}"] = pd.array(np.where(present[:, c], ranks[:, c], 0),
                                         dtype="Int64").astype("Int64")
        out.loc[~present[:, c], f"rank_{config}"] = pd.NA
    out["_q"] = pool.item_q
    out = out.sort_values(["_q", "best_rank", "passage_id"], kind="stable")
    return out.drop(columns="_q").reset_index(drop=True)


def pool_counts(pool: Pool) -> pd.DataFrame:
    """Unjudged passages per query: in each config's top k and in the union (tidy).

    Columns ``query_id, config, unjudged``; ``config == "union"`` rows count
    the pooled passages (what labellers get), the others each config's share.
    """
    qids = pool.index.query_ids
    frames = []
    for config, t in pool.tops.items():
        frames.append(pd.DataFrame({"query_id": qids, "config": config,
                                    "unjudged": np.bincount(t.q[t.unjudged],
                                                            minlength=pool.n_queries)}))
    frames.append(pd.DataFrame({"query_id": qids, "config": "union",
                                "unjudged": pool.items_per_query()}))
    return pd.concat(frames, ignore_index=True)


def export_labelling_list(table: pd.DataFrame, csv_path: str | Path | None = None,
                          jsonl_path: str | Path | None = None) -> list[Path]:
    """Write the labelling list as CSV (one column per config rank) and/or JSONL.

    JSONL rows: ``{query_id, query, passage_id, retrieved_by: [{config, rank}],
    grade: null}`` — the labeller fills ``grade``; the file then merges back
    with ``ragnb pool merge`` once ``grade`` holds integers.
    """
    written = []
    if csv_path is not None:
        written.append(write_atomic(csv_path, people_csv(table, index=False)))
    if jsonl_path is not None:
        rank_cols = [c for c in table.columns if c.startswith("rank_")]
        lines = []
        for row in table.to_dict(orient="records"):
            obj = {"query_id": row["query_id"]}
            if "query" in row:
                obj["query"] = row["query"]
            obj["passage_id"] = row["passage_id"]
            obj["retrieved_by"] = [{"config": c[len("rank_"):], "rank": int(row[c])}
                                   for c in rank_cols if not pd.isna(row[c])]
            for extra in ("swing", "challenger", "order"):
                if extra in row:
                    v = row[extra]
                    obj[extra] = v.item() if hasattr(v, "item") else v
            obj["grade"] = None
            lines.append(json.dumps(obj, ensure_ascii=False))
        written.append(write_atomic(jsonl_path, "\n".join(lines) + ("\n" if lines else "")))
    return written


def _single_item_values(pool: Pool, config: str, metric, grade: int) -> np.ndarray:
    """Per pooled item: the config's metric on that item's query when the item alone is
    labelled ``grade`` (every other unjudged passage at 0).
    """
    name = metric.spec.name
    t = pool.tops[config]
    nq = pool.n_queries
    q = pool.item_q
    r = pool.item_rank[pool.config_index(config)]
    inside = r >= 0
    rr_ = np.maximum(r, 0)
    rel = int(metric.params.get("rel", 1))
    judged_hit = ~t.unjudged & (t.grade >= rel)
    if name == "rr":
        lower = A.reciprocal(A.first_position(t.q, t.pos, judged_hit, nq))[q]
        return np.where(inside & (grade >= rel), np.maximum(lower, 1.0 / (rr_ + 1.0)), lower)
    if name == "p":
        den = A.depth(t.q, pool.k, nq)[q]
        hits = A.per_query(t.q, judged_hit, nq)[q]
        return A.safe_div(hits + (inside & (grade >= rel)), den)
    if name == "rbp":
        p = float(metric.params["p"])
        lower = A.per_query(t.q, (1 - p) * np.power(p, t.pos) * judged_hit, nq)[q]
        return lower + np.where(inside & (grade >= rel), (1 - p) * np.power(p, rr_), 0.0)
    if name == "answer_recall":
        top = int(metric.params.get("grade", 0)) or pool.index.top_grade
        lower = (A.per_query(t.q, ~t.unjudged & (t.grade >= top), nq) > 0)[q]
        return (lower | (inside & (grade >= top))).astype(np.float64)
    if name == "recall":
        hits = A.per_query(t.q, judged_hit, nq)[q]
        total = pool.index.relevant_counts(rel)[q].astype(np.float64)
        is_rel = grade >= rel
        return A.safe_div(hits + (inside & is_rel), total + is_rel)
    if name == "success":
        lower = (A.per_query(t.q, judged_hit, nq) > 0)[q]
        return (lower | (inside & (grade >= rel))).astype(np.float64)
    if metric.spec.bounds == "ndcg":
        gain = A.gain_for(metric, pool.top_grade)
        j = ~t.unjudged
        num = A.per_query(t.q[j], gain(t.grade[j]) * discount(t.pos[j]), nq)[q]
        num = num + np.where(inside, gain(float(grade)) * discount(rr_), 0.0)
        counts = pool.judged_by_grade()[q].copy()
        counts[:, grade] += 1
        gains = gain(np.arange(pool.top_grade + 1, dtype=np.float64))
        return A.safe_div(num, ideal_from_counts(counts, gains, pool.k))
    raise no_bound(metric)


def judge_next(bounds: Bounds, baseline: str, challengers: list[str] | None = None,
               test_set: TestSet | None = None) -> pd.DataFrame:
    """The labelling list ordered by swing (see the module docstring).

    Returns the :func:`labelling_list` columns plus ``order`` (1 = judge
    first), ``challenger`` (whose difference with the baseline the passage can
    move most), ``swing``, ``direction`` (``+`` if labelling it relevant helps
    the challenger) and ``cumulative_swing``.
    """
    pool = bounds.pool
    metric = parse_metric(bounds.metric)
    configs = pool.configs
    if baseline not in configs:
        raise InputError(f"unknown baseline {baseline!r}; configs: "
                         f"{listed(configs, most=20)}", key="baseline")
    challengers = challengers or [c for c in configs if c != baseline]
    n = len(bounds.per_query["query_id"].unique())
    table = labelling_list(pool, test_set)
    if not len(pool.item_q):
        return table.assign(order=[], challenger=[], swing=[], direction=[],
                            cumulative_swing=[])
    base0 = _single_item_values(pool, baseline, metric, 0)
    best = np.zeros(len(pool.item_q))
    sign = np.zeros(len(pool.item_q))
    who = np.full(len(pool.item_q), challengers[0], dtype=object)
    for chal in challengers:
        chal0 = _single_item_values(pool, chal, metric, 0)
        for g in range(1, pool.top_grade + 1):
            change = ((_single_item_values(pool, chal, metric, g) - chal0)
                      - (_single_item_values(pool, baseline, metric, g) - base0))
            better = np.abs(change) > best + 1e-15
            best = np.where(better, np.abs(change), best)
            sign = np.where(better, np.sign(change), sign)
            who = np.where(better, chal, who)
    # labelling_list sorted rows; recover each row's item index
    key = pd.MultiIndex.from_arrays([pool.index.query_ids[pool.item_q].to_numpy(dtype=object),
                                     pool.item_passage])
    rows = key.get_indexer(pd.MultiIndex.from_arrays([table["query_id"].to_numpy(dtype=object),
                                                      table["passage_id"].to_numpy(dtype=object)]))
    table["challenger"] = who[rows]
    table["swing"] = best[rows] / n
    table["direction"] = np.where(sign[rows] > 0, "+", np.where(sign[rows] < 0, "-", ""))
    table = table.sort_values(["swing", "best_rank"], ascending=[False, True], kind="stable")
    table.insert(0, "order", np.arange(1, len(table) + 1))
    table["cumulative_swing"] = table["swing"].cumsum()
    return table.reset_index(drop=True)


def pool_summary(pool: Pool, *, first: Iterable[str] = ()) -> pd.DataFrame:
    """Per config (and the union): unjudged passages in the top k and queries with any.

    The union comes first, then the configs in ``first`` (e.g. the baseline and
    the challenger), then the others in the pool's order, so a body table cut
    at 15 rows always shows them.
    """
    counts = pool_counts(pool)
    grouped = counts.groupby("config", sort=False)["unjudged"]
    out = pd.DataFrame({"passages": grouped.sum(),
                        "queries_with_any": grouped.apply(lambda u: int((u > 0).sum()))}
                       ).reset_index()
    lead = ["union", *(c for c in dict.fromkeys(first) if c in pool.configs)]
    rank = {c: i for i, c in enumerate([*lead, *(c for c in out["config"] if c not in lead)])}
    return out.sort_values("config", key=lambda c: c.map(rank), kind="stable"
                           ).reset_index(drop=True)
