"""A workspace split's one selection-inflation figure (every page, command and widget).

The candidates selected among on a split are the workspace's rounds (the
champions kept, round 0 the baseline) when each has a run on the split, else
every config with a run on it. Their per-query scores on the split give the
data-driven figure of :func:`ragnb.stats.split_inflation`; with fewer than
two candidates scored there is no figure. The split's ``selections_against``
comes from the workspace's ledger. Each figure is computed once per process
for a given workspace manifest, split, metric, label policy and seed, so
every surface in one session prints the same number (and a fresh process
computes the same one: the seed is fixed). Scoring all the rounds' runs is most
of a command's time (0.5-0.8 s on the demo's 41 rounds), so the figure is also
kept in the workspace's cache (:mod:`ragnb.workspace.cache`, ``.ragnb-cache/``),
keyed by every file and setting it depends on: a fresh process with the same
inputs reads it back instead of scoring the runs.

:func:`workspace_of_ledger` finds the workspace a ledger folder belongs to
(the ``ragnb.toml`` beside it whose ``ledger`` key names it), so a command
given only ``--ledger`` prints the same figure as the workspace's pages.
"""
from __future__ import annotations

from pathlib import Path

from ragnb.stats.inflation import SEED, SelectionInflation, split_inflation

_CACHE: dict[tuple, SelectionInflation | None] = {}


def candidates(workspace, split: str) -> list[str]:
    """The configs selected among on ``split``: the rounds' configs, else the split's configs."""
    on_split = set(workspace.configs(split))
    if workspace.has_rounds:
        rounds = list(workspace.rounds()["config"])
        if rounds and all(c in on_split for c in rounds):
            return rounds
    return list(workspace.configs(split))


def workspace_inflation(workspace, split: str, metric: str, policy: str = "lower", *,
                        seed: int = SEED) -> SelectionInflation | None:
    """The selection inflation of ``split`` in ``workspace`` on ``metric``.

    Returns
    -------
    SelectionInflation or None
        None when the ledger does not know the split (count unknown) or fewer
        than two candidates are scored on a split selected against.
    """
    from ragnb.metrics import parse_metric

    metric = str(parse_metric(workspace.metric(metric)))  # one key per metric, however named
    manifest = workspace.split_manifest(split)
    if manifest is None:
        return None
    key = (str(workspace.manifest.path), id(workspace) if workspace.manifest.path is None
           else 0, manifest.split_id, manifest.selections_against, metric, policy,
           tuple(sorted(workspace.score_options.items())), seed)
    if key not in _CACHE:
        n = manifest.selections_against
        names = candidates(workspace, split) if n else []
        if n and len(names) < 2:
            _CACHE[key] = None
        elif not n:
            _CACHE[key] = split_inflation(split, 0)
        else:
            _CACHE[key] = _stored_or_computed(workspace, split, names, manifest, metric,
                                              policy, seed)
    return _CACHE[key]


def _stored_or_computed(workspace, split: str, names: list[str], manifest, metric: str,
                        policy: str, seed: int) -> SelectionInflation | None:
    """The data-driven figure from the workspace's cache (:mod:`ragnb.workspace.cache`) when
    stored under the same inputs, else computed (scoring every candidate's run) and stored.

    A hit reads no run, but records the runs as read (the figure comes from them), so a
    report lists the same files cold or warm.
    """
    from ragnb.workspace import cache

    found = _cache_key(workspace, split, names, manifest, metric, policy, seed)
    if found is not None:
        folder, slot, key, sources = found
        value = cache.load(folder, "inflation", slot, key)
        if value is not None:
            try:
                figure = SelectionInflation(**value)
            except TypeError:  # fields of another shape: computed afresh below
                figure = None
            if figure is not None and figure.split == split:
                for source in sources:
                    workspace.use(source)
                return figure
    figure = _computed(workspace, split, names, manifest.selections_against, metric, policy,
                       seed)
    if found is not None and figure is not None:
        from dataclasses import asdict

        cache.store(found[0], "inflation", found[1], found[2], asdict(figure))
    return figure


