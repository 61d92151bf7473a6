"""Scoring a retriever's run on code tasks: file recall at k, per file and all files.

A run ranks, for each task, chunk ids ``path#chunk`` or plain file paths (read
with :func:`ragnb.io.read_run`, any run format). The file of an id is what
precedes its first ``#`` (a leading ``./`` removed); a file is *retrieved at k*
when any of its chunks is among the first k ids — the generous hit criterion
of file-level code retrieval (a module docstring chunk counts).

With F_k(t) the files retrieved at k for task t (per-task metrics,
:data:`METRICS`):

``per_file``
    |E(t) ∩ F_k(t)| / |E(t)| over the edit set E(t); the conventional number.
``all_files``
    1 when E(t) ⊆ F_k(t), else 0: a patch that must touch six files and
    sees four is broken (seed 002).
``read_set``
    |R(t) ∩ F_k(t)| / |R(t)| over the read set, on tasks with one.
``caller``
    |C(t) ∩ F_k(t)| / |C(t)| over the caller set, on the tasks that change a
    signature and have callers.

Each metric is the mean over the tasks it is defined on (every task counts
once), with a percentile bootstrap interval over those tasks
(:func:`ragnb.stats.unpaired.bootstrap_mean`).

At k, a ranking holds at most k files, so a task whose set has n > k files
cannot score 1 whatever the retriever: its **ceiling** (:func:`ceiling`) is
min(1, k/n) for the fractions and 0 for all-files recall. The mean ceiling
is the best score a perfect ranking could reach at this k; a keep clause
above it is out of reach (:mod:`ragnb.codetasks.keep`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ragnb.codetasks.symbols import parameter_diff
from ragnb.errors import InputError
from ragnb.io.run import Run, positions
from ragnb.io.testset import Note
from ragnb.result import Analysis, interval, points
from ragnb.stats.unpaired import bootstrap_mean
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED, EXTRA, MISSING

#: Metric key -> (label, task set it is computed over, which tasks it is defined on).
METRICS = {
    "per_file": ("per-file recall", "edit_set", "every task"),
    "all_files": ("all-files recall", "edit_set", "every task"),
    "read_set": ("read-set recall", "read_set", "tasks with a read set"),
    "caller": ("caller recall", "callers", "tasks changing a signature, with callers"),
}
PER_TASK_COLUMNS = ["task_id", "metric", "value", "files", "found", "edit_files", "in_edit_set"]
#: What an error about unranked tasks tells the user to set (never a Python keyword: the
#: command line's flag and the manifest's key).
MISSING_HOW = ("score them as retrieving nothing with --missing empty (in a workspace: "
               "[codetasks] missing = \"empty\"), or leave them out with --missing drop "
               "([codetasks] missing = \"drop\")")
#: What an error about run queries that are no task tells the user to set.
EXTRA_HOW = ("leave them out with --extra drop (in a workspace: [codetasks] extra = "
             "\"drop\")")
SUMMARY_COLUMNS = ["metric", "label", "k", "mean", "ci_low", "ci_high", "n", "files", "found",
                   "ceiling", "edit_first", "over_k", "crowded", "defined_on", "method"]


def file_of(item: str) -> str:
    """The file of a chunk id ``path#chunk`` (or of a plain path).

    Examples
    --------
    >>> file_of("shop/billing/proration.py#3"), file_of("./README.md")
    ('shop/billing/proration.py', 'README.md')
    """
    path = item.split("#", 1)[0]
    return path.removeprefix("./")


@dataclass(frozen=True)
class TaskRecall(Analysis):
    """Per-task recall of one run.

    Attributes
    ----------
    table : DataFrame
        Tidy, :data:`PER_TASK_COLUMNS`: one row per task and metric it is
        defined on; ``files`` is the size of the set, ``found`` how many of
        its files were retrieved at k, ``edit_files`` the size of the task's
        edit set and ``in_edit_set`` how many of the set's files are in it.
    k : int
    run : str
        The run's name.
    notes : tuple of Note
        Tasks scored with an empty ranking, run queries left out, with counts.
    resamples, seed, ci
        The bootstrap of :meth:`summary` (and of the finding) unless given there.
    """

    table: pd.DataFrame
    k: int
    run: str = ""
    notes: tuple[Note, ...] = field(default=())
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    ci: float = 0.95

    def summary(self, *, resamples: int | None = None, seed: int | None = None,
                ci: float | None = None) -> pd.DataFrame:
        """Each metric's mean and interval, data: :func:`recall_summary` (this result's
        bootstrap settings unless given).
        """
        return recall_summary(self, resamples=self.resamples if resamples is None else resamples,
                              seed=self.seed if seed is None else seed,
                              ci=self.ci if ci is None else ci)

    def display_table(self) -> pd.DataFrame:
        """The summary as text: each metric's mean and interval in points, tasks and files."""
        s = self.summary()
        return pd.DataFrame({
            "metric": s["label"],
            "defined on": s["defined_on"],
            "tasks": s["n"],
            "mean (points)": [points(v) for v in s["mean"]],
            f"{self.ci:.0%} interval (points)": [interval(lo, hi) for lo, hi
                                                 in zip(s["ci_low"], s["ci_high"])],
            "files found": [f"{f} of {n}" for f, n in zip(s["found"], s["files"])],
        })

    @property
    def description(self) -> str:
        """How the numbers were made: the hit rule, the means, the bootstrap, n, seed."""
        n = self.table["task_id"].nunique()
        notes = "; ".join(map(str, self.notes))
        return (f"file recall at k={self.k} of {self.run or 'the run'} on {n} tasks: a file is "
                f"retrieved when any of its chunks is among the first {self.k} ids; each metric "
                "is the mean over the tasks it is defined on, with a "
                f"{self.ci:.0%} percentile bootstrap interval over those tasks "
                f"({self.resamples:,} resamples, seed {self.seed})"
                + (f"; notes: {notes}" if notes else ""))

    def task_checks(self) -> list[tuple[str, bool, str]]:
        """Self-checks of the per-task table: found within files; all-files within per-file."""
        t = self.table
        over = int((t["found"] > t["files"]).sum())
        per = t[t["metric"] == "per_file"].set_index("task_id")["value"]
        allf = t[t["metric"] == "all_files"].set_index("task_id")["value"]
        above = int((allf > per.reindex(allf.index)).sum())
        return [("no task finds more files than it has", over == 0,
                 f"{over} rows with found > files" if over else ""),
                ("all-files recall is at most per-file recall on every task", above == 0,
                 f"{above} tasks above" if above else "")]

    def values(self, metric: str) -> pd.Series:
        """Per-task values of one metric, indexed by task id."""
        _check_metric(metric)
        t = self.table[self.table["metric"] == metric]
        return pd.Series(t["value"].to_numpy(), index=pd.Index(t["task_id"], name="task_id"),
                         name=metric)


def ceiling(metric: str, sizes, k: int, *, edit_files=None, in_edit_set=None) -> np.ndarray:
    """Each task's best value at ``k``, from the sizes ``n`` of its sets: what a perfect
    ranking scores.

    ``min(1, k / n)`` for the fractions (per-file, read-set, caller recall): k ids
    hold at most k files; ``1`` if ``n <= k`` else ``0`` for all-files recall. With
    ``edit_files`` ``e`` and ``in_edit_set`` ``c`` (read-set and caller recall): the
    best value of a ranking that holds the edit set first, the one that is perfect on
    what is scored, ``(min(c, k) + min(max(k - e, 0), n - c)) / n``.

    Examples
    --------
    >>> ceiling("caller", [5, 20], 10).tolist(), ceiling("all_files", [5, 20], 10).tolist()
    ([1.0, 0.5], [1.0, 0.0])
    >>> ceiling("caller", [12], 10, edit_files=[4], in_edit_set=[2]).tolist()  # (2 + 6) / 12
    [0.6666666666666666]
    """
    _check_metric(metric)
    k = _check_k(k)
    n = np.asarray(sizes, dtype=float)
    if metric == "all_files":
        return (n <= k).astype(float)
    if edit_files is None or metric == "per_file":
        return np.minimum(1.0, k / np.maximum(n, 1.0))
    e, c = np.asarray(edit_files, dtype=float), np.asarray(in_edit_set, dtype=float)
    return (np.minimum(c, k) + np.minimum(np.maximum(k - e, 0), n - c)) / np.maximum(n, 1.0)


