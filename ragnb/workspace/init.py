"""Scaffolding a workspace from files a user already has (``ragnb init``).

:func:`scaffold` writes a ``ragnb.toml`` that names the given test sets, their
runs (configs from file names: the name up to the first dot), a strata file,
rounds, a ledger, a corpus build, label and code-task files; then it opens the
workspace and reads every file once, so a bad file is an error now (naming the
file and line) rather than in the middle of a report. Paths inside the
workspace folder are written relative to it, others absolute.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragnb._atomic import write_atomic
from ragnb.errors import InputError
from ragnb.workspace.manifest import MANIFEST_NAME, ROLES, config_name


@dataclass
class TestSetSpec:
    """One test set for :func:`scaffold`: its file, role and runs (files or one glob)."""

    __test__ = False

    name: str
    path: Path
    role: str = ""
    runs: Sequence[str] = ()


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string


def _key(name: str) -> str:
    return name if name.replace("-", "").replace("_", "").isalnum() else _q(name)


def _rel(path: str | Path, root: Path) -> str:
    path = Path(path).expanduser().absolute()
    try:
        return path.relative_to(root.absolute()).as_posix()
    except ValueError:
        return str(path)


def _is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def _runs_value(runs: Sequence[str], root: Path, where: str) -> str:
    """TOML for a test set's runs: a glob as given, or a table config -> file."""
    if len(runs) == 1 and _is_glob(runs[0]):
        pattern = runs[0]
        if not Path(pattern).is_absolute():
            pattern = str(Path.cwd() / pattern)
        return f"runs = {_q(_rel(pattern, root) if not _is_glob(str(root)) else pattern)}\n"
    table: dict[str, str] = {}
    for text in runs:
        name, sep, file = text.partition("=")
        if not sep:
            name, file = config_name(Path(text)), text
        if not Path(file).is_file():
            raise InputError("no such run file", source=file, key=where)
        if name in table:
            raise InputError(f"two runs give config {name!r}; name them CONFIG=FILE",
                             source=file, key=where)
        table[name] = _rel(file, root)
    return "runs = { " + ", ".join(f"{_key(k)} = {_q(v)}" for k, v in table.items()) + " }\n"


