"""Progress bars for long reads and scoring, on standard error, only at a terminal.

A bar is drawn (by tqdm) only when standard error is a terminal, and only for a
step that lasts longer than :func:`delay` seconds, so a small input prints
nothing. When standard error is a pipe, a file, a notebook kernel or CI, the bar
is disabled and nothing at all is written: logs and captured output stay clean.

Environment: ``RAGNB_PROGRESS=0`` turns bars off at a terminal too;
``RAGNB_PROGRESS_DELAY`` sets the delay in seconds (default 0.5).
"""
from __future__ import annotations

import os
import sys

#: Seconds a step must last before its bar appears (``RAGNB_PROGRESS_DELAY``).
DEFAULT_DELAY = 0.5


def wanted(stream=None) -> bool:
    """Whether a bar should be drawn on ``stream`` (default: standard error).

    True only when ``stream`` is a terminal (``isatty()``) and ``RAGNB_PROGRESS``
    is not ``0``; a stream without ``isatty`` or a closed one is not a terminal.
    """
    if os.environ.get("RAGNB_PROGRESS", "").strip() == "0":
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if isatty is None:
        return False
    try:
        return bool(isatty())
    except (ValueError, OSError):  # closed or detached
        return False


def delay() -> float:
    """Seconds before a bar appears (``RAGNB_PROGRESS_DELAY``, else :data:`DEFAULT_DELAY`)."""
    try:
        return max(0.0, float(os.environ.get("RAGNB_PROGRESS_DELAY", DEFAULT_DELAY)))
    except ValueError:
        return DEFAULT_DELAY


def bar(total: float, desc: str, *, unit: str = "B", stream=None):
    """A tqdm bar on ``stream`` (standard error), disabled unless :func:`wanted`.

    ``unit="B"`` scales as bytes (kB, MB); use it as a context manager and call
    ``update(n)``. A disabled bar costs almost nothing and writes nothing.
    """
    stream = sys.stderr if stream is None else stream
    if not wanted(stream):
        return _NoBar()  # tqdm is not even imported
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit == "B",
                unit_divisor=1024 if unit == "B" else 1000, file=stream,
                delay=delay(), leave=False, dynamic_ncols=True)


class _NoBar:
    """What :func:`bar` returns when no bar is wanted: accepts tqdm's calls, writes nothing."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def update(self, n: float = 1) -> None:
        return None

    def close(self) -> None:
        return None


class CountingReader:
    """A binary file whose reads advance a progress bar by the bytes read.

    For readers that take a file object (pyarrow's CSV reader); everything but
    ``read`` goes to the underlying file.
    """

    def __init__(self, fh, progress) -> None:
        self._fh = fh
        self._progress = progress

    def read(self, n: int = -1) -> bytes:
        data = self._fh.read(n)
        self._progress.update(len(data))
        return data

    def __getattr__(self, name):
        return getattr(self._fh, name)
