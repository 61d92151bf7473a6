"""Charts return specs (checked through to_dict) and display nothing."""
import pandas as pd

from ragnb.codetasks.charts import all_files_by_size_chart, recall_chart
from ragnb.codetasks.keep import evaluate_keep
from ragnb.codetasks.recall import recall_summary, task_recall

TASKS = pd.DataFrame([
    {"task_id": "t1", "edit_set": ["a.py", "b.py"], "read_set": [], "callers": [],
     "signature_changes": []},
    {"task_id": "t2", "edit_set": ["c.py"], "read_set": [], "callers": [],
     "signature_changes": []},
    {"task_id": "t3", "edit_set": ["a.py", "c.py", "d.py"], "read_set": [], "callers": [],
     "signature_changes": []},
])
RUN = {"t1": ["a.py#0", "b.py#0"], "t2": ["x.py#0"], "t3": ["a.py", "c.py"]}


def test_recall_chart_layers():
    recall = task_recall(TASKS, RUN, 5)
    summary = recall_summary(recall, resamples=200)
    verdict = evaluate_keep(summary, "all_files>=0.8")
    spec = recall_chart(summary, verdict, 0.5).to_dict()
    assert len(spec["layer"]) == 4
    assert "fix" in spec["title"] or "inconclusive" in spec["title"]
    assert "(all_files >= 80.0, points)" in spec["title"]      # 0.8 stated, shown in points
    ticks = spec["layer"][2]
    assert ticks["mark"]["type"] == "tick"


def test_condition_in_points():
    from ragnb.codetasks.keep import condition_in_points

    assert condition_in_points("all_files>=0.80,caller>=0.9") == \
        "all_files >= 80.0, caller >= 90.0"


def test_all_files_by_size_points():
    spec = all_files_by_size_chart(task_recall(TASKS, RUN, 5)).to_dict()
    datasets = list(spec["datasets"].values())
    points = next(d for d in datasets if "observed" in d[0])
    # sizes 1, 2, 3: t2 missed, t1 complete, t3 missing d.py
    assert [(p["files"], p["observed"], p["tasks"]) for p in points] == [(1, 0.0, 1), (2, 1.0, 1),
                                                                          (3, 0.0, 1)]
