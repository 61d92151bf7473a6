"""Seeded fuzz of every reader against an independent strict reader written here.

Each generated file (valid data, then byte flips, truncations, odd numbers,
odd whitespace, BOM/CRLF/U+2028, wrong JSON types, repeated keys, gzip faults)
goes through ragnb's reader and through the strict reader below, which
implements the documented rules from scratch (see :mod:`ragnb.io.source`):

* UTF-8, one leading BOM ignored; lines end at ``\\n``; fields split on ASCII
  space, tab, CR, VT, FF only;
* grades and ranks: ASCII digits with an optional ``-``; grades 0..100;
  scores: ASCII decimal notation;
* JSON: no repeated keys, no NaN/Infinity; ids are non-empty strings or integers.

The outcome of each case must be one of: ragnb raises ``InputError`` (a clean
one-line error), or ragnb's result equals the strict reader's. Anything else
is a traceback, a hang (10 s alarm) or a silently wrong result.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import math
import random
import re
import signal
import zlib
from pathlib import Path

import pytest

from ragnb.codetasks import read_tasks
from ragnb.errors import InputError
from ragnb.io import read_corpus, read_run, read_strata, read_test_set

SEED = 20261201
CASES_PER_FORMAT = 160  # x 8 test-set and run formats = 1,280 cases
OTHER_CASES = 80  # x 7 strata, corpus and tasks formats = 560 cases
MAX_GRADE = 100
SEPARATORS = " \t\r\x0b\x0c"


# -- the independent strict reader ----------------------------------------------------------------
class Invalid(Exception):
    pass


def strict_bytes(data: bytes) -> bytes:
    """gzip members (with zero padding between/after) decompressed, else the bytes."""
    if data[:2] != b"\x1f\x8b":
        return data
    out, rest = [], data
    while True:
        rest = rest.lstrip(b"\x00")
        if not rest:
            break
        if rest[:2] != b"\x1f\x8b":
            raise Invalid("trailing garbage after gzip")
        d = zlib.decompressobj(31)
        try:
            out.append(d.decompress(rest))
        except zlib.error as exc:
            raise Invalid(str(exc)) from None
        if not d.eof:
            raise Invalid("truncated gzip")
        rest = d.unused_data
    return b"".join(out)


def strict_text(data: bytes) -> str:
    data = strict_bytes(data)
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Invalid("utf-8") from None


def fields_of(line: str) -> list[str]:
    out, cur = [], []
    for ch in line:
        if ch in SEPARATORS:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def strict_int(text: str) -> int:
    digits = text.removeprefix("-")
    if not digits or len(digits) > 18 or any(c not in "0123456789" for c in digits):
        raise Invalid(f"integer {text!r}")
    return int(text)


_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)


def strict_float(text: str) -> float:
    if not _DECIMAL.fullmatch(text):
        raise Invalid(f"decimal {text!r}")
    return float(text)


def strict_grade(g) -> int:
    if isinstance(g, str):
        g = strict_int(g)
    if not isinstance(g, int) or isinstance(g, bool) or not 0 <= g <= MAX_GRADE:
        raise Invalid(f"grade {g!r}")
    return g


def add_judgment(out: dict, q: str, p: str, g) -> None:
    if (q, p) in out:
        raise Invalid("judged twice")
    out[(q, p)] = strict_grade(g)


def is_comment(line: str) -> bool:
    """trec_eval's comment line: '#' first, after spaces or tabs."""
    return line.lstrip(" \t").startswith("#")


def strict_qrels(data: bytes) -> dict:
    out: dict = {}
    pooled: set = set()  # grade -1: in the pool, not judged (trec_eval)
    for line in strict_text(data).split("\n"):
        f = fields_of(line)
        if not f or is_comment(line):
            continue
        if len(f) != 4:
            raise Invalid("fields")
        if f[3] == "-1":
            if (f[0], f[2]) in pooled:
                raise Invalid("pooled twice")
            pooled.add((f[0], f[2]))
        else:
            add_judgment(out, f[0], f[2], f[3])
    if pooled & set(out):
        raise Invalid("pooled and judged")
    if not out and not pooled:
        raise Invalid("empty")
    return out


def strict_run(data: bytes) -> dict:
    rows: dict = {}
    for line in strict_text(data).split("\n"):
        f = fields_of(line)
        if not f or is_comment(line):
            continue
        if len(f) < 6:  # text after the sixth field is ignored (trec_eval)
            raise Invalid("fields")
        rank = strict_int(f[3])
        strict_float(f[4])
        rows.setdefault(f[0], []).append((rank, f[2]))
    if not rows:
        raise Invalid("empty")
    return {q: [p for _, p in sorted(r)] for q, r in rows.items()}


def _pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Invalid("repeated key")
    return dict(pairs)


def _constant(name):
    raise Invalid(name)


def strict_json_lines(data: bytes) -> list[dict]:
    objs = []
    for line in strict_text(data).split("\n"):
        if line.strip(" \t\r") == "":
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_pairs, parse_constant=_constant)
        except ValueError:
            raise Invalid("json") from None
        if not isinstance(obj, dict):
            raise Invalid("not an object")
        objs.append(obj)
    if not objs:
        raise Invalid("empty")
    return objs


def strict_id(v) -> str:
    if isinstance(v, str) and v != "":
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    raise Invalid(f"id {v!r}")


def strict_jsonl_testset(data: bytes) -> dict:
    out: dict = {}
    for obj in strict_json_lines(data):
        if "query_id" not in obj:
            raise Invalid("query_id")
        q = strict_id(obj["query_id"])
        judged = obj.get("judgments", [])
        if not isinstance(judged, list):
            raise Invalid("judgments")
        for j in judged:
            if not isinstance(j, dict) or "passage_id" not in j or "grade" not in j:
                raise Invalid("judgment")
            if not (j.get("doc_version") is None or isinstance(j["doc_version"], str)):
                raise Invalid("doc_version")
            if not isinstance(j["grade"], int):
                raise Invalid("grade type")
            add_judgment(out, q, strict_id(j["passage_id"]), j["grade"])
    return out


def strict_jsonl_run(data: bytes) -> dict:
    """JSON Lines, or one object for the whole file when it spans lines (documented)."""
    whole = strict_text(data).strip(" \t\r\n")
    objs = None
    if whole.startswith("{") and "\n" in whole:
        try:
            objs = [json.loads(whole, object_pairs_hook=_pairs, parse_constant=_constant)]
        except ValueError:
            objs = None
    out: dict = {}
    for obj in objs if objs is not None else strict_json_lines(data):
        for q, ranking in obj.items():
            if q in out or not isinstance(ranking, list):
                raise Invalid("query")
            out[q] = [strict_id(p) for p in ranking]
    out = {q: r for q, r in out.items() if r}  # an empty ranking is a query without one
    if not out:
        raise Invalid("no passages")
    return out


def csv_rows(text: str, delimiter: str) -> list[list[str]]:
    try:
        return [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter,
                                      strict=True) if r]
    except csv.Error as exc:
        raise Invalid(f"csv: {exc}") from None


def strict_csv_testset(data: bytes) -> dict:
    text = strict_text(data)
    rows = csv_rows(text, ",")
    if not rows or rows[0] != ["query_id", "passage_id", "grade"]:
        raise Invalid("header")
    out: dict = {}
    for r in rows[1:]:
        if len(r) != 3 or not r[0] or not r[1]:
            raise Invalid("row")
        add_judgment(out, r[0], r[1], r[2])
    if not out:
        raise Invalid("empty")
    return out


def strict_csv_run(data: bytes, delimiter: str = ",") -> dict:
    text = strict_text(data)
    rows = csv_rows(text, delimiter)
    if not rows or rows[0] != ["query_id", "passage_id", "rank", "score"]:
        raise Invalid("header")
    ranked: dict = {}
    for r in rows[1:]:
        if len(r) != 4 or not r[0] or not r[1]:
            raise Invalid("row")
        rank = strict_int(r[2])
        if r[3] != "":  # an empty cell of a table is a missing value (documented)
            strict_float(r[3])
        ranked.setdefault(r[0], []).append((rank, r[1]))
    if not ranked:
        raise Invalid("empty")
    return {q: [p for _, p in sorted(v)] for q, v in ranked.items()}


def strict_tsv_testset(data: bytes) -> dict:
    text = strict_text(data)
    rows = csv_rows(text, "\t")
    if not rows or rows[0] != ["query_id", "passage_id", "grade"]:
        raise Invalid("header")
    out: dict = {}
    for r in rows[1:]:
        if len(r) != 3 or not r[0] or not r[1]:
            raise Invalid("row")
        add_judgment(out, r[0], r[1], r[2])
    if not out:
        raise Invalid("empty")
    return out


