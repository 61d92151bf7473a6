"""Per-file, all-files, read-set and caller recall on hand-made tasks and runs."""
import numpy as np
import pandas as pd
import pytest

from ragnb.codetasks.recall import (
    all_files_check,
    expected_all_files,
    file_of,
    recall_summary,
    task_recall,
)
from ragnb.errors import InputError
from ragnb.io import read_run

SIG = [{"path": "b.py", "name": "f", "qualname": "f", "before": "x", "after": "x, y"}]


def tasks():
    return pd.DataFrame([
        # t1: three files, two found -> per-file 2/3, all-files 0; read set 1/1
        {"task_id": "t1", "edit_set": ["a.py", "b.py", "c.py"], "read_set": ["r.py"],
         "callers": [], "signature_changes": []},
        # t2: signature change, 4 callers (2 in the edit set), 1 caller found
        {"task_id": "t2", "edit_set": ["b.py", "c1.py", "c2.py"], "read_set": [],
         "callers": ["c1.py", "c2.py", "c3.py", "c4.py"], "signature_changes": SIG},
        # t3: one file found through a chunk at rank 2 -> 1 and 1
        {"task_id": "t3", "edit_set": ["d.py"], "read_set": ["r.py", "s.py"],
         "callers": [], "signature_changes": []},
    ])


RUN = {
    "t1": ["a.py#0", "x.py#1", "b.py#3", "a.py#1", "r.py#0", "c.py#0"],   # c.py at rank 6
    "t2": ["b.py#0", "c1.py#2", "x.py#0", "c3.py#0"],
    "t3": ["x.py#0", "d.py#5"],
}


def test_metrics_by_hand():
    r = task_recall(tasks(), RUN, k=5)
    v = {m: r.values(m).to_dict() for m in ("per_file", "all_files", "read_set", "caller")}
    assert v["per_file"] == pytest.approx({"t1": 2 / 3, "t2": 2 / 3, "t3": 1.0})
    assert v["all_files"] == {"t1": 0.0, "t2": 0.0, "t3": 1.0}
    assert v["read_set"] == pytest.approx({"t1": 1.0, "t3": 0.0})
    assert v["caller"] == {"t2": 0.5}       # c1 and c3 of four callers
    r6 = task_recall(tasks(), RUN, k=6)      # c.py enters at rank 6
    assert r6.values("all_files").to_dict() == {"t1": 1.0, "t2": 0.0, "t3": 1.0}


def test_summary_means_and_interval():
    r = task_recall(tasks(), RUN, k=5)
    s = recall_summary(r, resamples=2000, seed=1).set_index("metric")
    assert s.loc["per_file", "mean"] == pytest.approx((2 / 3 + 2 / 3 + 1) / 3)
    assert s.loc["all_files", "mean"] == pytest.approx(1 / 3)
    assert (s.loc["per_file", "files"], s.loc["per_file", "found"]) == (7, 5)
    # all-files is 0, 0, 1: three skewed values fail Cochran's rule (n >= 25 G1^2), so
    # the interval is the betting one, which for 3 values in [0, 1] spans all of [0, 1]
    lo, hi = s.loc["all_files", ["ci_low", "ci_high"]]
    assert (lo, hi) == (0.0, 1.0)
    # caller recall is defined on one task: no interval, said so
    assert np.isnan(s.loc["caller", "ci_low"]) and "1 task" in s.loc["caller", "method"]
    assert "betting interval" in s.loc["per_file", "method"]
    assert "Cochran's rule trusts a t-interval from n >= 25 x skewness^2 = 75, here n = 3" in (
        s.loc["per_file", "method"])  # per-file 2/3, 2/3, 1: adjusted skewness sqrt(3) = 1.73


def test_run_file_read_with_core_readers(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("".join(f"{q} Q0 {p} {i} {10 - i} bm25\n" for q, ranking in RUN.items()
                            for i, p in enumerate(ranking, start=1)))
    by_path = task_recall(tasks(), path, k=5)
    by_run = task_recall(tasks(), read_run(path), k=5)
    by_dict = task_recall(tasks(), RUN, k=5)
    pd.testing.assert_frame_equal(by_path.table, by_dict.table)
    assert by_run.run == "run"


def test_an_empty_ranking_in_a_run_file_retrieved_nothing(tmp_path):
    """Issue 37 item 6: a task the run lists with an empty ranking is answered (with
    nothing), not missing: scored 0 under the default missing="error", with a note. A task
    the file leaves out is still an error."""
    import json

    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({**RUN, "t3": []}) + "\n")
    run = read_run(path)
    assert run.empty == ("t3",)
    r = task_recall(tasks(), path, k=5)
    assert r.values("all_files").to_dict() == {"t1": 0.0, "t2": 0.0, "t3": 0.0}
    assert [(n.kind, n.count) for n in r.notes] == [("empty", 1)]
    assert "answers with an empty ranking, scored as retrieving nothing" in r.description
    path.write_text(json.dumps({"t1": RUN["t1"], "t3": []}) + "\n")
    with pytest.raises(InputError, match=r"\[t2\].*1 task\(s\) have no ranking"):
        task_recall(tasks(), path, k=5)


def test_plain_file_paths_and_file_of():
    assert file_of("a/b.py#L10-L40") == "a/b.py" and file_of("a/b.py") == "a/b.py"
    r = task_recall(tasks().iloc[[2]], {"t3": ["./d.py"]}, k=1)
    assert r.values("all_files").tolist() == [1.0]


