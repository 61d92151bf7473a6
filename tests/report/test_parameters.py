"""The parameters cell: reading, declared types, checking values."""
from __future__ import annotations

import nbformat
import pytest

from ragnb.errors import InputError
from ragnb.report.parameters import (
    TYPES,
    param_type,
    read_parameters,
    resolve_value,
    unknown_parameter,
)


def write_notebook(path, params_source, *, tag_count=1, extra_cells=()):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    cells = [nbformat.v4.new_code_cell("x = 1")]
    for _ in range(tag_count):
        c = nbformat.v4.new_code_cell(params_source)
        c.metadata["tags"] = ["parameters"]
        cells.append(c)
    cells.extend(extra_cells)
    nb.cells = cells
    nbformat.write(nb, path)
    return path


GOOD = """\
data_dir: str = "../data/demo"  # folder with the data
k: int = 10  # rank cut-off
alpha: float = 0.05  # significance level
paired: bool = True  # paired test
strata: list[str] = ["head", "tail"]  # strata shown
cutoffs: list[int] = [5, 10]  # cut-offs
limit: Optional[int] = None  # cap on queries
# a comment line is allowed

options: dict = {"a": 1}  # options
"""


def test_reads_declared_parameters_in_order(tmp_path):
    params = read_parameters(write_notebook(tmp_path / "01-x.ipynb", GOOD))
    assert list(params) == ["data_dir", "k", "alpha", "paired", "strata", "cutoffs", "limit",
                            "options"]
    assert params["k"].default == 10 and params["k"].type.name == "int"
    assert params["strata"].default == ["head", "tail"]
    assert params["limit"].default is None and params["limit"].type.name == "Optional[int]"
    assert params["alpha"].help == "significance level"
    assert params["options"].line == 10


@pytest.mark.parametrize(
    ("source", "match"),
    [
        ("k: int = 10\n", "needs a help comment"),
        ("k = 10  # no type\n", "expected `name: type = default  # help`"),
        ("k: int | None = 10  # union\n", "has type `int | None`"),
        ("k: complex = 1  # unsupported\n", "has type `complex`"),
        ("k: int = 1.5  # wrong default\n", "default of `k` must be a literal int"),
        ("k: int = len('ab')  # not a literal\n", "default of `k` must be a literal int"),
        ("k: bool = 1  # 1 is not a bool\n", "default of `k` must be a literal bool"),
        ('metric: str = "a=b"  # two equals signs\n', "papermill does not read"),
        ("cutoffs: list[int] = [\n    5, 10]  # split\n", "must fit on one line"),
        ("k: int = 1  # one\nk: int = 2  # twice\n", "declared twice"),
        ("k: int = (  # broken\n", "parameters cell"),
        ("import os\n", "expected `name: type = default  # help`"),
    ],
)
def test_invalid_parameters_cells_are_errors(tmp_path, source, match):
    path = write_notebook(tmp_path / "01-x.ipynb", source)
    with pytest.raises(InputError, match=match) as info:
        read_parameters(path)
    assert info.value.source == "01-x.ipynb"


def test_exactly_one_parameters_cell(tmp_path):
    with pytest.raises(InputError, match="found 2 cells"):
        read_parameters(write_notebook(tmp_path / "a.ipynb", "k: int = 1  # k", tag_count=2))
    with pytest.raises(InputError, match="found no cell"):
        read_parameters(write_notebook(tmp_path / "b.ipynb", "k: int = 1  # k", tag_count=0))


def test_error_names_the_line(tmp_path):
    path = write_notebook(tmp_path / "01-x.ipynb", "k: int = 1  # ok\nn: int = 'x'  # bad\n")
    with pytest.raises(InputError) as info:
        read_parameters(path)
    assert info.value.line == 2
    assert str(info.value).startswith("01-x.ipynb:2: ")