def strict_parquet_testset(data: bytes) -> dict:
    """Parquet is binary: the generator records the rows it wrote after the magic bytes."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(strict_bytes(data)))
    except Exception:  # noqa: BLE001 - damaged parquet: invalid for the reference too
        raise Invalid("parquet") from None
    if table.column_names != ["query_id", "passage_id", "grade"]:
        raise Invalid("columns")
    out: dict = {}
    for q, p, g in zip(*(table.column(c).to_pylist() for c in table.column_names)):
        if isinstance(g, float) and g.is_integer():
            g = int(g)
        add_judgment(out, strict_id(q), strict_id(p), g)
    if not out:
        raise Invalid("empty")
    return out


def strict_fields(obj: dict, key: str) -> dict:
    """Non-key fields of a strata/corpus object: scalars; booleans as JSON text; null dropped."""
    out = {}
    for name, v in obj.items():
        if name == "line" or isinstance(v, (list, dict)):
            raise Invalid(f"field {name!r}")
        if name == key or v is None:
            continue
        out[name] = ("true" if v else "false") if isinstance(v, bool) else v
    return out


def strict_header(row: list[str], need: tuple[str, ...]) -> list[str]:
    named = [n for n in row if n]
    if len(set(named)) != len(named) or "line" in row:
        raise Invalid("header names")
    row = [n or f"Unnamed: {i}" for i, n in enumerate(row)]  # as pandas names them
    if len(set(row)) != len(row):
        raise Invalid("header names")
    if any(n not in row for n in need):
        raise Invalid("header lacks a key")
    return row


def strict_table(data: bytes, delimiter: str, key: str) -> dict:
    rows = csv_rows(strict_text(data), delimiter)
    if not rows:
        raise Invalid("empty")
    names = strict_header(rows[0], (key,))
    out: dict = {}
    for r in rows[1:]:
        if len(r) != len(names):
            raise Invalid("row length")
        rec = dict(zip(names, r))
        k = rec.pop(key)
        if k == "" or k in out:
            raise Invalid("empty or repeated id")
        out[k] = rec
    if not out:
        raise Invalid("no rows")
    return out


def strict_strata_table(data: bytes, delimiter: str = ",") -> dict:
    return {k: {n: v for n, v in rec.items() if v != ""}
            for k, rec in strict_table(data, delimiter, "query_id").items()}


def strict_strata_jsonl(data: bytes) -> dict:
    out: dict = {}
    for obj in strict_json_lines(data):
        if "query_id" not in obj:
            raise Invalid("query_id")
        q = strict_id(obj["query_id"])
        if q in out:
            raise Invalid("classified twice")
        out[q] = strict_fields(obj, "query_id")
    return out


def strict_strata_json(data: bytes) -> dict:
    """One object keyed by query id when the file spans lines and parses whole (documented)."""
    whole = strict_text(data).strip(" \t\r\n")
    if not (whole.startswith("{") and "\n" in whole):
        return strict_strata_jsonl(data)
    try:
        obj = json.loads(whole, object_pairs_hook=_pairs, parse_constant=_constant)
    except (ValueError, Invalid) as exc:
        if isinstance(exc, Invalid) and "repeated" in str(exc):
            raise
        return strict_strata_jsonl(data)
    if not obj or not all(isinstance(v, dict) for v in obj.values()):
        raise Invalid("not keyed objects")
    out = {}
    for q, fields in obj.items():
        strict_id(q)
        f = strict_fields(fields, "")
        if f.pop("query_id", q) != q:
            raise Invalid("conflicting query_id")
        out[q] = f
    return out


def strict_version_scheme(v: str) -> str | None:
    import datetime as dt

    if re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", v):
        try:
            dt.datetime.fromisoformat(v)
            return "date"
        except ValueError:
            pass
    return "number" if re.fullmatch(r"[vV]?[0-9]+(\.[0-9]+)*", v) else None


def strict_versions(versions: dict) -> dict:
    """One scheme for the whole build, that of the first passage; text stripped."""
    out = {}
    scheme = None
    for pid, v in versions.items():
        v = v.strip() if isinstance(v, str) else v
        if not v:
            raise Invalid("no doc_version")
        s = strict_version_scheme(v)
        scheme = scheme or s
        if s is None or s != scheme:
            raise Invalid("scheme")
        out[pid] = v
    return out


def strict_corpus_jsonl(data: bytes) -> dict:
    versions: dict = {}
    for obj in strict_json_lines(data):
        if "passage_id" not in obj:
            raise Invalid("passage_id")
        p = strict_id(obj["passage_id"])
        strict_fields(obj, "passage_id")
        v = obj.get("doc_version")
        if p in versions or v is None or isinstance(v, bool) or not isinstance(v, (str, int)):
            raise Invalid("doc_version or repeat")
        versions[p] = str(v)
    return strict_versions(versions)


def strict_corpus_csv(data: bytes) -> dict:
    rows = strict_table(data, ",", "passage_id")
    if any("doc_version" not in r for r in rows.values()):
        raise Invalid("doc_version column")
    return strict_versions({p: r["doc_version"] for p, r in rows.items()})


def strict_path_list(v) -> tuple:
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v) \
            or len(set(v)) != len(v):
        raise Invalid("path list")
    return tuple(v)


def strict_tasks(data: bytes) -> dict:
    out: dict = {}
    mining = 0
    for obj in strict_json_lines(data):
        if "mining" in obj and "task_id" not in obj:
            m = obj["mining"]
            v = m.get("version", 1) if isinstance(m, dict) else None
            if mining or not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 2:
                raise Invalid("mining")
            mining += 1
            continue
        t = obj.get("task_id")
        if isinstance(t, bool) or not isinstance(t, (str, int)) or t == "":
            raise Invalid("task_id")
        t = str(t)
        if "edit_set" not in obj or t in out:
            raise Invalid("edit_set or repeat")
        edit, read, failed = (strict_path_list(obj.get(k))
                              for k in ("edit_set", "read_set", "failed"))
        kept = obj.get("kept")
        kept = not failed if kept is None else kept
        text = obj.get("text")
        if not isinstance(kept, bool) or not (text is None or isinstance(text, str)):
            raise Invalid("kept or text")
        out[t] = (edit, read, text or "", kept)
    if not out:
        raise Invalid("no task")
    return out


# -- what ragnb read, in the same shape ------------------------------------------------------------
def ragnb_judgments(path: Path, fmt: str) -> dict:
    ts = read_test_set(path, format=fmt)
    j = ts.judgments
    return {(str(q), str(p)): int(g) for q, p, g in zip(j["query_id"], j["passage_id"], j["grade"])}


def ragnb_run(path: Path, fmt: str) -> dict:
    run = read_run(path, format=fmt, order="rank")
    out: dict = {}
    for q, p in zip(run.table["query_id"], run.table["passage_id"]):
        out.setdefault(str(q), []).append(str(p))
    return out


def _cells(row: dict, key: str) -> dict:
    return {n: v for n, v in row.items()
            if n not in (key, "line") and not (v is None or v == "" or (
                isinstance(v, float) and math.isnan(v)))}


def ragnb_strata(path: Path, fmt: str) -> dict:
    df = read_strata(path, format=fmt)
    return {str(r["query_id"]): _cells(r, "query_id") for r in df.to_dict("records")}


def ragnb_corpus(path: Path, fmt: str) -> dict:
    p = read_corpus(path, format=fmt).passages
    return {str(a): str(b) for a, b in zip(p["passage_id"], p["doc_version"])}


def ragnb_tasks(path: Path, fmt: str) -> dict:
    t = read_tasks(path).tasks
    return {r["task_id"]: (tuple(r["edit_set"]), tuple(r["read_set"]), r["text"], r["kept"])
            for r in t.to_dict("records")}


# -- generators -----------------------------------------------------------------------------------
ODD_IDS = ["d1", "d\u00a02", "d\u20283", "d\x854", "\u0661", "D5", "d-6", "q\u200b7", "x\x00y",
           "d\x1b[2J", "7", "d\t8"]
ODD_NUMBERS = ["1", "0", "2", "01", "-0", "+1", "1_0", "0x1", "\u0661", "1.0", "1e3", "nan",
               "inf", "-1", "100", "101", "1024", "9" * 25, "2 ", "", " 3", "\uff11", "1.5",
               ".5", "1e999", "3"]
INSERTS = ["\t", " \t", "\r", "\r\n", "\n", "\ufeff", "\u2028", "\u00a0", "\x0b", "\x00", "{", "\"",
           "\xff", "1_0", "\n\n", " "]


def valid_qrels(rng: random.Random) -> str:
    lines = []
    for q in range(rng.randint(1, 4)):
        for p in rng.sample(range(9), rng.randint(1, 4)):
            lines.append(f"q{q} 0 d{p} {rng.randint(0, 3)}")
    return "\n".join(lines) + "\n"


def valid_run(rng: random.Random) -> str:
    lines = []
    for q in range(rng.randint(1, 4)):
        for r, p in enumerate(rng.sample(range(9), rng.randint(1, 5)), start=1):
            lines.append(f"q{q} Q0 d{p} {r} {10 - r}.5 tag")
    return "\n".join(lines) + "\n"


def valid_jsonl_testset(rng: random.Random) -> str:
    out = []
    for q in range(rng.randint(1, 3)):
        judged = [{"passage_id": f"d{p}", "grade": rng.randint(0, 3)}
                  for p in rng.sample(range(9), rng.randint(1, 3))]
        out.append(json.dumps({"query_id": f"q{q}", "query": "text", "judgments": judged},
                              ensure_ascii=rng.random() < 0.5))
    return "\n".join(out) + "\n"


def valid_jsonl_run(rng: random.Random) -> str:
    return "\n".join(json.dumps({f"q{q}": [f"d{p}" for p in rng.sample(range(9), 3)]})
                     for q in range(rng.randint(1, 3))) + "\n"


def valid_csv(rng: random.Random) -> str:
    rows = ["query_id,passage_id,grade"]
    for q in range(rng.randint(1, 3)):
        for p in rng.sample(range(9), rng.randint(1, 3)):
            rows.append(f"q{q},d{p},{rng.randint(0, 3)}")
    return "\n".join(rows) + "\n"


def valid_csv_run(rng: random.Random) -> str:
    rows = ["query_id,passage_id,rank,score"]
    for q in range(rng.randint(1, 3)):
        for r, p in enumerate(rng.sample(range(9), rng.randint(1, 4)), start=1):
            rows.append(f"q{q},d{p},{r},{10 - r}.5")
    return "\n".join(rows) + "\n"


def valid_tsv(rng: random.Random) -> str:
    return valid_csv(rng).replace(",", "\t")


def valid_strata_csv(rng: random.Random, sep: str = ",") -> str:
    rows = [sep.join(["query_id", "domain", "turns"])]
    for q in rng.sample(range(9), rng.randint(1, 4)):
        rows.append(sep.join([f"q{q}", rng.choice(["finance", "d1", "", "history"]),
                              str(rng.randint(1, 3))]))
    return "\n".join(rows) + "\n"


def valid_strata_tsv(rng: random.Random) -> str:
    return valid_strata_csv(rng, "\t")


def _strata_objects(rng: random.Random) -> dict:
    return {f"q{q}": {"domain": rng.choice(["finance", "d1", "history", None]),
                      "multi": rng.random() < 0.5, "turns": rng.randint(1, 3)}
            for q in rng.sample(range(9), rng.randint(1, 4))}


def valid_strata_jsonl(rng: random.Random) -> str:
    return "\n".join(json.dumps({"query_id": q, **f}, ensure_ascii=rng.random() < 0.5)
                     for q, f in _strata_objects(rng).items()) + "\n"


def valid_strata_json(rng: random.Random) -> str:
    return json.dumps(_strata_objects(rng), indent=1) + "\n"


def _versions(rng: random.Random) -> list:
    n = rng.randint(1, 5)
    if rng.random() < 0.5:
        return [f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}" for _ in range(n)]
    return [rng.choice([f"v{rng.randint(1, 9)}", f"1.{rng.randint(0, 12)}", "2"])
            for _ in range(n)]


def valid_corpus_jsonl(rng: random.Random) -> str:
    vs = _versions(rng)
    return "\n".join(json.dumps({"passage_id": f"d{i}", "doc_version": v, "title": "t"})
                     for i, v in enumerate(vs)) + "\n"


def valid_corpus_csv(rng: random.Random) -> str:
    return "\n".join(["passage_id,doc_version"] + [f"d{i},{v}" for i, v in
                                                    enumerate(_versions(rng))]) + "\n"


def valid_tasks(rng: random.Random) -> str:
    lines = [json.dumps({"mining": {"version": 2}})] if rng.random() < 0.5 else []
    for t in range(rng.randint(1, 3)):
        task = {"task_id": f"t{t}", "edit_set": [f"d{p}.py" for p in rng.sample(range(9), 2)],
                "read_set": ["d7.py"], "text": "fix d1", "failed": []}
        if rng.random() < 0.3:
            task["kept"] = rng.random() < 0.5
        lines.append(json.dumps(task, ensure_ascii=rng.random() < 0.5))
    return "\n".join(lines) + "\n"


#: JSON value swaps per mutation kind (``json`` is the test-set and run files').
OTHER_SWAPS = {
    "strata-json": [('"q1"', 'null'), ('"q2"', 'true'), ('"q3"', '3'), ('"q4"', '""'),
                    ('"q5"', '1.5'), ('"q6"', '["q6"]'), ('"turns": 1', '"turns": [1]'),
                    ('"domain": "d1"', '"domain": {"a": 1}'), ('"turns": 2', '"line": 2'),
                    ('"multi": true', '"multi": true, "multi": false'),
                    ('"q7"', '"q\u2028"'), ('"turns": 3', '"query_id": "q0"'),
                    ('"domain": "finance"', '"domain": NaN')],
    "corpus-json": [('"d1"', 'null'), ('"d2"', 'false'), ('"d3"', '3'), ('"v1"', '1.10'),
                    ('"v2"', '2'), ('"v3"', 'null'), ('"v4"', '["v4"]'), ('"d0"', '""'),
                    ('"title": "t"', '"title": "t", "title": "u"'), ('"title": "t"', '"line": 1'),
                    ('"2026-0', '"\u0662026-0'), ('"v5"', '"v\u0665"'), ('"d4"', '"d\u2028"')],
    "tasks-json": [('"t0"', 'null'), ('"t1"', 'true'), ('"t2"', '2'), ('"t0"', '1.5'),
                   ('"text": "fix d1"', '"text": 5'), ('"failed": []', '"failed": ["x"]'),
                   ('"read_set": ["d7.py"]', '"read_set": ["d7.py", "d7.py"]'),
                   ('"edit_set": [', '"edit_set": [], "edit_set": ['),
                   ('"version": 2', '"version": 3'),
                   ('"kept": true', '"kept": 1'), ('"d1.py"', 'null'), ('"t1"', '""')],
}


def parquet_case(rng: random.Random) -> bytes:
    """A Parquet test set whose columns have odd types or values now and then."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = rng.randint(1, 6)
    q = [f"q{i % 2}" for i in range(n)]
    p = [f"d{i}" for i in range(n)]
    g: list = [rng.randint(0, 3) for _ in range(n)]
    r = rng.random()
    if r < 0.15:
        q[rng.randrange(n)] = None
    elif r < 0.3:
        p = [float(i) + 0.5 for i in range(n)]
    elif r < 0.4:
        p = list(range(n))  # integer ids: read as decimal text
    elif r < 0.55:
        g[rng.randrange(n)] = rng.choice([101, 1024, -1, 2**62, None, 1.5, 2.0])
    elif r < 0.65:
        g = [bool(x % 2) for x in g]
    elif r < 0.7:
        p[-1] = p[0]  # judged twice
    try:
        table = pa.table({"query_id": q, "passage_id": p, "grade": g})
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        table = pa.table({"query_id": q, "passage_id": p, "grade": [str(x) for x in g]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    data = sink.getvalue()
    if rng.random() < 0.15:  # damage it
        i = rng.randrange(len(data))
        data = data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1:]
    return data


def mutate_text(text: str, rng: random.Random, kind: str) -> bytes:
    """One or two text- or byte-level mutations of a valid file."""
    for _ in range(rng.randint(1, 2)):
        choice = rng.random()
        tokens = re.split(r"( |,|\n)", text)
        if kind in ("trec", "run", "csv", "tsv") and choice < 0.45:  # replace one token
            if kind == "tsv":
                tokens = re.split("(\t|\n)", text)
            numeric = [i for i, t in enumerate(tokens) if t.isdigit() or t.endswith(".5")]
            ids = [i for i, t in enumerate(tokens) if t[:1] in "qd"]
            if numeric and (rng.random() < 0.6 or not ids):
                tokens[rng.choice(numeric)] = rng.choice(ODD_NUMBERS)
            elif ids:
                tokens[rng.choice(ids)] = rng.choice(ODD_IDS)
            text = "".join(tokens)
        elif kind in OTHER_SWAPS and choice < 0.45:
            old, new = rng.choice(OTHER_SWAPS[kind])
            text = text.replace(old, new, 1)
        elif kind == "json" and choice < 0.45:  # change one JSON value's type or a key
            swaps = [('"grade": 1', '"grade": 1.0'), ('"grade": 2', '"grade": true'),
                     ('"grade": 0', '"grade": null'), ('"passage_id": "d1"', '"passage_id": null'),
                     ('"passage_id": "d2"', '"passage_id": ["d2"]'),
                     ('"passage_id": "d3"', '"passage_id": 3'),
                     ('"query_id": "q0"', '"query_id": 7'),
                     ('"query_id": "q1"', '"query_id": false'),
                     ('"judgments": [', '"judgments": [], "judgments": ['),
                     ('"d4"', '"d\\u2028"'), ('"d5"', '"d\u20285"'),
                     ('"grade": 3', '"grade": 1024'),
                     ('"grade": 1', '"grade": NaN'), ('"q0": [', '"q0": [], "q0": ['),
                     ('"d6"', '""'), ('"d7"', '{"d": 7}'),
                     ('"query": "text"', '"query": "t\u2028x"'),
                     ('"grade": 2', '"grade": 1e2'), ('"grade": 0', '"grade": -1')]
            old, new = rng.choice(swaps)
            text = text.replace(old, new, 1)
        elif choice < 0.6:  # insert an odd string
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(INSERTS) + text[i:]
        elif choice < 0.7:
            text = "\ufeff" + text if rng.random() < 0.5 else text.replace("\n", "\r\n")
        elif choice < 0.8:  # repeat or drop a line
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(i, lines[i])
            else:
                del lines[i]
            text = "\n".join(lines)
        else:
            break
    data = text.encode("utf-8")
    r = rng.random()
    if r < 0.15:  # byte flip
        i = rng.randrange(len(data)) if data else 0
        data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    elif r < 0.25:  # truncation
        data = data[: rng.randrange(len(data) + 1)]
    return data


def gzip_variant(data: bytes, rng: random.Random) -> bytes:
    """Sometimes gzip the bytes, sometimes damage the gzip stream."""
    r = rng.random()
    if r < 0.65:
        return data
    z = gzip.compress(data, mtime=0)
    r = rng.random()
    if r < 0.25:
        return z
    if r < 0.45:
        return z[: rng.randrange(2, len(z))]  # truncated
    if r < 0.6:
        i = rng.randrange(10, len(z))  # corrupt a byte of the deflate data or trailer
        return z[:i] + bytes([z[i] ^ (1 << rng.randrange(8))]) + z[i + 1:]
    if r < 0.75:
        return z + b"\x00" * rng.randint(1, 600)  # zero padding (valid)
    if r < 0.85:
        return z + b"garbage"
    if r < 0.95:
        return z + gzip.compress(b"", mtime=0)  # two members (valid)
    return b"\x1f\x8b"


FORMATS = {
    # name: (valid generator, mutation kind, strict reader, ragnb reader, format, suffix)
    "qrels": (valid_qrels, "trec", strict_qrels, ragnb_judgments, "trec", ".qrels"),
    "run": (valid_run, "run", strict_run, ragnb_run, "trec", ".run"),
    "jsonl-testset": (valid_jsonl_testset, "json", strict_jsonl_testset, ragnb_judgments,
                      "jsonl", ".jsonl"),
    "jsonl-run": (valid_jsonl_run, "json", strict_jsonl_run, ragnb_run, "jsonl", ".jsonl"),
    "csv-testset": (valid_csv, "csv", strict_csv_testset, ragnb_judgments, "csv", ".csv"),
    "tsv-testset": (valid_tsv, "tsv", strict_tsv_testset, ragnb_judgments, "tsv", ".tsv"),
    "csv-run": (valid_csv_run, "csv", strict_csv_run, ragnb_run, "csv", ".csv"),
    "parquet-testset": (None, "parquet", strict_parquet_testset, ragnb_judgments, "parquet",
                        ".parquet"),
}


OTHER_FORMATS = {
    "strata-csv": (valid_strata_csv, "csv", strict_strata_table, ragnb_strata, "csv", ".csv"),
    "strata-tsv": (valid_strata_tsv, "tsv", lambda d: strict_strata_table(d, "\t"),
                   ragnb_strata, "tsv", ".tsv"),
    "strata-jsonl": (valid_strata_jsonl, "strata-json", strict_strata_jsonl, ragnb_strata,
                     "jsonl", ".jsonl"),
    "strata-json": (valid_strata_json, "strata-json", strict_strata_json, ragnb_strata,
                    "auto", ".json"),
    "corpus-jsonl": (valid_corpus_jsonl, "corpus-json", strict_corpus_jsonl, ragnb_corpus,
                     "jsonl", ".jsonl"),
    "corpus-csv": (valid_corpus_csv, "csv", strict_corpus_csv, ragnb_corpus, "csv", ".csv"),
    "tasks": (valid_tasks, "tasks-json", strict_tasks, ragnb_tasks, "jsonl", ".jsonl"),
}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def run_case(path: Path, data: bytes, spec) -> tuple[str, str]:
    """``(outcome, detail)``: outcome is clean-error, correct, wrong, traceback or hang."""
    _, _, strict, reader, fmt, _ = spec
    path.write_bytes(data)
    try:
        expected = strict(data)
    except Invalid as exc:
        expected = exc
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)
    try:
        got = reader(path, fmt)
    except InputError as exc:
        message = str(exc)
        if "\n" in message or str(path) not in message:
            return "wrong", f"error not one line naming the file: {message!r}"
        return "clean-error", message
    except Hang:
        return "hang", ""
    except Exception as exc:  # noqa: BLE001 - that is what the fuzz counts
        return "traceback", f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    if isinstance(expected, Invalid):
        return "wrong", f"accepted, but the strict reader says {expected}: {got!r}"
    if got != expected:
        return "wrong", f"read {got!r}, strict reader {expected!r}"
    return "correct", ""