def _check_metric(metric: str) -> None:
    if metric not in METRICS:
        raise InputError(f"unknown code-task metric {metric!r}; choose one of "
                         f"{', '.join(METRICS)}", key="metric")


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}", key="k")
    return int(k)


def retrieved_files(run: Run | Mapping[str, Sequence[str]], k: int) -> dict[str, set[str]]:
    """Task id -> the files with a chunk among the first ``k`` ids of its ranking."""
    k = _check_k(k)
    if isinstance(run, Run):
        t = run.table
        codes = pd.factorize(t["query_id"])[0]
        top = t[positions(codes) < k]
        out: dict[str, set[str]] = {}
        for qid, pid in zip(top["query_id"].tolist(), top["passage_id"].tolist()):
            out.setdefault(qid, set()).add(file_of(pid))
        return out
    return {str(q): {file_of(str(p)) for p in list(ranking)[:k]} for q, ranking in run.items()}


def task_recall(tasks: pd.DataFrame, run: Run | Mapping[str, Sequence[str]] | str | Path,
                k: int = 10, *, missing: str = "error", extra: str = "error",
                dropped_ids: Sequence[str] = ()) -> TaskRecall:
    """Per-task per-file, all-files, read-set and caller recall at ``k``.

    Parameters
    ----------
    tasks : DataFrame
        The tasks to score (:attr:`ragnb.codetasks.mine.Mined.kept`).
    run : Run, mapping or path
        Task id -> ranked chunk ids (or file paths); a path is read with
        :func:`ragnb.io.read_run`.
    k : int
        Rank cut-off.
    missing : {"error", "empty", "drop"}
        A task the run has no ranking for: an error, scored as retrieving nothing,
        or left out of every figure (counted in a note). A task the run lists with an
        empty ranking (``"t": []``) is not missing: it retrieved nothing (counted in
        a note).
    extra : {"error", "drop"}
        A run query that is no task: an error, or left out (counted in a note).
    dropped_ids : sequence of str
        Ids of mined tasks that failed a filter: a run may rank them; they are
        left out and counted, never an error.
    """
    k = _check_k(k)
    if missing not in MISSING:
        raise InputError(f"missing must be one of {MISSING}, got {missing!r}", key="missing")
    if extra not in EXTRA:
        raise InputError(f"extra must be one of {EXTRA}, got {extra!r}", key="extra")
    name = ""
    if isinstance(run, (str, Path)):
        from ragnb.io import read_run

        run = read_run(run)
    if isinstance(run, Run):
        name = run.name
    if tasks.empty:
        raise InputError("there is no task to score (every mined change was dropped?)",
                         key="tasks")
    got = retrieved_files(run, k)
    ids = tasks["task_id"].astype(str).tolist()
    notes = []
    answered = set(run.empty if isinstance(run, Run) else ()) - got.keys()
    if answered:                   # an empty ranking is an answer: it retrieved nothing
        got.update(dict.fromkeys(answered, set()))
        if answered & set(ids):
            notes.append(Note("empty", len(answered & set(ids)),
                              "tasks the run answers with an empty ranking, scored as "
                              "retrieving nothing"))
    absent = [t for t in ids if t not in got]
    if absent and missing == "error":
        raise InputError(f"{len(absent)} task(s) have no ranking in the run, e.g. "
                         f"{absent[0]!r}: {MISSING_HOW}", key=absent[0])
    if absent and missing == "drop":
        notes.append(Note("dropped_missing", len(absent), "tasks with no ranking in the run, "
                                                          "left out"))
        tasks = tasks[~tasks["task_id"].astype(str).isin(set(absent))]
        if tasks.empty:
            raise InputError("the run ranks none of the tasks (every one left out by "
                             "--missing drop, [codetasks] missing = \"drop\")", key="missing")
    elif absent:
        notes.append(Note("missing", len(absent), "tasks with no ranking, scored as retrieving "
                                                  "nothing"))
    known, dropped = set(ids), set(map(str, dropped_ids))
    others = [q for q in got if q not in known]
    unknown = [q for q in others if q not in dropped]
    if unknown and extra == "error":
        raise InputError(f"{len(unknown)} run quer(ies) are not tasks, e.g. {unknown[0]!r}: "
                         f"{EXTRA_HOW}", key=unknown[0])
    if len(others) - len(unknown):
        notes.append(Note("dropped_tasks", len(others) - len(unknown),
                          "run queries for mined changes a filter dropped, left out"))
    if unknown:
        notes.append(Note("extra", len(unknown), "run queries that are no task, left out"))

    rows = []
    for task in tasks.itertuples(index=False):
        tid = str(task.task_id)
        found_files = got.get(tid, set())
        edit = list(task.edit_set)
        if not edit:
            raise InputError(f"task {tid!r} has an empty edit set; score kept tasks only",
                             key=tid)
        hit = sum(f in found_files for f in edit)
        n = len(edit)
        rows.append((tid, "per_file", hit / n, n, hit, n, n))
        rows.append((tid, "all_files", float(hit == n), n, hit, n, n))
        for metric, column in (("read_set", "read_set"), ("caller", "callers")):
            files = list(getattr(task, column) or [])
            if metric == "caller" and not task.signature_changes:
                continue
            if files:
                hit = sum(f in found_files for f in files)
                rows.append((tid, metric, hit / len(files), len(files), hit, n,
                             len(set(files) & set(edit))))
    table = pd.DataFrame(rows, columns=PER_TASK_COLUMNS)
    return TaskRecall(table, k, name, tuple(notes))


