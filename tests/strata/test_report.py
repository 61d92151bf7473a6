"""The breakdown report built with a spec: header hash and timing, what-if specs flagged (slow)."""
from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime

import pytest

from ragnb.paths import DEMO_DIR
from ragnb.report.runner import build_reports
from ragnb.widgets.whatif import WhatIf
from tests.strata._workspaces import demo_comparison

pytestmark = pytest.mark.slow
SPEC = DEMO_DIR / "specs" / "production_query_type.toml"


def build(out, spec):
    (result,) = build_reports(["03-strata"], {"resamples": 200, "strata_spec": str(spec)},
                              out_dir=out)
    assert result.ok, result.message
    return result.html_path.read_text()


def test_pre_registered_spec_in_the_header(tmp_path):
    page = build(tmp_path, SPEC)
    assert hashlib.sha256(SPEC.read_bytes()).hexdigest() in page   # the runner's spec table
    assert "written before the scores" in page                      # our contributed fact
    assert "Pre-registered." in page and "2026-07-03 09:00 UTC" in page
    assert "in_scope_single_turn: 118 + follow_up: 41 + out_of_scope: 27 + malformed: 14" in page


def test_the_manifest_spec_is_in_the_runner_spec_table_with_no_parameters(tmp_path):
    (result,) = build_reports(["03-strata"], {"resamples": 200}, out_dir=tmp_path)
    assert result.ok, result.message
    page = result.html_path.read_text()
    assert '<table class="ragnb-specs">' in page                     # the runner's table
    table = page.split('<table class="ragnb-specs">', 1)[1].split("</table>", 1)[0]
    assert hashlib.sha256(SPEC.read_bytes()).hexdigest() in table     # the demo's shipped spec
    assert "strata_spec" in table and "before the run" in table
    assert "Pre-registered." in page


def test_a_what_if_export_builds_a_report_that_says_so(tmp_path):
    comp = demo_comparison()
    w = WhatIf.from_comparison(comp, baseline="round-00", challenger="round-40",
                               spec="query_type", resamples=200, chart=None)
    w.checkbox("malformed").value = False
    day_before = datetime.now(UTC).strftime("%Y-%m-%d")
    spec = w.export_spec(tmp_path / "whatif.toml", written_by="analyst")
    page = build(tmp_path / "out", spec)
    day_after = datetime.now(UTC).strftime("%Y-%m-%d")
    assert hashlib.sha256(spec.read_bytes()).hexdigest() in page
    assert "written AFTER the scores" in page and "Not pre-registered." in page
    assert "exported from the what-if widget" in page
    assert "malformed: 14 excluded by the spec" in page
    assert "spec: excluded 'malformed' (14 queries)" in page   # the applied step
    # the export's own date (not the build's, also on the page), whichever side of UTC
    # midnight the build ran on
    written = re.search(r"Spec written at (\d{4}-\d\d-\d\d) \d\d:\d\d UTC by analyst", page)
    assert written is not None and written[1] in (day_before, day_after)
