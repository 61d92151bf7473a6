"""``ragnb lab`` and ``ragnb app``: the server command and the workspace it hands the kernels
(``--print-command``; the served dashboard itself is driven in
``tests/widgets/test_whatif_browser.py``)."""
import io
import shlex
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ragnb.cli import main
from ragnb.paths import DEMO_DIR, NOTEBOOKS_DIR
from ragnb.workspace.default import WORKSPACE_ENV


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def printed(*argv) -> tuple[str, dict[str, str], list[str]]:
    """The folder, the environment and the argv of ``--print-command``'s one line."""
    code, out, err = cli(*argv, "--print-command")
    assert code == 0, err
    words = shlex.split(out)
    assert words[0] == "cd" and words[2] == "&&"
    rest = words[3:]
    env = dict(w.split("=", 1) for w in rest if "=" in w and not w.startswith("-"))
    argv = [w for w in rest if w.split("=", 1)[0] not in env]
    return words[1], env, argv


def test_lab_serves_the_notebooks_on_localhost_with_the_workspace(monkeypatch):
    monkeypatch.delenv(WORKSPACE_ENV, raising=False)
    cwd, env, argv = printed("lab", "--workspace", DEMO_DIR, "--port", 8890, "--no-browser")
    assert cwd == str(NOTEBOOKS_DIR)
    assert env[WORKSPACE_ENV] == str(DEMO_DIR / "ragnb.toml")
    assert argv[:3] == [sys.executable, "-m", "jupyterlab"]
    assert {f"--ServerApp.root_dir={NOTEBOOKS_DIR}", "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port=8890", "--no-browser"} <= set(argv)
    _, _, argv = printed("lab", "03")
    assert argv[-1] == "03-strata.ipynb"  # opened at once


def test_app_serves_one_notebook_with_voila(monkeypatch, tmp_path):
    monkeypatch.setenv(WORKSPACE_ENV, str(DEMO_DIR))  # the default when --workspace is absent
    cwd, env, argv = printed("app", "strata")
    assert env.get(WORKSPACE_ENV, str(DEMO_DIR / "ragnb.toml")) == str(DEMO_DIR / "ragnb.toml")
    assert argv[:4] == [sys.executable, "-m", "voila", str(NOTEBOOKS_DIR / "03-strata.ipynb")]
    assert "--Voila.ip=127.0.0.1" in argv


def test_bad_input_is_one_line_naming_it(tmp_path):
    code, _, err = cli("app", "03", "--workspace", tmp_path, "--print-command")
    assert code == 2 and err.count("\n") == 1
    assert str(tmp_path / "ragnb.toml") in err and "ragnb init" in err
    code, _, err = cli("app", "09", "--print-command")
    assert code == 2 and "no notebook named `09`" in err and "03-strata" in err
    code, _, err = cli("lab", "--notebooks", tmp_path / "none", "--print-command")
    assert code == 2 and "--notebooks" in err


def test_app_without_voila_says_which_extra_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "voila" else real(name, *a))
    code, _, err = cli("app", "03", "--print-command")
    assert code == 2
    assert "pip install 'ragnb[app]'" in err


@pytest.mark.parametrize("command", ["lab", "app"])
def test_help_names_the_workspace_variable(command):
    with pytest.raises(SystemExit), redirect_stdout(io.StringIO()) as out:
        main([command, "--help"])
    assert "RAGNB_WORKSPACE" in out.getvalue()


def test_lab_runs_as_root_and_passes_on_what_follows_the_double_dash(monkeypatch):
    """``--allow-root`` (a container's root user) and the words after ``--`` reach
    JupyterLab as given, before the notebook to open; nothing is started."""
    monkeypatch.delenv(WORKSPACE_ENV, raising=False)
    _, _, argv = printed("lab", "--workspace", DEMO_DIR, "--allow-root", "--no-browser")
    assert "--allow-root" in argv
    _, _, argv = printed("lab", "--workspace", DEMO_DIR)
    assert "--allow-root" not in argv
    code, out, err = cli("lab", "03", "--allow-root", "--print-command", "--",
                         "--ServerApp.token=", "--ServerApp.port_retries=0")
    assert code == 0, err
    argv = shlex.split(out)[3:]
    assert argv[argv.index("--allow-root"):] == [
        "--allow-root", "--ServerApp.token=", "--ServerApp.port_retries=0", "03-strata.ipynb"]


def test_app_accepts_allow_root_and_passes_on_what_follows_the_double_dash(monkeypatch):
    """Voila has no root check (and no --allow-root flag): the option is accepted, so one
    command line serves both, and not handed to Voila; words after ``--`` are."""
    monkeypatch.delenv(WORKSPACE_ENV, raising=False)
    code, out, err = cli("app", "03", "--allow-root", "--print-command", "--",
                         "--theme=dark", "--port=8899")
    assert code == 0, err
    argv = shlex.split(out)[3:]
    assert "--allow-root" not in argv
    assert argv[-2:] == ["--theme=dark", "--port=8899"]


def test_a_double_dash_keeps_its_meaning_for_other_commands():
    """Only lab and app pass words on: elsewhere ``--`` is argparse's (end of options)."""
    from ragnb.cli import _passed_on

    assert _passed_on(["score", "--", "x"], "score") == (["score", "--", "x"], None)
    assert _passed_on(["lab", "--", "--x"], "lab") == (["lab"], ["--x"])
    assert _passed_on(["lab"], "lab") == (["lab"], [])
