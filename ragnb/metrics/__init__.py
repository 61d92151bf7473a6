"""Per-query retrieval metrics: a registry of vectorised kernels and label policies."""
from ragnb.metrics import incomplete as _incomplete  # noqa: F401  (registers the metrics)
from ragnb.metrics import kernels as _kernels  # noqa: F401  (registers the metrics)
from ragnb.metrics.judged import POLICIES, JudgedRun, JudgmentIndex, View, judge_run
from ragnb.metrics.registry import REGISTRY, Metric, metric_help, parse_metric

__all__ = ["POLICIES", "REGISTRY", "JudgedRun", "JudgmentIndex", "Metric", "View", "judge_run",
           "metric_help", "parse_metric"]
