"""Query lists and folds files (ragnb.io.query_lists): the shapes read, the errors."""
from __future__ import annotations

import pytest

from ragnb.errors import InputError
from ragnb.io.query_lists import read_folds, read_query_ids


def test_the_accepted_shapes(tmp_path):
    (tmp_path / "f.json").write_text('{"dev": ["q1", 2], "test": ["q3"]}')
    (tmp_path / "l.json").write_text('[["q1"], ["q2", "q3"]]')
    (tmp_path / "ids.txt").write_text("# header\nq1 first\n\nq2\n")
    assert read_folds(tmp_path / "f.json") == {"dev": ["q1", "2"], "test": ["q3"]}
    assert read_folds(tmp_path / "l.json") == {"1": ["q1"], "2": ["q2", "q3"]}
    assert read_query_ids(tmp_path / "f.json", "test") == ["q3"]
    assert read_query_ids(tmp_path / "ids.txt") == ["q1", "q2"]


@pytest.mark.parametrize("name, text, fold, message", [
    ("a.json", '{"dev": "q1"}', "dev", 'a folds file must be a JSON object {"fold": '),
    ("a.json", '{"dev": ["q1"], "test": ["q1"]}', "dev",
     "query 'q1' is listed in fold 'dev' and again in fold 'test'"),
    ("a.json", '{"dev": ["q1"]}', "test", "no fold test; folds: dev"),
    ("a.json", '{"dev": ["q1"]}', None, "a folds file holds 1 folds (dev); name one"),
    ("a.txt", "q1\nq1\n", None, "query 'q1' is listed twice (line 1)"),
])
def test_errors_name_the_file_and_what_is_accepted(tmp_path, name, text, fold, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError) as err:
        read_query_ids(tmp_path / name, fold)
    assert message in str(err.value) and str(tmp_path / name) in str(err.value)
