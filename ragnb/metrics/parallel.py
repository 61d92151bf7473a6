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

With ``cluster`` (a dask.distributed scheduler's address, or a ``Client``; the
``ragnb[dask]`` extra) the runs go to that cluster's workers instead: the
setting is scattered to every worker once, each run is one task, and the
results come back in the runs' order, so the table is again the serial one bit
for bit (the same :func:`~ragnb.metrics.score.score_item` on the same inputs).
Runs given as paths are read by the worker that scores them: on a cluster of
several machines the paths must name the same files there (a shared file
system); runs in memory travel with their task. Statistics stay on the client.
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


def _portable(setting: tuple) -> tuple:
    """The setting with its metrics as names (parsed again where it is used)."""
    return (setting[0], [m.text for m in setting[1]], *setting[2:])


def client(cluster: Any):
    """A dask.distributed ``Client`` for ``cluster`` and whether it is ours to close:
    an address (``tcp://host:8786``) is connected to; a ``Client`` is used as is.

    Raises
    ------
    InputError
        Without the ``dask`` extra, or when no scheduler answers at the address.
    """
    try:
        from distributed import Client
    except ImportError as e:
        raise InputError("scoring on a cluster needs dask.distributed: "
                         "pip install 'ragnb[dask]'", key="cluster") from e
    if isinstance(cluster, Client):
        return cluster, False
    if not isinstance(cluster, str) or not cluster.strip():
        raise InputError(f"cluster must be a scheduler address such as tcp://host:8786 or a "
                         f"distributed.Client, got {cluster!r}", key="cluster")
    try:
        return Client(cluster.strip(), timeout=CONNECT_SECONDS), True
    except (OSError, TimeoutError) as e:
        raise InputError(f"no dask scheduler answered at {cluster.strip()} within "
                         f"{CONNECT_SECONDS} s ({type(e).__name__}: {e})",
                         key="cluster") from e


#: Seconds to wait for a scheduler before the address is reported as not answering.
CONNECT_SECONDS = 10


def _on_worker(scorer: Callable, item: Any, portable: tuple, version: str) -> tuple:
    """One run scored on a cluster worker; a worker with another ragnb is refused (its
    scores could differ from the client's).
    """
    import ragnb

    if ragnb.__version__ != version:
        raise InputError(f"a cluster worker has ragnb {ragnb.__version__} and the client "
                         f"{version}: install the same version on every worker",
                         key="cluster")
    from ragnb.metrics import parse_metric

    setting = (portable[0], [parse_metric(text) for text in portable[1]], *portable[2:])
    return scorer(item, setting)


def _cluster_runs(scorer: Callable, runs: list, setting: tuple, cluster: Any, bar
                  ) -> Iterator[tuple]:
    import uuid

    import ragnb

    steps = 1 + len(setting[1])
    dask, own = client(cluster)
    try:
        [shared] = dask.scatter([_portable(setting)], broadcast=True, hash=False)
        batch = uuid.uuid4().hex
        futures = [dask.submit(_on_worker, scorer, runs[i], shared, ragnb.__version__,
                               key=f"ragnb-score-{batch}-{i}", pure=False)
                   for i in range(len(runs))]
        runs[:] = [None] * len(runs)
        for i, future in enumerate(futures):
            result = future.result()
            futures[i] = None  # released: the worker may drop the result
            bar.update(steps)
            yield result
    finally:
        if own:
            dask.close()


def scored_runs(scorer: Callable, runs: list, setting: tuple, jobs: int, bar,
                cluster: Any = None) -> Iterator[tuple]:
    """``scorer(run, setting[, bar])`` (:func:`ragnb.metrics.score.score_item`: ``(name,
    order, frames, notes)``) of every run, in order, in ``jobs`` processes or on
    ``cluster``; ``runs`` is emptied as it goes (the loop holds the only reference to
    each run, freed once scored).
    """
    if cluster is not None:
        yield from _cluster_runs(scorer, runs, setting, cluster, bar)
        return
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
    with ProcessPoolExecutor(n, mp_context=context, initializer=_start,
                             initargs=(scorer, _portable(setting))) as pool:
        futures = [pool.submit(_score, runs[i]) for i in range(len(runs))]
        runs[:] = [None] * len(runs)
        for future in futures:
            result = future.result()
            bar.update(steps)
            yield result
