"""Seeded fuzz of every reader against an independent strict reader written here.

Each generated file (valid data, then byte flips, truncations, odd numbers,
odd whitespace, BOM/CRLF/U+2028, wrong JSON types, repeated keys, gzip faults)
goes through ragnb's reader and through the strict reader below, which
implements the documented rules from scratch (see :mod:`ragnb.io._source`):

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
import random
import re
import signal
import zlib
from pathlib import Path

import pytest

from ragnb.errors import InputError
from ragnb.io import read_run, read_test_set

SEED = 20261201
CASES_PER_FORMAT = 160  # x 8 formats = 1,280 cases
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


def strict_qrels(data: bytes) -> dict:
    out: dict = {}
    for line in strict_text(data).split("\n"):
        f = fields_of(line)
        if not f:
            continue
        if len(f) != 4:
            raise Invalid("fields")
        add_judgment(out, f[0], f[2], f[3])
    if not out:
        raise Invalid("empty")
    return out


def strict_run(data: bytes) -> dict:
    rows: dict = {}
    for line in strict_text(data).split("\n"):
        f = fields_of(line)
        if not f:
            continue
        if len(f) != 6:
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


# -- what ragnb read, in the same shape --------------------------------------------------------------
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
        elif kind == "json" and choice < 0.45:  # change one JSON value's type or a key
            swaps = [('"grade": 1', '"grade": 1.0'), ('"grade": 2', '"grade": true'),
                     ('"grade": 0', '"grade": null'), ('"passage_id": "d1"', '"passage_id": null'),
                     ('"passage_id": "d2"', '"passage_id": ["d2"]'),
                     ('"passage_id": "d3"', '"passage_id": 3'), ('"query_id": "q0"', '"query_id": 7'),
                     ('"query_id": "q1"', '"query_id": false'),
                     ('"judgments": [', '"judgments": [], "judgments": ['),
                     ('"d4"', '"d\\u2028"'), ('"d5"', '"d\u20285"'), ('"grade": 3', '"grade": 1024'),
                     ('"grade": 1', '"grade": NaN'), ('"q0": [', '"q0": [], "q0": ['),
                     ('"d6"', '""'), ('"d7"', '{"d": 7}'), ('"query": "text"', '"query": "t\u2028x"'),
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
    for name, spec in FORMATS.items():
        valid, kind = spec[0], spec[1]
        for i in range(CASES_PER_FORMAT):
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
        spec = FORMATS[name]
        outcome, detail = run_case(tmp_path / f"case-{name}-{i}{spec[5]}", data, spec)
        counts[outcome] = counts.get(outcome, 0) + 1
        by_format.setdefault(name, {}).setdefault(outcome, 0)
        by_format[name][outcome] += 1
        if outcome not in ("clean-error", "correct"):
            failures.append((name, i, outcome, detail, data[:200]))
    total = sum(counts.values())
    assert total >= 1000
    assert not failures, f"{len(failures)} of {total} cases failed; first: {failures[:5]}"
    # not vacuous: every format both accepts and refuses a fair share
    for name, c in by_format.items():
        assert c.get("correct", 0) >= 25, (name, c)
        assert c.get("clean-error", 0) >= 25, (name, c)


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
