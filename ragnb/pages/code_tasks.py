"""Page ``07-code-tasks``: the code retriever's recall of merged changes' files, kept or not.

``resolve`` reads the manifest's ``[codetasks]`` table (``tasks``, ``run``,
``missing``, ``extra``; given files win) and checks the keep condition stated
before the run; ``run`` reads the tasks and the run, scores recall at k on the
kept tasks (:func:`ragnb.codetasks.task_recall`), reads the keep condition
against the intervals (:func:`ragnb.codetasks.evaluate_keep`) and returns the
keep verdict's Finding with every table the page shows. ``ragnb tasks score``
prints the same Finding (:func:`score`, files given on the command line).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from ragnb.codetasks import (
    all_files_check,
    caller_table,
    evaluate_keep,
    filter_table,
    parse_keep,
    read_tasks,
    recall_summary,
    set_sizes,
    task_recall,
)
from ragnb.codetasks.charts import all_files_by_size_chart, recall_chart
from ragnb.codetasks.keep import condition_in_points
from ragnb.io.run import Order
from ragnb.pages.registry import Inputs, MissingInput, register, workspace_of
from ragnb.result import (
    POINTS,
    Finding,
    Section,
    checks_frame,
    finding,
    markdown_section,
    markdown_text,
    table_section,
)
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

#: The seed's keep condition, as the notebook states it (``≥``: a parameters cell cannot
#: hold a second ``=`` on a line).
KEEP = "all_files ≥ 0.80, caller ≥ 0.90"
#: Task texts shown on the page (``finding.objects["tasks"]`` has every one).
SHOWN_TASKS = 6
#: Recall columns of the tables that are data (0-1), shown in points.
RECALL_UNITS = dict.fromkeys(("mean", "ci_low", "ci_high", "ceiling", "edit_first"), "points")


#: How mining turns merged changes into tasks (above the filter table).
MINED = ("Every change on the mainline is mined; a filter drops reverts (and changes reverted "
         "later), changes with no edit-set file or more than fifteen (renames, lockfile "
         "bumps), and changes with no description left once file paths and changed symbol "
         "names are stripped. The count each filter dropped is shown, nothing is dropped "
         "silently.")
#: Why all-files recall is read beside independent misses (above its table).
INDEPENDENT = ("If every edit-set file were found independently with the per-file "
               "probability p, a task of n files would be complete with probability p ** n. "
               "Observed below that figure, the misses sit on the larger tasks, one or two "
               "each; above it, they come together in fewer tasks.")
#: The limit of the measure (the page's last words).
LIMIT = ("A retrieval metric is a necessary condition, not a sufficient one: all files in the "
         "context does not make the patch right. Merged changes are changes someone managed "
         "to make, so the tasks where nobody found the right file are missing, and the read "
         "set is an undercount (files read that left no trace in the diff).")


@dataclass(frozen=True)
class CodeTasksInputs(Inputs):
    """What the code-task page reads: the tasks file, the run, ``k`` and the keep condition.

    ``workspace`` is None when the files come from the command line (``ragnb tasks
    score``); ``keep`` "" states no condition (the recall's own headline then).
    ``missing`` and ``extra`` are the workspace's (``[codetasks] missing``, ``extra``) or
    the command line's, as is ``order`` (None: the run file's own, :func:`ragnb.io.read_run`).
    """

    PAGE: ClassVar[str] = "07-code-tasks"
    tasks_file: str
    run_file: str
    k: int
    keep: str
    missing: str = "error"
    extra: str = "error"
    order: Order | None = None


def resolve(workspace: Any, *, tasks_file: str = "", run_file: str = "", k: int = 0,
            keep: str = "", resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
            ) -> CodeTasksInputs:
    """The page's inputs: given files win over ``[codetasks] tasks`` and ``run``; ``k`` and
    ``keep`` given win over ``[report.code-tasks]`` / ``[report]``, else 10 and :data:`KEEP`.

    Raises
    ------
    MissingInput
        No code-task files (no ``[codetasks]`` table, and not both files given).
    InputError
        A keep condition that does not parse (:func:`ragnb.codetasks.parse_keep`).
    """
    ws = workspace_of(workspace)
    files = ws.manifest.codetasks
    if not files and not (tasks_file and run_file):
        raise MissingInput("no code-task files ([codetasks] tasks, run)")
    k = int(k or ws.setting("code-tasks", "k", "", 10))
    keep = str(ws.setting("code-tasks", "keep", keep, KEEP))
    parse_keep(keep, source="keep")  # stated before the run: a typo stops here
    return CodeTasksInputs(ws, str(tasks_file or files["tasks"]), str(run_file or files["run"]),
                           k, keep, ws.manifest.codetasks_missing, ws.manifest.codetasks_extra,
                           resamples=resamples, seed=seed)


def score(tasks_file: str | Path, run_file: str | Path, *, k: int = 10, keep: str = KEEP,
          missing: str = "error", extra: str = "error", order: Order | None = None,
          resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Finding:
    """The page's Finding for two files, no workspace (``ragnb tasks score``)."""
    return run(CodeTasksInputs(None, str(tasks_file), str(run_file), k, keep, missing, extra,
                               order, resamples=resamples, seed=seed))


def _task_texts(tasks: pd.DataFrame) -> pd.DataFrame:
    lines = tasks["text"].str.strip().str.split("\n")
    return tasks[["task_id"]].assign(first_line=lines.str[0], more_lines=lines.str.len() - 1,
                                     edit_files=tasks["edit_set"].str.len())


