"""The workspace manifest ``ragnb.toml``: its keys, and the one place they are checked.

A workspace is a folder with one manifest that names every input of an
evaluation; notebooks, reports, the what-if widget and the command line all
read it. Relative paths resolve against the manifest's folder. A hand-written
example (every key is optional except ``test_sets``)::

    [workspace]
    name = "my-eval"              # shown in reports
    order = "score"               # ranking order of runs that carry both ranks and scores:
                                  # score (trec_eval: score desc, docno desc) or rank
    extra = "drop"                # run queries the test set lacks: error | drop (counted)
    missing = "error"             # test-set queries a run lacks: error | empty | drop
    ledger = "ledger"             # split ledger folder
    corpus = "corpus.csv"         # current corpus build (test-set health)
    gain = "exp"                  # nDCG gain map: exp (2^g - 1), linear (g) or a
                                  # .json/.csv file grade -> gain; or a [gains] table
    relevance_level = 1           # least relevant grade of binary measures (trec_eval -l)

    [gains]                       # grade -> gain (instead of [workspace] gain)
    "0" = 0
    "1" = 1
    "2" = 5

    [test_sets.golden]            # one table per test set; the table name is the split name
    path = "qrels.txt"            # TREC qrels, JSONL, CSV/TSV/Parquet (gzip read transparently)
    role = "golden"               # golden | production | confirmation | other
    runs = "runs/*.trec"          # a glob (config = file name up to the first dot) ...
    # [test_sets.golden.runs]     # ... or a table config -> file (or glob of one file)

    # queries = "golden.ids"      # cut the file to these query ids (one a line), or a fold
    # queries = { path = "folds.json", fold = "1" }   # of a JSON folds file
    # queries = { path = "folds.json", fold = ["1", "2", "3"] }   # several folds as one

    [test_sets.golden.strata]     # query annotations for stratified breakdowns
    path = "topics.tsv"
    key = "query_id"              # the column holding query ids
    columns = ["query_id", "domain"]  # column names of a header-less file
    by = "domain"                 # the default stratum column
    spec = "spec.toml"            # a stratification spec (written before looking)

    [rounds]                      # ordered champions, for the trajectory
    configs = ["jan", "feb", "mar"]   # or: path = "rounds.csv" (a `config` column)

    [labels]                      # pooled-labelling results (label bias)
    test_set = "golden"           # the test set they judge
    path = "labels.csv"           # query_id, passage_id, grade
    shards = "shards.csv"         # query_id, shard
    shard = "shard1"

    [codetasks]
    tasks = "tasks.jsonl"
    run = "run.jsonl"
    missing = "error"             # kept tasks the run lacks: error | empty | drop

    [health]                      # test-set health extras (see notebooks/06-health)
    test_set = "production"
    old_version = "production-v1.jsonl"
    holdout_split = "golden"
    holdout_run = "champion-with-holdout.jsonl"
    declared_sources = { ticket = 0.5, search = 0.3, sales = 0.2 }
    bucket_column = "intent"

    [cluster]                     # where every page scores its runs (same figures)
    jobs = 2                      # processes of this machine (0: one per core), or ...
    address = "tcp://scheduler:8786"   # ... a dask.distributed cluster (ragnb[dask])

    [display_names]               # config -> name shown in reports
    "round-00" = "January"

    [report]                      # report defaults (any notebook)
    metric = "ndcg@10"
    policy = "lower"
    baseline = "jan"
    challenger = "mar"

    [report.strata]               # defaults for one notebook (by slug) override [report]
    reported = "+1.1"

    [gate]                        # `ragnb gate`: the rule every change must pass
    split = "golden"              # the test set gated on (default: [report] test set)
    baseline = "jan"              # the config a change is compared with
    metric = ["ndcg@10"]          # one metric or a list (each must pass)
    kind = "non_inferiority"      # non_inferiority | superiority | no_regression
    margin = 1.0                  # points (see `ragnb init --help`)
    alpha = 0.05                  # error rate of the decision
    stratum_drop = 5.0            # points: fail when a stratum's drop beyond it is established
    by = "domain"                 # the stratum column for stratum_drop

    [watch]                       # `ragnb watch`: production judged as it arrives
    split = "production"          # the test set whose runs are watched
    baseline = "jan"
    champion = "mar"
    metric = "ndcg@10"
    margin = 1.0                  # points: "gain at least the margin established"
    batches = "batches"           # a folder of judged batches (name order), or a list
    # batches = [{ path = "b1.qrels", date = "2026-01-05" }, ...]
    # batch_size = 20             # no batch files: the test set's queries, 20 at a time

:func:`parse_manifest` is the one place these keys are checked; every error
names the manifest and the key (``[test_sets.golden] path``).

A manifest is untrusted input (one from a pull request may be written by
anyone), so every value is checked here before any notebook sees it: types,
ranges (:data:`ragnb.vocab.RANGES`: ``[report] k``, ``[health] answer_grade``),
metric names, and paths. A path must name a regular file (or the ledger's
folder): a FIFO, a device, a NUL, a path over :data:`MAX_PATH_CHARS`
characters or a path into :data:`SYSTEM_FOLDERS` (``/proc/self/environ``,
``/dev/zero``, also through a symlink) is refused by key, before anything is
read. Globs match at most :data:`MAX_GLOB_FILES` files, and a recursive one
(``**``) must start inside the workspace (``/**/*.jsonl`` would walk ``/``).
The manifest itself is read up to :data:`MAX_MANIFEST_BYTES`, and nesting too
deep for the TOML parser is one error.
"""
from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from ragnb.errors import InputError
from ragnb.paths import NOTEBOOKS_DIR
from ragnb.vocab import EXTRA, FORMATS, MISSING, ORDERS, out_of_range

