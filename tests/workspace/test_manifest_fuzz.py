"""Manifest fuzz (issue 27, items 8 and 9): generated manifests from the demo's, each
parsed in-process; every one must give a checked manifest or one InputError line,
never a traceback or a hang, and nothing unchecked may reach a notebook.
"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import signal
import stat
import tomllib
from pathlib import Path

import pytest

from ragnb.errors import InputError
from ragnb.vocab import RANGES
from ragnb.workspace.manifest import REPORT_KEYS, SYSTEM_FOLDERS, Manifest, parse_manifest

ROOT = Path(__file__).resolve().parents[2]
SEED = 20260727
N_MANIFESTS = 500
#: Seconds one manifest may take before it counts as a hang.
HANG_SECONDS = 5

#: Values of the wrong type (or shape, or size) put in place of any key.
ODD_VALUES = [
    1, -5, 0, 1.5, -1.0, 1e18, math.inf, math.nan, True, "", "x", "\0", "a\0b", "x" * 6000,
    "é/ü", [], ["x"], [1, 2], [["deep"]], {}, {"a": 1}, {"path": 1}, {"a": {"b": ["c"]}},
]
#: Paths a manifest from an untrusted pull request might give.
HOSTILE_PATHS = [
    "/etc/passwd", "/proc/self/environ", "/proc/self/status", "/dev/zero", "/dev/urandom",
    "/dev/null", "/sys/kernel/mm", "/", "../../../../etc/shadow", "~/.ssh/id_rsa",
    "fifo", "link-to-environ", "/**/*.jsonl", "/proc/**/*", "../**/*", "**/*.jsonl",
    "runs/golden/*", "/dev/*", "x" * 300, "a/" * 2100, "nul\0here.jsonl", "[", "*" * 50,
]
ODD_NAMES = ["", " ", "a.b", "名前", "x" * 500, "\u202e", "__proto__", "pooled", "-", "\t"]


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value == math.inf else repr(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string (\u escapes included)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml_value, value)) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}"
                           for k, v in value.items()) + "}"


def to_toml(data: dict) -> str:
    """Every top-level key as ``key = value``, tables inline (valid TOML for any tree)."""
    return "".join(f"{json.dumps(k)} = {_toml_value(v)}\n" for k, v in data.items())


def _leaves(data, prefix=()):
    for key, value in data.items():
        yield prefix + (key,)
        if isinstance(value, dict):
            yield from _leaves(value, prefix + (key,))


def _set(data, path, value) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def _drop(data, path) -> None:
    for key in path[:-1]:
        data = data[key]
    del data[path[-1]]


#: Manifests drawn from each kind (the rest are random combinations).
QUOTA = {"wrong type": 160, "hostile path": 120, "missing key": 40, "odd name": 20,
         "deep nesting": 6, "huge gain key": 2, "health grade": 6, "report k": 5,
         "bad metric": 6}


def _cases(base: dict) -> dict[str, list[str]]:
    """Every deterministic case, by kind: each key of the demo's manifest with every odd
    value, hostile paths in every path key, each key dropped, odd names, deep nesting,
    huge gain keys, the reported out-of-range values.
    """
    def variant(path, value):
        data = json.loads(json.dumps(base))
        _set(data, path, value)
        return to_toml(data)

    leaves = list(_leaves(base))
    path_keys = [p for p in leaves if p[-1] in ("path", "runs", "ledger", "corpus", "spec",
                                                 "shards", "tasks", "run", "old_version",
                                                 "holdout_run", "gain")]
    cases: dict[str, list[str]] = {
        "wrong type": [variant(p, v) for p in leaves for v in ODD_VALUES],
        "hostile path": [variant(p, v) for p in path_keys for v in HOSTILE_PATHS],
        "missing key": [], "odd name": [], "deep nesting": [], "huge gain key": [],
        "health grade": [variant(("health", "answer_grade"), v)
                         for v in (1.5, -1, 1e18, 101, "2", 2)],
        "report k": [variant(("report", "k"), v) for v in (-5, 0, 10**9, 10, "10")],
        "bad metric": [variant(("report", "metric"), v) for v in
                       ("ndcg@10(gain=)", "ndcg@", "@@", "ndcg@10(gain=exp", "rr@-1", "x" * 5000)],
    }
    for path in leaves:
        data = json.loads(json.dumps(base))
        _drop(data, path)
        cases["missing key"].append(to_toml(data))
    for name in ODD_NAMES:
        data = json.loads(json.dumps(base))
        data["test_sets"][name] = data["test_sets"].pop("golden")
        cases["odd name"].append(to_toml(data))
        data = json.loads(json.dumps(base))
        data["display_names"][name] = name or "x"
        data["gains"] = {name: 1}
        cases["odd name"].append(to_toml(data))
    for depth in (100, 1_000, 50_000):
        cases["deep nesting"] += [to_toml(base) + "deep = " + "[" * depth + "]" * depth + "\n",
                                  "x = " + "{a = " * depth + "1" + "}" * depth + "\n"]
    cases["huge gain key"] = [to_toml({**base, "gains": {"9" * 5000: 1, "0": 0}}),
                              to_toml({**base, "gains": {"1": 1e308, "2": -1, "x": 2}})]
    return cases


def generate(base: dict, rng: random.Random):
    """Yield ``(kind, manifest text)``: :data:`QUOTA` cases of each kind drawn with
    ``rng``, then random combinations of odd values, hostile paths, dropped keys and
    unknown keys, without end.
    """
    for kind, texts in _cases(base).items():
        for text in rng.sample(texts, min(QUOTA[kind], len(texts))):
            yield kind, text
    while True:
        data = json.loads(json.dumps(base))
        for _ in range(rng.randint(2, 5)):
            live = list(_leaves(data))
            path = rng.choice(live)
            roll = rng.random()
            if roll < 0.4:
                _set(data, path, rng.choice(ODD_VALUES))
            elif roll < 0.7:
                _set(data, path, rng.choice(HOSTILE_PATHS))
            elif roll < 0.85:
                _drop(data, path)
            else:
                _set(data, path[:-1] + (rng.choice(ODD_NAMES) or "unknown",), "x")
        yield "combination", to_toml(data)


def unchecked(m: Manifest, root: Path) -> list[str]:
    """What a parsed manifest would hand a notebook unchecked (empty: nothing)."""
    problems = []
    paths = [e.path for e in m.test_sets.values()]
    paths += [p for e in m.test_sets.values() for p in e.runs.values()]
    paths += [e.strata.path for e in m.test_sets.values() if e.strata]
    paths += [p for p in (m.corpus, m.rounds_path, *m.codetasks.values(),
                          m.labels.get("path"), m.labels.get("shards"),
                          m.health.get("old_version"), m.health.get("holdout_run")) if p]
    for p in paths:
        if not (isinstance(p, Path) and p.is_absolute() and stat.S_ISREG(os.stat(p).st_mode)):
            problems.append(f"{p!r} is not a regular file")
        if any(str(p).startswith(s + "/") for s in SYSTEM_FOLDERS):
            problems.append(f"{p} is a system file")
    grade = m.health.get("answer_grade", 2)
    if type(grade) is not int or not 0 <= grade <= RANGES["answer_grade"][1]:
        problems.append(f"answer_grade {grade!r}")
    for k in ("test_set", "holdout_split", "bucket_column"):
        if not isinstance(m.health.get(k, ""), str):
            problems.append(f"health {k} {m.health[k]!r}")
    for share in m.health.get("declared_sources", {}).values():
        if type(share) not in (int, float) or not 0 <= share <= 1:
            problems.append(f"declared share {share!r}")
    for values in [m.report, *m.report_by_notebook.values()]:
        for k, v in values.items():
            kind = REPORT_KEYS[k][0]
            if k == "spec":
                continue
            if not isinstance(v, kind) or isinstance(v, bool):
                problems.append(f"report {k} {v!r}")
            if k == "k" and not 1 <= v <= RANGES["k"][1]:
                problems.append(f"report k {v!r}")
    return problems


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    shutil.copytree(ROOT / "data" / "demo", root / "demo")
    os.mkfifo(root / "demo" / "fifo")
    (root / "demo" / "link-to-environ").symlink_to("/proc/self/environ")
    return root / "demo"


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def test_generated_manifests_give_a_checked_manifest_or_one_error_line(workspace):
    base = tomllib.loads((workspace / "ragnb.toml").read_text())
    rng = random.Random(SEED)
    counts = {"tried": 0, "parsed": 0, "clear errors": 0, "tracebacks": 0, "hangs": 0,
              "unchecked": 0}
    kinds: set[str] = set()
    failures = []
    manifest = workspace / "ragnb.toml"
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for kind, text in generate(base, rng):
            if counts["tried"] >= N_MANIFESTS:
                break
            counts["tried"] += 1
            kinds.add(kind)
            manifest.write_text(text, encoding="utf-8")
            signal.alarm(HANG_SECONDS)
            try:
                m = parse_manifest(workspace)
            except InputError as exc:
                counts["clear errors"] += 1
                message = str(exc)
                if "\n" in message or len(message) > 1500 or "PATH=" in message:
                    failures.append((kind, "unclear error", message[:300]))
                continue
            except _Hang:
                counts["hangs"] += 1
                failures.append((kind, "hang", text[:200]))
                continue
            except Exception as exc:  # noqa: BLE001 - a traceback is what is counted
                counts["tracebacks"] += 1
                failures.append((kind, f"{type(exc).__name__}: {exc}"[:300], text[:200]))
                continue
            finally:
                signal.alarm(0)
            counts["parsed"] += 1
            problems = unchecked(m, workspace)
            if problems:
                counts["unchecked"] += 1
                failures.append((kind, "unchecked", problems[:3]))
    finally:
        signal.signal(signal.SIGALRM, old)
    print(counts)  # noqa: T201 - the table of the issue's closing note (pytest -s)
    assert not failures, failures[:10]
    assert counts["tried"] == N_MANIFESTS and counts["parsed"] >= 10
    assert counts["clear errors"] >= N_MANIFESTS // 2
    assert {"wrong type", "hostile path", "missing key", "odd name", "deep nesting",
            "huge gain key", "health grade", "report k", "bad metric", "combination"} <= kinds


@pytest.mark.parametrize(("key", "value", "message"), [
    ("health.answer_grade", 1.5, r"\[health.answer_grade\]: must be an integer, got 1.5"),
    ("health.answer_grade", -1, r"\[health.answer_grade\]: must be in \[0, 100\]"),
    ("health.answer_grade", 10**18, r"\[health.answer_grade\]: must be in \[0, 100\]"),
    ("report.k", -5, r"\[report.k\]: must be in \[1, 100,000\] \(a rank cut-off\), got -5"),
    ("health.test_set", ["x"], r"\[health.test_set\]: must be a string, got \['x'\]"),
    ("report.metric", "ndcg@10(gain=)", r"\[report.metric\]: not a metric"),
    ("test_sets.golden.path", "/proc/self/environ",
     r"\[test_sets.golden.path\]: /proc/\S+ is in /proc"),
    ("test_sets.golden.path", "link-to-environ", r"is in /proc, which holds no evaluation"),
    ("test_sets.golden.path", "fifo", r"\[test_sets.golden.path\]: not a regular file"),
    ("test_sets.golden.path", "a\0b", r"may not hold a NUL character"),
    ("test_sets.golden.path", "x" * 6000, r"the path is longer than 4,096 characters"),
    ("test_sets.golden.runs", "/**/*.jsonl", r"a recursive glob \(\*\*\) must stay inside"),
    ("test_sets.golden.runs", "/proc/*/environ", r"/proc is in /proc"),
])
def test_each_reported_manifest_defect_is_one_error_naming_the_key(workspace, key, value,
                                                                   message):
    data = tomllib.loads((ROOT / "data" / "demo" / "ragnb.toml").read_text())
    _set(data, tuple(key.split(".")), value)
    (workspace / "ragnb.toml").write_text(to_toml(data))
    with pytest.raises(InputError, match=message) as info:
        parse_manifest(workspace)
    assert "PATH=" not in str(info.value)


def test_fifty_thousand_nested_arrays_are_one_error(workspace):
    (workspace / "ragnb.toml").write_text("x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(InputError, match="not valid TOML"):
        parse_manifest(workspace)


def test_init_with_an_unreadable_metric_writes_no_manifest(tmp_path):
    import contextlib
    import io

    from ragnb.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["init", str(tmp_path / "ws"), "--test-set",
                     str(ROOT / "data" / "demo" / "golden.jsonl"), "--runs",
                     str(ROOT / "data" / "demo" / "runs" / "golden" / "round-0[01].jsonl"),
                     "--metric", "ndcg@10(gain=)"])
    assert code == 2 and "unknown gain map ''" in err.getvalue()
    assert not (tmp_path / "ws" / "ragnb.toml").exists()


def test_errors_on_files_outside_the_workspace_quote_none_of_their_text(tmp_path):
    from ragnb.workspace import open_workspace

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    secret = elsewhere / "secret.txt"
    secret.write_text("API_TOKEN=s3cr3t-value\n")
    inside = tmp_path / "ws"
    inside.mkdir()
    (inside / "bad.qrels").write_text("API_TOKEN=s3cr3t-value\n")
    for path, quoted in ((secret, False), (inside / "bad.qrels", True)):
        (inside / "ragnb.toml").write_text(f"[test_sets.t]\npath = {json.dumps(str(path))}\n")
        with pytest.raises(InputError) as info:
            open_workspace(inside).test_set("t")
        message = str(info.value)
        assert f"{path}:1: expected 4 whitespace-separated fields, found 1" in message
        assert ("s3cr3t" in message) is quoted, message
        assert ("outside the workspace" in message) is not quoted
