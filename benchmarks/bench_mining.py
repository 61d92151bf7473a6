"""CPU time of mining code tasks from a repository's history, per 1,000 merged changes.

``ragnb tasks mine`` runs in a fresh process on a local clone, ``--repeats``
times after one warm-up (the file cache warm); printed: the median CPU time
(user + system of the process and its ``git`` children), the same per 1,000
mined changes (issue 37's goal on psf/requests: <= 25 s), the median wall time,
the peak memory, and two references from the same run: git's own walk of the
mainline with every change's patch (``git log --first-parent -m -p``, the least
a miner that reads diffs must pay) and a fixed pure-Python loop (10^7
additions), so that a figure from a slower or loaded machine can be put beside
this one. The 1-minute load average is printed before and after.

Usage::

    python benchmarks/bench_mining.py --repo /path/to/requests [--branch main] [--repeats 3]

The repository is not fetched here (no network at run time): clone it first,
for example ``git clone https://github.com/psf/requests``.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], cwd: str | None = None) -> tuple[float, float, float, str]:
    """``(cpu seconds, wall seconds, peak MiB, stdout+stderr)`` of one command in a new
    process (its children's CPU included: ``os.wait4`` sums what the child waited for)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{out.decode()[-2000:]}")
    return (usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024,
            out.decode(errors="replace"))


def python_loop() -> float:
    """CPU seconds of 10^7 additions in a pure-Python loop (a machine's speed)."""
    t = time.process_time()
    s = 0
    for i in range(10**7):
        s += i
    return time.process_time() - t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", required=True, help="a local clone (e.g. of psf/requests)")
    p.add_argument("--branch", default="main")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    repo = str(Path(args.repo).resolve())
    load = os.getloadavg()[0]
    ragnb = [sys.executable, "-m", "ragnb.cli", "tasks", "mine", "--repo", repo,
             "--branch", args.branch, "--format", "json"]
    floor = ["git", "-C", repo, "log", "--first-parent", "-m", "-p", "--format=%H %P",
             args.branch]
    with tempfile.TemporaryDirectory() as tmp:
        mine = [*ragnb, "--out", str(Path(tmp) / "tasks.json")]
        timed(mine)                                              # warm-up
        runs = [timed(mine) for _ in range(args.repeats)]
        gits = [timed(floor) for _ in range(args.repeats)]
    found = re.search(r"(\d[\d,]*) changes mined", runs[-1][3])
    changes = int(found[1].replace(",", "")) if found else 0
    cpu = statistics.median(r[0] for r in runs)
    wall = statistics.median(r[1] for r in runs)
    peak = max(r[2] for r in runs)
    git_cpu = statistics.median(g[0] for g in gits)
    loop = statistics.median(python_loop() for _ in range(3))
    print(f"repository {repo} ({args.branch}): {changes:,} changes; {args.repeats} runs after "
          f"a warm-up; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"{'':28}{'cpu s':>8}{'per 1,000':>11}{'wall s':>8}{'peak MiB':>10}")
    print(f"{'ragnb tasks mine':28}{cpu:8.1f}{1000 * cpu / max(changes, 1):11.1f}{wall:8.1f}"
          f"{peak:10.0f}")
    print(f"{'git log --first-parent -p':28}{git_cpu:8.1f}"
          f"{1000 * git_cpu / max(changes, 1):11.1f}")
    print(f"ratio ragnb / git's walk: {cpu / git_cpu:.1f}x; goal: <= 25 s CPU per 1,000 "
          f"changes on psf/requests; 10^7 pure-Python additions take {loop:.2f} s CPU here")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
