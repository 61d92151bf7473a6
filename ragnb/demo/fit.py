"""Demo data for the fit story (seed 000): golden vs production over forty rounds.

What is generated (all from one seed; regeneration is byte-identical):

``golden.jsonl``
    300 queries in seed 004's test-set format, written by the team: complete,
    single-turn, answerable questions; every candidate passage judged.
``production.jsonl``
    200 queries sampled from production traffic after the champion was chosen.
    Judged by pooling the top 10 of the January configuration and of the
    champion plus the passages that answer the query, so intermediate
    champions meet unjudged passages. 27 out-of-scope queries have no relevant
    passage (``unanswerable: true``).
``production_strata.csv``
    ``query_id, query_type, turn``: 118 in-scope single-turn, 41 follow-up,
    27 out-of-scope, 14 malformed — classified before any score was seen.
``runs/{golden,production}/round-NN.jsonl``
    The January baseline (round 00) and the champion kept after each of 40
    rounds of selection on the golden set, each rescored on both splits;
    JSONL ``{query_id: [passage_id, ...]}``, top 10.
``rounds.csv``
    ``round, config, date, change``: when each champion was adopted and why.

How the rankings are made. Each query has 20 candidate passages with true
grades (one grade-2 passage answers it; zero to three grade-1 passages support
it). A configuration ranks candidates by ``u * w(grade) + noise`` where the
noise is fixed per passage (common random numbers, so successive champions
differ only a little) and ``u`` is the configuration's per-query quality:
``u = u0[q] + offset[round] + drift[round, q]``. The offset of each round is
found by bisection so that the mean nDCG@10 follows the story's curves:

* golden: 0.512 in January, +1.5 points over rounds 1-9 (real work that also
  helps production), then +7.5 more by round 40 (fitted to these 300 queries);
* production: 0.498 in January, about +1.0 over rounds 1-9, then flat within a
  few tenths of a point; the champion ends +1.1 (in-scope +1.5, follow-up
  +1.2, out-of-scope exactly 0, malformed -0.3 points).
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20260702
ROUNDS = 40
DEPTH = 10
CANDIDATES = 20
INTENTS = ("billing", "shipping", "account", "returns", "security", "integrations")
SOURCES = (("ticket", 0.5), ("search", 0.3), ("sales", 0.2))
QUERY_TYPES = (("in_scope_single_turn", 118), ("follow_up", 41), ("out_of_scope", 27),
               ("malformed", 14))
WEIGHT = {2: 1.0, 1: 0.55, 0: 0.0}

# Story targets (nDCG@10 means); see the module docstring.
GOLDEN_START, PRODUCTION_START = 0.512, 0.498
GOLDEN_EARLY, GOLDEN_TOTAL = 0.015, 0.090
PRODUCTION_EARLY = 0.010
CHAMPION_STRATUM_DELTA = {"in_scope_single_turn": 0.015, "follow_up": 0.012,
                          "out_of_scope": 0.0, "malformed": -0.003}

_TOPICS = {
    "billing": ["billing address", "invoice", "payment method", "refund to my card",
                "annual plan", "VAT number"],
    "shipping": ["delivery date", "tracking number", "parcel", "express shipping",
                 "customs fees", "pickup point"],
    "account": ["password", "two-factor login", "email address", "team seats",
                "account owner", "profile photo"],
    "returns": ["return label", "exchange", "damaged item", "return window",
                "restocking fee", "store credit"],
    "security": ["SSO setup", "audit log", "data retention", "SOC 2 report",
                 "IP allow list", "encryption at rest"],
    "integrations": ["Slack app", "webhook", "API key", "Zapier", "CSV export", "Salesforce sync"],
}
_ASK = ["can I change my {t} after the order ships",
        "how long does it take to update the {t} for my company account",
        "what happens to my {t} if I cancel the subscription halfway through the year",
        "where do I find the {t} settings in the admin console",
        "is there a limit on how often we can change the {t} each month",
        "who on our team is allowed to edit the {t} and how do we grant access"]
_FOLLOW = ["and what about the second one", "same question but for the {t}",
           "ok and if that does not work", "does that also apply to the {t}"]
_OUT = ["is anyone else seeing this", "what is the weather in lisbon tomorrow",
        "write me a poem about invoices", "who won the match last night",
        "can you recommend a good laptop"]
_MALFORMED = ["{t}???", "help {t} not working!!!", "<script>alert(1)</script> {t}",
              "pls fix {t} asap asap", "{t} {t} {t}"]


@dataclass
class _Split:
    name: str
    queries: pd.DataFrame           # query metadata (seed 004 fields, no judgments)
    cand: np.ndarray                # (n, CANDIDATES) passage ids
    grade: np.ndarray               # (n, CANDIDATES) true grades
    noise: np.ndarray               # (n, CANDIDATES) fixed ranking noise
    u0: np.ndarray                  # (n,) baseline quality
    mult: np.ndarray                # (n,) how much a generic offset helps the query
    answerable: np.ndarray          # (n,) bool


def _passages(rng, intent: str, n_docs: int = 40) -> list[str]:
    docs = rng.choice(n_docs, size=CANDIDATES, replace=True)
    parts = rng.integers(1, 9, size=CANDIDATES)
    ids, seen = [], set()
    for d, p in zip(docs, parts):
        pid = f"kb-{intent}-{d:02d}#p{p}"
        while pid in seen:
            p += 1
            pid = f"kb-{intent}-{d:02d}#p{p}"
        seen.add(pid)
        ids.append(pid)
    return ids


def _make_split(rng, name: str, prefix: str, types: list[str]) -> _Split:
    n = len(types)
    rows, cands, grades = [], [], []
    source_names = [s for s, _ in SOURCES]
    source_p = [p for _, p in SOURCES]
    for i, qtype in enumerate(types):
        intent = INTENTS[rng.integers(len(INTENTS))]
        topic = _TOPICS[intent][rng.integers(6)]
        if qtype == "in_scope_single_turn":
            text = _ASK[rng.integers(len(_ASK))].format(t=topic)
        elif qtype == "follow_up":
            text = _FOLLOW[rng.integers(len(_FOLLOW))].format(t=topic)
        elif qtype == "out_of_scope":
            text = _OUT[rng.integers(len(_OUT))]
        else:
            text = _MALFORMED[rng.integers(len(_MALFORMED))].format(t=topic)
        cand = _passages(rng, intent)
        g = np.zeros(CANDIDATES, dtype=np.int64)
        answerable = qtype != "out_of_scope"
        if answerable:
            g[0] = 2
            g[1:1 + rng.integers(0, 4)] = 1
        order = rng.permutation(CANDIDATES)
        cand, g = [cand[j] for j in order], g[order]
        answer = (f"The {topic} is handled in {cand[int(np.argmax(g))].split('#')[0]}."
                  if answerable else "")
        rows.append({
            "query_id": f"{prefix}{i + 1:04d}", "query": text,
            "source": source_names[rng.choice(3, p=source_p)], "intent": intent,
            "answer": answer, "unanswerable": not answerable,
        })
        cands.append(cand)
        grades.append(g)
    noise = rng.normal(size=(n, CANDIDATES))
    u0 = rng.normal(0.0, 1.0, size=n)
    mult = np.array([{"in_scope_single_turn": 1.0, "follow_up": 0.8, "out_of_scope": 0.0,
                      "malformed": -0.2}[t] for t in types])
    return _Split(name, pd.DataFrame(rows), np.array(cands, dtype=object), np.array(grades),
                  noise, u0, mult, np.array([t != "out_of_scope" for t in types]))


def _rank(split: _Split, u: np.ndarray, jitter: np.ndarray) -> np.ndarray:
    """Top-DEPTH candidate indices per query for per-query quality ``u``."""
    w = np.vectorize(WEIGHT.get)(split.grade)
    s = u[:, None] * w + split.noise + jitter
    return np.argsort(-s, axis=1, kind="stable")[:, :DEPTH]


_DISCOUNT = 1.0 / np.log2(np.arange(DEPTH) + 2.0)


def _ideal(split: _Split) -> np.ndarray:
    gains = np.sort(np.exp2(split.grade) - 1.0, axis=1)[:, ::-1][:, :DEPTH]
    return gains @ _DISCOUNT


def _ndcg(split: _Split, top: np.ndarray) -> np.ndarray:
    """Per-query nDCG@10 (gain 2^g - 1) of a top-k index matrix, against the true grades.

    The generator's own fast copy of the metric; the tests check the written
    files with :func:`ragnb.metrics.score.score`.
    """
    gains = np.exp2(np.take_along_axis(split.grade, top, axis=1)) - 1.0
    ideal = _ideal(split)
    return np.divide(gains @ _DISCOUNT, ideal, out=np.zeros(len(ideal)), where=ideal > 0)


def _mean_ndcg(split: _Split, top: np.ndarray, mask=None) -> float:
    v = _ndcg(split, top)
    return float(v[mask].mean() if mask is not None else v.mean())


def _nudge(split: _Split, top: np.ndarray, target: float, mask=None,
           tol: float = 5e-5) -> np.ndarray:
    """Greedy adjacent swaps until the (masked) mean nDCG@10 is within ``tol`` of ``target``.

    Each step applies the single move — swap ranks i and i+1 inside the top 10,
    or replace rank 10 by the best candidate outside it — that brings the mean
    closest to the target. Deterministic (ties go to the first query and rank).
    """
    top = top.copy()
    rows = np.flatnonzero(np.ones(len(top), dtype=bool) if mask is None else mask)
    ideal = _ideal(split)[rows]
    ok = ideal > 0
    rows, ideal = rows[ok], ideal[ok]
    n = int(np.count_nonzero(mask)) if mask is not None else len(top)
    for _ in range(400):
        err = target - _mean_ndcg(split, top, mask)
        if abs(err) < tol or not len(rows):
            break
        g = np.exp2(np.take_along_axis(split.grade[rows], top[rows], axis=1)) - 1.0
        swap = (g[:, 1:] - g[:, :-1]) * (_DISCOUNT[:-1] - _DISCOUNT[1:])
        outside = np.ones((len(rows), CANDIDATES), dtype=bool)
        np.put_along_axis(outside, top[rows], False, axis=1)
        out_gain = np.where(outside, np.exp2(split.grade[rows]) - 1.0, -1.0)
        best_out = out_gain.argmax(axis=1)
        repl = (out_gain.max(axis=1) - g[:, -1]) * _DISCOUNT[-1]
        delta = np.c_[swap, repl] / ideal[:, None] / n
        delta[delta == 0] = np.inf
        r, m = np.unravel_index(np.argmin(np.abs(err - delta)), delta.shape)
        if abs(err - delta[r, m]) >= abs(err):
            break
        q = rows[r]
        if m < DEPTH - 1:
            top[q, m], top[q, m + 1] = top[q, m + 1], top[q, m]
        else:
            top[q, -1] = best_out[r]
    return top


def _offset_mean(split: _Split, base: np.ndarray, mult: np.ndarray, jitter: np.ndarray,
                 offset: float) -> float:
    """Mean nDCG@10 when every query's quality moves by ``offset * mult``."""
    return _mean_ndcg(split, _rank(split, base + offset * mult, jitter))