def recall_summary(recall: TaskRecall, *, resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED, ci: float = 0.95) -> pd.DataFrame:
    """Mean of each metric over the tasks it is defined on, with a bootstrap interval.

    One row per metric (:data:`SUMMARY_COLUMNS`). The interval is the
    percentile bootstrap of the mean over tasks (resampled i.i.d.,
    ``resamples`` draws, ``seed``); a metric defined on fewer than two tasks
    has no interval (NaN) and says so in ``method``. ``ceiling`` is the mean
    of :func:`ceiling` (a perfect ranking's score at k), ``over_k`` the
    number of tasks with more than k files in the metric's set; ``edit_first``
    the mean ceiling of a ranking that holds the edit set first and ``crowded``
    the tasks whose set and edit set together exceed k (for per-file and
    all-files recall, the same as ``ceiling`` and ``over_k``).
    """
    rows = []
    for metric, (label, _, defined_on) in METRICS.items():
        t = recall.table[recall.table["metric"] == metric]
        row = {"metric": metric, "label": f"{label}@{recall.k}", "k": recall.k,
               "n": len(t), "files": int(t["files"].sum()), "found": int(t["found"].sum()),
               "ceiling": (float(ceiling(metric, t["files"], recall.k).mean()) if len(t)
                           else np.nan),
               "edit_first": (float(ceiling(metric, t["files"], recall.k,
                                            edit_files=t["edit_files"],
                                            in_edit_set=t["in_edit_set"]).mean())
                              if len(t) else np.nan),
               "over_k": int((t["files"] > recall.k).sum()),
               "crowded": int((t["files"] + t["edit_files"] - t["in_edit_set"] > recall.k)
                              .sum()),
               "defined_on": defined_on}
        if len(t) >= 2:
            r = bootstrap_mean(t["value"].to_numpy(), resamples=resamples, seed=seed, ci=ci)
            row.update(mean=r.mean, ci_low=r.ci_low, ci_high=r.ci_high,
                       method=r.describe().replace("queries", "tasks"))
        else:
            mean = float(t["value"].mean()) if len(t) else np.nan
            row.update(mean=mean, ci_low=np.nan, ci_high=np.nan,
                       method=f"no interval: defined on {len(t)} task(s)")
        rows.append(row)
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def expected_all_files(per_file_recall: float, files_per_task) -> float:
    """All-files recall if every file were found independently with one probability.

    ``p ** n`` for a number of files ``n`` per task; for an array of the
    tasks' own sizes ``n_i``, the mean of ``p ** n_i``. Observed below it,
    the misses gather on the larger tasks (callers of a changed signature);
    above it, they come together in a few tasks.

    Examples
    --------
    >>> round(expected_all_files(0.9, 2), 3)
    0.81
    >>> expected_all_files(0.5, [1, 2])
    0.375
    """
    p = float(per_file_recall)
    if not 0.0 <= p <= 1.0:
        raise InputError(f"a recall must lie in [0, 1], got {per_file_recall!r}",
                         key="per_file_recall")
    n = np.asarray(files_per_task, dtype=float)
    if n.size == 0 or not np.isfinite(n).all() or (n < 0).any():
        raise InputError("files per task must be non-negative numbers", key="files_per_task")
    return float(np.mean(p ** n))


