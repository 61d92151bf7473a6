"""Demo data for the label-bias story (seed 003): an answer key built from one embedder's pool.

What is generated (a pure function of the seed; regeneration is byte-identical):

``testset.jsonl``
    164 queries in seed 004's test-set format (``query_id, query, source,
    intent, answer, judgments[{passage_id, grade, doc_version}],
    unanswerable``). The judgments are the "v4" answer key: only passages that
    the e5 embedder (``m0``) brought in were judged — its dense top 20 plus
    about 21 more per query from its other fields, 41 per query, 310 of them
    relevant (grade 1 or 2).
``runs/{m0,m1,m2}_{r1,r2}.trec``
    Six TREC runs, depth 20: three embedders (``m0`` e5, ``m1`` bge-m3,
    ``m2`` KURE) each retrieve 20 candidates, and two rerankers (``r1``,
    ``r2``) order them. MRR@10 (``rr@10``) is the story's metric.
``pooled_labels.csv``
    The hidden "pooled labelling": ``query_id, passage_id, grade, doc_version,
    shard`` for every passage in the union of the three embedders' candidates
    that the v4 key lacks (2,105 judgments, 42 of them relevant, 2.0%), in
    four shards of 43/42/37/42 queries with 530/525/525/525 judgments and
    7/13/13/9 new positives (shard 1's seven sit on six queries). Merging it
    (``ragnb pool merge``) gives the "v5" key.
``shards.csv``
    ``query_id, shard`` (readable as a strata file).

How it is made. Each query has known relevant passages (judged, in e5's pool),
hidden relevant ones (relevant, never judged, outside e5's pool) and
non-relevant ones, judged or new. Candidate sets are drawn per embedder:
e5's are judged by construction, except 14 cache-drift passages (new
passages also in the pool) that r2 ranks below its top 10; bge-m3's and
KURE's mix known relevant passages, judged non-relevant ones (mostly e5's own,
so the configs share their hard negatives) and new ones, and between them find
every hidden relevant one. A reranker scores each passage once,
``score = beta_r * w(grade) * salience + noise - offset * [new]`` (the same
score whichever embedder retrieved it: common random numbers make the configs'
per-query values correlated, as real ones are; ``salience`` < 1 for the hidden
relevant passages and ``offset`` > 0 for new passages, which look less on-topic).
Then a deterministic local search (redraw one passage's noise or swap two, keep
the move when the figures get closer) calibrates the noise so that the story's
figures hold:

* unjudged share of the top 10: about 0.7% / 26% / 32% for m0_r1 / m1_r1 /
  m2_r1, and none for m0_r2;
* MRR@10 lower / condensed / upper near seed 003's table (m0_r1 0.7443 /
  0.7446 / 0.7461, m0_r2 0.6805, m1_r1 0.7412 / 0.7546 / 0.7916, m1_r2
  0.6581 / 0.6684 / 0.7133, m2_r1 0.7511 / 0.7639 / 0.8002, m2_r2 0.6702 /
  0.6791 / 0.7350);
* after merging the pooled labels: m0 unchanged, m2_r1 about 0.7740 (the gain
  over m0_r1 grows from +0.0068 to about +0.0297), shard 1 alone moves m1_r1
  by about +0.0061 and m2_r1 by about +0.0078 (as means over all 164);
* the spread of per-query differences against m0_r1 implied by the seed's
  interval widths (TARGET_SPREAD), so the bootstrap intervals match too.

Measured on the generated files (seed 20260729): unjudged share 0.67% / 0% /
26.0% / 32.0% for m0_r1 / m0_r2 / m1_r1 / m2_r1; MRR@10 lower / condensed /
upper m0_r1 0.7445 / 0.7445 / 0.7451, m0_r2 0.6806, m1_r1 0.7410 / 0.7543 /
0.7915, m1_r2 0.6575 / 0.6690 / 0.7133, m2_r1 0.7504 / 0.7671 / 0.8007,
m2_r2 0.6694 / 0.6797 / 0.7350; gain of m2_r1 over m0_r1 +0.0059 before,
+0.0288 [-0.0063, +0.0655] after merging; shard 1 moves m2_r1 by +0.0076
(projected +0.0291) and m1_r1 by +0.0041.

The three-way verdicts then read as in the seed: the r2 configs are rejected,
m1_r1 and m2_r1 need labelling. ``tests/demo/test_labelbias.py`` checks
these figures with the scorer and the byte-identical regeneration.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SEED = 20260729
N_QUERIES = 164
DEPTH = 20          # candidates per embedder = run depth
K = 10              # the story's cut-off (MRR@10)
CONFIGS = ("m0_r1", "m0_r2", "m1_r1", "m1_r2", "m2_r1", "m2_r2")
EMBEDDERS = ("e5", "bge-m3", "KURE")
SHARDS = ((43, 530, 7), (42, 525, 13), (37, 525, 13), (42, 525, 9))  # queries, judgments, positives
KNOWN_RELEVANT = 310
JUDGED = 6751
DOC_VERSION = "2026-07-01"
INTENTS = ("schedule", "budget", "requirements", "staffing", "security", "warranty")

#: Seed 003's MRR@10 table (lower, condensed, upper) and the story's after-merge values.
TARGET_POLICIES = {
    "m0_r1": (0.7443, 0.7446, 0.7461), "m0_r2": (0.6805, 0.6805, 0.6805),
    "m1_r1": (0.7412, 0.7546, 0.7916), "m1_r2": (0.6581, 0.6684, 0.7133),
    "m2_r1": (0.7511, 0.7639, 0.8002), "m2_r2": (0.6702, 0.6791, 0.7350),
}
TARGET_UNJUDGED = {"m0_r1": 0.007, "m0_r2": 0.0, "m1_r1": 0.260, "m2_r1": 0.320}
TARGET_TRUTH = {"m0_r1": 0.7443, "m1_r1": 0.7645, "m2_r1": 0.7740}
TARGET_SHARD1 = {"m0_r1": 0.0, "m1_r1": 0.0061, "m2_r1": 0.0078}
#: SD of per-query differences against m0_r1 implied by seed 003's interval widths
#: (half-width / 1.96 * sqrt(164)): (config, column 0 = lower / 3 = after merging, sd).
TARGET_SPREAD = (("m1_r1", 0, 0.245), ("m2_r1", 0, 0.232), ("m2_r1", 3, 0.222),
                 ("m0_r2", 0, 0.240))

# Model parameters (chosen so that the calibration has little left to do).
_W = np.array([0.0, 0.75, 1.0])  # reranker weight of grades 0, 1, 2
_BETA = {"r1": 2.4, "r2": 1.8}   # reranker strength: r1 is the better reranker
_HIDDEN_SALIENCE = 0.8           # rerankers see less in the passages e5 missed
P_KNOWN = (0.85, 0.86, 0.88)     # chance an embedder's top 20 holds a known relevant passage
_NEW_OFFSET = 0.5                # passages outside e5's pool look less on-topic to rerankers
_NEW_SHARE = (0.60, 0.80)        # chance bge-m3 / KURE retrieve each new pool passage
_SHARED_NEGATIVES = 20.0         # their judged non-relevant candidates are mostly e5's
_SPREAD_WEIGHT = 1.0             # weight of the TARGET_SPREAD terms in the calibration loss
_TOPICS = ("the data migration", "the help-desk service", "the security audit",
           "the cloud hosting", "the training programme", "the mobile app",
           "the records system", "the network upgrade", "the payment gateway",
           "the reporting dashboard", "the identity service", "the archive scanning")
_ASKS = {
    "schedule": ("When must {t} be completed?", "Within {n} months of contract signature."),
    "budget": ("What is the budget ceiling for {t}?", "{n}00 million won including VAT."),
    "requirements": ("Which standard must {t} comply with?", "ISO/IEC 2700{d} and clause {n}."),
    "staffing": ("How many dedicated staff does {t} require?", "{n} full-time engineers on site."),
    "security": ("What security review applies to {t}?", "A level-{d} review before go-live."),
    "warranty": ("How long is the free maintenance period for {t}?",
                 "{n} months after acceptance."),
}


@dataclass
class _Query:
    qid: str
    text: str
    intent: str
    answer: str
    shard: int
    passages: list            # passage ids
    grade: np.ndarray         # true grade per passage
    judged: np.ndarray        # in the v4 key
    pooled: np.ndarray        # in the pooled labelling (union of candidates minus judged)
    cands: list               # per embedder: array of passage indices (20)
    noise: dict               # reranker -> noise per passage
    salience: np.ndarray      # how clearly a reranker sees a passage's relevance


def _split_total(rng, total: int, n: int, low: int, high: int) -> np.ndarray:
    """``n`` integers in [low, high] summing to ``total`` (random, near-even)."""
    out = np.full(n, total // n)
    out[: total - out.sum()] += 1
    for _ in range(4 * n):
        i, j = rng.integers(0, n, 2)
        step = int(rng.integers(1, 4))
        if out[i] - step >= low and out[j] + step <= high:
            out[i] -= step
            out[j] += step
    rng.shuffle(out)
    return out


def _build(seed: int) -> list[_Query]:
    rng = np.random.default_rng(seed)
    shard_of = np.concatenate([np.full(n, s + 1) for s, (n, _, _) in enumerate(SHARDS)])
    known = 1 + rng.poisson(0.9, N_QUERIES).clip(0, 4)
    while known.sum() != KNOWN_RELEVANT:  # exact total, one query at a time
        i = int(rng.integers(N_QUERIES))
        if known.sum() > KNOWN_RELEVANT and known[i] > 1:
            known[i] -= 1
        elif known.sum() < KNOWN_RELEVANT and known[i] < 5:
            known[i] += 1
    judged_total = _split_total(rng, JUDGED, N_QUERIES, 30, 52)
    new_total = np.concatenate([_split_total(rng, j, n, 5, 22) for n, j, _ in SHARDS])
    hidden = np.zeros(N_QUERIES, dtype=int)
    start = 0
    for n, _, pos in SHARDS:
        ids = np.arange(start, start + n)
        if pos == 7:  # shard 1: seven positives on six queries
            chosen = rng.choice(ids, 6, replace=False)
            hidden[chosen] = 1
            hidden[chosen[0]] = 2
        else:
            chosen = rng.choice(ids, pos, replace=False)
            hidden[chosen] = 1
        start += n

    queries = []
    used = set()
    for i in range(N_QUERIES):
        while True:
            qid = "g200:" + "".join(rng.choice(list("0123456789abcdef"), 8))
            if qid not in used:
                used.add(qid)
                break
        intent = INTENTS[int(rng.integers(len(INTENTS)))]
        topic = _TOPICS[int(rng.integers(len(_TOPICS)))]
        n, d = int(rng.integers(2, 13)), int(rng.integers(1, 4))
        ask, answer = _ASKS[intent]
        text = ask.format(t=topic)
        answer = answer.format(n=n, d=d)
        n_known, n_hidden = int(known[i]), int(hidden[i])
        n_judged, n_new = int(judged_total[i]), int(new_total[i])
        # passages: known relevant | judged non-relevant | hidden relevant | new non-relevant
        n_j0 = n_judged - n_known
        n_u0 = n_new - n_hidden
        total = n_known + n_j0 + n_hidden + n_u0
        doc = [f"rfp-{int(x):03d}" for x in rng.integers(0, 400, 3)]
        chunks = rng.choice(np.arange(1, 9000), total, replace=False)
        pids = [f"{doc[int(rng.integers(3))]}::{int(c):04d}" for c in chunks]
        grade = np.zeros(total, dtype=int)
        grade[:n_known] = np.where(rng.random(n_known) < 0.55, 2, 1)
        grade[n_known + n_j0: n_known + n_j0 + n_hidden] = np.where(
            rng.random(n_hidden) < 0.5, 2, 1)
        judged = np.zeros(total, dtype=bool)
        judged[: n_known + n_j0] = True
        K_ = np.arange(n_known)
        J0 = np.arange(n_known, n_known + n_j0)
        H = np.arange(n_known + n_j0, n_known + n_j0 + n_hidden)
        U0 = np.arange(n_known + n_j0 + n_hidden, total)
        # e5: known relevant mostly in its dense top 20, the rest judged non-relevant
        k_in0 = K_[rng.random(n_known) < P_KNOWN[0]]
        c0 = np.r_[k_in0, rng.choice(J0, DEPTH - len(k_in0), replace=False)]
        # new (unjudged) passages reach the pool through bge-m3 and KURE; split them
        n_pool_new = n_new - n_hidden
        u_pool = U0[:n_pool_new]
        in1 = rng.random(n_pool_new) < _NEW_SHARE[0]
        in2 = (rng.random(n_pool_new) < _NEW_SHARE[1]) | ~in1
        cands = [c0]
        in_h1 = rng.random(n_hidden) < 0.55
        hidden_in = (H[in_h1], H[~in_h1 | (rng.random(n_hidden) < 0.75)])
        for m, inm, p_known in ((1, in1, P_KNOWN[1]), (2, in2, P_KNOWN[2])):
            h_m = hidden_in[m - 1]
            new_m = u_pool[inm][: DEPTH - len(h_m) - 4]
            k_m = K_[rng.random(n_known) < p_known][: DEPTH - len(new_m) - len(h_m)]
            fill = DEPTH - len(new_m) - len(h_m) - len(k_m)
            pool_j = np.r_[np.setdiff1d(c0, k_in0), np.setdiff1d(J0, c0)]
            weight = np.where(np.isin(pool_j, c0), _SHARED_NEGATIVES, 1.0)
            fill_j = rng.choice(pool_j, fill, replace=False, p=weight / weight.sum())
            cands.append(np.r_[k_m, h_m, new_m, fill_j])
        # a pool passage left out of both (list full): swap it for a judged non-relevant one
        for u in u_pool:
            if u in cands[1] or u in cands[2]:
                continue
            for c in (cands[1], cands[2]):
                slots = np.flatnonzero(judged[c] & (grade[c] == 0))
                if slots.size:
                    c[slots[-1]] = u
                    break
        pooled = np.zeros(total, dtype=bool)
        pooled[np.union1d(cands[1], cands[2])] = True
        pooled &= ~judged
        noise = {r: rng.normal(0.0, 1.0, total) for r in _BETA}
        salience = np.where(judged, 1.0, _HIDDEN_SALIENCE)
        queries.append(_Query(qid, text, intent, answer, int(shard_of[i]), pids, grade, judged,
                              pooled, cands, noise, salience))
    _add_drift(queries, rng)
    _check(queries)
    return queries


def _add_drift(queries: list[_Query], rng) -> None:
    """Cache drift: a dozen new non-relevant passages also in e5's candidates (m0_r1 ~0.7%).

    Each is one of the pool's new passages (so the pooled labelling is unchanged)
    and takes the place of one of e5's judged non-relevant candidates.
    """
    done = 0
    for q in rng.permutation(len(queries)):
        query = queries[int(q)]
        new = np.flatnonzero(query.pooled & (query.grade == 0))
        if not new.size:
            continue
        c0 = query.cands[0]
        slots = np.flatnonzero(query.judged[c0] & (query.grade[c0] == 0))
        c0[int(slots[-1])] = int(new[0])
        query.noise["r2"][int(new[0])] = -3.0 - abs(rng.normal())  # below r2's top 10
        done += 1
        if done == 14:
            break


def _check(queries: list[_Query]) -> None:
    """The story's counts hold exactly (a generator bug otherwise)."""
    for s, (n, judgments, positives) in enumerate(SHARDS, start=1):
        qs = [q for q in queries if q.shard == s]
        got = (len(qs), sum(int(q.pooled.sum()) for q in qs),
               sum(int((q.pooled & (q.grade > 0)).sum()) for q in qs))
        if got != (n, judgments, positives):
            raise RuntimeError(f"shard {s}: queries/judgments/positives {got}, expected "
                               f"{(n, judgments, positives)}")
    if sum(int((q.judged & (q.grade > 0)).sum()) for q in queries) != KNOWN_RELEVANT or sum(
            int(q.judged.sum()) for q in queries) != JUDGED:
        raise RuntimeError("the v4 key does not have the story's size")
    for q in queries:
        if any(len(np.unique(c)) != DEPTH for c in q.cands):
            raise RuntimeError(f"query {q.qid}: a candidate list is not {DEPTH} distinct passages")