#: File name of a workspace manifest.
MANIFEST_NAME = "ragnb.toml"
#: Largest manifest read, in bytes (a manifest is a page of text).
MAX_MANIFEST_BYTES = 1 << 20
#: Longest path a manifest may give, in characters (Linux's PATH_MAX).
MAX_PATH_CHARS = 4096
#: Most files one glob may match (and the walk stops there).
MAX_GLOB_FILES = 10_000
#: Folders of the running system, never evaluation data: a path into one is refused
#: (``/proc/self/environ`` would otherwise be read, and quoted in an error).
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")
ROLES = ("golden", "production", "confirmation", "other")

def report_sections() -> tuple[str, ...]:
    """The ``[report.<name>]`` sections a page reads: each notebook's name without its number
    (``01-fit.ipynb``: ``fit``), and the gate's and the watch's (read when a manifest has
    such a section, not at import).
    """
    return (*(p.stem.split("-", 1)[1] for p in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))),
            "gate", "watch")

#: Keys of ``[report]`` (and ``[report.<slug>]``): name -> (type, help).
REPORT_KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "metric": (str, "metric, e.g. ndcg@10"),
    "policy": (str, "unjudged passages: lower, condensed or upper"),
    "baseline": (str, "the baseline config"),
    "challenger": (str, "the challenger config (the champion, in the four-cell table)"),
    "test_set": (str, "the test set a single-split notebook reads"),
    "golden": (str, "the split selected against (default: the test set with role golden)"),
    "production": (str, "the fresh split (default: the test set with role production)"),
    "reported": (str, "a pooled delta reported elsewhere, in points as printed (e.g. +1.1)"),
    "stratum": (str, "the stratum column (default: the test set's strata `by`)"),
    "spec": (str, "a stratification / pre-registration spec file"),
    "configs": (list, "the configs a notebook compares (default: every config of the test set)"),
    "runner_up": (str, "ledger notebook: the close candidate"),
    "winner": (str, "ledger notebook: the candidate a team would pick"),
    "k": (int, "rank cut-off (code tasks)"),
    "keep": (str, "keep condition (code tasks)"),
}

#: Decision kinds of ``[gate] kind``: kind -> what passes (``margin`` in points).
GATE_KINDS = {
    "non_inferiority": "the challenger is shown no worse than the baseline by more than margin",
    "superiority": "the challenger is shown better than the baseline by more than margin",
    "no_regression": "fails only when a drop of more than margin is shown",
}


@dataclass(frozen=True)
class GateRules:
    """``[gate]``: what ``ragnb gate`` decides (margins in points, as written)."""

    split: str | None = None
    baseline: str | None = None
    metrics: tuple[str, ...] = ()
    kind: str = "non_inferiority"
    margin: float = 0.0
    alpha: float = 0.05
    stratum_drop: float | None = None
    by: str | None = None


@dataclass(frozen=True)
class WatchBatch:
    """One judged batch of ``[watch] batches``: a test-set file and its date (may be empty)."""

    path: Path
    date: str = ""


@dataclass(frozen=True)
class WatchRules:
    """``[watch]``: the production split watched as judged batches arrive."""

    split: str | None = None
    baseline: str | None = None
    champion: str | None = None
    metric: str | None = None
    margin: float = 0.0
    alpha: float = 0.05
    batches: tuple[WatchBatch, ...] = ()
    batch_size: int | None = None


