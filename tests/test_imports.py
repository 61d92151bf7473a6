"""Start-up stays light: heavy modules load only where they are used.

Each check runs in a fresh interpreter, so modules loaded by other tests do
not hide an eager import.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy.stats", "altair", "papermill", "nbconvert", "ipywidgets")


def loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\nimport json\n"
             f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_ragnb_loads_no_heavy_module():
    assert loaded_after("import ragnb") == []


@pytest.mark.parametrize("module", ["pandas", "importlib.metadata"])
def test_import_ragnb_loads_no_pandas_and_reads_no_package_metadata(module):
    # importlib.metadata costs ~60 ms: ragnb.__version__ is looked up on first use
    probe = f"import sys, ragnb; print({module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_the_version_is_the_installed_distributions():
    from importlib.metadata import version

    import ragnb

    for module in ("ragnb", "ragnb.cli"):  # python -m ragnb is the console script too
        out = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                             text=True, check=True).stdout
        assert ragnb.__version__ == version("ragnb") and out == f"ragnb {version('ragnb')}\n"


def _after_cli(argv: list[str]) -> str:
    """Code running the ``ragnb`` entry point on ``argv`` (help exits through SystemExit)."""
    return ("from ragnb.cli import main\n"
            "try:\n"
            f"    main({argv!r})\n"
            "except SystemExit:\n"
            "    pass")


@pytest.mark.parametrize("argv", [["--help"], ["score", "--help"], ["compare", "--help"],
                                  ["pool", "list", "--help"], ["tasks", "score", "--help"],
                                  ["init", "--help"], ["report", "--help"],
                                  ["ledger", "select", "--help"]])
def test_the_command_line_help_loads_no_heavy_module_and_no_pandas(argv):
    probe = (f"import sys\n{_after_cli(argv)}\nimport json\n"
             f"print(json.dumps([m for m in {[*HEAVY, 'pandas', 'pyarrow', 'scipy']!r} "
             "if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []
    assert "usage: ragnb" in out


def test_the_top_level_help_loads_no_numpy_either():
    probe = f"import sys\n{_after_cli(['--help'])}\nprint('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


def test_python_dash_m_ragnb_cli_is_the_console_script():
    out = subprocess.run([sys.executable, "-m", "ragnb.cli", "score", "--help"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("usage: ragnb score") and "ndcg@k" in out


def test_score_and_trajectory_stay_functions_when_their_modules_are_imported():
    import ragnb
    import ragnb.metrics.score
    import ragnb.trajectory
    from ragnb.metrics.score import score
    from ragnb.trajectory import trajectory

    assert ragnb.score is score and ragnb.trajectory is trajectory
    assert ragnb.Scores.__module__ == "ragnb.metrics.score"


DEMO_RUNS = "data/demo/runs/production"


@pytest.mark.parametrize("argv, absent", [
    (["score", "--judgments", "data/demo/production.jsonl",
      "--run", f"a={DEMO_RUNS}/round-00.jsonl", "--run", f"b={DEMO_RUNS}/round-40.jsonl",
      "--metric", "ndcg@10", "--metric", "rr@10"], ["scipy", "ragnb.ledger", "tqdm"]),
    (["compare", "--judgments", "data/demo/production.jsonl",
      "--baseline", f"a={DEMO_RUNS}/round-00.jsonl",
      "--challenger", f"b={DEMO_RUNS}/round-40.jsonl",
      "--metric", "ndcg@10", "--resamples", "200", "--strata", "data/demo/production_strata.csv",
      "--by", "query_type"], ["scipy.stats", "scipy.integrate", "scipy.optimize", "ragnb.ledger",
                              "tqdm"]),
    (["compare", "--workspace", "data/demo", "--split", "golden", "--baseline", "round-00",
      "--challenger", "round-40", "--metric", "ndcg@10", "--resamples", "200", "--by", "intent"],
     ["scipy.stats", "scipy.integrate", "scipy.optimize", "altair", "ragnb.report"]),
])
def test_score_and_compare_on_the_demo_load_only_what_they_use(argv, absent):
    # scoring needs no scipy; a comparison needs scipy.special (intervals), not scipy.stats
    # (only --also ttest/wilcoxon) nor scipy.integrate (the ledger's expected maximum is a
    # trapezoid sum), nor the report layer;
    # without a ledger the ledger package stays unloaded, and with stderr not a terminal tqdm
    from ragnb.paths import PROJ_ROOT

    probe = (f"import sys, io, contextlib\nfrom ragnb.cli import main\n"
             f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main({argv!r}) == 0\n"
             f"import json\nprint(json.dumps([m for m in {[*HEAVY, *absent]!r} "
             "if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=PROJ_ROOT).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []
