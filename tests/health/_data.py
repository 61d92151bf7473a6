"""Small hand-made test sets and corpus builds, written as files and read with the core readers."""
from __future__ import annotations

import json
from pathlib import Path

from ragnb.io import read_corpus, read_test_set


def make_test_set(tmp_path: Path, queries: list[dict], name: str = "ts"):
    """Write ``queries`` (seed 004 objects) as JSONL and read them back."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in queries))
    return read_test_set(path)


def corpus(tmp_path: Path, rows: list[tuple[str, str]], name: str = "build"):
    """Write ``(passage_id, doc_version)`` rows as CSV and read them back."""
    path = tmp_path / f"{name}.csv"
    path.write_text("passage_id,doc_version\n" + "".join(f"{p},{v}\n" for p, v in rows))
    return read_corpus(path)


def q(qid: str, judgments: list[tuple], *, unanswerable: bool = False, text: str | None = None,
      source: str = "ticket", intent: str = "billing") -> dict:
    """A query object; judgments are ``(passage_id, grade[, doc_version])``."""
    return {"query_id": qid, "query": text or f"question {qid}", "source": source,
            "intent": intent, "answer": "", "unanswerable": unanswerable,
            "judgments": [{"passage_id": j[0], "grade": j[1],
                           **({"doc_version": j[2]} if len(j) > 2 else {})} for j in judgments]}