#: Documented keys of each section: section -> {key: help}.
SECTIONS: dict[str, dict[str, str]] = {
    "workspace": {
        "name": "shown in reports",
        "order": "ranking order of runs with ranks and scores: score (trec_eval, default) or rank",
        "extra": "run queries the test set lacks: error (default) or drop (counted in a note)",
        "missing": "test-set queries a run lacks: error (default), empty or drop",
        "ledger": "split ledger folder",
        "corpus": "current corpus build (passage_id, doc_version)",
        "gain": "nDCG gain map for metrics that name none: exp (2^g - 1, default), linear (g) "
                "or a .json/.csv file grade -> gain",
        "relevance_level": "least grade that counts as relevant for binary measures that name "
                           "none (trec_eval's -l; default 1)",
    },
    "gains": {"GRADE": "its gain (a grade -> gain map for nDCG; instead of [workspace] gain)"},
    "test_sets.NAME": {
        "path": "the test set: TREC qrels, JSONL, CSV/TSV/Parquet (required)",
        "role": "golden, production, confirmation or other",
        "format": "auto (default), trec, jsonl, csv, tsv, parquet",
        "runs": "a glob (config = file name up to the first dot; input.<tag>.gz: <tag>) or a "
                "table config -> file",
        "strata": "a table: path, key, columns (header-less files), by, spec",
        "queries": "cut the test set to these query ids: a file of ids (one a line), or "
                   "{ path = \"folds.json\", fold = \"1\" } (a fold of a JSON folds file; "
                   "fold = [\"1\", \"2\"] joins folds)",
        "judge": "a model judge's labels of these queries, in any test-set format: a path "
                 "(the judge is named by the file name up to the first dot) or "
                 "{ path, name, format }; kept beside the people's, never merged",
    },
    "rounds": {"configs": "ordered champions", "path": "a CSV with a `config` column"},
    "labels": {"test_set": "the test set judged", "path": "new judgments (CSV)",
               "shards": "query_id, shard (CSV)", "shard": "the shard to extrapolate from"},
    "codetasks": {"tasks": "tasks file (ragnb tasks mine)", "run": "the retriever's run",
                  "missing": "kept tasks the run has no ranking for: error (default), empty "
                             "(retrieving nothing) or drop (left out, counted)",
                  "extra": "run queries that are no mined task: error (default) or drop"},
    "health": {"test_set": "the test set checked", "old_version": "an older version of it",
               "holdout_split": "the split tuning selects on",
               "holdout_run": "the tuned config's run on that split",
               "declared_sources": "source -> declared share",
               "bucket_column": "query field defining buckets",
               "answer_grade": "the grade that answers a query"},
    "display_names": {"CONFIG": "the name shown for a config"},
    "cluster": {"jobs": "processes of this machine that score the runs of every page (default "
                        "1; 0 = one per core); the scores are the serial ones exactly",
                "address": "a dask.distributed scheduler (tcp://host:8786) that scores the runs "
                           "of every page and command of this workspace, one run a task; needs "
                           "pip install 'ragnb[dask]'; the scores are the serial ones exactly"},
    "report": {k: h for k, (_, h) in REPORT_KEYS.items()},
    "gate": {
        "split": "the test set gated on (default: [report] test_set, else production, golden, "
                 "the first)",
        "baseline": "the config every change is compared with (default: [report] baseline)",
        "metric": "a metric or a list of metrics, each must pass (default: [report] metric, "
                  "else ndcg@10)",
        "kind": "non_inferiority (default): pass when the challenger is shown no worse than "
                "margin; superiority: pass when shown better by more than margin; "
                "no_regression: fail only when a drop of more than margin is shown",
        "margin": "points (metric x 100), >= 0 (default 0)",
        "alpha": "the decision's error rate, in (0, 0.5] (default 0.05)",
        "stratum_drop": "points: also fail when some stratum's drop beyond this is shown "
                        "(Holm over strata)",
        "by": "the stratum column of stratum_drop (default: the split's strata `by`)",
    },
    "watch": {
        "split": "the test set whose runs are watched (default: the production test set)",
        "baseline": "the config the champion is compared with (default: [report] baseline)",
        "champion": "the config watched (default: [report] challenger)",
        "metric": "the metric (default: [report] metric, else ndcg@10)",
        "margin": "points: the gain 'at least the margin' stops on (default 0)",
        "alpha": "the confidence sequence's error rate (default 0.05)",
        "batches": "a folder of judged batches, one test-set file each, in name order, or a "
                   "list of tables {path, date}",
        "batch_size": "no batches: the test set's own queries in file order, this many a batch",
    },
}


@dataclass(frozen=True)
class StrataEntry:
    """Where a test set's query annotations are."""

    path: Path
    key: str = "query_id"
    columns: tuple[str, ...] = ()
    by: str = ""
    spec: Path | None = None


@dataclass(frozen=True)
class QueryList:
    """The query ids a test set is cut to: a list file, or folds of a folds file."""

    path: Path
    fold: str | tuple[str, ...] | None = None

    @property
    def folds(self) -> str:
        """The folds in words (``fold 3``, ``folds 1, 2``); "" for a list file."""
        if self.fold is None or isinstance(self.fold, str):
            return "" if self.fold is None else f"fold {self.fold}"
        return f"folds {', '.join(self.fold)}"


@dataclass(frozen=True)
class JudgeEntry:
    """Where a test set's model-judge labels are, and the judge's name."""

    path: Path
    name: str
    format: str = "auto"


@dataclass(frozen=True)
class TestSetEntry:
    """One test set of the manifest and where its runs are."""

    __test__ = False

    name: str
    path: Path
    role: str = "other"
    format: str = "auto"
    runs: dict[str, Path] = field(default_factory=dict)
    strata: StrataEntry | None = None
    queries: QueryList | None = None
    judge: JudgeEntry | None = None