def _clause_table(verdict: Any) -> pd.DataFrame:
    """Each clause with every column, its condition and recall in points."""
    return verdict.clauses.assign(condition=[condition_in_points(c)
                                             for c in verdict.clauses["condition"]])


def run(inputs: CodeTasksInputs) -> Finding:
    """The keep verdict's Finding (the recall's, when no condition is stated): headline, the
    recall chart with the thresholds, the condition as stated, the tasks, recall at k, the
    all-files check, the callers, the verdict and each clause (appendix).

    ``objects``: ``mined`` (every mined change, :class:`ragnb.codetasks.Mined`), ``tasks``
    (the kept ones), ``recall`` (per task, :class:`ragnb.codetasks.TaskRecall`),
    ``summary`` (each metric's mean and interval, 0-1), ``check`` (all-files recall
    observed and under independent misses), ``callers``, ``verdict``
    (:class:`ragnb.codetasks.KeepVerdict`, None without a condition).
    """
    i, ws = inputs, inputs.workspace
    from ragnb.io import read_run

    clauses = parse_keep(i.keep, source="keep") if i.keep else ()
    tasks_file = ws.use(i.tasks_file) if ws is not None else i.tasks_file
    run_file = ws.use(i.run_file) if ws is not None else i.run_file
    mined = read_tasks(tasks_file)
    tasks = mined.kept
    dropped = mined.tasks.loc[~mined.tasks["kept"], "task_id"].tolist()
    run_ = read_run(run_file, order=i.order)
    # the recall carries the bootstrap: its own headline and method say what the table shows
    recall = replace(task_recall(tasks, run_, i.k, missing=i.missing, extra=i.extra,
                                 dropped_ids=dropped), resamples=i.resamples, seed=i.seed)
    summary = recall_summary(recall, resamples=i.resamples, seed=i.seed)
    check = all_files_check(recall)
    callers = caller_table(tasks, recall)
    verdict = evaluate_keep(summary, clauses) if clauses else None
    chart = recall_chart(summary, verdict, check["value"].iloc[0])
    own = finding(verdict if verdict is not None else recall, chart=chart)

    notes = "; ".join(map(str, recall.notes)) or "none"
    sizes = set_sizes(tasks).round({"mean": 2, "median": 2})
    texts = _task_texts(tasks)
    # the recall chart, right under the headline
    sections: list[Section] = [Section(
        f"Recall at {i.k} in points: each metric's mean and 95% interval"
        + (", the keep condition's thresholds (ticks)" if clauses else "")
        + ", all-files recall under independent misses (diamond)", "chart", chart)]
    if clauses:
        sections.append(markdown_section(markdown_text(
            "**Keep condition, stated before the run:** keep the retriever when {c}; each "
            "clause is read against its 95% interval.",
            c=" and ".join(f"{c.metric} {c.op} {c.threshold * 100:g} points" for c in clauses))))
    sections += [
        markdown_section(MINED, "Which merged changes became tasks"),
        table_section(filter_table(mined.tasks, mined.options),
                      "Mined, kept and dropped by which filter (a change is counted under the "
                      "first filter it fails)",
                      note="A dash: the mined and kept rows are no filter."),
        table_section(sizes, "Set sizes over the kept tasks: the edit set is scored; the read "
                             "set (definitions the change used, not changed) and the callers "
                             "are reported apart",
                      note="A dash: no task has such a set (mean and median are over the tasks "
                           "with one); in_edit_set is counted for the callers only."),
        table_section(texts.head(SHOWN_TASKS),
                      "What the retriever is given: task texts with paths and changed symbols "
                      "stripped (first line of each; more_lines counts the rest; the first "
                      f"{min(SHOWN_TASKS, len(texts))} of {len(texts)} tasks)"),
        table_section(summary.drop(columns=["method", "k", "metric"]),
                      f"Recall at {i.k} in points (share of files × 100): mean over the tasks "
                      "each metric is defined on, with its interval",
                      note=f"Intervals: {summary['method'].iloc[0]}. Notes: {notes}. "
                           f"ceiling: what a perfect ranking scores at k={i.k} (a task with "
                           f"more than {i.k} files cannot score 100); over_k: how many tasks "
                           "have more; edit_first: the ceiling of a ranking that holds every "
                           "edited file first; crowded: tasks whose edited and read-set or "
                           f"caller files together are more than {i.k}. A dash: no interval "
                           "(a metric defined on fewer than two tasks).",
                      units=RECALL_UNITS),
        markdown_section(INDEPENDENT, "Per-file recall does not predict all-files recall"),
        table_section(check, f"All-files recall at {i.k} in points: observed and under "
                             "independent misses", units={"value": "points"}),
        Section(f"All-files recall at {i.k} by task size, beside independent misses (p ** n)",
                "chart", all_files_by_size_chart(recall)),
        table_section(callers, "Tasks that change a signature: callers in the parent tree, how "
                               f"many the change touched, how many the retriever found at {i.k}"),
        *own.sections[1:],  # the verdict's table (the recall's, with no condition)
        markdown_section(LIMIT, "What recall does not say"),
    ]
    if verdict is not None:
        sections.append(table_section(
            _clause_table(verdict),
            f"Each clause against its interval, every column; recall in {POINTS}",
            appendix=True, units=RECALL_UNITS,
            note="A dash: no interval (a metric defined on fewer than two tasks)."))
    return Finding(own.headline, own.display_table, own.chart,
                   checks_frame(recall.task_checks()), own.description, own.caption,
                   own.source, tuple(sections),
                   {"mined": mined, "tasks": tasks, "recall": recall, "summary": summary,
                    "check": check, "callers": callers, "verdict": verdict})


register(CodeTasksInputs.PAGE, resolve, run)
