"""Issue 27, item 2: the ledger page (05) refuses a ledger that does not verify, naming the
problem, instead of showing a cut log as the truth (slow: executes 05-ledger)."""
from __future__ import annotations

import re

import pytest

from .test_tamper import cut, demo_workspace

pytestmark = pytest.mark.slow


def test_27_2_the_ledger_page_refuses_a_cut_log(tmp_path):
    from ragnb.report.runner import build_reports

    (tmp_path / "ws").mkdir()
    ws = demo_workspace(tmp_path / "ws")
    cut(ws / "ledger")  # the example: golden read as 'working, 9 selections'
    [result] = build_reports(["ledger"], {"resamples": 200}, workspace=ws / "ragnb.toml",
                             out_dir=tmp_path / "out")
    assert not result.ok and not (tmp_path / "out" / "05-ledger.html").exists()
    assert "raised LedgerIntegrityError" in result.message
    failed = (tmp_path / "out" / "05-ledger.failed.ipynb").read_text()
    assert re.search(r"golden\.json: recorded head is record 47, but the log has only 10: it "
                     r"was cut short \(and 1 more\)", failed)  # and production.json's
