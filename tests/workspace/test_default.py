"""The default workspace: every notebook's ``workspace`` parameter is ``""``, which means
``$RAGNB_WORKSPACE`` (set by ``ragnb lab`` and ``ragnb app``), else the bundled demo; the
report runner plans and states it the same way."""
import pytest

from ragnb.errors import InputError
from ragnb.report import runner
from ragnb.report.notebooks import discover
from ragnb.report.parameters import read_parameters
from ragnb.workspace import open_workspace
from ragnb.workspace.default import DEMO_MANIFEST, WORKSPACE_ENV, default_workspace


def tiny_workspace(folder):
    """One test set, no runs: enough to open, too little for the strata report."""
    folder.mkdir()
    (folder / "qrels.txt").write_text("q1 0 d1 1\n")
    (folder / "ragnb.toml").write_text('[test_sets.mine]\npath = "qrels.txt"\n')
    return folder


def test_empty_means_the_demo_without_the_variable(monkeypatch):
    monkeypatch.delenv(WORKSPACE_ENV, raising=False)
    assert default_workspace() == DEMO_MANIFEST
    assert open_workspace("").manifest.path == DEMO_MANIFEST.resolve()
    monkeypatch.setenv(WORKSPACE_ENV, "  ")
    assert default_workspace() == DEMO_MANIFEST


def test_empty_means_the_variable_when_set(monkeypatch, tmp_path):
    ws = tiny_workspace(tmp_path / "mine")
    monkeypatch.setenv(WORKSPACE_ENV, str(ws))
    assert open_workspace("").test_set_names == ["mine"]
    assert open_workspace(str(ws / "ragnb.toml")).test_set_names == ["mine"]  # named: as named
    monkeypatch.setenv(WORKSPACE_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(InputError, match="nowhere.*no workspace manifest"):
        open_workspace("")


def test_every_notebook_defaults_to_the_empty_workspace():
    notebooks = discover()
    assert len(notebooks) == 8
    for nb in notebooks:
        param = read_parameters(nb.path)["workspace"]
        assert param.default == "", nb.name
        assert "RAGNB_WORKSPACE" in param.help


def test_the_runner_plans_on_the_variable_and_names_it(monkeypatch, tmp_path):
    ws = tiny_workspace(tmp_path / "mine")
    monkeypatch.setenv(WORKSPACE_ENV, str(ws))
    with pytest.raises(InputError, match=f"03-strata cannot run on workspace {ws}"):
        runner.plan(["03"])
    monkeypatch.delenv(WORKSPACE_ENV)
    (job,) = runner.plan(["03"])
    assert job.skip is None
    shown = {v.name: v for v in runner._with_manifest_specs(job)}["workspace"]
    assert (shown.value, shown.origin) == (str(DEMO_MANIFEST), "default")