def generate(seed: int = SEED):
    rng = random.Random(seed)
    for name, spec in {**FORMATS, **OTHER_FORMATS}.items():
        valid, kind = spec[0], spec[1]
        for i in range(CASES_PER_FORMAT if name in FORMATS else OTHER_CASES):
            if kind == "parquet":
                yield name, i, parquet_case(rng)
                continue
            text = valid(rng)
            data = text.encode() if i % 8 == 0 else mutate_text(text, rng, kind)
            yield name, i, gzip_variant(data, rng)


def test_fuzz_every_reader_against_a_strict_reader(tmp_path):
    counts: dict[str, int] = {}
    failures = []
    by_format: dict[str, dict[str, int]] = {}
    for name, i, data in generate():
        spec = FORMATS.get(name) or OTHER_FORMATS[name]
        outcome, detail = run_case(tmp_path / f"case-{name}-{i}{spec[5]}", data, spec)
        counts[outcome] = counts.get(outcome, 0) + 1
        by_format.setdefault(name, {}).setdefault(outcome, 0)
        by_format[name][outcome] += 1
        if outcome not in ("clean-error", "correct"):
            failures.append((name, i, outcome, detail, data[:200]))
    total = sum(counts.values())
    assert total == len(FORMATS) * CASES_PER_FORMAT + len(OTHER_FORMATS) * OTHER_CASES
    assert not failures, f"{len(failures)} of {total} cases failed; first: {failures[:5]}"
    # not vacuous: every format both accepts and refuses a fair share
    for name, c in by_format.items():
        share = 25 if name in FORMATS else 12
        assert c.get("correct", 0) >= share, (name, c)
        assert c.get("clean-error", 0) >= share, (name, c)