def _rankings(query: _Query) -> dict[str, np.ndarray]:
    out = {}
    for m in range(3):
        c = query.cands[m]
        for r in ("r1", "r2"):
            s = (_BETA[r] * _W[query.grade[c]] * query.salience[c] + query.noise[r][c]
                 - _NEW_OFFSET * ~query.judged[c])
            out[f"m{m}_{r}"] = c[np.argsort(-s, kind="stable")]
    return out


def _stats(query: _Query) -> np.ndarray:
    """Per config: lower, condensed, upper, truth RR@10, unjudged in top 10 (6 x 5)."""
    out = np.zeros((len(CONFIGS), 5))
    ranks = _rankings(query)
    for i, name in enumerate(CONFIGS):
        r = ranks[name]
        top = r[:K]
        jud = query.judged[top]
        rel = query.grade[top] > 0
        out[i, 0] = _rr(jud & rel)
        cond = r[query.judged[r]][:K]
        out[i, 1] = _rr(query.grade[cond] > 0)
        out[i, 2] = _rr((jud & rel) | ~jud)
        out[i, 3] = _rr(rel)
        out[i, 4] = np.count_nonzero(~jud)
    return out


def _rr(hit: np.ndarray) -> float:
    where = np.flatnonzero(hit)
    return 1.0 / (where[0] + 1) if where.size else 0.0


