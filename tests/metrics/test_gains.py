"""Gain maps for nDCG: built-in names, files, mappings, errors, and bounds."""
import json
import math

import pytest

from ragnb.errors import InputError
from ragnb.labelbias.bounds import label_bounds
from ragnb.metrics import parse_metric
from ragnb.metrics.gains import GAIN_MAPS, gain_map, load_gain_map, register_gain_map
from tests.metrics.test_kernels import example, make_run, make_test_set, values  # noqa: F401

L3 = math.log2(3)


def test_builtin_names(example):  # noqa: F811
    assert values(*example, "ndcg@3(gain=linear)") == pytest.approx(
        values(*example, "ndcg_linear@3"), abs=1e-12)
    assert str(parse_metric("ndcg@3(gain=exp)")) == "ndcg@3"
    assert gain_map("exp")([0, 1, 2, 3]).tolist() == [0, 1, 3, 7]


def test_map_from_a_json_file(example, tmp_path):  # noqa: F811
    path = tmp_path / "gains.json"
    path.write_text(json.dumps({"0": 0, "1": 1, "2": 10}))
    # q1 top 3 = c(0), u1(0), a(2): DCG = 10 / log2 4; ideal grades 2, 1, 1
    got = values(*example, f"ndcg@3(gain={path})")
    assert got["q1"] == pytest.approx(5 / (10 + 1 / L3 + 0.5), abs=1e-12)


def test_map_from_a_csv_file_and_a_mapping(example, tmp_path):  # noqa: F811
    path = tmp_path / "gains.csv"
    path.write_text("grade,gain\n0,0\n1,1\n2,3\n")
    load_gain_map(path, name="as_exp")
    register_gain_map("as_exp2", {0: 0, 1: 1, 2: 3})
    exp = values(*example, "ndcg@4")
    assert values(*example, "ndcg@4(gain=as_exp)") == pytest.approx(exp, abs=1e-12)
    assert values(*example, "ndcg@4(gain=as_exp2)") == pytest.approx(exp, abs=1e-12)


def test_grade_without_a_gain_is_an_error_naming_it(example):  # noqa: F811
    register_gain_map("partial", {0: 0, 1: 1})
    with pytest.raises(InputError, match=r"grade\(s\) 2 have no gain in gain map 'partial' "
                       r"\(it maps 0, 1\)"):
        values(*example, "ndcg@3(gain=partial)")


@pytest.mark.parametrize("content, suffix, message", [
    ('{"0": 0, "x": 1}', ".json", "grade 'x' is not a non-negative integer"),
    ('{"0": 0, "1": "a"}', ".json", "gain 'a' of grade 1 is not a number"),
    ("[1, 2]", ".json", "expected a JSON object"),
    ("{", ".json", "not valid JSON"),
    ("grade,gain\n0,0\n0,1\n", ".csv", "bad.csv:3: grade 0 is mapped twice"),
    ("g,v\n0,0\n", ".csv", "needs columns grade,gain"),
])
def test_bad_files_name_the_file_and_the_problem(tmp_path, content, suffix, message):
    path = tmp_path / f"bad{suffix}"
    path.write_text(content)
    with pytest.raises(InputError, match=message) as err:
        load_gain_map(path)
    assert "bad" in str(err.value)


def test_unknown_map_and_builtin_protection():
    with pytest.raises(InputError, match="unknown gain map 'nope'"):
        parse_metric("ndcg@10(gain=nope)")
    with pytest.raises(InputError, match="built-in gain map"):
        register_gain_map("exp", {0: 0})


def test_bounds_refuse_a_map_they_do_not_cover():
    register_gain_map("flat", {0: 0, 1: 1, 2: 1})
    ts = make_test_set([("q", "a", 2), ("q", "b", 0)])
    run = make_run({"q": ["a", "u"]}, "s")
    with pytest.raises(InputError, match="no exact bound for metric 'ndcg@2\\(gain=flat\\)'"):
        label_bounds(ts, [run], "ndcg@2(gain=flat)")
    assert "flat" in GAIN_MAPS