@dataclass(frozen=True)
class Manifest:
    """A checked manifest: every path absolute, every value of the right type."""

    path: Path
    name: str
    order: str
    extra: str
    missing: str
    test_sets: dict[str, TestSetEntry]
    ledger: Path | None = None
    corpus: Path | None = None
    rounds: tuple[str, ...] = ()
    rounds_path: Path | None = None
    labels: dict[str, Any] = field(default_factory=dict)
    codetasks: dict[str, Path] = field(default_factory=dict)
    #: ``[codetasks] missing`` and ``extra``: tasks a run lacks, run queries that are no task.
    codetasks_missing: str = "error"
    codetasks_extra: str = "error"
    health: dict[str, Any] = field(default_factory=dict)
    display_names: dict[str, str] = field(default_factory=dict)
    gain: str = "exp"
    report: dict[str, Any] = field(default_factory=dict)
    relevance_level: int = 1
    report_by_notebook: dict[str, dict[str, Any]] = field(default_factory=dict)
    gate: GateRules | None = None
    watch: WatchRules | None = None
    #: ``[cluster] address``: the dask scheduler that scores this workspace's runs.
    cluster: str | None = None
    #: ``[cluster] jobs``: processes of this machine scoring them (0: one per core).
    jobs: int = 1

    @property
    def root(self) -> Path:
        return self.path.parent


