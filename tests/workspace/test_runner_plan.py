"""``ragnb report`` with a workspace: which notebooks run, which are skipped and why."""
from __future__ import annotations

import pytest

from ragnb.cli import main
from ragnb.errors import InputError
from ragnb.paths import DEMO_DIR
from ragnb.report.runner import plan
from tests.workspace.test_manifest import BASE, write


def test_plan_skips_what_the_workspace_cannot_feed(tmp_path):
    path = write(tmp_path, BASE + "[report]\nbaseline = 'a'\nchallenger = 'b'\n")
    jobs = {j.notebook.name: j for j in plan(None, {"resamples": "200"}, workspace=tmp_path)}
    assert jobs["04-label-bias"].skip is None
    assert jobs["03-strata"].skip == \
        "test set 'main' has no strata file ([test_sets.main.strata] path)"
    assert jobs["01-fit"].skip.startswith("needs two test sets")
    assert jobs["05-ledger"].skip == "no split ledger ([workspace] ledger)"
    for job in jobs.values():   # every notebook reads this workspace, never the demo
        assert job.given["workspace"] == str(tmp_path)
    # --data DIR with a ragnb.toml in it is the same workspace
    again = plan(None, data_dir=tmp_path)
    assert [j.skip for j in again] == [j.skip for j in jobs.values()]
    assert path.is_file()


def test_a_named_notebook_the_workspace_cannot_feed_is_an_error(tmp_path, capsys):
    write(tmp_path, BASE)
    with pytest.raises(InputError, match="01-fit cannot run on workspace .*needs two test sets"):
        plan(["fit"], workspace=tmp_path)
    assert main(["report", "ledger", "--workspace", str(tmp_path)]) == 2
    assert "no split ledger ([workspace] ledger)" in capsys.readouterr().err


def test_the_demo_workspace_feeds_every_notebook():
    assert all(j.skip is None for j in plan(None))
    assert all(j.skip is None for j in plan(None, workspace=DEMO_DIR))


def test_a_bad_manifest_fails_before_any_kernel(tmp_path, capsys):
    write(tmp_path, "[workspace]\norder = 'sideways'\n" + BASE)
    assert main(["report", "--all", "--workspace", str(tmp_path)]) == 2
    assert "[workspace.order]: must be one of score, rank" in capsys.readouterr().err


def test_parameters_given_for_the_run_count_in_the_checks(tmp_path):
    write(tmp_path, BASE)          # no [report] baseline / challenger
    jobs = {j.notebook.name: j for j in plan(None, workspace=tmp_path)}
    assert jobs["04-label-bias"].skip == "no baseline config ([report] baseline)"
    jobs = {j.notebook.name: j for j in plan(None, {"baseline": "a"}, workspace=tmp_path)}
    assert jobs["04-label-bias"].skip is None
