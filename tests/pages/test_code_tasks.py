"""Page 07-code-tasks: files resolved from [codetasks], every section from one run, and
``ragnb tasks score`` printing the same Finding."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from ragnb.cli import main
from ragnb.errors import InputError
from ragnb.pages import resolve, run
from ragnb.pages.code_tasks import KEEP, CodeTasksInputs
from ragnb.paths import DEMO_DIR
from ragnb.result import plain_markdown
from tests.pages import missing_reason

TASKS = DEMO_DIR / "codetasks" / "tasks.jsonl"
RUN = DEMO_DIR / "codetasks" / "run.jsonl"


@pytest.fixture(scope="module")
def finding():
    return run(resolve("07-code-tasks", DEMO_DIR, resamples=200))


def _jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path, text):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "ragnb.toml").write_text('[test_sets.main]\npath = "qrels.txt"\n' + text)
    return tmp_path


def test_resolve_reads_the_manifest_names_and_given_values_win(tmp_path):
    inputs = resolve("07-code-tasks", DEMO_DIR)
    assert isinstance(inputs, CodeTasksInputs)
    assert (inputs.tasks_file, inputs.run_file) == (str(TASKS), str(RUN))
    assert (inputs.k, inputs.keep, inputs.missing, inputs.extra) == (10, KEEP, "error", "error")
    other = tmp_path / "other.jsonl"
    given = resolve("code-tasks", DEMO_DIR, run_file=str(other), k=5, keep="caller>=0.5", seed=3)
    assert (given.tasks_file, given.run_file) == (str(TASKS), str(other))
    assert (given.k, given.keep, given.seed) == (5, "caller>=0.5", 3)
    with pytest.raises(InputError, match="unknown metric 'recall'"):
        resolve("07-code-tasks", DEMO_DIR, keep="recall>=0.5")


def test_k_and_keep_come_from_the_manifest_when_not_given(tmp_path):
    # [report] k and keep are manifest keys for this page; the notebook's defaults used to
    # win over them silently
    ws = _write(tmp_path, f'[codetasks]\ntasks = "{TASKS}"\nrun = "{RUN}"\n'
                          '[report]\nk = 5\n[report.code-tasks]\nkeep = "caller >= 0.5"\n')
    inputs = resolve("07-code-tasks", ws)
    assert (inputs.k, inputs.keep) == (5, "caller >= 0.5")
    given = resolve("07-code-tasks", ws, k=20, keep="all_files >= 0.9")
    assert (given.k, given.keep) == (20, "all_files >= 0.9")


def test_the_manifest_names_what_a_task_the_run_lacks_becomes(tmp_path):
    (tmp_path / "tasks.jsonl").write_bytes(TASKS.read_bytes())
    lines = RUN.read_text(encoding="utf-8").splitlines()
    (tmp_path / "run.jsonl").write_text("\n".join(lines[1:]) + "\n")   # one task unranked
    ws = _write(tmp_path, '[codetasks]\ntasks = "tasks.jsonl"\nrun = "run.jsonl"\n'
                          'missing = "drop"\nextra = "drop"\n')
    inputs = resolve("07-code-tasks", ws, resamples=200)
    assert (inputs.missing, inputs.extra) == ("drop", "drop")
    recall = run(inputs).objects["recall"]
    assert recall.table["task_id"].nunique() == 69
    assert [n.kind for n in recall.notes] == ["dropped_missing"]
    bad = _write(tmp_path, '[codetasks]\ntasks = "tasks.jsonl"\nrun = "run.jsonl"\n'
                           'missing = "skip"\n')
    with pytest.raises(InputError, match="codetasks.missing"):
        resolve("07-code-tasks", bad)


def test_a_missing_input_is_named_by_resolve_and_is_the_skip_reason(tmp_path):
    ws = _write(tmp_path, "")
    reason = "no code-task files ([codetasks] tasks, run)"
    assert missing_reason(ws, "07-code-tasks") == reason
    # both files given: the workspace needs no [codetasks] table
    assert resolve("07-code-tasks", ws, tasks_file=str(TASKS), run_file=str(RUN)).k == 10


def test_run_shows_every_section_in_order_with_values_checked_directly(finding):
    assert [s.kind for s in finding.sections] == [
        "chart", "markdown", "markdown", "table", "table", "table", "table", "markdown",
        "table", "chart", "table", "table", "markdown", "table"]
    captions = [s.caption for s in finding.sections]
    assert captions[2] == "Which merged changes became tasks"   # the prose above its table
    assert captions[3].startswith("Mined, kept and dropped by which filter")
    assert captions[4].startswith("Set sizes over the kept tasks")
    assert captions[5].startswith("What the retriever is given")
    assert captions[6].startswith("Recall at 10 in points")
    assert captions[7] == "Per-file recall does not predict all-files recall"
    assert captions[8].startswith("All-files recall at 10 in points")
    assert captions[10].startswith("Tasks that change a signature")
    assert captions[11].startswith("Each keep clause against its interval")
    assert captions[12] == "What recall does not say"
    assert [s.appendix for s in finding.sections] == [False] * 13 + [True]
    assert "keep the retriever when all_files >= 80 points and caller >= 90 points" in \
        plain_markdown(finding.sections[1].content)

    # the tasks file and the run, read here without the package
    rows = [r for r in _jsonl(TASKS) if "task_id" in r]
    kept = [r for r in rows if r["kept"]]
    ranked = {q: r for line in _jsonl(RUN) for q, r in line.items()}
    top = {q: {c.split("#", 1)[0] for c in r[:10]} for q, r in ranked.items()}
    per_file = [np.mean([f in top[t["task_id"]] for f in t["edit_set"]]) for t in kept]
    all_files = [float(all(f in top[t["task_id"]] for f in t["edit_set"])) for t in kept]

    filters = finding.sections[3].content.set_index("step")
    assert filters.loc["mined", "remaining"] == len(rows) == 90
    assert filters.loc["kept", "remaining"] == len(kept) == 70
    assert filters["dropped"].sum() == len(rows) - len(kept)      # kept + dropped = mined
    assert len(finding.sections[5].content) == 6                 # the first 6 task texts
    summary = finding.sections[6].content.set_index("label")
    assert summary.loc["per-file recall@10", "mean"] == pytest.approx(np.mean(per_file))
    assert summary.loc["all-files recall@10", "mean"] == pytest.approx(np.mean(all_files))
    assert summary.loc["all-files recall@10", "n"] == len(kept)
    assert "200 resamples of n=70 tasks" in finding.sections[6].note
    check = finding.sections[8].content.set_index("all_files")
    assert check.loc["observed", "value"] == pytest.approx(np.mean(all_files))
    signature = [t for t in kept if t["signature_changes"]]
    assert finding.sections[10].content["task_id"].tolist() == [t["task_id"] for t in signature]

    # the headline is the keep verdict's, its figures those of the tables
    verdict = finding.objects["verdict"]
    assert finding.source is verdict and verdict.verdict == "fix"
    assert finding.headline.verdict == "fix"
    mean, lo, hi = (summary.loc["all-files recall@10", c] for c in ("mean", "ci_low", "ci_high"))
    # caller misses its threshold by more, so it is the answer; all_files is a Why bullet
    assert f"all_files recall is {mean * 100:.1f} [{lo * 100:.1f}, {hi * 100:.1f}] points " \
           "against all_files >= 80.0: failed." in finding.headline.why
    assert finding.headline.answer.startswith("Fix the retriever: caller recall is ")
    assert finding.headline.answer.endswith("against caller >= 90.0; 2 of 2 clauses fail.")
    clauses = finding.sections[13].content
    assert clauses["condition"].tolist() == ["all_files >= 80.0", "caller >= 90.0"]
    assert clauses["status"].tolist() == ["failed", "failed"]
    text = finding.to_text()
    assert "NaN" not in text and "nan" not in text.split()


def test_an_unranked_task_names_the_flag_and_the_manifest_key_not_a_keyword(tmp_path):
    lines = RUN.read_text(encoding="utf-8").splitlines()
    (tmp_path / "run.jsonl").write_text("\n".join(lines[1:]) + "\n")
    code, _, err = _cli("tasks", "score", "--tasks", TASKS, "--run", tmp_path / "run.jsonl",
                        "--resamples", 200)
    assert code == 2 and err.count("\n") == 1
    assert "--missing empty" in err and '[codetasks] missing = "empty"' in err
    assert "missing=" not in err and "missing='" not in err
    with pytest.raises(InputError) as raised:
        run(resolve("07-code-tasks", DEMO_DIR, run_file=str(tmp_path / "run.jsonl"),
                     resamples=200))
    assert '[codetasks] missing = "drop"' in str(raised.value)
    extra = tmp_path / "extra.jsonl"
    extra.write_text("\n".join([*lines, json.dumps({"nope": ["a.py#0"]})]) + "\n")
    code, _, err = _cli("tasks", "score", "--tasks", TASKS, "--run", extra)
    assert code == 2 and "--extra drop" in err and '[codetasks] extra = "drop"' in err
    assert "extra=" not in err


def test_tasks_score_prints_the_pages_headline_first(finding):
    code, out, _ = _cli("tasks", "score", "--tasks", TASKS, "--run", RUN, "--resamples", 200,
                        "--keep", "all_files>=0.80,caller>=0.90")
    assert code == 0
    printed = out.splitlines()
    head = finding.headline_text().splitlines()
    assert printed[:len(head)] == head
    assert printed[0] == finding.headline.question and "Verdict: fix" in printed
    # the same tables as the page, in points; a dash, never NaN
    assert out == finding.to_text()
    assert "NaN" not in out
