"""Label bias: how much the unjudged passages could change scores and decisions (seed 003).

==============================  ======================================================
:func:`build_pool`              the depth-k pool: each config's top k, pooled unjudged
:func:`label_bounds`            per-query policies (lower/condensed/upper) + exact bounds
:func:`bounds_table`            per config (and stratum): unjudged share, means, widths
:func:`joint_bounds`            per-query bounds of a difference, one label per passage
:func:`three_way`               current / conservative / optimistic bootstraps, verdict
:func:`labelling_list`          the pooled labelling list; :func:`pool_counts` its counts
:func:`judge_next`              the list ordered by each passage's swing on the verdict
:func:`export_labelling_list`   CSV and JSONL for labellers
:func:`merge_judgments`         new labels into a new test-set version (tables)
:func:`merge_files`             the same on files, with an atomic write and a record
:func:`shard_projection`        a labelled shard's effect, projected to the whole set
:func:`shard_lesson`            its lesson, in the projection's own figures
:func:`max_ratio`               exact extremes of nDCG-like ratios (Dinkelbach + DP)
==============================  ======================================================

Every bound is conditional on the pooling assumption (:data:`ASSUMPTION`):
unjudged passages in no compared config's top k are not relevant.
Charts are in :mod:`ragnb.labelbias.charts` (imported on demand).
"""
from ragnb.io.writers import test_set_jsonl  # written by merge_labels' users
from ragnb.labelbias import finding as _finding  # noqa: F401  (registers the adapter)
from ragnb.labelbias.bounds import (
    BOUND_FUNCS,
    COLUMN_KINDS,
    Bounds,
    bounds_table,
    label_bounds,
)
from ragnb.labelbias.finding import shard_lesson
from ragnb.labelbias.joint import JOINT_FUNCS, joint_bounds
from ragnb.labelbias.labelling import (
    ORDER_EXPLANATION,
    export_labelling_list,
    judge_next,
    labelling_list,
    pool_counts,
    pool_summary,
)
from ragnb.labelbias.merge import (
    MergeCounts,
    MergeRecord,
    merge_files,
    merge_judgments,
    record_path,
    write_atomic,
)
from ragnb.labelbias.pool import ASSUMPTION, Pool, TopK, build_pool
from ragnb.labelbias.ratio import max_ratio
from ragnb.labelbias.shard import shard_effect, shard_projection
from ragnb.labelbias.verdict import RULE, VERDICTS, ThreeWay, three_way, verdict_table

__all__ = [
    "ASSUMPTION", "BOUND_FUNCS", "COLUMN_KINDS", "JOINT_FUNCS", "ORDER_EXPLANATION",
    "RULE", "VERDICTS", "Bounds", "MergeCounts", "MergeRecord", "Pool", "ThreeWay", "TopK",
    "bounds_table", "build_pool", "export_labelling_list", "joint_bounds", "judge_next",
    "label_bounds", "labelling_list", "max_ratio", "merge_files", "merge_judgments",
    "pool_counts", "pool_summary", "record_path", "shard_effect", "shard_lesson",
    "shard_projection",
    "test_set_jsonl", "three_way", "verdict_table", "write_atomic",
]
