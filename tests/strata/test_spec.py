"""Stratification specs: the file format, its errors (file and key), and apply_spec by hand."""
from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.paths import DEMO_DIR
from ragnb.strata import StrataSpec, apply_spec, read_spec, write_spec

VALID = """\
column = "query_type"
written_at = 2026-07-03T09:00:00Z
written_by = "annotator A"
origin = "pre-registered"
note = "seed 000's four types"
exclude = ["malformed"]

[merge]
other = ["out_of_scope", "follow_up"]
"""


def write(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_every_field(tmp_path):
    spec = read_spec(write(tmp_path, VALID))
    assert spec.column == "query_type"
    assert spec.written_at == datetime(2026, 7, 3, 9, 0, tzinfo=UTC)
    assert spec.written_by == "annotator A"
    assert spec.origin == "pre-registered"
    assert dict(spec.merge) == {"other": ("out_of_scope", "follow_up")}
    assert spec.exclude == ("malformed",)
    assert spec.source == str(tmp_path / "spec.toml")


def test_written_at_as_text_with_offset_is_converted_to_utc(tmp_path):
    text = VALID.replace("2026-07-03T09:00:00Z", '"2026-07-03T11:00:00+02:00"')
    assert read_spec(write(tmp_path, text)).written_at == datetime(2026, 7, 3, 9, tzinfo=UTC)


def test_round_trip_through_toml_keeps_awkward_text(tmp_path):
    spec = StrataSpec(column='type "q"', merge={"a\\b": ("x\ny", "ü")}, exclude=("<script>",),
                      written_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
                      written_by="O'Brien", origin="what-if", note="tab\there",
                      log=("step 1", "step \"2\""))
    back = read_spec(write_spec(spec, tmp_path / "out.toml"))
    for field in ("column", "exclude", "written_at", "written_by", "origin", "note", "log"):
        assert getattr(back, field) == getattr(spec, field), field
    assert dict(back.merge) == dict(spec.merge)


def test_write_refuses_to_overwrite(tmp_path):
    spec = read_spec(write(tmp_path, VALID))
    with pytest.raises(InputError, match="refusing to overwrite"):
        write_spec(spec, tmp_path / "spec.toml")


def test_the_demo_spec_reads():
    spec = read_spec(DEMO_DIR / "specs" / "production_query_type.toml")
    assert (spec.column, spec.origin, spec.exclude, dict(spec.merge)) == \
        ("query_type", "pre-registered", (), {})


@pytest.mark.parametrize("text, key, message", [
    (VALID.replace('column = "query_type"\n', ""), "column", "missing required key `column`"),
    (VALID.replace("exclude", "exlude"), "exlude", "unknown key"),
    (VALID.replace("2026-07-03T09:00:00Z", "2026-07-03T09:00:00"), "written_at",
     "needs a time zone"),
    (VALID.replace("2026-07-03T09:00:00Z", '"next tuesday"'), "written_at", "not an ISO 8601"),
    (VALID.replace('exclude = ["malformed"]', 'exclude = "malformed"'), "exclude",
     "list of strings"),
    (VALID.replace('other = ["out_of_scope", "follow_up"]', 'other = "out_of_scope"'),
     "merge.other", "list of strings"),
    (VALID + 'more = ["follow_up"]\n', "merge.more", "merged twice"),
    (VALID.replace('exclude = ["malformed"]', 'exclude = ["follow_up"]'), "exclude",
     "is merged into 'other'"),
    (VALID.replace('exclude = ["malformed"]', 'exclude = ["a", "a"]'), "exclude",
     "excluded twice"),
    (VALID.replace('"pre-registered"', '"later"'), "origin", "must be one of"),
    (VALID.replace('"annotator A"', '"  "'), "written_by", "must name someone"),
    (VALID.replace('column = "query_type"', "column = 3"), "column", "expected a string"),
    (VALID.replace("[merge]", "[merge]\npooled = [\"malformed\"]"), "merge.pooled",
     "other than 'pooled'"),
    (VALID.replace("[merge]\nother", "[merge]\nempty = []\nother"), "merge.empty",
     "at least one label"),
])
def test_errors_name_the_file_and_the_key(tmp_path, text, key, message):
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=message) as err:
        read_spec(path)
    assert err.value.source == str(path)
    assert err.value.key == key


