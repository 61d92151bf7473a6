"""Start-up and small-job wall times of the command line, each beside its goal.

Each case runs in a fresh interpreter (a new process, as a user's shell runs it),
``--repeats`` times after one warm-up run (the file cache warm, as on a second
call); printed: the median and the spread (min-max) of the wall time, the
median CPU time (user + system of the child: what the process itself spent,
less sensitive to other load on the machine), the goal, and the ratio median /
goal. The 1-minute load average is printed first: on a loaded machine wall
times grow with it while CPU times grow much less.

Goals (issue 14): ``import ragnb`` <= 0.3 s; ``ragnb --help`` and ``ragnb
score --help`` <= 0.4 s; a ``score`` or ``compare`` of the README on the
200-query demo split <= 1 s. Two floors are printed for reference: the bare
interpreter, ``import pandas`` (which any command reading data needs) and
``import pandas, scipy.special`` (a comparison's intervals need the t and normal
quantiles); a data command's ``over floor`` is its median minus its floor's,
what ragnb itself costs on top of the libraries it cannot start without; ``cpu
over`` is the same difference of CPU medians, which a loaded machine inflates
much less (issue 25's goal: within floor + 0.35 s). The
two import floors run in a process set up as ``ragnb.cli.console`` sets up its
own (:func:`ragnb.startup.one_shot_process`: rarer young collections, everything
frozen at exit, numpy modules scipy never calls deferred), so that they are what
those imports cost a program that starts and exits the way ``ragnb`` does:
without it, ``import pandas`` alone pays 0.2-0.4 s more for the collections of
the interpreter's teardown, and ``scipy.special`` 0.1-0.2 s more.

The workspace comparison reads its split's selection-inflation figure from the
workspace's cache (``.ragnb-cache/``, filled by the warm-up run, as by a user's
first call); the case after it turns the cache off (``RAGNB_CACHE=off``): every
run then scores all 41 rounds' runs, as a first run does.

Bytecode: ``ragnb`` is compiled first (``python -m compileall``), as an installed
wheel is at install time. Without it, an editable install in an environment
with ``PYTHONDONTWRITEBYTECODE`` set (this project's sandboxes and many CI
images) compiles every module from source on every start, which costs 0.1-0.2 s
per command and is not what a user's installed ``ragnb`` pays.

Usage::

    python benchmarks/bench_startup.py [--repeats 7]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"


def ragnb_command() -> list[str]:
    """The installed ``ragnb`` console script beside this interpreter, else ``-m ragnb.cli``."""
    script = Path(sys.executable).with_name("ragnb")
    if script.exists():
        return [str(script)]
    found = shutil.which("ragnb")
    return [found] if found else [sys.executable, "-m", "ragnb.cli"]


class Case(NamedTuple):
    """One timed command: its goal in seconds (None for a floor) and, for a data
    command, the floor case it is measured over (the ``over floor`` column); ``env``:
    variables set for it."""

    name: str
    command: list[str]
    goal: float | None = None
    floor: str | None = None
    env: dict[str, str] | None = None


def floor_code(imports: str) -> str:
    """``imports`` in a process set up as the console script sets up its own."""
    return f"from ragnb.startup import one_shot_process; one_shot_process(); {imports}"


#: The two floors a data command cannot start without, set up as ``ragnb.cli.console`` is.
PANDAS, COMPARE = floor_code("import pandas"), floor_code("import pandas, scipy.special")


def cases() -> list[Case]:
    ragnb = ragnb_command()
    py = sys.executable
    prod = DEMO / "runs" / "production"
    workspace = [*ragnb, "compare", "--workspace", str(DEMO), "--split", "golden",
                 "--baseline", "round-00", "--challenger", "round-40", "--metric", "ndcg@10",
                 "--by", "intent"]
    return [
        Case("python -c pass (floor)", [py, "-c", "pass"]),
        Case("import pandas (floor: score)", [py, "-c", PANDAS]),
        Case("import pandas, scipy.special (floor: compare)", [py, "-c", COMPARE]),
        Case("import ragnb", [py, "-c", "import ragnb"], 0.3),
        Case("ragnb --help", [*ragnb, "--help"], 0.4),
        Case("ragnb score --help", [*ragnb, "score", "--help"], 0.4),
        Case("ragnb score, 200-query demo, 2 runs x 2 metrics",
             [*ragnb, "score", "--judgments", str(DEMO / "production.jsonl"),
              "--run", f"jan={prod / 'round-00.jsonl'}",
              "--run", f"champ={prod / 'round-40.jsonl'}",
              "--metric", "ndcg@10", "--metric", "rr@10"], 1.0, PANDAS),
        Case("ragnb compare, 200-query demo, by stratum (README)",
             [*ragnb, "compare", "--judgments", str(DEMO / "production.jsonl"),
              "--baseline", f"jan={prod / 'round-00.jsonl'}",
              "--challenger", f"champ={prod / 'round-40.jsonl'}", "--metric", "ndcg@10",
              "--strata", str(DEMO / "production_strata.csv"), "--by", "query_type"],
             1.0, COMPARE),
        Case("ragnb compare --workspace, 300-query golden (README)", workspace, 1.0, COMPARE),
        Case("  the same, inflation cache off (as a first run)", workspace, None, COMPARE,
             {"RAGNB_CACHE": "off"}),
    ]


def time_once(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``argv`` as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                          env={**os.environ, **env} if env else None)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per case (7)")
    args = parser.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ragnb")], check=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {os.cpu_count()} cores, 1-minute load average {load:.2f}; {args.repeats} runs "
          "per case after one warm-up, fresh process each, ragnb's bytecode compiled; "
          "wall median [min-max], CPU median")
    print(f"{'case':<58} {'wall s':>7} {'[min - max]':>15} {'cpu s':>6} {'goal s':>6} "
          f"{'ratio':>6} {'over floor s':>12} {'cpu over':>8}")
    worst = 0.0
    walls_of: dict[str, float] = {}  # each case's median, by the command's code
    cpus_of: dict[str, float] = {}
    for name, command, goal, floor, env in cases():
        time_once(command, env)  # warm-up: file cache, bytecode, the workspace's cache
        runs = [time_once(command, env) for _ in range(args.repeats)]
        walls = [w for w, _ in runs]
        wall, cpu = statistics.median(walls), statistics.median(c for _, c in runs)
        ratio = f"{wall / goal:6.2f}" if goal else f"{'':>6}"
        shown = f"{goal:6.2f}" if goal else f"{'—':>6}"
        if floor is None:
            walls_of[command[-1]], cpus_of[command[-1]] = wall, cpu  # a floor's code: last arg
        over = (f"{wall - walls_of[floor]:+12.3f} {cpu - cpus_of[floor]:+8.3f}"
                if floor is not None else "")
        print(f"{name:<58} {wall:7.3f} [{min(walls):6.3f} - {max(walls):6.3f}] {cpu:6.3f} "
              f"{shown} {ratio} {over}")
        if goal:
            worst = max(worst, wall / goal)
    print(f"# worst ratio median / goal: {worst:.2f} ({'within' if worst <= 1 else 'over'} "
          "every goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