def test_the_strict_reader_itself_on_hand_made_cases():
    """The reference must be right for the fuzz to mean anything."""
    assert strict_qrels(b"q1 \t0 \td1 \t2\n") == {("q1", "d1"): 2}
    assert strict_qrels(b"\xef\xbb\xbfq1 0 d1 1\r\n") == {("q1", "d1"): 1}
    assert strict_qrels(b"q1 0 d\xc2\xa01 1\n") == {("q1", "d\u00a01"): 1}
    for bad in (b"q1 0 d1 1_0\n", b"q1 0 d1 0x1\n", "q1 0 d1 \u0661\n".encode(),
                b"q1 0 d1 101\n", b"q1 0 d1 1\nq1 0 d1 1\n", b""):
        with pytest.raises(Invalid):
            strict_qrels(bad)
    z = gzip.compress(b"q1 0 d1 1\n", mtime=0)
    assert strict_qrels(z + b"\x00" * 9) == {("q1", "d1"): 1}
    for bad in (z[:-3], z + b"x"):
        with pytest.raises(Invalid):
            strict_qrels(bad)
    assert strict_jsonl_testset(
        '{"query_id": "q\u20281", "judgments": [{"passage_id": 5, "grade": 1}]}\n'.encode()
    ) == {("q\u20281", "5"): 1}
    for bad in ('{"query_id": null}', '{"query_id": "q", "query_id": "r"}',
                '{"query_id": "q", "judgments": [{"passage_id": true, "grade": 1}]}'):
        with pytest.raises(Invalid):
            strict_jsonl_testset(bad.encode())


