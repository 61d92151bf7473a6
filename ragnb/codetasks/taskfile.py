"""The tasks file: mined tasks as JSONL, and the one place a tasks file is checked.

Format version 2 (UTF-8, one JSON object a line)::

    {"mining": {"version": 2, "branch": "main", "head": "9f2c...", "every_commit": false, ...}}
    {"task_id": "3fa9c1d2e4b0", "sha": "...", "parent": "...", "text": "...",
     "edit_set": ["billing/proration.py", ...], "read_set": [...],
     "signature_changes": [{"path": ..., "name": ..., ...}], "callers": [...],
     "failed": [], "kept": true, ...}

The first line (how the tasks were mined) is optional and appears at most once.
A task needs ``task_id`` (a non-empty string, or an integer read as its
digits; unique) and ``edit_set`` (a list of paths); ``read_set``,
``callers`` (lists of paths), ``signature_changes`` (a list of objects),
``failed`` (a list of filter names) and ``kept`` (default: true when
``failed`` is empty) are optional, so a tasks file from another miner can be
scored as long as it says at least which files each task had to change.

Version 2 adds, per task, ``author``, ``read_from`` (read-set file -> the
identifiers that brought it in, e.g. ``["import:rate_limited", "text:Context"]``),
``caller_sites`` (one object per call site: ``path``, ``line``, ``target``,
``how``; ``how="unresolved"`` and ``"unparsed"`` sites are not in ``callers``)
and ``unresolved_calls``; and ``bots`` to the mining line. Later additions,
read when present: ``bookkeeping`` per task (changelogs and credits lists, not
scored), ``unparsed`` (Python files it needed that do not parse: its signature
changes or callers may be incomplete) and, on the mining line, ``warnings``
(texts) and ``vendored_roots`` (folder -> why it is vendored). A version 1 file
(no ``version``) reads with those empty; a version above :data:`VERSION` is an error.
"""
from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import pandas as pd

from ragnb._atomic import write_atomic
from ragnb.codetasks.mine import TASK_COLUMNS, Mined, MineOptions
from ragnb.errors import InputError
from ragnb.io.source import decode_utf8, json_objects, source_of

#: The tasks file format written by :func:`write_tasks`.
VERSION = 2
_PATH_LISTS = ("edit_set", "read_set", "callers", "added", "excluded", "bookkeeping", "symbols",
               "unparsed", "failed")


def write_tasks(mined: Mined, path: str | Path) -> Path:
    """Write mined tasks (every change, kept or not) as JSONL; returns the path."""
    path = Path(path)
    options = asdict(mined.options)
    options["exclude"] = list(options["exclude"])
    options["bots"] = list(options["bots"])
    lines = [json.dumps({"mining": {"version": VERSION, **options,
                                    "warnings": list(mined.warnings),
                                    "vendored_roots": mined.vendored}}, sort_keys=True)]
    for row in mined.tasks[TASK_COLUMNS].to_dict("records"):
        lines.append(json.dumps({k: _plain(v) for k, v in row.items()}, ensure_ascii=False))
    write_atomic(path, "\n".join(lines) + "\n")
    return path


def _plain(value):
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    return value


def read_tasks(path: str | Path) -> Mined:
    """Read and check a tasks file (see the module docstring for the format).

    Raises
    ------
    InputError
        Naming the file, the line and the key: invalid JSON, a missing or
        mistyped key, a task id given twice, no task at all.
    """
    src = source_of(path)
    text = decode_utf8(src.content(), src)
    options, mining_line = MineOptions(), None
    warnings: tuple[str, ...] = ()
    vendored: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, obj in json_objects(text, src, "a JSON object (one task a line)"):
        if "mining" in obj and "task_id" not in obj:
            if mining_line is not None:
                raise InputError(f"a second `mining` line (the first is line {mining_line})",
                                 source=src, line=number, key="mining")
            options, mining_line = _options(obj["mining"], src, number), number
            warnings, vendored = _history_facts(obj["mining"], src, number)
            continue
        row = _task(obj, src, number)
        if row["task_id"] in seen:
            raise InputError(f"task {row['task_id']!r} is given twice (lines "
                             f"{seen[row['task_id']]} and {number})", source=src, line=number,
                             key="task_id")
        seen[row["task_id"]] = number
        rows.append(row)
    if not rows:
        raise InputError("the tasks file holds no task", source=src)
    return Mined(pd.DataFrame(rows, columns=TASK_COLUMNS), options, warnings, vendored)