def _calibrate(f, target: float, lo: float = -6.0, hi: float = 6.0, tol: float = 2e-4) -> float:
    """Bisection for a monotone-in-expectation step function ``f(x) ~ target``."""
    best, best_err = lo, np.inf
    for _ in range(60):
        mid = (lo + hi) / 2
        value = f(mid)
        err = abs(value - target)
        if err < best_err:
            best, best_err = mid, err
        if err < tol:
            break
        lo, hi = (mid, hi) if value < target else (lo, mid)
    return best


def _curves(rng) -> tuple[np.ndarray, np.ndarray]:
    """Target mean nDCG@10 per round for golden and production (round 0..ROUNDS)."""
    r = np.arange(ROUNDS + 1)
    early = np.minimum(r, 9) / 9
    # golden: early real gains, then fitted gains in uneven but non-decreasing steps
    steps = rng.gamma(2.0, 1.0, size=ROUNDS - 9)
    late = np.r_[np.zeros(10), np.cumsum(steps) / steps.sum()]
    golden = GOLDEN_START + GOLDEN_EARLY * early + (GOLDEN_TOTAL - GOLDEN_EARLY) * late
    # production: early gains, a little drift until round 18, then flat within a few tenths
    wander = np.r_[np.zeros(10), rng.uniform(-0.002, 0.002, size=ROUNDS - 9)]
    production = PRODUCTION_START + PRODUCTION_EARLY * early + wander
    return golden, production