def test_the_other_strict_readers_on_hand_made_cases():
    assert strict_strata_table(b"query_id,domain\nq1,a\nq2,\n") == {"q1": {"domain": "a"},
                                                                     "q2": {}}
    assert strict_strata_jsonl(b'{"query_id": 7, "m": true, "d": null}\n') == {"7": {"m": "true"}}
    assert strict_strata_json(b'{"q1": {"d": "a"},\n "q2": {"query_id": "q2"}}') == {
        "q1": {"d": "a"}, "q2": {}}
    assert strict_corpus_jsonl(b'{"passage_id": 3, "doc_version": 4}\n') == {"3": "4"}
    assert strict_corpus_csv(b"passage_id,doc_version\nd1,2026-01-01\n") == {"d1": "2026-01-01"}
    assert strict_tasks(b'{"mining": {"version": 2}}\n{"task_id": 7, "edit_set": ["a"]}\n') == {
        "7": (("a",), (), "", True)}
    for reader, bad in (
            (strict_strata_table, b"query_id,d,d\nq1,a,b\n"),
            (strict_strata_table, b"query_id\n\n"),
            (strict_strata_table, b"query_id,,Unnamed: 1\nq1,a,b\n"),
            (strict_strata_table, b"query_id,line\nq1,2\n"),
            (strict_strata_jsonl, b'{"query_id": null}\n'),
            (strict_strata_jsonl, b'{"query_id": "q", "d": [1]}\n'),
            (strict_strata_json, b'{"q1": {"d": 1},\n "q1": {"d": 2}}'),
            (strict_corpus_jsonl, b'{"passage_id": "d", "doc_version": 1.10}\n'),
            (strict_corpus_jsonl, '{"passage_id": "d", "doc_version": "v\u0661"}\n'.encode()),
            (strict_corpus_csv, b"passage_id,doc_version\nd1,v1\nd2,2026-01-01\n"),
            (strict_tasks, b'{"task_id": true, "edit_set": []}\n'),
            (strict_tasks, b'{"mining": {}}\n{"mining": {}}\n{"task_id": "a", "edit_set": []}\n'),
            (strict_tasks, b'{"task_id": "a", "edit_set": ["x", "x"]}\n')):
        with pytest.raises(Invalid):
            reader(bad)
