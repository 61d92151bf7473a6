"""Report hardening (issue 27, items 4 and 7): a report kernel's memory limit, a gzip
bomb through ``ragnb report``, and side files never written through a planted symlink.
Each test starts a kernel: slow.
"""
from __future__ import annotations

import gzip
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from ragnb.errors import InputError
from ragnb.startup import KERNEL_MEMORY_ENV, kernel_memory_limit

from .conftest import FIXTURE_NOTEBOOKS

ROOT = Path(__file__).resolve().parents[2]
#: The stated bound on the report command and its kernel (peak RSS of either).
PEAK_BOUND = 2 << 30
#: Writable memory the report command and its kernel may take at most (inherited).
DATA_LIMIT = 3 << 30


def _report(*argv: str, env: dict | None = None) -> tuple[int, str, int]:
    """``ragnb report`` in a child under :data:`DATA_LIMIT`: (exit code, stderr, peak RSS)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT, DATA_LIMIT))

    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ragnb.cli import console; sys.exit(console())",
         "report", *argv, "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=env, preexec_fn=limit)
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    return os.waitstatus_to_exitcode(status), err, usage.ru_maxrss * 1024


def _notebook(path: Path, size: int) -> Path:
    """A notebook whose one parameter ``size`` (default ``size``) is the bytes it holds."""
    path.parent.mkdir(exist_ok=True)
    params = nbformat.v4.new_code_cell(f"size: int = {size}  # bytes to allocate")
    params.metadata["tags"] = ["parameters"]
    nb = nbformat.v4.new_notebook(cells=[params, nbformat.v4.new_code_cell(
        "held = bytearray(size)")])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3",
                              "language": "python"}
    nbformat.write(nb, path)
    return path


def test_the_kernel_memory_limit_is_read_from_the_environment(monkeypatch):
    for text, limit in [("6G", 6 << 30), ("1536M", 1536 << 20), (str(1 << 30), 1 << 30),
                        ("2GiB", 2 << 30), ("0", None), ("none", None)]:
        monkeypatch.setenv(KERNEL_MEMORY_ENV, text)
        assert kernel_memory_limit() == limit
    monkeypatch.delenv(KERNEL_MEMORY_ENV)
    assert 3 << 30 <= kernel_memory_limit() <= 8 << 30
    monkeypatch.setenv(KERNEL_MEMORY_ENV, "lots")
    with pytest.raises(InputError, match=r"\$RAGNB_KERNEL_MEMORY: must be a size such as 6G"):
        kernel_memory_limit()
    monkeypatch.setenv(KERNEL_MEMORY_ENV, "300M")  # a kernel hung under it
    with pytest.raises(InputError, match=r"'300M' is below 1G: a kernel under it can hang"):
        kernel_memory_limit()


@pytest.mark.slow
def test_a_gzip_bomb_run_through_report_exits_2_with_one_line(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(ROOT / "data" / "demo", ws / "demo")
    runs = ws / "demo" / "runs" / "golden"
    (runs / "round-40.jsonl").unlink()
    member = gzip.compress(b"q1 Q0 d1 1 1.0 t\n" * 1_000_000, 9, mtime=0)
    (runs / "round-40.jsonl.gz").write_bytes(member * 15)  # 0.6 MB -> 255 MB
    manifest = ws / "demo" / "ragnb.toml"
    manifest.write_text(manifest.read_text().replace('"runs/golden/*.jsonl"',
                                                     '"runs/golden/*.jsonl*"'))
    code, err, peak = _report("01-fit", "--workspace", str(ws / "demo"), "--out",
                              str(tmp_path / "out"))
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.startswith("ragnb report:")]
    assert len(lines) == 1 and "round-40.jsonl.gz: decompresses to more than 100 times" in lines[0]
    assert peak < PEAK_BOUND


@pytest.mark.slow
def test_report_side_files_and_kernel_memory_are_bounded(tmp_path):
    # item 7: no write through a symlink planted in --out (one notebook succeeds, one
    # fails); item 4: a kernel stops at its memory limit (5 GiB asked under 3G)
    out = tmp_path / "out"
    out.mkdir()
    victims = {}
    for name in (".01-charts.running.ipynb", "01-charts.ipynb", "01-charts.html",
                 ".02-fails.running.ipynb", "02-fails.failed.ipynb", "03-big.failed.ipynb"):
        victim = tmp_path / f"victim-{name.strip('.')}"
        victim.write_text("precious")
        (out / name).symlink_to(victim)
        victims[name] = victim
    notebooks = tmp_path / "nb"
    _notebook(notebooks / "01-charts.ipynb", 1)
    _notebook(notebooks / "03-big.ipynb", 5 << 30)
    shutil.copy(FIXTURE_NOTEBOOKS / "02-fails.ipynb", notebooks)
    code, err, peak = _report("--all", "-p", "divisor=0", "--notebooks", str(notebooks),
                              "--out", str(out), env={KERNEL_MEMORY_ENV: "3G"})
    assert code == 1 and "02-fails: cell 3" in err  # 01-charts ran, 02-fails failed
    assert "ragnb report: 03-big: cell 2 (`held = bytearray(size)`) raised MemoryError" in err
    assert all(v.read_text() == "precious" for v in victims.values())
    assert not (out / "01-charts.html").is_symlink()  # replaced by the page itself
    assert (out / "02-fails.failed.ipynb").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".ragnb-running-")]
    assert peak < PEAK_BOUND