def test_invalid_toml_names_the_file_and_line(tmp_path):
    path = write(tmp_path, 'column = "a"\nwritten_at = \n')
    with pytest.raises(InputError, match=r"not valid TOML.*line 2") as err:
        read_spec(path)
    assert err.value.source == str(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read the spec"):
        read_spec(tmp_path / "nope.toml")


# ---------------------------------------------------------------- apply_spec
@pytest.fixture
def table():
    """10 queries: a x4, b x3, c x2 and one with no value (-> unclassified)."""
    return pd.DataFrame({
        "query_id": [f"q{i}" for i in range(10)],
        "kind": ["a", "a", "a", "a", "b", "b", "b", "c", "c", None],
        "turn": ["1", "10", "2", "9", "1", "2", "10", "2", "1", "9"],
    })


def test_plain_column_with_unclassified(table):
    applied = apply_spec(table, "kind")
    assert applied.labels.value_counts().to_dict() == {"a": 4, "b": 3, "c": 2, "unclassified": 1}
    assert applied.labels["q9"] == "unclassified"
    assert applied.n_unclassified == 1
    assert len(applied.excluded) == 0 and applied.steps == ()


def test_merge_then_exclude_with_counts_in_the_steps(table):
    spec = StrataSpec("kind", merge={"bc": ("b", "c")}, exclude=("unclassified",))
    applied = apply_spec(table, spec)
    assert applied.labels.value_counts().to_dict() == {"bc": 5, "a": 4}
    assert applied.excluded.to_dict() == {"q9": "unclassified"}
    assert applied.original["q7"] == "c"   # before the spec
    assert applied.steps == ("merged b (3) + c (2) into 'bc' (5 queries)",
                             "excluded 'unclassified' (1 queries)")


def test_a_merged_label_can_be_excluded(table):
    applied = apply_spec(table, StrataSpec("kind", merge={"bc": ("b", "c")}, exclude=("bc",)))
    assert sorted(applied.labels.unique()) == ["a", "unclassified"]
    assert len(applied.excluded) == 5


def test_numbers_stored_as_text_keep_numeric_order(table):
    labels = apply_spec(table, "turn").labels
    assert list(labels.cat.categories) == ["1", "2", "9", "10"]


def test_categorical_order_is_kept_with_merges_in_place():
    t = pd.DataFrame({"query_id": list("abcde"),
                      "depth": pd.Categorical(["1-2", "3-6", ">=7", "3-6", "1-2"],
                                              categories=["1-2", "3-6", ">=7"])})
    labels = apply_spec(t, StrataSpec("depth", merge={"3+": ("3-6", ">=7")})).labels
    assert list(labels.cat.categories) == ["1-2", "3+"]


def test_query_ids_add_unclassified_and_count_rows_for_other_queries(table):
    applied = apply_spec(table, "kind", query_ids=["q0", "q4", "new"])
    assert applied.labels.to_dict() == {"q0": "a", "q4": "b", "new": "unclassified"}
    assert applied.labelled_elsewhere == 8   # q1-q3, q5-q9 are not being compared


def spec_at(tmp_path, body):
    return read_spec(write(tmp_path, 'column = "kind"\nwritten_at = 2026-01-01T00:00:00Z\n'
                                     f'written_by = "me"\n{body}'))


@pytest.mark.parametrize("body, key, message", [
    ('[merge]\nx = ["a", "zz"]\n', "merge.x", "'zz' is not a value of 'kind'"),
    ('exclude = ["zz"]\n', "exclude", "'zz' is not a stratum here"),
    ('[merge]\na = ["b", "c"]\n', "merge.a", "'a' is already a value of 'kind'"),
    ('exclude = ["a", "b", "c", "unclassified"]\n', "exclude", "every stratum is excluded"),
])
def test_apply_errors_name_the_spec_file_and_key(tmp_path, table, body, key, message):
    spec = spec_at(tmp_path, body)
    with pytest.raises(InputError, match=message) as err:
        apply_spec(table, spec)
    assert (err.value.source, err.value.key) == (str(tmp_path / "spec.toml"), key)


def test_unknown_column_lists_the_columns(tmp_path, table):
    spec = read_spec(write(tmp_path, VALID))
    with pytest.raises(InputError, match=r"column 'query_type' is not in the strata table "
                                         r"\(columns: kind, turn\)") as err:
        apply_spec(table, spec)
    assert err.value.key == "column"


def test_a_stratum_named_pooled_is_refused():
    t = pd.DataFrame({"query_id": ["a", "b"], "kind": ["pooled", "x"]})
    with pytest.raises(InputError, match="may not be called 'pooled'"):
        apply_spec(t, "kind")


def test_specs_built_in_code_are_checked_the_same_way():
    assert StrataSpec("k", merge={"a": ["x", "y"]}, exclude=["z"]).merge == {"a": ("x", "y")}
    with pytest.raises(InputError, match="`exclude` must be a list of labels"):
        StrataSpec("k", exclude="abc")
    with pytest.raises(InputError, match="a merge lists labels"):
        StrataSpec("k", merge={"a": "xy"})
    with pytest.raises(InputError, match="states written_at and written_by"):
        StrataSpec("k", origin="pre-registered")
