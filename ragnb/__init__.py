"""ragnb: a statistically honest analysis workbook for retrieval evaluation.

From files to an answer in three steps; the most used functions are at the top
level (imported on first use, so ``import ragnb`` stays light)::

    import ragnb
    golden = ragnb.read_test_set("data/demo/golden.jsonl")    # qrels, JSONL or CSV
    runs = [ragnb.read_run(p) for p in paths]                  # TREC run files
    scores = ragnb.score(golden, runs, ["ndcg@10", "rr@10"])   # 1. per query, 0-1
    finding = ragnb.compare(golden, runs, "ndcg@10", baseline="round-00")  # 2. the answer
    print(finding.to_text())          # what `ragnb compare` prints; in JupyterLab: `finding`
    finding.source                    # the rows as data (delta, interval, Holm p; 0-1)

Units: data stay in metric units (0-1: ``scores``, ``finding.source``,
``compare_configs``); everything shown (headlines, display tables, charts) is in
points, metric x 100. ``compare_configs(scores, baseline=..., metric=...)`` takes
``score``'s result as it comes and gives the same rows as data.

3. A whole analysis on a workspace (``ragnb init`` makes one from your files) is a
*page*: the same Finding its notebook, its report and ``ragnb run`` show::

    finding = ragnb.run_page("01-fit", "data/demo")   # headline, sections, objects
    finding.objects["scores"]                         # carry on from its intermediates

``ragnb report 01-fit --workspace DIR`` makes it a self-contained HTML page for a
review meeting, ``ragnb report --all`` every page the workspace can answer.
"""
from __future__ import annotations

import importlib
import sys
import types

from ragnb.errors import InputError, PolicyError, RagnbError

#: Top-level name -> module that defines it (loaded lazily, PEP 562).
_EXPORTS = {
    "read_test_set": "ragnb.io",
    "read_run": "ragnb.io",
    "read_strata": "ragnb.io",
    "read_corpus": "ragnb.io",
    "parse_metric": "ragnb.metrics",
    "metric_help": "ragnb.metrics",
    "paired_bootstrap": "ragnb.stats",
    "stratified_bootstrap": "ragnb.stats",
    "compare": "ragnb.comparison",
    "compare_configs": "ragnb.stats",
    "holm": "ragnb.stats",
    "sign_flip_test": "ragnb.stats",
    "mde": "ragnb.stats",
    "queries_needed": "ragnb.stats",
    "expected_max_normal": "ragnb.stats",
    "selection_inflation": "ragnb.stats",
    "reconcile_pooled": "ragnb.stats",
    "four_cell": "ragnb.fit",
    "score": "ragnb.metrics.score",
    "Scores": "ragnb.metrics.score",
    "read_scores": "ragnb.metrics.store",
    "write_scores": "ragnb.metrics.store",
    "label_bounds": "ragnb.labelbias",
    "three_way": "ragnb.labelbias",
    "Ledger": "ragnb.ledger",
    "run_page": "ragnb.pages",
}
_RENAMED = {"compare_configs": "compare"}  # ranx also exports a `compare`

#: Top-level functions that share their name with the subpackage defining them.
_SHADOWED = {"trajectory": "ragnb.trajectory"}
_EXPORTS.update(_SHADOWED)

__all__ = ["InputError", "PolicyError", "RagnbError", "__version__", *_EXPORTS]


class _Package(types.ModuleType):
    """Keeps ``ragnb.trajectory`` the function.

    Importing a submodule sets it as an attribute of its package; for the names
    in :data:`_SHADOWED` the function it defines is stored instead, so the lazy
    binding cannot be replaced by the package (``from ragnb.trajectory import Trajectory``
    still imports from the package as usual).
    """

    def __setattr__(self, name: str, value) -> None:
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def _version() -> str:
    """The installed distribution's version (importlib.metadata costs ~60 ms: read on use)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragnb")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0.0.0+unknown"


def __getattr__(name: str):
    if name == "__version__":
        value = globals()["__version__"] = _version()
        return value
    if name in _EXPORTS:
        module = importlib.import_module(_EXPORTS[name])
        value = getattr(module, _RENAMED.get(name, name))
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ragnb' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
