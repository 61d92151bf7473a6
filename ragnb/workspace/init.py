"""Scaffolding a workspace from files a user already has (``ragnb init``).

:func:`scaffold` writes a ``ragnb.toml`` that names the given test sets, their
runs (configs from file names: the name up to the first dot), a strata file,
rounds, a ledger, a corpus build, label and code-task files; then it opens the
workspace and reads every file once, so a bad file is an error now (naming the
file and line) rather than in the middle of a report. Paths inside the
workspace folder or the current directory (a project's tree, which moves as
one: a clone, a copy) are written relative to the manifest; others absolute,
so the manifest can move without them. The manifest's header says which.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragnb._atomic import write_atomic
from ragnb.errors import InputError, listed
from ragnb.workspace.manifest import MANIFEST_NAME, ROLES, config_name


@dataclass
class TestSetSpec:
    """One test set for :func:`scaffold`: its file, role and runs (files or one glob), and
    the query ids it is cut to (``queries``: a list file, and a fold or folds of a JSON folds
    file).
    """

    __test__ = False

    name: str
    path: Path
    role: str = ""
    runs: Sequence[str] = ()
    queries: tuple[Path, str | tuple[str, ...] | None] | None = None
    #: A model judge's labels of this test set: (judge name, file).
    judge: tuple[str, Path] | None = None


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string


def _key(name: str) -> str:
    return name if name.replace("-", "").replace("_", "").isalnum() else _q(name)


def _rel(path: str | Path, root: Path) -> str:
    """``path`` as the manifest in ``root`` writes it (module docstring)."""
    path = Path(os.path.normpath(Path(path).expanduser().absolute()))
    root = Path(os.path.normpath(root.absolute()))
    for tree in (root, Path.cwd().absolute()):
        if path.is_relative_to(tree) and root.is_relative_to(tree):
            return Path(os.path.relpath(path, root)).as_posix()
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
    strata: Sequence[tuple[str | None, str | Path]] = (),
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
    missing: str = "error",
    relevance_level: int | None = None,
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
    ``strata`` pairs a test-set name (None: every test set without its own) with a
    strata file. Without ``baseline``/``challenger`` they are the first and the last of
    the rounds, else of the configs in file order, never picked by score (a stated
    rule, printed with how to change it and written beside them in the manifest).
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
        raise InputError(f"two test sets are named alike: {listed(names, most=20)}; use NAME=FILE",
                         key="--test-set")
    strata_of = _strata_files(strata, names)
    roles = _roles(test_sets)
    root.mkdir(parents=True, exist_ok=True)
    lines = ["# ragnb workspace, written by `ragnb init`; edit by hand as you like.",
             "# Relative paths are relative to this file; files outside this folder and the",
             "# folder init ran in are absolute. `ragnb init --help` documents every key.", "",
             "[workspace]", f"name = {_q(name or root.name)}",
             f"order = {_q(order)}   # score = trec_eval's order; rank = the rank column"]
    lines += _gain_lines(test_sets)
    if ledger:
        lines.append(f"ledger = {_q(_rel(ledger, root))}")
    if corpus:
        lines.append(f"corpus = {_q(_rel(corpus, root))}")
    if relevance_level is not None and relevance_level != 1:
        lines.append(f"relevance_level = {int(relevance_level)}   # binary measures count this "
                     "grade and up as relevant (trec_eval's -l)")
    if missing != "error":
        lines.append(f"missing = {_q(missing)}   # test-set queries a run lacks: error | empty "
                     "| drop (counted in a note)")
    extra_at = len(lines)
    for t in test_sets:
        if not Path(t.path).is_file():
            raise InputError("no such test-set file", source=t.path, key="--test-set")
        lines += ["", f"[test_sets.{_key(t.name)}]", f"path = {_q(_rel(t.path, root))}",
                  f"role = {_q(roles[t.name])}"]
        if t.queries is not None:
            ids, fold = t.queries
            if fold is None:
                lines.append(f"queries = {_q(_rel(ids, root))}")
            else:
                folds = _q(fold) if isinstance(fold, str) else f"[{', '.join(map(_q, fold))}]"
                lines.append(f"queries = {{ path = {_q(_rel(ids, root))}, fold = {folds} }}")
        if t.runs:
            lines.append(_runs_value(t.runs, root, f"--runs {t.name}").rstrip("\n"))
        if t.judge is not None:
            judge_name, judge_path = t.judge
            if not Path(judge_path).is_file():
                raise InputError("no such judge file", source=judge_path, key="--judge")
            lines.append(f"judge = {{ path = {_q(_rel(judge_path, root))}, name = "
                         f"{_q(judge_name)} }}   # a model judge's labels, kept beside "
                         "people's")
        if t.name in strata_of:
            lines += ["", f"[test_sets.{_key(t.name)}.strata]",
                      f"path = {_q(_rel(strata_of[t.name], root))}"]
            if strata_key != "query_id":
                lines.append(f"key = {_q(strata_key)}")
            if strata_columns:
                lines.append("columns = [" + ", ".join(map(_q, strata_columns)) + "]")
            if by:
                lines.append(f"by = {_q(by)}")
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
        ws = open_workspace(manifest, trusted_paths=True)
        found, outside, lacking = _read_all(ws)
    except Exception:
        manifest.unlink(missing_ok=True)
        raise
    if extra is None:
        extra = "drop" if outside else "error"
    lines.insert(extra_at, f"extra = {_q(extra)}   # run queries the test set lacks: error | "
                           "drop (counted in a note)")
    report_at += 1
    first = names[0]
    metric = metric or "ndcg@10"
    try:
        _check_configs(ws, names, {"--rounds": list(rounds), "--baseline": [baseline],
                                   "--challenger": [challenger]})
        if not (baseline and challenger):
            (baseline, challenger), rule = _pair_by_rule(ws, first, rounds, baseline,
                                                         challenger)
        else:
            rule = "given (--baseline, --challenger)"
    except Exception:
        manifest.unlink(missing_ok=True)
        raise
    report = ["", "[report]", f"metric = {_q(metric)}", 'policy = "lower"']
    picked = "" if rule.startswith("given") else "   # picked by ragnb init, not by score"
    if baseline:
        report.append(f"baseline = {_q(baseline)}{picked}")
    if challenger:
        report.append(f"challenger = {_q(challenger)}{picked}")
    lines[report_at:report_at] = report
    files: dict[str, list[str]] = {}
    for split, path in ({} if by else strata_of).items():
        files.setdefault(str(path), []).append(split)
    for splits in files.values():   # one choice per file, on the queries of all its splits
        choice = _guess_stratum(ws, splits)
        for split in splits:
            i = lines.index(f"[test_sets.{_key(split)}.strata]")
            if choice.column:
                lines.insert(i + 2, f"by = {_q(choice.column)}   # the default stratum column")
        found.append(f"stratum column: {choice.column or '(none)'} (test set"
                     f"{'s' if len(splits) > 1 else ''} {', '.join(splits)}: "
                     f"{choice.reason}; set `by` to change)")
        if choice.alternatives:
            found.append(f"  other stratum columns: {', '.join(choice.alternatives)}")
        if choice.free_text:
            found.append(f"  free text, never strata: {', '.join(choice.free_text)}")
        if choice.near_duplicates:
            spec = _merge_spec(root, choice)
            said = "; ".join(" / ".join(repr(x) for x in spellings)
                             for spellings in choice.near_duplicates.values())
            found.append(f"  labels of {choice.column} that differ only in case or spaces: "
                         f"{said}; a merge is written to {spec.name}, not applied: "
                         f"uncomment its `spec` line in {MANIFEST_NAME} to use it")
            for split in splits:
                i = lines.index(f"[test_sets.{_key(split)}.strata]")
                lines.insert(i + 2, f"# spec = {_q(spec.name)}   # merges labels that differ "
                                    "only in case or spaces (written by ragnb init)")
    write_atomic(manifest, "\n".join(lines) + "\n")
    try:
        ws = open_workspace(manifest, trusted_paths=True)
    except Exception:
        manifest.unlink(missing_ok=True)
        raise
    if outside and extra == "drop":
        found.append(f"{outside} ranked queries are not in the test set(s): extra = \"drop\" "
                     "(counted in a note of every score)")
    for split, config, n_lacking, n_all in lacking:
        if missing == "error":
            found.append(f"warning: run {config} ranks nothing for {n_lacking} of the {n_all} "
                         f"queries of test set {split}: reports stop there; set [workspace] "
                         "missing = \"drop\" (leave them out, counted) or \"empty\" (score "
                         "them 0), or run init with --missing drop")
    found.append(f"baseline {baseline or '(none)'}, challenger {challenger or '(none)'}: "
                 f"{rule}; change them with --baseline/--challenger or [report] baseline, "
                 "challenger")
    return manifest, found


def _strata_files(strata: Sequence[tuple[str | None, str | Path]], names: list[str]
                  ) -> dict[str, str | Path]:
    """Test set -> strata file: named ones, and one file for every other test set."""
    named = {}
    shared = [path for split, path in strata if split is None]
    if len(shared) > 1:
        raise InputError(f"{len(shared)} strata files for every test set; name the test set of "
                         "each: --strata SPLIT=FILE", key="--strata")
    for split, path in strata:
        if split is None:
            continue
        if split not in names:
            raise InputError(f"no test set {split!r} for the strata file; test sets: "
                             f"{', '.join(names)}", key="--strata")
        if split in named:
            raise InputError(f"two strata files for test set {split!r}", key="--strata")
        named[split] = path
    return {n: named.get(n, shared[0] if shared else "") for n in names
            if n in named or shared}


def _check_configs(ws, splits: Sequence[str], given: dict[str, list[str]]) -> None:
    """Every config named on the command line is one the runs have (issue 36 #4: names of
    configs that do not exist were written to the manifest without a word).
    """
    import difflib

    known = sorted({c for s in splits for c in ws.configs(s)})
    for flag, values in given.items():
        unknown = [v for v in values if v and v not in known]
        if unknown:
            close = {u: difflib.get_close_matches(u, known, n=1) for u in unknown}
            hints = "; ".join(f"{u}: did you mean {m[0]}?" for u, m in close.items() if m)
            raise InputError(f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} "
                             f"not a config of these runs" + (f" ({hints})" if hints else "")
                             + f"; configs: {', '.join(known)}", key=flag)


def _pair_by_rule(ws, split: str, rounds: Sequence[str], baseline: str = "",
                  challenger: str = "") -> tuple[tuple[str, str], str]:
    """Baseline and challenger by a rule that reads no score: the first and the last of the
    rounds when there are rounds (the first champion and the latest), else the first and
    the last config in file order; a given one is kept.

    Never by score: the weakest and the strongest of many configs on a split differ on it
    by regression to the mean alone, so a page reading that split would call the gap fit
    (seed 000's error, committed by the tool).
    """
    configs = ws.configs(split)
    for flag, given in (("--baseline", baseline), ("--challenger", challenger)):
        if given and given not in configs:
            raise InputError(f"no config {given!r} on test set {split!r}; configs: "
                             f"{', '.join(configs) or 'none'}", key=flag)
    if len(configs) < 2:
        return (baseline or (configs[0] if configs else ""), challenger), "one config"
    order = [c for c in rounds if c in configs] or configs
    where = "the rounds" if order is not configs else "file order"
    first = baseline or next(c for c in order if c != challenger)
    last = challenger or next(c for c in reversed(order) if c != first)
    return (first, last), (f"the first and the last in {where}, not by score (a pair picked "
                           "by score on a split makes its gap look like fit there); name the "
                           "pair you mean")


def _gain_lines(test_sets: Sequence[TestSetSpec]) -> list[str]:
    """The nDCG gain map, written out: linear for TREC qrels (trec_eval's ``ndcg_cut``, as
    ranx and ir_measures compute nDCG), else ragnb's exponential 2^g - 1.
    """
    from ragnb.io.source import implied_gain

    if any(Path(t.path).is_file() and implied_gain(t.path) == "linear" for t in test_sets):
        return ['gain = "linear"   # nDCG gain g: trec_eval\'s ndcg_cut (as ranx, ir_measures) '
                'for TREC qrels; "exp" = 2^g - 1']
    return ['gain = "exp"   # nDCG gain 2^g - 1; "linear" = g, as trec_eval\'s ndcg_cut']


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


def _read_all(ws) -> tuple[list[str], int, list[tuple[str, str, int, int]]]:
    """Read every test set and run once: lines to show, the count of extra queries, and
    ``(split, config, queries it lacks, queries)`` for runs missing test-set queries.
    """
    found, outside, lacking = [], 0, []
    seen: dict[str, str] = {}  # a run's note -> the first test set that read the run
    for split in ws.test_set_names:
        ts = ws.test_set(split)
        qids = set(ts.query_ids)
        cut = ws.test_set_entry(split).queries
        fold = f" ({cut.folds})" if cut is not None and cut.folds else ""
        found.append(f"test set {split}: {len(ts.queries)} queries{fold}, {len(ts.judgments)} "
                     f"judgments ({ts.source})")
        for note in ts.notes:
            found.append(f"  note: {note}")
        runs = ws.check_runs(split)   # read and checked, not scored
        extra: set[str] = set()
        again: dict[str, int] = {}  # first test set -> its notes not repeated here
        for config, outside_ids, notes, n_ranked in runs:
            extra |= outside_ids
            if n_ranked < len(qids):
                lacking.append((split, config, len(qids) - n_ranked, len(qids)))
            for note in map(str, notes):
                if note in seen:  # the same run read again for another split
                    again[seen[note]] = again.get(seen[note], 0) + 1
                    continue
                seen[note] = split
                found.append(f"  note: {note}")
        for first, count in again.items():
            found.append(f"  {count} run note{'s' if count > 1 else ''} as for test set "
                         f"{first} (the same runs): not repeated")
        outside += len(extra)
        if runs:
            found.append(f"  {len(runs)} runs: {', '.join(r[0] for r in runs)}")
        table = ws.strata(split)
        if table is not None:
            n_out = len(set(table["query_id"]) - qids)
            found.append(f"  strata: {len(table)} annotated queries, columns "
                         + ", ".join(str(c) for c in table.columns
                                     if c not in ("query_id", "line"))
                         + (f"; {n_out} not in the test set (counted in a note)" if n_out else ""))
    return found, outside, lacking


def _merge_spec(root: Path, choice) -> Path:
    """A strata spec (the format :func:`ragnb.strata.spec.read_spec` reads) merging
    ``choice``'s near-duplicate labels, written before any score is seen (so
    pre-registered), beside the manifest. Written here as text: the workspace layer does
    not import the analyses.
    """
    from datetime import UTC, datetime

    def q(text: str) -> str:  # a TOML basic string (JSON's escapes are TOML's)
        return json.dumps(text, ensure_ascii=False)

    lines = ["# Stratification spec for ragnb (see ragnb.strata.spec)",
             f"column = {q(choice.column)}",
             f"written_at = {datetime.now(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}",
             'written_by = "ragnb init"', 'origin = "pre-registered"',
             'note = "labels that differ only in case or spaces, merged"', "exclude = []", "",
             "[merge]"]
    lines += [f"{q(new)} = [{', '.join(q(o) for o in old)}]"
              for new, old in choice.near_duplicates.items()]
    path = root / "strata-merge.toml"
    write_atomic(path, "\n".join(lines) + "\n")
    return path


def _guess_stratum(ws, splits: list[str]):
    import pandas as pd

    from ragnb.io.strata_table import strata_table, suggest_stratum

    tables = [strata_table(ws.test_set(s), ws.strata(s)) for s in splits]
    table = pd.concat(tables).drop_duplicates("query_id") if len(tables) > 1 else tables[0]
    return suggest_stratum(table)


def relative_to_cwd(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)