class _Checker:
    """Reads values out of the TOML with errors naming the manifest and the key."""

    def __init__(self, path: Path):
        self.path = path
        self.root = path.parent

    def fail(self, key: str, problem: str) -> InputError:
        return InputError(problem, source=self.path, key=key)

    def table(self, data: dict, key: str, where: str) -> dict:
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f"{where}{key}", "must be a table")
        return value

    def known(self, data: dict, allowed, where: str) -> None:
        for k in data:
            if k not in allowed:
                raise self.fail(f"{where}{k}", f"unknown key; known keys: {', '.join(allowed)}")

    def text(self, data: dict, key: str, where: str, default: str = "",
             choices: tuple[str, ...] | None = None) -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            raise self.fail(f"{where}{key}", f"must be a string, got {value!r}")
        if choices is not None and value not in choices:
            raise self.fail(f"{where}{key}", f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def number(self, data: dict, key: str, where: str, kind: type = int):
        """An int (or a float, ``kind`` float) within :data:`ragnb.vocab.RANGES`."""
        value = data[key]
        kinds = (int,) if kind is int else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            what = "an integer" if kind is int else "a number"
            raise self.fail(f"{where}{key}", f"must be {what}, got {value!r}")
        problem = out_of_range(key, value)
        if problem:
            raise self.fail(f"{where}{key}", problem)
        return value

    def metric(self, text: str, key: str) -> None:
        """A metric name the registry reads (``ndcg@10(gain=)`` is not one)."""
        from ragnb.metrics.registry import parse_metric

        try:
            parse_metric(text)
        except InputError as exc:
            raise self.fail(key, f"not a metric: {exc.problem}") from None

    @overload
    def file(self, data: dict, key: str, where: str, *, required: Literal[True],
             kind: str = "file") -> Path: ...

    @overload
    def file(self, data: dict, key: str, where: str, *, required: bool = False,
             kind: str = "file") -> Path | None: ...

    def file(self, data: dict, key: str, where: str, *, required: bool = False,
             kind: str = "file") -> Path | None:
        if key not in data:
            if required:
                raise self.fail(f"{where}{key}", "is required")
            return None
        value = self.text(data, key, where)
        if not value:
            raise self.fail(f"{where}{key}", "is empty")
        path = self.resolve(value, f"{where}{key}")
        try:
            mode = path.stat().st_mode
        except OSError:
            raise self.fail(f"{where}{key}", f"no such {kind}: {path}") from None
        ok = stat.S_ISDIR(mode) if kind == "dir" else stat.S_ISREG(mode)
        if not ok:
            what = "a folder" if kind == "dir" else "a regular file"
            raise self.fail(f"{where}{key}", f"not {what}: {path}")
        return path

    def resolve(self, value: str, key: str) -> Path:
        """``value`` as an absolute path with symlinks resolved; a NUL, an overlong path
        or a path into :data:`SYSTEM_FOLDERS` is an error naming ``key``.
        """
        if "\0" in value:
            raise self.fail(key, "a path may not hold a NUL character")
        if len(value) > MAX_PATH_CHARS or any(len(p) > 255 for p in value.split("/")):
            raise self.fail(key, f"the path is longer than {MAX_PATH_CHARS:,} characters "
                                 "(or a part of it than 255)")
        try:
            path = Path(value).expanduser()
            path = (path if path.is_absolute() else self.root / path).resolve()
        except (OSError, RuntimeError, ValueError) as exc:
            raise self.fail(key, f"cannot resolve the path ({exc})") from None
        text = str(path)
        for system in SYSTEM_FOLDERS:
            if text == system or text.startswith(system + "/"):
                raise self.fail(key, f"{path} is in {system}, which holds no evaluation data")
        return path

    def glob(self, pattern: str, key: str) -> list[Path]:
        """The regular files ``pattern`` matches, sorted; bounded (module docstring)."""
        path = Path(pattern)
        parts = path.parts
        first = next((i for i, p in enumerate(parts) if any(c in p for c in "*?[")), None)
        if first is None:
            base = self.resolve(pattern, key)
            return [base] if base.is_file() else []
        anchor = self.resolve(str(Path(*parts[:first])) if first else ".", key)
        rest = str(Path(*parts[first:]))
        if "**" in rest and not f"{anchor}/".startswith(f"{self.root}/"):
            raise self.fail(key, f"a recursive glob (**) must stay inside the workspace "
                                 f"({self.root}); {pattern!r} starts at {anchor}")
        found: list[Path] = []
        try:
            for p in anchor.glob(rest):
                if len(found) >= MAX_GLOB_FILES:
                    raise self.fail(key, f"{pattern!r} matches more than {MAX_GLOB_FILES:,} "
                                         "files")
                real = os.path.realpath(p)
                if real.startswith(tuple(f"{s}/" for s in SYSTEM_FOLDERS)):
                    raise self.fail(key, f"{real} is in a system folder, which holds no "
                                         "evaluation data")
                if os.path.isfile(real):
                    found.append(Path(real))
        except (OSError, ValueError) as exc:
            raise self.fail(key, f"cannot list {pattern!r} ({exc})") from None
        return sorted(found)


def config_name(path: Path) -> str:
    """A config's name from its run file: the file name up to the first dot
    (``input.<tag>.gz``, TREC's archive name: ``<tag>``; :func:`ragnb.io.runs.config_of_file`).
    """
    from ragnb.io.runs import config_of_file

    return config_of_file(path.name)


def _runs(check: _Checker, value: Any, where: str) -> dict[str, Path]:
    key = f"{where}runs"
    if isinstance(value, str):
        files = check.glob(value, key)
        if not files:
            raise check.fail(key, f"no file matches {value!r}")
        runs: dict[str, Path] = {}
        for f in files:
            name = config_name(f)
            if name in runs:
                raise check.fail(key, f"two files give config {name!r}: {runs[name].name}, "
                                      f"{f.name}; name them in a table config -> file")
            runs[name] = f
        return runs
    if isinstance(value, dict):
        runs = {}
        for config, pattern in value.items():
            if not isinstance(pattern, str) or not pattern:
                raise check.fail(f"{key}.{config}", "must be a file path")
            files = check.glob(pattern, f"{key}.{config}")
            if len(files) != 1:
                raise check.fail(f"{key}.{config}", f"{pattern!r} matches {len(files)} files, "
                                                    "expected one")
            runs[str(config)] = files[0]
        return runs
    raise check.fail(key, "must be a glob or a table config -> file")


def _strata(check: _Checker, value: Any, where: str) -> StrataEntry:
    where = f"{where}strata."
    if isinstance(value, str):
        value = {"path": value}
    if not isinstance(value, dict):
        raise check.fail(where[:-1], "must be a table (path, key, columns, by, spec) or a path")
    check.known(value, ("path", "key", "columns", "by", "spec"), where)
    columns = value.get("columns", [])
    if not isinstance(columns, list) or not all(isinstance(c, str) and c for c in columns):
        raise check.fail(f"{where}columns", "must be a list of column names")
    key = check.text(value, "key", where, "query_id")
    if columns and key not in columns:
        raise check.fail(f"{where}key", f"{key!r} is not one of the columns {columns}")
    return StrataEntry(check.file(value, "path", where, required=True), key, tuple(columns),
                       check.text(value, "by", where), check.file(value, "spec", where))


def _queries(check: _Checker, value: Any, where: str) -> QueryList:
    where = f"{where}queries."
    if isinstance(value, str):
        value = {"path": value}
    if not isinstance(value, dict):
        raise check.fail(where[:-1], "must be a path (a file of query ids) or a table "
                                     "{ path = \"folds.json\", fold = \"1\" }")
    check.known(value, ("path", "fold"), where)
    fold = value.get("fold")
    if isinstance(fold, list) and fold and all(isinstance(f, str) for f in fold):
        fold = tuple(fold)
    elif fold is not None and not isinstance(fold, str):
        raise check.fail(f"{where}fold", "must be a fold's name or a list of them "
                                         f"(\"1\" or [\"1\", \"2\"]), got {fold!r}")
    return QueryList(check.file(value, "path", where, required=True), fold)


def _judge(check: _Checker, value: Any, where: str) -> JudgeEntry:
    where = f"{where}judge."
    if isinstance(value, str):
        value = {"path": value}
    if not isinstance(value, dict):
        raise check.fail(where[:-1], "must be a path (the judge's labels) or a table "
                                     "{ path, name, format }")
    check.known(value, ("path", "name", "format"), where)
    path = check.file(value, "path", where, required=True)
    name = check.text(value, "name", where) or config_name(path)
    if name == "people":
        raise check.fail(f"{where}name", "'people' names the human labels; name the judge")
    return JudgeEntry(path, name, check.text(value, "format", where, "auto", FORMATS))


def _gain(check: _Checker, ws: dict, data: dict) -> str:
    """The workspace's nDCG gain map, registered: ``exp``, ``linear`` or a name
    ``workspace-<digest>`` for a map from a file or the ``[gains]`` table.

    The name is content-addressed (sha256 of the sorted grade -> gain pairs), so
    two workspaces with different maps open in one process never replace each
    other's, and the same map always gets the same name.
    """
    import hashlib

    from ragnb.metrics.gains import GAIN_MAPS, load_gain_map, register_gain_map

    table = check.table(data, "gains", "")
    if "gain" in ws and table:
        raise check.fail("gains", "give [workspace] gain or a [gains] table, not both")
    if table:
        key, mapping, source = "gains", table, f"{check.path} [gains]"
    elif "gain" in ws:
        value = check.text(ws, "gain", "workspace.")
        if not value.lower().endswith((".json", ".csv")):
            if value not in ("exp", "linear"):
                raise check.fail("workspace.gain", f"must be exp, linear or a .json/.csv file "
                                                   f"grade -> gain; got {value!r}")
            return value
        path = check.file(ws, "gain", "workspace.", required=True)
        key, source = "workspace.gain", str(path)
        try:
            mapping = dict(load_gain_map(path, "workspace-file").table or ())
        except InputError as exc:
            raise check.fail(key, str(exc)) from None
        finally:
            GAIN_MAPS.pop("workspace-file", None)
    else:
        return "exp"
    try:
        pairs = sorted((int(g), float(v)) for g, v in mapping.items())
    except (TypeError, ValueError):
        pairs = []  # register_gain_map below names the bad grade or gain
    digest = hashlib.sha256(repr(pairs).encode()).hexdigest()[:10]
    name = f"workspace-{digest}"
    try:
        register_gain_map(name, mapping, source=source)
    except InputError as exc:
        where = f"gains.{exc.key}" if key == "gains" and exc.key else key
        raise check.fail(where, exc.problem) from None
    return name


def parse_manifest(path: str | Path) -> Manifest:
    """Read and check a ``ragnb.toml``; the one place manifest keys are validated.

    Parameters
    ----------
    path : path
        The manifest, or a folder holding ``ragnb.toml``.

    Raises
    ------
    InputError
        Naming the manifest and the key: unknown key, wrong type, unknown
        choice, a file that does not exist, a glob that matches nothing.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        path = path / MANIFEST_NAME
    if not path.is_file():
        raise InputError("no workspace manifest here (make one with `ragnb init`)", source=path)
    path = path.resolve()
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=path) from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise InputError(f"larger than {MAX_MANIFEST_BYTES:,} bytes: not a manifest",
                         source=path)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid TOML ({exc})", source=path) from None
    except RecursionError:
        raise InputError("not valid TOML (nested too deeply)", source=path) from None
    check = _Checker(path)
    check.known(data, ("workspace", "test_sets", "rounds", "labels", "codetasks", "health",
                       "display_names", "report", "gains", "gate", "watch", "cluster"), "")
    ws = check.table(data, "workspace", "")
    check.known(ws, tuple(SECTIONS["workspace"]), "workspace.")
    order = check.text(ws, "order", "workspace.", "score", ORDERS)
    extra = check.text(ws, "extra", "workspace.", "error", EXTRA)
    missing = check.text(ws, "missing", "workspace.", "error", MISSING)
    gain = _gain(check, ws, data)
    level = ws.get("relevance_level", 1)
    if isinstance(level, bool) or not isinstance(level, int) or level < 1:
        raise check.fail("workspace.relevance_level",
                         f"must be an integer grade of at least 1, got {level!r}")

    test_sets = _test_sets(check, data)

    rounds = check.table(data, "rounds", "")
    check.known(rounds, ("configs", "path"), "rounds.")
    configs = rounds.get("configs", [])
    if not isinstance(configs, list) or not all(isinstance(c, str) for c in configs):
        raise check.fail("rounds.configs", "must be a list of config names")
    rounds_path = check.file(rounds, "path", "rounds.")
    if configs and rounds_path:
        raise check.fail("rounds", "give configs or path, not both")

    labels = check.table(data, "labels", "")
    check.known(labels, tuple(SECTIONS["labels"]), "labels.")
    labels = {"test_set": check.text(labels, "test_set", "labels."),
              "path": check.file(labels, "path", "labels."),
              "shards": check.file(labels, "shards", "labels."),
              "shard": check.text(labels, "shard", "labels.")} if labels else {}
    tasks = check.table(data, "codetasks", "")
    check.known(tasks, tuple(SECTIONS["codetasks"]), "codetasks.")
    codetasks = {k: check.file(tasks, k, "codetasks.", required=True) for k in ("tasks", "run")
                 } if tasks else {}
    codetasks_missing = check.text(tasks, "missing", "codetasks.", "error", MISSING)
    codetasks_extra = check.text(tasks, "extra", "codetasks.", "error", EXTRA)
    health = _health(check, data)

    names = check.table(data, "display_names", "")
    for config, shown in names.items():
        if not isinstance(shown, str) or not shown:
            raise check.fail(f"display_names.{config}", "must be a non-empty string")

    report, per_notebook = _report(check, data)

    gate = _gate(check, data) if "gate" in data else None
    cluster = check.table(data, "cluster", "")
    check.known(cluster, tuple(SECTIONS["cluster"]), "cluster.")
    address = _optional_text(check, cluster, "address", "cluster.")
    if address is not None and "://" not in address:
        raise check.fail("cluster.address", f"must be a scheduler address such as "
                                            f"tcp://host:8786, got {address!r}")
    jobs = cluster.get("jobs", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise check.fail("cluster.jobs", f"must be a whole number >= 0 (0: one per core), "
                                         f"got {jobs!r}")
    watch = _watch(check, data) if "watch" in data else None
    refs = [("labels.test_set", labels.get("test_set")), ("health.test_set",
                                                          health.get("test_set")),
            ("health.holdout_split", health.get("holdout_split"))]
    refs += [(f"{w}test_set", v.get("test_set")) for w, v in
             [("report.", report)] + [(f"report.{k}.", v) for k, v in per_notebook.items()]]
    refs += [("gate.split", gate and gate.split), ("watch.split", watch and watch.split)]
    for key, value in refs:  # each a string, checked above
        if value and value not in test_sets:
            raise check.fail(key, f"no test set {value!r}; test sets: {', '.join(test_sets)}")
    return Manifest(
        path=path, name=check.text(ws, "name", "workspace.", path.parent.name),
        order=order, extra=extra, missing=missing, test_sets=test_sets,
        ledger=check.file(ws, "ledger", "workspace.", kind="dir"),
        corpus=check.file(ws, "corpus", "workspace."),
        rounds=tuple(configs), rounds_path=rounds_path, labels=labels, codetasks=codetasks,
        codetasks_missing=codetasks_missing, codetasks_extra=codetasks_extra,
        health=health, display_names={str(k): v for k, v in names.items()}, gain=gain,
        report=report, report_by_notebook=per_notebook, gate=gate, watch=watch,
        relevance_level=level, cluster=address, jobs=jobs,
    )


def _test_sets(check: _Checker, data: dict) -> dict[str, TestSetEntry]:
    """``[test_sets.NAME]``: at least one, each a table of known keys; a role held once."""
    sets = check.table(data, "test_sets", "")
    if not sets:
        raise check.fail("test_sets", "name at least one test set ([test_sets.NAME] path = ...)")
    test_sets = {}
    for name, entry in sets.items():
        where = f"test_sets.{name}."
        if not isinstance(entry, dict):
            raise check.fail(where[:-1], "must be a table (path, role, runs, strata)")
        check.known(entry, tuple(SECTIONS["test_sets.NAME"]), where)
        test_sets[name] = TestSetEntry(
            name=name,
            path=check.file(entry, "path", where, required=True),
            role=check.text(entry, "role", where, "other", ROLES),
            format=check.text(entry, "format", where, "auto", FORMATS),
            runs=_runs(check, entry["runs"], where) if "runs" in entry else {},
            strata=_strata(check, entry["strata"], where) if "strata" in entry else None,
            queries=_queries(check, entry["queries"], where) if "queries" in entry else None,
            judge=_judge(check, entry["judge"], where) if "judge" in entry else None,
        )
    for role in ("golden", "production", "confirmation"):
        having = [n for n, e in test_sets.items() if e.role == role]
        if len(having) > 1:
            raise check.fail(f"test_sets.{having[1]}.role",
                             f"role {role!r} is given to {having}; give it to one test set")
    return test_sets


def _health(check: _Checker, data: dict) -> dict:
    """``[health]``: known keys, its files resolved, declared source shares in [0, 1]."""
    health = dict(check.table(data, "health", ""))
    check.known(health, tuple(SECTIONS["health"]), "health.")
    for k in ("old_version", "holdout_run"):
        if k in health:
            health[k] = check.file(health, k, "health.")
    for k in ("test_set", "holdout_split", "bucket_column"):
        if k in health:
            check.text(health, k, "health.")
    if "answer_grade" in health:
        health["answer_grade"] = check.number(health, "answer_grade", "health.", int)
    if "declared_sources" in health:
        sources = health["declared_sources"]
        if not isinstance(sources, dict) or not sources:
            raise check.fail("health.declared_sources", "must be a table source -> share")
        for name, share in sources.items():
            if isinstance(share, bool) or not isinstance(share, (int, float)) \
                    or not 0 <= share <= 1:
                raise check.fail(f"health.declared_sources.{name}",
                                 f"must be a share in [0, 1], got {share!r}")
    return health


def _report(check: _Checker, data: dict) -> tuple[dict, dict]:
    """``[report]`` and its ``[report.NAME]`` sections: only sections a page reads (a
    typo'd ``[report.stratta]`` is an error naming the closest), known keys of their types.
    """
    report = dict(check.table(data, "report", ""))
    per_notebook = {k: report.pop(k) for k in list(report) if isinstance(report[k], dict)}
    unread = [k for k in per_notebook if k not in report_sections()] if per_notebook else []
    if unread:   # a typo'd [report.stratta] is read by no page
        import difflib

        sections = report_sections()
        close = difflib.get_close_matches(unread[0], sections, n=1)
        raise check.fail(f"report.{unread[0]}", "no page reads this section"
                         + (f" (did you mean [report.{close[0]}]?)" if close else "")
                         + f"; sections: {', '.join(sections)}")
    for where, values in [("report.", report)] + [(f"report.{k}.", v)
                                                  for k, v in per_notebook.items()]:
        check.known(values, tuple(REPORT_KEYS), where)
        for k, v in values.items():
            kind = REPORT_KEYS[k][0]
            if not isinstance(v, kind) or isinstance(v, bool):
                raise check.fail(f"{where}{k}", f"must be a {getattr(kind, '__name__', kind)}, "
                                                f"got {v!r}")
            if kind is int:
                check.number(values, k, where, int)
            if isinstance(v, list) and not all(isinstance(c, str) and c for c in v):
                raise check.fail(f"{where}{k}", "must be a list of names")
            if k == "spec":
                values[k] = check.file(values, k, where)
            if k == "metric" and isinstance(v, str):
                check.metric(v, f"{where}{k}")
    return report, per_notebook


def _points(check: _Checker, data: dict, key: str, where: str, default: float | None
            ) -> float | None:
    """A margin in points: a number >= 0 (not a bool)."""
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0 \
            or value == float("inf"):
        raise check.fail(f"{where}{key}", f"must be a number of points >= 0, got {value!r}")
    return float(value)


def _alpha(check: _Checker, data: dict, where: str) -> float:
    value = data.get("alpha", 0.05)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 0.5:
        raise check.fail(f"{where}alpha", f"must be a number in (0, 0.5], got {value!r}")
    return float(value)


def _optional_text(check: _Checker, data: dict, key: str, where: str) -> str | None:
    if key not in data:
        return None
    value = check.text(data, key, where)
    if not value:
        raise check.fail(f"{where}{key}", "is empty")
    return value


def _gate(check: _Checker, data: dict) -> GateRules:
    """``[gate]``, checked: kind, margins in points, alpha, metric(s)."""
    gate = check.table(data, "gate", "")
    check.known(gate, tuple(SECTIONS["gate"]), "gate.")
    metric = gate.get("metric", [])
    metrics = [metric] if isinstance(metric, str) else metric
    if not isinstance(metrics, list) or not all(isinstance(m, str) and m for m in metrics):
        raise check.fail("gate.metric", f"must be a metric name or a list of them, got {metric!r}")
    if len(set(metrics)) != len(metrics):
        raise check.fail("gate.metric", f"names a metric twice: {metrics}")
    margin = _points(check, gate, "margin", "gate.", 0.0)
    return GateRules(
        split=_optional_text(check, gate, "split", "gate."),
        baseline=_optional_text(check, gate, "baseline", "gate."),
        metrics=tuple(metrics),
        kind=check.text(gate, "kind", "gate.", "non_inferiority", tuple(GATE_KINDS)),
        margin=0.0 if margin is None else margin,
        alpha=_alpha(check, gate, "gate."),
        stratum_drop=_points(check, gate, "stratum_drop", "gate.", None),
        by=_optional_text(check, gate, "by", "gate."),
    )


def _watch(check: _Checker, data: dict) -> WatchRules:
    """``[watch]``, checked: the batches exist, each with a date when listed."""
    watch = check.table(data, "watch", "")
    check.known(watch, tuple(SECTIONS["watch"]), "watch.")
    value = watch.get("batches")
    batches: list[WatchBatch] = []
    if isinstance(value, str):
        folder = check.file(watch, "batches", "watch.", kind="dir", required=True)
        batches = [WatchBatch(p) for p in sorted(folder.iterdir())
                   if p.is_file() and not p.name.startswith(".")]
        if not batches:
            raise check.fail("watch.batches", f"no batch files in {folder}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            where = f"watch.batches[{i}]."
            if not isinstance(item, dict):
                raise check.fail(where[:-1], "must be a table {path, date}")
            check.known(item, ("path", "date"), where)
            batches.append(WatchBatch(check.file(item, "path", where, required=True),
                                      check.text(item, "date", where)))
    elif value is not None:
        raise check.fail("watch.batches", "must be a folder or a list of tables {path, date}")
    margin = _points(check, watch, "margin", "watch.", 0.0)
    size = watch.get("batch_size")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise check.fail("watch.batch_size", f"must be a whole number >= 1, got {size!r}")
    if size is not None and batches:
        raise check.fail("watch", "give batches or batch_size, not both")
    return WatchRules(
        split=_optional_text(check, watch, "split", "watch."),
        baseline=_optional_text(check, watch, "baseline", "watch."),
        champion=_optional_text(check, watch, "champion", "watch."),
        metric=_optional_text(check, watch, "metric", "watch."),
        margin=0.0 if margin is None else margin,
        alpha=_alpha(check, watch, "watch."),
        batches=tuple(batches),
        batch_size=size,
    )


def describe_keys() -> str:
    """Every manifest key with its meaning (for ``ragnb init --help``)."""
    lines = []
    for section, keys in SECTIONS.items():
        lines.append(f"[{section}]")
        width = max(len(k) for k in keys)
        lines += [f"  {k:<{width}}  {h}" for k, h in keys.items()]
    lines.append("[report.SLUG]  the [report] keys for one notebook (strata, fit, label-bias...)")
    return "\n".join(lines)
