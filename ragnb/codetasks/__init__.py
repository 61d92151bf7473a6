"""Code retrieval labels from merged commits (SPEC §9, seed 002).

One concept per module, in the order data flows:

============================  =====================================================
:mod:`~.git`                  the local repository, read with ``git`` (no network):
                              batched logs and one ``cat-file --batch`` process
:mod:`~.snapshot`             a commit's tree, with per-blob facts cached
:mod:`~.editset`              edit set = changed files minus vendored/lock/generated
                              (defaults and ``.gitattributes`` ``linguist-*``)
:mod:`~.kinds`                bot authors, changelog-only and docs-only changes
:mod:`~.diff`                 changed lines and hunk headers of a diff
:mod:`~.symbols`              changed symbols, identifiers, signature changes
:mod:`~.text`                 task text with paths and symbols stripped
:mod:`~.pysyntax`             a Python file's imports, classes and calls (``ast``)
:mod:`~.callers`              callers of changed signatures, resolved from syntax
:mod:`~.readset`              read set: imported names, code context of the text
:mod:`~.mine`                 one task per merged change, filters, filter table
:mod:`~.taskfile`             the tasks file (JSONL, format 2): write, read and check
:mod:`~.recall`               per-file / all-files / read-set / caller recall at k
:mod:`~.keep`                 the keep condition read against the intervals
:mod:`~.sizes`                edit, read and caller set sizes
:mod:`~.charts`               charts (return ``alt.Chart``)
============================  =====================================================
"""
from ragnb.codetasks import finding as _finding  # noqa: F401  (registers the adapter)
from ragnb.codetasks.keep import KeepVerdict, evaluate_keep, parse_keep
from ragnb.codetasks.mine import FILTERS, Mined, filter_table, mine_tasks
from ragnb.codetasks.recall import (
    METRICS,
    TaskRecall,
    all_files_check,
    caller_table,
    expected_all_files,
    recall_summary,
    task_recall,
)
from ragnb.codetasks.sizes import set_sizes
from ragnb.codetasks.taskfile import read_tasks, write_tasks

__all__ = [
    "FILTERS",
    "METRICS",
    "KeepVerdict",
    "Mined",
    "TaskRecall",
    "all_files_check",
    "caller_table",
    "evaluate_keep",
    "expected_all_files",
    "filter_table",
    "mine_tasks",
    "parse_keep",
    "read_tasks",
    "recall_summary",
    "set_sizes",
    "task_recall",
    "write_tasks",
]
