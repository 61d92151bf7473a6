"""The tasks file: written and read back unchanged; bad files name line and key."""
import json

import pytest

from ragnb.codetasks import mine_tasks, read_tasks, write_tasks
from ragnb.errors import InputError


def test_round_trip(tiny_repo, tmp_path):
    mined = mine_tasks(tiny_repo[0])
    path = write_tasks(mined, tmp_path / "tasks.jsonl")
    back = read_tasks(path)
    assert back.options == mined.options
    assert back.tasks.to_dict("records") == mined.tasks.to_dict("records")
    first = json.loads(path.read_text().splitlines()[0])
    assert first["mining"]["head"] == mined.options.head and first["mining"]["max_files"] == 15


def test_minimal_tasks_from_another_miner(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"task_id": 7, "edit_set": ["a.py"]}\n'
                    '{"task_id": "x", "edit_set": [], "failed": ["edit_files"]}\n')
    mined = read_tasks(path)
    assert mined.tasks["task_id"].tolist() == ["7", "x"]
    assert mined.tasks["kept"].tolist() == [True, False]
    assert mined.kept["read_set"].tolist() == [[]]


@pytest.mark.parametrize("lines, match", [
    (["not json"], r"t.jsonl:1: invalid JSON"),
    (['["a.py"]'], r"t.jsonl:1: expected a JSON object"),
    (['{"edit_set": ["a.py"]}'], r"t.jsonl:1 \[task_id\]: a task needs"),
    (['{"task_id": "a"}'], r"t.jsonl:1 \[edit_set\]: task 'a' has no `edit_set`"),
    (['{"task_id": "a", "edit_set": "a.py"}'], (r"t.jsonl:1 \[edit_set\]: `edit_set` of task "
                                                r"'a' must be a list")),
    (['{"task_id": "a", "edit_set": ["a.py", "a.py"]}'], r"\[edit_set\]: .* lists a path twice"),
    (['{"task_id": "a", "edit_set": [], "callers": [1]}'], r"t.jsonl:1 \[callers\]"),
    (['{"task_id": "a", "edit_set": [], "signature_changes": ["f"]}'],
     r"\[signature_changes\]"),
    (['{"task_id": "a", "edit_set": [], "kept": "yes"}'], r"\[kept\]: `kept` of task 'a'"),
    (['{"task_id": "a", "edit_set": []}', '', '{"task_id": "a", "edit_set": []}'],
     r"t.jsonl:3 \[task_id\]: task 'a' is given twice \(lines 1 and 3\)"),
    (['{"mining": {"max_files": -1}}', '{"task_id": "a", "edit_set": []}'],
     r"t.jsonl:1 \[mining.max_files\]: must be a non-negative integer"),
    (['{"mining": {}}'], r"t.jsonl: the tasks file holds no task"),
])
def test_errors(tmp_path, lines, match):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=match):
        read_tasks(path)


@pytest.mark.parametrize("lines, match", [
    (['{"task_id": null, "edit_set": []}'], r"t.jsonl:1 \[task_id\]: .*got null"),
    (['{"task_id": true, "edit_set": []}'], r"t.jsonl:1 \[task_id\]: .*got true"),
    (['{"task_id": 1.5, "edit_set": []}'], r"t.jsonl:1 \[task_id\]: .*got 1.5"),
    (['{"task_id": "a", "task_id": "b", "edit_set": []}'], r"t.jsonl:1: JSON key 'task_id'"),
    (['{"task_id": "a", "edit_set": [], "author": 5}'], r"t.jsonl:1 \[author\]: .*got 5"),
    (['{"task_id": "a", "edit_set": [], "text": ["x"]}'], r"t.jsonl:1 \[text\]"),
    (['{"mining": {"version": 2}}', '{"mining": {"version": 1}}'],
     r"t.jsonl:2 \[mining\]: a second `mining` line"),
])
def test_ids_and_texts_are_strict(tmp_path, lines, match):
    """No silent coercion (issue 13): null/true ids and non-text author or text are errors."""
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=match) as exc:
        read_tasks(path)
    assert "\n" not in str(exc.value)


def test_bom_and_u2028_read(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes('\ufeff{"task_id": "a\u2028b", "edit_set": ["x.py"], "text": "l\u2028m"}\n'
                     .encode())
    mined = read_tasks(path)
    assert mined.tasks["task_id"].tolist() == ["a\u2028b"]
    assert mined.tasks["text"].tolist() == ["l\u2028m"]


def test_body_dropped_must_be_a_boolean(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"task_id": "a", "edit_set": [], "body_dropped": "no"}\n')
    with pytest.raises(InputError, match=r"t.jsonl:1 \[body_dropped\]"):
        read_tasks(path)


def test_history_facts_round_trip_and_are_checked(tmp_path):
    from ragnb.codetasks.mine import Mined

    mined = read_tasks_lines(tmp_path, ['{"mining": {"version": 2, "warnings": ["shallow"], '
                                        '"vendored_roots": {"a/b": "own version"}}}',
                                        '{"task_id": "t", "edit_set": ["x.py"], '
                                        '"bookkeeping": ["HISTORY.rst"]}'])
    assert isinstance(mined, Mined) and mined.warnings == ("shallow",)
    assert mined.vendored == {"a/b": "own version"}
    assert mined.tasks.iloc[0]["bookkeeping"] == ["HISTORY.rst"]
    with pytest.raises(InputError, match=r"t.jsonl:1 \[mining.vendored_roots\]: must map"):
        read_tasks_lines(tmp_path, ['{"mining": {"vendored_roots": ["a/b"]}}',
                                    '{"task_id": "t", "edit_set": []}'])


def read_tasks_lines(tmp_path, lines):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return read_tasks(path)
