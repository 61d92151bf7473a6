"""``ragnb run``: a page's finding as text; parameters checked as ``ragnb report`` checks them."""
from __future__ import annotations

import re

import pytest

from ragnb.cli.report import DESCRIPTION as REPORT_HELP
from ragnb.cli.run import DESCRIPTION as RUN_HELP
from ragnb.pages import page, resolve, run
from ragnb.paths import DEMO_DIR, NOTEBOOKS_DIR
from ragnb.report.notebooks import resolve as find_notebooks
from ragnb.report.parameters import read_parameters
from tests.cli.test_workspace_option import cli


def test_run_prints_the_same_finding_as_the_api():
    code, out, err = cli("run", "fit", "--workspace", DEMO_DIR, "-p", "resamples=200",
                         "-p", "seed=5")
    assert code == 0, err
    api = run(resolve("01-fit", DEMO_DIR, resamples=200, seed=5))
    assert out == api.to_text()
    assert out.startswith(f"{api.headline.question}\n") and "NaN" not in out


@pytest.mark.parametrize("argv, message", [
    (("-p", "k=20"), "unknown parameter `k`"),
    (("-p", "workspace=x"), "unknown parameter `workspace`"),
    (("-p", "resamples=many"), "parameter `resamples` expects int, got 'many'"),
    (("-p", "seed=1", "-p", "seed=2"), "parameter `seed` given twice"),
])
def test_a_bad_parameter_is_one_line_and_exit_2(argv, message):
    code, out, err = cli("run", "01-fit", *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_a_missing_input_is_its_reason_and_exit_2(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "a.trec").write_text("q1 Q0 d1 1 1.0 t\n")
    (tmp_path / "ragnb.toml").write_text('[test_sets.main]\npath = "qrels.txt"\n'
                                         'runs = "*.trec"\n')
    code, _, err = cli("run", "fit", "--workspace", tmp_path)
    assert code == 2 and "needs two test sets" in err


@pytest.mark.parametrize("text", [REPORT_HELP, RUN_HELP])
def test_every_help_example_names_declared_parameters(text):
    examples = re.findall(r"ragnb (?:report|run) ([\w-]+)((?: -p \S+)+)", text)
    assert examples
    for name, given in examples:
        slug = page(name).slug if name != "--all" else None
        nb = find_notebooks([slug or name], NOTEBOOKS_DIR)[0]
        declared = read_parameters(nb.path)
        keys = [kv.split("=")[0] for kv in re.findall(r"-p (\S+)", given)]
        assert set(keys) <= set(declared), (name, keys)