def _targets() -> tuple[np.ndarray, np.ndarray]:
    """Target sums (over queries) and weights, in the layout of :func:`_summary`."""
    t = np.full((len(CONFIGS), 5), np.nan)
    for i, name in enumerate(CONFIGS):
        t[i, :3] = np.array(TARGET_POLICIES[name]) * N_QUERIES
        if name in TARGET_TRUTH:
            t[i, 3] = TARGET_TRUTH[name] * N_QUERIES
        if name in TARGET_UNJUDGED:
            t[i, 4] = TARGET_UNJUDGED[name] * N_QUERIES * K
    w = np.where(np.isnan(t), 0.0, 1.0)
    w[:, 3] *= 4.0
    w[:, 4] *= 0.02
    return np.nan_to_num(t), w


def _calibrate(queries: list[_Query], rng, steps: int = 40000) -> None:
    per = np.stack([_stats(q) for q in queries])            # (nq, 6, 5)
    movable = [np.unique(np.concatenate(q.cands)) for q in queries]
    shard1 = np.array([q.shard == 1 for q in queries])
    target, weight = _targets()
    s1_target = np.array([TARGET_SHARD1[c] * N_QUERIES if c in TARGET_SHARD1 else 0.0
                          for c in CONFIGS])
    s1_w = np.array([4.0 if c in TARGET_SHARD1 else 0.0 for c in CONFIGS])

    spread = [(CONFIGS.index(c), col, sd ** 2 * (N_QUERIES - 1)) for c, col, sd in TARGET_SPREAD]

    def loss(p):
        total = p.sum(axis=0)
        s1 = (p[shard1, :, 3] - p[shard1, :, 0]).sum(axis=0)
        out = float((weight * (total - target) ** 2).sum() + (s1_w * (s1 - s1_target) ** 2).sum())
        for c, col, target_ss in spread:  # sum of squared deviations of the differences
            d = p[:, c, col] - p[:, 0, col]
            out += _SPREAD_WEIGHT * (float(((d - d.mean()) ** 2).sum()) - target_ss) ** 2
        return out + 1e3 * p[:, 1, 4].sum()                  # m0_r2 must have no unjudged

    current = loss(per)
    for _ in range(steps):
        qi = int(rng.integers(len(queries)))
        q = queries[qi]
        r = ("r1", "r2")[int(rng.integers(2))]
        noise = q.noise[r]
        old = noise.copy()
        j, i = movable[qi][rng.integers(len(movable[qi]), size=2)]
        if rng.random() < 0.5:       # redraw one passage's noise
            noise[j] = rng.normal()
        else:                        # swap two passages' noise
            noise[i], noise[j] = old[j], old[i]
        before = per[qi].copy()
        per[qi] = _stats(q)
        new = loss(per)
        if new <= current:
            current = new
        else:
            q.noise[r] = old
            per[qi] = before


