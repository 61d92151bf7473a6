"""Demo data for test-set health (seed 004), built on the fit story's files.

Reads ``golden.jsonl``, ``production.jsonl`` and the runs written by
:mod:`ragnb.demo.fit` and writes (a pure function of those files and the seed;
regeneration is byte-identical):

``corpus.csv``
    The current corpus build: ``passage_id, doc_id, doc_version`` for every
    passage judged in either split or retrieved by any run (the knowledge base
    the demo's questions draw on), sorted by passage id. Versions are the date
    at which each document's text last changed: most documents ``2025-12-01``
    (before any judgment, so their judgments are current), a few edited on
    ``2026-04-02`` (judgments made against the ``2026-01-20`` or
    ``2026-03-11`` text are stale, those against ``2026-05-04`` current) and a
    few on ``2026-06-15`` (after every judgment: all their judgments are
    stale). The answering passages of a few answerable production queries
    were dropped from the build (coverage below 1).
``health/production-v1.jsonl``
    The first version of the production test set: its lines for the
    in-scope and follow-up queries only. The current version
    (``production.jsonl``) added the out-of-scope (27, nothing to find) and
    malformed (14) queries that traffic also sends: re-scoring v1 beside it
    shows the headline fall is the new queries, not the pipeline.
``health/champion-with-holdout.jsonl``
    What the round-40 champion would look like had 20% of the golden set been
    held back from round 10 on (:func:`ragnb.health.holdout_split` with salt
    ``"golden"``): the tuning queries keep round 40's rankings, the held-back
    queries round 9's, the last round whose gains were real. Its gain over
    January then diverges between the two sides, which the held-back check
    detects.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np

from ragnb.demo.fit import ROUNDS, _write_text
from ragnb.health.holdout import holdout_split

SEED = 20260804
BASE_VERSION = "2025-12-01"
#: document edits after the base version: (date, how many documents)
EDITS = (("2026-04-02", 3), ("2026-06-15", 4))
REMOVED_ANSWERS = 6
HOLDOUT_SALT = "golden"
HOLDOUT_SHARE = 0.2
#: the last round whose gains carried over to fresh queries (fit story)
LAST_REAL_ROUND = 9
V1_EXCLUDED = ("out_of_scope", "malformed")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _query_types(demo_dir: Path) -> dict[str, str]:
    with open(demo_dir / "production_strata.csv", encoding="utf-8", newline="") as fh:
        return {row["query_id"]: row["query_type"] for row in csv.DictReader(fh)}


def generate(demo_dir: str | Path, seed: int = SEED) -> list[Path]:
    """Write the health demo files (see the module docstring); returns the files written."""
    demo_dir = Path(demo_dir)
    rng = np.random.default_rng(seed)
    splits = {s: [json.loads(line) for line in _lines(demo_dir / f"{s}.jsonl")]
              for s in ("golden", "production")}
    passages = {j["passage_id"] for qs in splits.values() for q in qs for j in q["judgments"]}
    for split in splits:
        for r in range(ROUNDS + 1):
            for line in _lines(demo_dir / "runs" / split / f"round-{r:02d}.jsonl"):
                for ranked in json.loads(line).values():
                    passages.update(ranked)
    doc = {p: p.split("#")[0] for p in passages}
    docs = sorted(set(doc.values()))
    version = dict.fromkeys(docs, BASE_VERSION)
    # removed answering passages: of answerable production queries, chosen by the seed
    answering = sorted({j["passage_id"] for q in splits["production"] if not q["unanswerable"]
                        for j in q["judgments"] if j["grade"] == 2})
    removed = set(rng.choice(answering, size=REMOVED_ANSWERS, replace=False).tolist())
    candidates = [d for d in docs if d not in {doc[p] for p in removed}]
    edited = rng.choice(candidates, size=sum(k for _, k in EDITS), replace=False).tolist()
    start = 0
    for date, k in EDITS:
        for d in edited[start:start + k]:
            version[d] = date
        start += k
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["passage_id", "doc_id", "doc_version"])
    for p in sorted(passages - removed):
        w.writerow([p, doc[p], version[doc[p]]])
    files = [_write_text(demo_dir / "corpus.csv", buf.getvalue())]

    types = _query_types(demo_dir)
    v1 = [line for line in _lines(demo_dir / "production.jsonl")
          if types[json.loads(line)["query_id"]] not in V1_EXCLUDED]
    files.append(_write_text(demo_dir / "health" / "production-v1.jsonl", "".join(v1)))

    ids = [q["query_id"] for q in splits["golden"]]
    held = set(holdout_split(ids, share=HOLDOUT_SHARE, salt=HOLDOUT_SALT).held_back)
    real = _lines(demo_dir / "runs" / "golden" / f"round-{LAST_REAL_ROUND:02d}.jsonl")
    final = _lines(demo_dir / "runs" / "golden" / f"round-{ROUNDS:02d}.jsonl")
    mixed = [a if next(iter(json.loads(a))) in held else b for a, b in zip(real, final)]
    files.append(_write_text(demo_dir / "health" / "champion-with-holdout.jsonl", "".join(mixed)))
    return files
