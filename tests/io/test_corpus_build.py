"""Corpus builds: the one validator and the version order."""
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.io.corpus_build import validate_corpus, version_key, version_scheme


@pytest.mark.parametrize("version, scheme", [
    ("2026-03-11", "date"), ("2026-03-11T09:30:00+02:00", "date"), ("v4", "number"),
    ("1.2.10", "number"), ("2026", "number"), ("draft", None), ("2026-13-40", None),
])
def test_schemes(version, scheme):
    assert version_scheme(version) == scheme


def test_order_within_a_scheme():
    assert version_key("v1.10", "number") > version_key("v1.9", "number")
    assert version_key("1.2", "number") < version_key("1.2.1", "number")
    assert version_key("v2", "number") == version_key("2", "number")
    assert version_key("2026-03-11", "date") < version_key("2026-03-11T00:00:01", "date")
    # aware times compare in UTC: 09:00+02:00 is 07:00Z, before 08:00 naive-as-UTC
    assert version_key("2026-03-11T09:00+02:00", "date") < version_key("2026-03-11T08:00", "date")
    assert version_key("v3", "date") is None


def table(rows, extra=None):
    df = pd.DataFrame(rows, columns=["passage_id", "doc_version"])
    return df.assign(**(extra or {}))


def test_extra_columns_are_kept_and_ids_normalised():
    build = validate_corpus(table([("p1", "2026-01-01"), ("p2", " 2026-02-01 ")],
                                  {"doc_id": ["d1", "d2"]}), "b.csv")
    assert build.scheme == "date" and len(build) == 2 and build.name == "b"
    assert build.passages["doc_version"].tolist() == ["2026-01-01", "2026-02-01"]
    assert build.passages["doc_id"].tolist() == ["d1", "d2"]


@pytest.mark.parametrize("rows, message, line", [
    ([("p1", "v1"), ("p1", "v2")], r"passage 'p1' appears more than once \(lines 1, 2\)", 2),
    ([("p1", "v1"), ("", "v2")], "empty passage_id", 2),
    ([("p1", "v1"), ("p2", None)], "passage 'p2' has no doc_version", 2),
    ([("p1", "v1"), ("p2", "2026-01-01")], "does not follow the build's number versions", 2),
    ([("p1", "latest")], "neither an ISO 8601 date", 1),
])
def test_bad_builds_name_the_line(rows, message, line):
    with pytest.raises(InputError, match=message) as err:
        validate_corpus(table(rows), "b.csv")
    assert err.value.line == line and err.value.source == "b.csv"


def test_missing_columns_and_empty_tables():
    with pytest.raises(InputError, match=r"lacks column\(s\) doc_version;"):
        validate_corpus(pd.DataFrame({"passage_id": ["p1"]}), "b.csv")
    with pytest.raises(InputError, match="no passages"):
        validate_corpus(table([]), "b.csv")