def _test_set_jsonl(queries: list[_Query]) -> str:
    lines = []
    for q in queries:
        judged = [{"passage_id": q.passages[i], "grade": int(q.grade[i]),
                   "doc_version": DOC_VERSION} for i in np.flatnonzero(q.judged)]
        judged.sort(key=lambda j: j["passage_id"])
        lines.append(json.dumps({"query_id": q.qid, "query": q.text, "source": "rfp",
                                 "intent": q.intent, "answer": q.answer, "judgments": judged,
                                 "unanswerable": False}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _run_trec(queries: list[_Query], config: str) -> str:
    out = io.StringIO()
    for q in queries:
        ranking = _rankings(q)[config]
        for rank, i in enumerate(ranking, start=1):
            out.write(f"{q.qid} Q0 {q.passages[i]} {rank} {DEPTH + 1 - rank} {config}\n")
    return out.getvalue()


def _pooled_csv(queries: list[_Query]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["query_id", "passage_id", "grade", "doc_version", "shard"])
    for q in queries:
        rows = sorted((q.passages[i], int(q.grade[i])) for i in np.flatnonzero(q.pooled))
        for pid, g in rows:
            w.writerow([q.qid, pid, g, DOC_VERSION, q.shard])
    return out.getvalue()


def _shards_csv(queries: list[_Query]) -> str:
    return "query_id,shard\n" + "".join(f"{q.qid},shard{q.shard}\n" for q in queries)


def generate(out_dir: Path, seed: int = SEED) -> list[Path]:
    """Write the label-bias demo under ``out_dir``; returns the files written.

    A pure function of ``seed``: the same seed gives byte-identical files
    (no wall-clock time, no dictionary-order or platform dependence).
    """
    out_dir = Path(out_dir)
    rng = np.random.default_rng(seed)
    queries = _build(int(rng.integers(2**32)))
    _calibrate(queries, np.random.default_rng(int(rng.integers(2**32))))
    files = {
        "testset.jsonl": _test_set_jsonl(queries),
        "pooled_labels.csv": _pooled_csv(queries),
        "shards.csv": _shards_csv(queries),
        **{f"runs/{c}.trec": _run_trec(queries, c) for c in CONFIGS},
    }
    written = []
    for name, text in files.items():
        path = out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written
