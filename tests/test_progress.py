"""Progress bars: drawn on a terminal's standard error, silent everywhere else."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ragnb import progress


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_wanted_only_on_a_terminal(monkeypatch):
    monkeypatch.delenv("RAGNB_PROGRESS", raising=False)
    assert progress.wanted(_Stream(True))
    assert not progress.wanted(_Stream(False))
    assert not progress.wanted(object())  # no isatty at all
    closed = open(os.devnull, "w")  # noqa: SIM115
    closed.close()  # isatty() raises ValueError
    assert not progress.wanted(io.StringIO()) and not progress.wanted(closed)


def test_environment_turns_bars_off_at_a_terminal(monkeypatch):
    monkeypatch.setenv("RAGNB_PROGRESS", "0")
    assert not progress.wanted(_Stream(True))


def test_bar_writes_to_a_terminal_and_nothing_elsewhere(monkeypatch):
    monkeypatch.delenv("RAGNB_PROGRESS", raising=False)
    monkeypatch.setenv("RAGNB_PROGRESS_DELAY", "0")
    for tty in (True, False):
        stream = _Stream(tty)
        with progress.bar(2048, "reading x", stream=stream) as b:
            b.update(1024)
            b.update(1024)
        text = stream.getvalue()
        if tty:
            assert "reading x:" in text and "2.00k" in text  # desc and total in KiB
        else:
            assert text == ""


def test_counting_reader_advances_by_the_bytes_read(tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(b"a" * 1000)

    class Bar:
        n = 0

        def update(self, k):
            self.n += k

    bar = Bar()
    with open(f, "rb") as fh:
        reader = progress.CountingReader(fh, bar)
        assert reader.read(300) == b"a" * 300
        assert len(reader.read()) == 700
        assert reader.read(10) == b""
        assert reader.tell() == 1000  # other methods go to the file
    assert bar.n == 1000


def _qrels_and_run(folder: Path, queries: int = 300) -> tuple[Path, Path]:
    qrels = folder / "t.qrels"
    run = folder / "t.run"
    qrels.write_text("".join(f"q{q} 0 p{q}_{i} {i % 3}\n" for q in range(queries)
                             for i in range(5)))
    run.write_text("".join(f"q{q} Q0 p{q}_{i} {i + 1} {100 - i} tag\n" for q in range(queries)
                           for i in range(20)))
    return qrels, run


_SCRIPT = textwrap.dedent("""
    import sys
    from ragnb.io import read_run, read_test_set
    from ragnb.metrics.score import score
    s = score(read_test_set(sys.argv[1]), read_run(sys.argv[2]), ["ndcg@10", "rr@10"])
    print(round(float(s.means()["mean"].sum()), 6))
""")


def _env() -> dict:
    env = dict(os.environ, RAGNB_PROGRESS_DELAY="0")
    env.pop("RAGNB_PROGRESS", None)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_reading_and_scoring_draw_bars_on_a_terminal(tmp_path):
    import fcntl
    import pty
    import struct
    import termios

    qrels, run = _qrels_and_run(tmp_path)
    master, slave = pty.openpty()
    # a new pseudo-terminal is 0 x 0 characters, where tqdm draws nothing: make it 24 x 100
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-c", _SCRIPT, str(qrels), str(run)],
                            stdout=subprocess.PIPE, stderr=slave, env=_env())
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert "reading t.qrels" in shown and "reading t.run" in shown
    assert "scoring:" in shown and "/3 " in shown  # one run: its join, then two metrics
    assert out.strip()


def test_silent_when_standard_error_is_not_a_terminal(tmp_path):
    qrels, run = _qrels_and_run(tmp_path)
    proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(qrels), str(run)],
                          capture_output=True, text=True, env=_env(), check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.strip()
