"""Start-up stays light: heavy modules load only where they are used.

Each check runs in a fresh interpreter, so modules loaded by other tests do
not hide an eager import.
"""
from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("scipy.stats", "altair", "papermill", "nbconvert", "ipywidgets")


def loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\nimport json\n"
             f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_import_ragnb_loads_no_heavy_module():
    assert loaded_after("import ragnb") == []


def test_import_ragnb_loads_no_pandas():
    probe = "import sys, ragnb; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_the_command_line_help_loads_no_heavy_module():
    code = ("from ragnb.cli import build_parser\n"
            "for argv in (['--help'], ['score', '--help']):\n"
            "    try:\n"
            "        build_parser().parse_args(argv)\n"
            "    except SystemExit:\n"
            "        pass")
    assert loaded_after(code) == []


def test_score_and_trajectory_stay_functions_when_their_modules_are_imported():
    import ragnb
    import ragnb.metrics.score
    import ragnb.trajectory
    from ragnb.metrics.score import score
    from ragnb.trajectory import trajectory

    assert ragnb.score is score and ragnb.trajectory is trajectory
    assert ragnb.Scores.__module__ == "ragnb.metrics.score"