def _computed(workspace, split: str, names: list[str], n: int, metric: str, policy: str,
              seed: int) -> SelectionInflation | None:
    from ragnb.workspace.splits import score_splits

    test_sets, runs = workspace.splits([split], names)
    table, _ = score_splits(test_sets, runs, metric, policy=policy,
                            **workspace.spread, **workspace.score_options)
    wide = table.pivot(index="query_id", columns="config", values="value")[names]
    return split_inflation(split, n, scores=wide.dropna().to_numpy(), seed=seed)


def _cache_key(workspace, split: str, names: list[str], manifest, metric: str, policy: str,
               seed: int):
    """``(cache folder, slot, key, run files)`` of the figure, or None where it is not cached:
    caching off, a workspace in memory, an input that is not a file, or a confirmation
    split (reading its runs is a scoring the ledger records, which a hit would skip).
    """
    from ragnb.workspace import cache

    path = workspace.manifest.path
    if manifest.role == "confirmation" or not path.is_file():
        return None
    folder = cache.cache_dir(path.parent)
    if folder is None:
        return None
    entry = workspace.manifest.test_sets.get(split)
    run_sources = workspace._run_sources.get(split, {})
    sources = [workspace._sources.get(split)] + [run_sources.get(c) for c in names]
    listed = getattr(entry, "queries", None) if entry is not None else None
    extra = [listed.path] if listed is not None else []
    if not all(isinstance(s, (str, Path)) and str(s) != "-" for s in sources + extra):
        return None
    import numpy as np

    from ragnb.stats.inflation import REFITS, RESAMPLES

    try:
        files = [cache.file_stamp(s) for s in sources + extra]
    except OSError:
        return None
    slot = [str(path.resolve()), split, metric, policy, seed]
    key = {"files": files, "fold": getattr(listed, "fold", None), "candidates": names,
           "split_id": manifest.split_id, "selections_against": manifest.selections_against,
           "order": workspace.manifest.order, "options": workspace.score_options,
           "resamples": RESAMPLES, "refits": REFITS, "numpy": np.__version__,
           "code": cache.code_stamp()}
    return folder, slot, key, sources[1:]


def workspace_of_ledger(ledger_dir: str | Path | None, split_id: str):
    """The workspace whose ledger is ``ledger_dir`` and its test set of ``split_id``.

    Looks at the ``ragnb.toml`` in the ledger folder's parent; returns
    ``(workspace, test set name)`` when its ``ledger`` key names this folder and
    one of its test sets has this content (split id), else None.
    """
    if not ledger_dir:
        return None
    folder = Path(ledger_dir).resolve()
    path = folder.parent / "ragnb.toml"
    if not path.is_file():
        return None
    from ragnb.workspace.workspace import open_workspace

    try:
        ws = open_workspace(path)
    except Exception:  # a manifest that does not parse is not this ledger's workspace
        return None
    if ws.manifest.ledger is None or Path(ws.manifest.ledger).resolve() != folder:
        return None
    name = split_id.split("@", 1)[0]
    order = [name] if name in ws.test_set_names else []
    for test_set in order + [t for t in ws.test_set_names if t != name]:
        m = ws.split_manifest(test_set)
        if m is not None and m.split_id == split_id:
            return ws, test_set
    return None


def ledger_inflation(ledger_dir: str | Path | None, manifest, metric: str,
                     policy: str = "lower", *, se: float | None = None,
                     se_source: str = "") -> SelectionInflation | None:
    """The figure of a ledger's split where only the ledger (and maybe an SE) is given.

    The workspace's figure (:func:`workspace_inflation`) when the ledger belongs
    to a workspace holding the split, else the worst case from ``se``
    (:func:`ragnb.stats.split_inflation`), else None.
    """
    if manifest is None:
        return None
    found = workspace_of_ledger(ledger_dir, manifest.split_id) if manifest.selections_against \
        else None
    if found is not None:
        figure = workspace_inflation(found[0], found[1], metric, policy)
        if figure is not None:
            return figure
    return split_inflation(manifest.name, manifest.selections_against, se=se,
                           se_source=se_source)
