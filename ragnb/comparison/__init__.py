"""Challengers against one baseline, as a Finding: the API's ``ragnb.compare`` and the
headline ``ragnb compare`` prints first.

- :mod:`ragnb.comparison.finding` — headline rules and the Finding of a comparison table
- :mod:`ragnb.comparison.compare` — score runs and compare them in one call
"""
from __future__ import annotations

from ragnb.comparison.compare import compare
from ragnb.comparison.finding import comparison_finding, comparison_headline

__all__ = ["compare", "comparison_finding", "comparison_headline"]