@pytest.mark.parametrize(
    ("annotation", "text", "expected"),
    [
        ("int", "20", 20),
        ("int", " -3 ", -3),
        ("float", "0.5", 0.5),
        ("float", "1e-3", 0.001),
        ("str", "ndcg@10", "ndcg@10"),
        ("bool", "true", True),
        ("bool", "No", False),
        ("bool", "0", False),
        ("list[str]", "head,tail", ["head", "tail"]),
        ("list[str]", '["a,b", "c"]', ["a,b", "c"]),
        ("list[int]", "5, 10,20", [5, 10, 20]),
        ("list[int]", "[5, 10]", [5, 10]),
        ("list[float]", "0.1,1", [0.1, 1.0]),
        ("list[str]", "", []),
        ("list", "[1, 'a']", [1, "a"]),
        ("dict", '{"a": 1}', {"a": 1}),
        ("Optional[int]", "None", None),
        ("Optional[int]", "7", 7),
        ("Optional[str]", "none", None),
    ],
)
def test_text_is_parsed_to_the_declared_type(annotation, text, expected):
    value = TYPES[annotation].parse(text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    ("annotation", "text"),
    [
        ("int", "abc"),
        ("int", "1.5"),
        ("int", "10.0"),
        ("float", "x"),
        ("bool", "maybe"),
        ("list[int]", "1,a"),
        ("list[int]", "[1, 'a']"),
        ("list", "a,b"),
        ("dict", "[1]"),
        ("Optional[int]", "seven"),
    ],
)
def test_text_that_does_not_read_as_the_type_is_refused(annotation, text):
    with pytest.raises(ValueError):
        TYPES[annotation].parse(text)


@pytest.mark.parametrize(
    ("annotation", "value", "ok"),
    [
        ("int", 3, True),
        ("int", True, False),  # bool is an int subclass, not an int parameter
        ("int", 3.0, False),
        ("float", 3, True),
        ("float", False, False),
        ("str", 3, False),
        ("bool", 1, False),
        ("list[str]", ("a", "b"), True),
        ("list[str]", ["a", 1], False),
        ("dict", [], False),
        ("Optional[float]", None, True),
    ],
)
def test_python_values_are_checked(annotation, value, ok):
    if ok:
        TYPES[annotation].check(value)
    else:
        with pytest.raises(ValueError):
            TYPES[annotation].check(value)


def test_int_for_float_becomes_float():
    assert TYPES["float"].check(3) == 3.0 and isinstance(TYPES["float"].check(3), float)


def test_annotation_whitespace_is_ignored():
    assert param_type("list[ str ]").name == "list[str]"
    with pytest.raises(KeyError):
        param_type("List[str]")


def test_resolve_value_error_names_notebook_parameter_type_and_value(tmp_path):
    params = read_parameters(write_notebook(tmp_path / "01-fit.ipynb", GOOD))
    with pytest.raises(InputError) as info:
        resolve_value(params["k"], "ten", source="01-fit")
    message = str(info.value)
    for part in ("01-fit", "`k`", "int", "'ten'"):
        assert part in message
    assert resolve_value(params["k"], "12", source="01-fit") == 12
    assert resolve_value(params["data_dir"], "5", source="01-fit") == "5"  # str stays text
    with pytest.raises(InputError, match="expects str, got 5"):
        resolve_value(params["data_dir"], 5, source="01-fit")


def test_unknown_parameter_suggests_the_close_name(tmp_path):
    params = read_parameters(write_notebook(tmp_path / "01-fit.ipynb", GOOD))
    err = unknown_parameter("alpah", params, source="01-fit")
    assert "did you mean `alpha`?" in str(err) and str(err).startswith("01-fit [alpah]")
    assert "did you mean" not in str(unknown_parameter("zzz", params, source="01-fit"))


def test_notebook_parameters_share_the_command_line_bounds(tmp_path):
    # issue 27, item 5: `ragnb report 03-strata -p resamples=1000000000` ran until killed
    from ragnb.cli._options import OPTIONS
    from ragnb.vocab import RANGES

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(
        "resamples: int = 10000  # resamples\nseed: int = 1  # seed\n"
        "holdout_share: float = 0.2  # share\nanswer_grade: int = 2  # grade")
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell]
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3",
                              "language": "python"}
    nbformat.write(nb, tmp_path / "03-x.ipynb")
    params = read_parameters(tmp_path / "03-x.ipynb")
    with pytest.raises(InputError, match=r"03-x \[resamples\]: parameter `resamples` must be "
                                         r"in \[1, 100,000\] \(bootstrap resamples\), got "
                                         "1000000000"):
        resolve_value(params["resamples"], "1000000000", source="03-x")
    for name, bad in [("seed", -1), ("holdout_share", float("nan")), ("holdout_share", 1.5),
                      ("answer_grade", 101)]:
        with pytest.raises(InputError, match=f"parameter `{name}` must be in"):
            resolve_value(params[name], bad, source="03-x")
    assert resolve_value(params["resamples"], "100000", source="03-x") == 100_000
    # the command line's options take their bounds from the same table
    for name in ("resamples", "seed", "k", "upper_grade", "top_grade"):
        parse = OPTIONS[name][1]["type"]
        lo, hi, _ = RANGES[name]
        assert parse(str(hi)) == hi and parse(str(lo)) == lo
        for outside in (hi + 1, lo - 1):
            with pytest.raises(Exception, match="is outside"):
                parse(str(outside))
