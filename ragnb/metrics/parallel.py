"""Runs scored in parallel processes, the table identical to the serial one.

A sweep of many runs is many independent jobs: each run is read, judged and
scored against the same answer key, and nothing one run's scores depend on
comes from another. :func:`scored_runs` hands whole runs (unread files where
given as paths, so each worker reads its own) to a pool of ``jobs`` processes
that each receive the judgment index once, at start-up, and yields the results
in the runs' order: the caller assembles exactly the table the serial loop
assembles. Workers are started with ``spawn`` (a fresh interpreter: safe where
the parent holds threads, as a notebook kernel or pyarrow's pool does), so a
pool costs about a second of imports per worker and pays off from a few
runs of some size (``benchmarks/bench_sweep.py``). As with any ``spawn`` pool, a
script that scores with ``jobs > 1`` keeps its work under
``if __name__ == "__main__":`` (the workers import it again).
"""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ragnb.errors import InputError

#: The scoring function and setting a worker received at start-up (see :func:`_start`).
_WORK: tuple | None = None


def workers(jobs: int, runs: int) -> int:
    """Processes to start: ``jobs`` (0: one per core), never more than the runs."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
        raise InputError(f"jobs must be a whole number >= 0 (0: one per core), got {jobs!r}",
                         key="jobs")
    wanted = jobs or os.cpu_count() or 1
    return max(1, min(wanted, runs))


def _check_main() -> None:
    """Refuse what would hang a spawned worker: a main program it cannot import again
    (Python reading its program from standard input), instead of a pool that never starts.
    """
    import sys

    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if path is not None and not os.path.exists(path):
        raise InputError(f"jobs > 1 starts worker processes that import the main program, "
                         f"and {path!r} is not a file: run a script or a notebook, or use "
                         "jobs=1", key="jobs")


def _start(scorer: Callable, setting: tuple) -> None:
    """A worker's start-up: keep the setting, its metrics parsed again from their names
    (a metric object holds its registry entry, whose function need not pickle).
    """
    from ragnb.metrics import parse_metric

    global _WORK
    try:
        metrics = [parse_metric(text) for text in setting[1]]
    except InputError as e:
        raise InputError(f"{e} in a fresh worker process: a metric or gain map registered "
                         "in this session only cannot be scored in parallel; use jobs=1",
                         key="jobs") from e
    _WORK = (scorer, (setting[0], metrics, *setting[2:]))


def _score(item: Any) -> tuple:
    assert _WORK is not None, "worker started without its setting"
    scorer, setting = _WORK
    return scorer(item, setting)


def scored_runs(scorer: Callable, runs: list, setting: tuple, jobs: int, bar
                ) -> Iterator[tuple]:
    """``scorer(run, setting[, bar])`` (:func:`ragnb.metrics.score.score_item`: ``(name,
    order, frames, notes)``) of every run, in order; ``runs`` is emptied as it goes (the
    loop holds the only reference to each run, freed once scored).
    """
    steps = 1 + len(setting[1])
    n = workers(jobs, len(runs))
    if n == 1:
        for i in range(len(runs)):
            item, runs[i] = runs[i], None
            yield scorer(item, setting, bar)
            del item
        return
    _check_main()
    context = multiprocessing.get_context("spawn")
    portable = (setting[0], [m.text for m in setting[1]], *setting[2:])
    with ProcessPoolExecutor(n, mp_context=context, initializer=_start,
                             initargs=(scorer, portable)) as pool:
        futures = [pool.submit(_score, runs[i]) for i in range(len(runs))]
        runs[:] = [None] * len(runs)
        for future in futures:
            result = future.result()
            bar.update(steps)
            yield result
