"""Every notebook in notebooks/ becomes a report that draws offline (slow; runs in CI).

One build of all notebooks (their default data, with the resample counts cut
to :data:`SMALL` where declared), then one browser check per page: nothing but
``file:`` requested, no console error, no dialog, no script, and as many charts
drawn as the executed notebook has SVG chart outputs. Screenshots go to
``test-artifacts/report-NN-slug.png``. New notebooks are picked up without
touching this file.
"""
from __future__ import annotations

import nbformat
import pytest

from browser import static_loaders
from ragnb.paths import NOTEBOOKS_DIR
from ragnb.report.notebooks import discover
from ragnb.report.parameters import read_parameters
from ragnb.report.runner import build_reports

#: Overrides that keep CI fast, applied to the notebooks that declare them.
SMALL = {"resamples": 200, "n_resamples": 200}

NOTEBOOKS = discover(NOTEBOOKS_DIR)


@pytest.fixture(scope="session")
def project_reports(tmp_path_factory):
    declared = set().union(*(read_parameters(nb.path) for nb in NOTEBOOKS))
    small = {k: v for k, v in SMALL.items() if k in declared}
    out = tmp_path_factory.mktemp("project-reports")
    return {r.name: r for r in build_reports(None, small, out_dir=out)}


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda nb: nb.name)
def test_project_report_draws_offline(notebook, project_reports, open_report):
    result = project_reports[notebook.name]
    assert result.ok, result.message
    assert static_loaders(result.html_path.read_text()) == []
    executed = nbformat.read(result.notebook_path, as_version=4)
    charts = sum(
        "image/svg+xml" in o.get("data", {}) for c in executed.cells for o in c.get("outputs", [])
    )
    check = open_report(result.html_path, screenshot=f"report-{notebook.name}.png")
    assert check.blocked_requests == []
    assert check.console_errors == [] and check.page_errors == []
    assert check.dialogs == [] and check.scripts == 0
    assert check.chart_images == charts and check.charts_drawn == charts