def all_files_check(recall: TaskRecall) -> pd.DataFrame:
    """Observed all-files recall beside what independent misses would give.

    Rows: the SPEC check ``p ** n̄`` (mean per-file recall, mean edit-set
    size), the same with each task's own size (mean of ``p ** n_i``), and the
    observed all-files recall.
    """
    per_file = recall.values("per_file")
    sizes = recall.table.loc[recall.table["metric"] == "per_file", "files"].to_numpy()
    p, n_bar = float(per_file.mean()), float(sizes.mean())
    observed = float(recall.values("all_files").mean())
    return pd.DataFrame([
        {"all_files": (f"independent misses: per-file recall {points(p)} points, "
                       f"{n_bar:.2f} files a task (p ^ n)"),
         "value": expected_all_files(p, n_bar)},
        {"all_files": "independent misses, each task's own size: mean of p ^ n_i",
         "value": expected_all_files(p, sizes)},
        {"all_files": "observed", "value": observed},
    ])


def caller_table(tasks: pd.DataFrame, recall: TaskRecall) -> pd.DataFrame:
    """One row per task changing a signature: what changed, its callers, how many were found.

    Columns ``task_id, functions, edit_files, callers, callers_in_edit_set,
    callers_found`` (``callers_found`` at the recall's k); ``functions`` names each
    changed function with its :func:`~ragnb.codetasks.symbols.parameter_diff`
    (``parse_error (+tenant)``).
    """
    found = recall.table[recall.table["metric"] == "caller"].set_index("task_id")["found"]
    rows = []
    for t in tasks.itertuples(index=False):
        if not t.signature_changes:
            continue
        names = "; ".join(f"{c['qualname']} ({parameter_diff(c['before'], c['after'])})"
                          for c in t.signature_changes)
        rows.append({"task_id": t.task_id, "functions": names, "edit_files": len(t.edit_set),
                     "callers": len(t.callers),
                     "callers_in_edit_set": len(set(t.callers) & set(t.edit_set)),
                     "callers_found": int(found.get(t.task_id, 0))})
    return pd.DataFrame(rows, columns=["task_id", "functions", "edit_files", "callers",
                                       "callers_in_edit_set", "callers_found"])
