"""The label-bias demo data, generated once per test session into a temporary folder."""
from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

CONFIGS = ("m0_r1", "m0_r2", "m1_r1", "m1_r2", "m2_r1", "m2_r2")


@functools.lru_cache(maxsize=1)
def demo_dir() -> Path:
    from ragnb.demo.labelbias import generate

    out = Path(tempfile.mkdtemp(prefix="ragnb-labelbias-demo-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    generate(out)
    return out


@functools.lru_cache(maxsize=1)
def loaded():
    """(test set, runs) of the demo, read with the core readers."""
    from ragnb.io import read_run, read_test_set

    d = demo_dir()
    return read_test_set(d / "testset.jsonl"), [read_run(d / "runs" / f"{c}.trec")
                                                 for c in CONFIGS]