def generate(out_dir: str | Path, seed: int = SEED) -> list[Path]:
    """Write the fit-story demo data into ``out_dir``; returns the files written."""
    out = Path(out_dir)
    rng = np.random.default_rng(seed)
    golden = _make_split(rng, "golden", "g", ["in_scope_single_turn"] * 300)
    prod_types = [t for t, k in QUERY_TYPES for _ in range(k)]
    prod_types = [prod_types[i] for i in rng.permutation(len(prod_types))]
    production = _make_split(rng, "production", "p", prod_types)
    golden_target, production_target = _curves(rng)

    rankings: dict[str, list[np.ndarray]] = {"golden": [], "production": []}
    for split, target in ((golden, golden_target), (production, production_target)):
        n = len(split.queries)
        drift = np.zeros(n)
        jitter = np.zeros((n, CANDIDATES))
        for rnd in range(ROUNDS + 1):
            if rnd:
                drift = drift + rng.normal(0.0, 0.08, size=n)
                jitter = 0.9 * jitter + rng.normal(0.0, 0.05, size=(n, CANDIDATES))
            base = split.u0 + drift
            if split.name == "production" and rnd == ROUNDS:
                top = _champion_by_stratum(split, rankings["production"][0], base, jitter,
                                           prod_types)
            else:
                mult = split.mult if rnd else np.ones(n)
                off = _calibrate(partial(_offset_mean, split, base, mult, jitter), target[rnd])
                top = _nudge(split, _rank(split, base + off * mult, jitter), target[rnd])
                if rnd == 0:
                    split.u0 = split.u0 + off  # later offsets are relative to January
            rankings[split.name].append(top)

    files = _write(out, golden, production, rankings, prod_types)
    return files


