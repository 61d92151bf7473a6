"""``ragnb tasks mine|score``: smoke tests, and bad input ends in one line and exit code 2."""
import json

import pytest

from ragnb.cli import main
from ragnb.paths import DEMO_DIR
from tests.codetasks.conftest import tiny_repo  # noqa: F401  (the fixture)

DEMO = DEMO_DIR / "codetasks"


def test_mine_writes_tasks_and_prints_filter_table(tiny_repo, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "tasks.jsonl"
    assert main(["tasks", "mine", "--repo", str(tiny_repo[0]), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "6 changes mined from main" in said and "2 kept" in said
    assert "edit_files" in said and "Set sizes over the kept tasks" in said
    lines = out.read_text().splitlines()
    assert len(lines) == 7 and "mining" in json.loads(lines[0])


def test_score_demo_with_keep_condition(capsys):
    assert main(["tasks", "score", "--tasks", str(DEMO / "tasks.jsonl"), "--run",
                 str(DEMO / "run.jsonl"), "--k", "10", "--resamples", "300",
                 "--keep", "all_files>=0.80,caller>=0.90"]) == 0
    said = capsys.readouterr().out
    assert "all-files recall@10" in said and "independent misses" in said
    # the page's headline first (07-code-tasks): the keep verdict, thresholds in points
    words = " ".join(said.split())
    assert words.startswith("Does the code retriever find every file a change needs? Fix the "
                            "retriever: caller recall is 44.7 ")
    assert "- all_files recall is 54.3 " in words
    assert "points against all_files >= 80.0: failed." in words
    assert "Verdict: fix" in said.splitlines()


def test_score_json(capsys):
    assert main(["tasks", "score", "--tasks", str(DEMO / "tasks.jsonl"), "--run",
                 str(DEMO / "run.jsonl"), "--resamples", "200", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["metric"] for r in rows] == ["per_file", "all_files", "read_set", "caller"]


def test_score_text_in_points_json_in_fractions(capsys):
    args = ["tasks", "score", "--tasks", str(DEMO / "tasks.jsonl"), "--run",
            str(DEMO / "run.jsonl"), "--resamples", "200"]
    assert main([*args, "--format", "json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)}
    assert 0 <= rows["all_files"]["mean"] <= 1
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "Recall at 10 in points (share of files × 100)" in out and "NaN" not in out
    line = next(ln.split() for ln in out.splitlines() if ln.startswith("all-files recall@10"))
    assert line[2:5] == [f"{rows['all_files'][c] * 100:.1f}" for c in ("mean", "ci_low",
                                                                        "ci_high")]


@pytest.mark.parametrize("args, message", [
    (["tasks", "mine"], "ragnb tasks: [--repo]: tasks mine needs --repo"),
    (["tasks", "score", "--tasks", str(DEMO / "tasks.jsonl"), "--run", str(DEMO / "run.jsonl"),
      "--keep", "all_files>=eighty"],
     "ragnb tasks: --keep [all_files]: threshold 'eighty' is not a number"),
    (["tasks", "score", "--tasks", str(DEMO / "tasks.jsonl"), "--run", str(DEMO / "run.jsonl"),
      "--keep", "recall>=0.8"],
     ("ragnb tasks: --keep [recall]: unknown metric 'recall'; choose one of per_file, "
      "all_files, read_set, caller")),
    (["tasks", "score", "--tasks", "nope.jsonl", "--run", str(DEMO / "run.jsonl")],
     "ragnb tasks: nope.jsonl: file not found"),
])
def test_bad_input_one_line_exit_2(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == message + "\n"


def test_bad_repository_exit_2(tmp_path, capsys):
    assert main(["tasks", "mine", "--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a git repository" in err


def test_run_missing_tasks_exit_2(tmp_path, capsys):
    run = tmp_path / "run.jsonl"
    run.write_text('{"nope": ["a.py#0"]}\n')
    assert main(["tasks", "score", "--tasks", str(DEMO / "tasks.jsonl"), "--run",
                 str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "have no ranking in the run" in err


def test_mine_then_score_says_a_clause_is_out_of_reach(tmp_path, capsys):
    """Issue 37 item 5 end to end, on a repository built here: one merge changes
    ``f(a)`` to ``f(a, b)``, called from six files. A run that ranks the six callers first
    finds 3 of 6 at k=3: caller recall 50.0 points is the ceiling too, so
    ``caller >= 0.90`` is out of reach (1 of 1 tasks has more than 3 files), not a
    retriever to fix; at k=7 the same run is read against its interval again."""
    from ragnb.codetasks.git import git_available
    from tests.codetasks.conftest import Git

    if not git_available():
        pytest.skip("git is not installed")
    g = Git(tmp_path / "repo")
    lib = "def f(a):\n    return a\n"
    g.write({"lib.py": lib, **{f"use{i}.py": "from lib import f\n\nf(1)\n" for i in range(6)}})
    g.commit("Initial import")
    g.merge("sig", {"lib.py": lib.replace("(a)", "(a, b=0)")}, "Sig",
            "Merge pull request #1 from dev/sig\n\nLet the helper take an offset")
    tasks = tmp_path / "tasks.jsonl"
    assert main(["tasks", "mine", "--repo", str(g.path), "--out", str(tasks)]) == 0
    task = json.loads(tasks.read_text().splitlines()[1])
    assert task["callers"] == [f"use{i}.py" for i in range(6)] and task["kept"]
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({task["task_id"]: [*task["callers"], "lib.py"]}) + "\n")
    capsys.readouterr()
    args = ["tasks", "score", "--tasks", str(tasks), "--run", str(run), "--resamples", "200",
            "--keep", "caller>=0.90"]
    assert main([*args, "--k", "3"]) == 0
    words = " ".join(capsys.readouterr().out.split())
    assert words.startswith(
        "Does the code retriever find every file a change needs? Out of reach at k=3: 1 of 1 "
        "tasks have more than 3 files, so even a perfect ranking scores at most 50.0 points "
        "of caller recall against caller >= 90.0.")
    assert "Verdict: inconclusive" in words
    assert main([*args, "--k", "7"]) == 0
    assert "Out of reach" not in capsys.readouterr().out
