"""Per-query retrieval metrics: a registry of vectorised kernels and label policies.

The registry and its kernels load with numpy only (``ragnb score --help`` lists
them); the judged-run layer, which needs pandas and pyarrow, loads on first use
of one of its names (PEP 562).
"""
import importlib

from ragnb.metrics import incomplete as _incomplete  # noqa: F401  (registers the metrics)
from ragnb.metrics import kernels as _kernels  # noqa: F401  (registers the metrics)
from ragnb.metrics.registry import REGISTRY, Metric, metric_help, parse_metric
from ragnb.vocab import POLICIES

#: Names defined by :mod:`ragnb.metrics.judged`, imported when first asked for.
_JUDGED = ("JudgedRun", "JudgmentIndex", "View", "judge_run")

__all__ = ["POLICIES", "REGISTRY", "JudgedRun", "JudgmentIndex", "Metric", "View", "judge_run",
           "metric_help", "parse_metric"]


def __getattr__(name: str):
    if name in _JUDGED:
        value = getattr(importlib.import_module("ragnb.metrics.judged"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ragnb.metrics' has no attribute {name!r}")