def _champion_by_stratum(split, january_top, base, jitter, types) -> np.ndarray:
    """The final champion on production, calibrated stratum by stratum."""
    types = np.array(types)
    top = _rank(split, base, jitter)
    for qtype, delta in CHAMPION_STRATUM_DELTA.items():
        mask = types == qtype
        if qtype == "out_of_scope":
            continue  # nothing relevant: every configuration scores 0 there
        start = _mean_ndcg(split, january_top, mask)

        def stratum_mean(x, mask=mask):
            return _mean_ndcg(split, _rank(split, base + x * mask, jitter), mask)

        off = _calibrate(stratum_mean, start + delta)
        top[mask] = _rank(split, base + off * mask, jitter)[mask]
        top = _nudge(split, top, start + delta, mask)
    return top


def _jsonl_line(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")) + "\n"


def _write(out: Path, golden: _Split, production: _Split, rankings, prod_types) -> list[Path]:
    files: list[Path] = []
    versions = ["2026-01-20", "2026-03-11", "2026-05-04"]
    for split in (golden, production):
        n = len(split.queries)
        judged = np.ones((n, CANDIDATES), dtype=bool)
        if split.name == "production":  # pooled: January's and the champion's top 10 + answers
            judged = split.grade > 0
            for top in (rankings["production"][0], rankings["production"][-1]):
                np.put_along_axis(judged, top, True, axis=1)
        lines = []
        for i, meta in enumerate(split.queries.to_dict("records")):
            judgments = [{"passage_id": split.cand[i, c], "grade": int(split.grade[i, c]),
                          "doc_version": versions[(i + c) % 3]}
                         for c in range(CANDIDATES) if judged[i, c]]
            lines.append(_jsonl_line({**meta, "judgments": judgments}))
        path = out / f"{split.name}.jsonl"
        files.append(_write_text(path, "".join(lines)))
        for rnd, top in enumerate(rankings[split.name]):
            pid = np.take_along_axis(split.cand, top, axis=1)
            text = "".join(_jsonl_line({q: list(p)}) for q, p in
                           zip(split.queries["query_id"], pid.tolist()))
            files.append(_write_text(out / "runs" / split.name / f"round-{rnd:02d}.jsonl", text))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["query_id", "query_type", "turn"])
    turn_rng = np.random.default_rng(SEED + 1)
    for qid, qtype in zip(production.queries["query_id"], prod_types):
        turn = int(turn_rng.integers(2, 5)) if qtype == "follow_up" else 1
        w.writerow([qid, qtype, turn])
    files.append(_write_text(out / "production_strata.csv", buf.getvalue()))
    files.append(_write_text(out / "rounds.csv", _rounds_csv()))
    return files


_CHANGES = ["chunk size 512 -> 384", "hybrid BM25 weight 0.3", "query rewriting on",
            "reranker top-50", "title boosting", "chunk overlap 64", "synonym list v2",
            "embedding model e5-large", "rewrite prompt v3", "dedupe near-identical chunks"]


def _rounds_csv() -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["round", "config", "date", "change"])
    start = np.datetime64("2026-01-08")
    w.writerow([0, "round-00", str(start), "January baseline"])
    for r in range(1, ROUNDS + 1):
        date = start + np.timedelta64(round(r * 175 / ROUNDS), "D")  # round 40: 2026-07-02
        w.writerow([r, f"round-{r:02d}", str(date), _CHANGES[(r * 7) % len(_CHANGES)]])
    return buf.getvalue()


def _write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    return path