def test_missing_extra_and_dropped_tasks():
    with pytest.raises(InputError, match=r"\[t3\].*1 task\(s\) have no ranking"):
        task_recall(tasks(), {k: v for k, v in RUN.items() if k != "t3"}, k=5)
    r = task_recall(tasks(), {k: v for k, v in RUN.items() if k != "t3"}, k=5, missing="empty")
    assert r.values("all_files")["t3"] == 0.0 and r.notes[0].count == 1
    with pytest.raises(InputError, match=r"\[zz\].*not tasks"):
        task_recall(tasks(), {**RUN, "zz": ["a.py"]}, k=5)
    r = task_recall(tasks(), {**RUN, "zz": ["a.py"], "old": ["a.py"]}, k=5, extra="drop",
                    dropped_ids=["old"])
    assert sorted((n.kind, n.count) for n in r.notes) == [("dropped_tasks", 1), ("extra", 1)]
    with pytest.raises(InputError, match=r"\[k\]: k must be a positive integer"):
        task_recall(tasks(), RUN, k=0)


def test_expected_all_files_seed_002_check():
    # SPEC section 9: 0.91 per-file recall, 3.4 files a task, independent misses -> about 0.73
    assert expected_all_files(0.91, 3.4) == pytest.approx(0.91 ** 3.4)
    assert round(expected_all_files(0.91, 3.4), 2) == 0.73
    # each task's own size: mean of p ** n_i
    assert expected_all_files(0.9, [1, 3]) == pytest.approx((0.9 + 0.729) / 2)
    with pytest.raises(InputError, match=r"\[per_file_recall\]"):
        expected_all_files(1.2, 3)
    with pytest.raises(InputError, match=r"\[files_per_task\]"):
        expected_all_files(0.9, [])


def test_all_files_check_rows():
    r = task_recall(tasks(), RUN, k=5)
    c = all_files_check(r)["value"].tolist()
    p, sizes = (2 / 3 + 2 / 3 + 1) / 3, np.array([3, 3, 1])
    assert c == pytest.approx([p ** sizes.mean(), np.mean(p ** sizes), 1 / 3])
    # the row says p in points (mean per-file recall 7/9 = 77.8), not 0.778 (issue 23 #10)
    assert all_files_check(r)["all_files"].iloc[0] == (
        "independent misses: per-file recall 77.8 points, 2.33 files a task (p ^ n)")


def test_recall_finding_leads_with_per_file_and_all_files():
    """k=5: per-file {2/3, 2/3, 1} -> 77.8 points. Three skewed tasks fail Cochran's rule,
    so the interval is the betting one (the percentile bootstrap's [66.7, 100.0], from
    all three draws 2/3 with probability 8/27, claimed more than three tasks can show);
    its ends are those of ragnb.stats.betting.betting_interval on [0, 1] (tested against
    theory in tests/stats/test_betting.py). All-files {0, 0, 1} -> 33.3 in [0, 100];
    read set {1, 0} -> 50.0 in [0, 100]; caller {0.5} on one task has no interval."""
    from ragnb.result import Analysis, finding

    r = task_recall(tasks(), RUN, k=5)
    assert isinstance(r, Analysis)
    f = finding(r, chart=False)
    assert f.headline.answer == (
        "At k=5, the run retrieves 77.8 [16.3, 100.0] points of the files a change edits "
        "(per-file recall) but every edited file in only 33.3 [0.0, 100.0] points of the 3 "
        "tasks (all-files recall); read-set recall 50.0 [0.0, 100.0] points on 2 tasks; "
        "caller recall 50.0 [—, —] points on 1 tasks.")
    assert f.headline.verdict == "all files 33.3 points"
    # files found: t1 2 of 3, t2 2 of 3, t3 1 of 1; read sets 1 of 1 and 0 of 2; callers 2 of 4
    assert list(f.display_table["files found"]) == ["5 of 7", "5 of 7", "1 of 3", "2 of 4"]
    assert f.checks["holds"].all() and len(f.checks) == 2
    assert "file recall at k=5 of the run on 3 tasks" in f.description
    assert "10,000 resamples" in f.description
    broken = type(r)(r.table.assign(found=r.table["files"] + 1), r.k)
    assert not finding(broken, chart=False).checks["holds"].iloc[0]


def test_caller_table_names_what_changed_in_a_few_characters():
    """Issue 37 item 6: the full before -> after lists became about 80 lines of footnote
    markers on the page; each changed function is now named with its parameter diff."""
    from ragnb.codetasks.recall import caller_table
    from ragnb.codetasks.symbols import parameter_diff

    t = caller_table(tasks(), task_recall(tasks(), RUN, k=5))
    assert t.to_dict("records") == [{"task_id": "t2", "functions": "f (+y)", "edit_files": 3,
                                     "callers": 4, "callers_in_edit_set": 2,
                                     "callers_found": 2}]
    assert parameter_diff("a, b=1, *args", "a, b=2, **kw") == "+kw, -args, ~b"
    assert parameter_diff("a, b", "b, a") == "reordered"
    assert parameter_diff("a: int", "a: str") == "~a"
    assert parameter_diff("a", "a b") == "(a) -> (a b)"    # does not parse: as written