def _history_facts(obj: dict, path, number) -> tuple[tuple[str, ...], dict[str, str]]:
    """The mining line's ``warnings`` (list of texts) and ``vendored_roots`` (folder -> why)."""
    warnings = obj.get("warnings") or []
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise InputError("must be a list of texts", source=path, line=number,
                         key="mining.warnings")
    roots = obj.get("vendored_roots") or {}
    if not isinstance(roots, dict) or not all(isinstance(v, str) for v in roots.values()):
        raise InputError("must map folders to reasons (texts)", source=path, line=number,
                         key="mining.vendored_roots")
    return tuple(warnings), dict(roots)


def _options(obj, path, number) -> MineOptions:
    if not isinstance(obj, dict):
        raise InputError("`mining` must be an object", source=path, line=number, key="mining")
    version = obj.get("version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        raise InputError(f"tasks file format version {version!r} is not one this ragnb reads "
                         f"(1 to {VERSION})", source=path, line=number, key="mining.version")
    known = {f.name for f in fields(MineOptions)}
    kwargs = {k: v for k, v in obj.items() if k in known}
    for key in ("exclude", "bots"):
        if key in kwargs:
            if not isinstance(kwargs[key], list):
                raise InputError("must be a list of patterns", source=path, line=number,
                                 key=f"mining.{key}")
            kwargs[key] = tuple(kwargs[key])
    try:
        return MineOptions(**kwargs).check()
    except InputError as exc:
        raise InputError(exc.problem, source=path, line=number, key=f"mining.{exc.key}") from None


def _task(obj: dict, path, number) -> dict:
    def bad(key, problem):
        return InputError(problem, source=path, line=number, key=key)

    task_id = obj.get("task_id")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        task_id = str(task_id)
    if not isinstance(task_id, str) or not task_id:
        raise bad("task_id", "a task needs a non-empty text `task_id` (or an integer), got "
                  f"{json.dumps(task_id)[:60]}")
    if "edit_set" not in obj:
        raise bad("edit_set", f"task {task_id!r} has no `edit_set`")
    row: dict[str, Any] = dict.fromkeys(TASK_COLUMNS)
    row.update({k: v for k, v in obj.items() if k in row})
    row["task_id"] = task_id
    for key in _PATH_LISTS:
        value = row[key] if row[key] is not None else []
        if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
            raise bad(key, f"`{key}` of task {task_id!r} must be a list of non-empty texts")
        if len(set(value)) != len(value):
            raise bad(key, f"`{key}` of task {task_id!r} lists a path twice")
        row[key] = value
    sig = row["signature_changes"] if row["signature_changes"] is not None else []
    if not isinstance(sig, list) or not all(isinstance(s, dict) for s in sig):
        raise bad("signature_changes", f"`signature_changes` of task {task_id!r} must be a "
                  "list of objects")
    row["signature_changes"] = sig
    kept = row["kept"] if row["kept"] is not None else not row["failed"]
    if not isinstance(kept, bool):
        raise bad("kept", f"`kept` of task {task_id!r} must be true or false")
    row["kept"] = kept
    sites = row["caller_sites"] if row["caller_sites"] is not None else []
    if not isinstance(sites, list) or not all(isinstance(s, dict) for s in sites):
        raise bad("caller_sites", f"`caller_sites` of task {task_id!r} must be a list of objects")
    row["caller_sites"] = sites
    reads = row["read_from"] if row["read_from"] is not None else {}
    if not isinstance(reads, dict) or not all(isinstance(v, list) for v in reads.values()):
        raise bad("read_from", f"`read_from` of task {task_id!r} must map paths to lists")
    row["read_from"] = reads
    unresolved = row["unresolved_calls"] if row["unresolved_calls"] is not None else 0
    if not isinstance(unresolved, int) or isinstance(unresolved, bool) or unresolved < 0:
        raise bad("unresolved_calls", f"`unresolved_calls` of task {task_id!r} must be a "
                  "non-negative integer")
    row["unresolved_calls"] = unresolved
    for key in ("author", "text"):
        if row[key] is not None and not isinstance(row[key], str):
            raise bad(key, f"`{key}` of task {task_id!r} must be a string, got "
                      f"{json.dumps(row[key])[:60]}")
        row[key] = row[key] or ""
    if row["body_dropped"] is not None and not isinstance(row["body_dropped"], bool):
        raise bad("body_dropped", f"`body_dropped` of task {task_id!r} must be true or false")
    row["body_dropped"] = bool(row["body_dropped"])
    return row