def scaffold(
    folder: str | Path,
    test_sets: Sequence[TestSetSpec],
    *,
    strata: str | Path | None = None,
    strata_test_set: str | None = None,
    strata_key: str = "query_id",
    strata_columns: Sequence[str] = (),
    by: str = "",
    rounds: Sequence[str] = (),
    ledger: str | Path | None = None,
    corpus: str | Path | None = None,
    labels: str | Path | None = None,
    tasks: str | Path | None = None,
    task_run: str | Path | None = None,
    order: str = "score",
    extra: str | None = None,
    metric: str = "",
    baseline: str = "",
    challenger: str = "",
    name: str = "",
    force: bool = False,
) -> tuple[Path, list[str]]:
    """Write ``<folder>/ragnb.toml`` for the given files and check that everything reads.

    Returns the manifest path and lines describing what was found (configs,
    queries, notes, defaults chosen; which notebooks apply is :func:`ragnb.pages.skip_reasons`).
    ``extra=None`` sets ``drop`` when some run ranks queries the test set lacks
    (TREC tracks judge a subset of the topics), counted in a note of every report.
    """
    from ragnb.workspace.workspace import open_workspace

    root = Path(folder).expanduser().absolute()
    manifest = root / MANIFEST_NAME
    if manifest.exists() and not force:
        raise InputError("a workspace manifest exists here; pass --force to replace it",
                         source=manifest)
    if not test_sets:
        raise InputError("give at least one test set (--test-set FILE)", key="--test-set")
    names = [t.name for t in test_sets]
    if len(set(names)) != len(names):
        raise InputError(f"two test sets are named alike: {names}; use NAME=FILE",
                         key="--test-set")
    roles = _roles(test_sets)
    root.mkdir(parents=True, exist_ok=True)
    lines = ["# ragnb workspace, written by `ragnb init`; edit by hand as you like.",
             "# Paths are relative to this file. `ragnb init --help` documents every key.", "",
             "[workspace]", f"name = {_q(name or root.name)}",
             f"order = {_q(order)}   # score = trec_eval's order; rank = the rank column"]
    if ledger:
        lines.append(f"ledger = {_q(_rel(ledger, root))}")
    if corpus:
        lines.append(f"corpus = {_q(_rel(corpus, root))}")
    extra_at = len(lines)
    for t in test_sets:
        if not Path(t.path).is_file():
            raise InputError("no such test-set file", source=t.path, key="--test-set")
        lines += ["", f"[test_sets.{_key(t.name)}]", f"path = {_q(_rel(t.path, root))}",
                  f"role = {_q(roles[t.name])}"]
        if t.runs:
            lines.append(_runs_value(t.runs, root, f"--runs {t.name}").rstrip("\n"))
    if strata:
        target = strata_test_set or names[0]
        if target not in names:
            raise InputError(f"no test set {target!r} for the strata file", key="--strata")
        i = lines.index(f"[test_sets.{_key(target)}]")
        j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("[")), len(lines))
        block = ["", f"[test_sets.{_key(target)}.strata]", f"path = {_q(_rel(strata, root))}"]
        if strata_key != "query_id":
            block.append(f"key = {_q(strata_key)}")
        if strata_columns:
            block.append("columns = [" + ", ".join(map(_q, strata_columns)) + "]")
        if by:
            block.append(f"by = {_q(by)}")
        lines[j:j] = block
    if rounds:
        lines += ["", "[rounds]", "configs = [" + ", ".join(map(_q, rounds)) + "]"]
    if labels:
        lines += ["", "[labels]", f"test_set = {_q(names[0])}", f"path = {_q(_rel(labels, root))}"]
    if tasks or task_run:
        if not (tasks and task_run):
            raise InputError("code tasks need both --tasks and --task-run", key="--tasks")
        lines += ["", "[codetasks]", f"tasks = {_q(_rel(tasks, root))}",
                  f"run = {_q(_rel(task_run, root))}"]
    report_at = len(lines)
    lines += ["", "[display_names]", "# config = \"name shown in reports\""]
    text = "\n".join(lines) + "\n"
    # first pass: check every key and read every file
    write_atomic(manifest, text)
    try:
        ws = open_workspace(manifest)
        found, outside = _read_all(ws)
    except Exception:
        manifest.unlink(missing_ok=True)
        raise
    if extra is None:
        extra = "drop" if outside else "error"
    lines.insert(extra_at, f"extra = {_q(extra)}   # run queries the test set lacks: error | "
                           "drop (counted in a note)")
    report_at += 1
    first = names[0]
    configs = ws.configs(first)
    baseline = baseline or (configs[0] if configs else "")
    challenger = challenger or (configs[-1] if len(configs) > 1 else "")
    report = ["", "[report]", f"metric = {_q(metric or 'ndcg@10')}", 'policy = "lower"']
    if baseline:
        report.append(f"baseline = {_q(baseline)}")
    if challenger:
        report.append(f"challenger = {_q(challenger)}")
    lines[report_at:report_at] = report
    if strata and not by:
        column = _guess_stratum(ws, strata_test_set or first)
        if column:
            i = lines.index(f"[test_sets.{_key(strata_test_set or first)}.strata]")
            lines.insert(i + 2, f"by = {_q(column)}   # the default stratum column")
            found.append(f"stratum column: {column} (chosen: 2 to 30 values; set `by` to change)")
    write_atomic(manifest, "\n".join(lines) + "\n")
    try:
        ws = open_workspace(manifest)
    except Exception:
        manifest.unlink(missing_ok=True)
        raise
    if outside and extra == "drop":
        found.append(f"{outside} ranked queries are not in the test set(s): extra = \"drop\" "
                     "(counted in a note of every score)")
    found.append(f"baseline {baseline or '(none)'}, challenger {challenger or '(none)'} "
                 "([report]; edit to choose)")
    return manifest, found


def _roles(test_sets: Sequence[TestSetSpec]) -> dict[str, str]:
    roles = {}
    for t in test_sets:
        role = t.role or (t.name if t.name in ROLES else "")
        if role and role not in ROLES:
            raise InputError(f"role must be one of {', '.join(ROLES)}", key=f"--role {t.name}")
        roles[t.name] = role
    unset = [t.name for t in test_sets if not roles[t.name]]
    taken = set(roles.values())
    for role in ("golden", "production"):
        if len(test_sets) > 1 and unset and role not in taken:
            roles[unset.pop(0)] = role
    for n in unset:
        roles[n] = "other"
    return roles


def _read_all(ws) -> tuple[list[str], int]:
    """Read every test set and run once; lines to show and the count of extra queries."""
    found, outside = [], 0
    for split in ws.test_set_names:
        ts = ws.test_set(split)
        qids = set(ts.query_ids)
        found.append(f"test set {split}: {len(ts.queries)} queries, {len(ts.judgments)} "
                     f"judgments ({ts.source})")
        runs = ws.check_runs(split)   # read and checked, not scored
        extra = set()
        for _, outside_ids, notes in runs:
            extra |= outside_ids
            for note in notes:
                found.append(f"  note: {note}")
        outside += len(extra)
        if runs:
            found.append(f"  {len(runs)} runs: {', '.join(name for name, _, _ in runs)}")
        table = ws.strata(split)
        if table is not None:
            n_out = len(set(table["query_id"]) - qids)
            found.append(f"  strata: {len(table)} annotated queries, columns "
                         f"{[c for c in table.columns if c not in ('query_id', 'line')]}"
                         + (f"; {n_out} not in the test set (counted in a note)" if n_out else ""))
    return found, outside


def _guess_stratum(ws, split: str) -> str:
    from ragnb.io.strata_table import strata_table, stratum_columns

    table = strata_table(ws.test_set(split), ws.strata(split))
    columns = [c for c in stratum_columns(table) if c not in ("line",)]
    return columns[0] if columns else ""


def relative_to_cwd(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
