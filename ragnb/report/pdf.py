"""PDF of a report page, printed by headless chromium (``ragnb report --pdf``).

The page's print styles (:data:`ragnb.report.header.HEADER_CSS`) keep tables
within A4 and Letter widths; chromium draws the SVG charts. Flags: headless,
no sandbox, no GPU, no background networking, component updates, sync or
first-run work, and a throw-away profile, so printing reaches no network.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from os import PathLike
from pathlib import Path

from ragnb.errors import RagnbError

#: The browser that prints (Debian's chromium).
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--no-pdf-header-footer")


def chromium_path() -> Path:
    """Debian's chromium, else ``chromium`` on the PATH; an error saying how to install it."""
    if CHROMIUM.exists():
        return CHROMIUM
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return Path(found)
    raise RagnbError("--pdf needs chromium (apt-get install -y chromium)")


def write_pdf(html_path: str | PathLike[str], pdf_path: str | PathLike[str] | None = None,
              *, timeout: float = 120) -> Path:
    """Print ``html_path`` to ``pdf_path`` (default: the same name, ``.pdf``); returns it."""
    page = Path(html_path).resolve()
    target = Path(pdf_path) if pdf_path else page.with_suffix(".pdf")
    target = target.resolve()
    tmp = target.with_name(f".{target.name}.tmp")
    with tempfile.TemporaryDirectory(prefix="ragnb-chromium-") as profile:
        cmd = [str(chromium_path()), *FLAGS, f"--user-data-dir={profile}",
               f"--print-to-pdf={tmp}", page.as_uri()]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            tmp.unlink(missing_ok=True)
            raise RagnbError(f"chromium could not print {page}: {exc}") from exc
    if done.returncode != 0 or not tmp.exists() or tmp.stat().st_size == 0:
        tmp.unlink(missing_ok=True)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1][:200]
        raise RagnbError(f"chromium could not print {page} (exit {done.returncode}): {last}")
    tmp.replace(target)
    return target
