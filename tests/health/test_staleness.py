"""Staleness on hand-made judgments: older, same, newer, removed, unversioned."""
import pytest

from ragnb.errors import InputError
from ragnb.health import staleness

from ._data import corpus, make_test_set, q


@pytest.fixture
def stale(tmp_path):
    ts = make_test_set(tmp_path, [
        q("q1", [("p1", 2, "2026-01-01"), ("p2", 0, "2026-03-01")]),
        q("q2", [("p1", 0, "2026-03-01"), ("p2", 1, "2026-05-01"), ("p9", 0, "2026-01-01")]),
        q("q3", [("p2", 2)]),
    ])
    build = corpus(tmp_path, [("p1", "2026-03-01"), ("p2", "2026-03-01")])
    return staleness(ts, build)


def test_each_judgment_gets_its_status(stale):
    j = stale.judgments
    got = {(a, b): s for a, b, s in zip(j["query_id"], j["passage_id"], j["status"])}
    assert got == {
        ("q1", "p1"): "stale",        # judged 01-01, the document changed 03-01
        ("q1", "p2"): "current",      # judged at the build's version
        ("q2", "p1"): "current",
        ("q2", "p2"): "current",      # judged on a later build of an unchanged document
        ("q2", "p9"): "removed",      # not in the build
        ("q3", "p2"): "unversioned",  # no doc_version: cannot tell
    }


def test_counts_per_query_and_queue(stale):
    c = stale.counts().set_index("status")
    assert c["judgments"].to_dict() == {"current": 3, "stale": 1, "removed": 1, "unversioned": 1}
    assert c.loc["stale", "relevant"] == 1 and c.loc["removed", "relevant"] == 0
    per = stale.per_query().set_index("query_id")
    assert per["needs_review"].to_dict() == {"q1": True, "q2": True, "q3": False}
    assert per.loc["q1", "relevant_to_review"] == 1 and per.loc["q2", "relevant_to_review"] == 0
    queue = stale.review_queue()
    assert list(zip(queue["query_id"], queue["passage_id"])) == [("q1", "p1"), ("q2", "p9")]


def test_number_versions_compare_as_numbers(tmp_path):
    ts = make_test_set(tmp_path, [q("q1", [("p1", 2, "v2"), ("p2", 1, "1.10")])])
    build = corpus(tmp_path, [("p1", "v10"), ("p2", "1.9")])
    status = staleness(ts, build).judgments["status"].tolist()
    assert status == ["stale", "current"]   # v2 < v10; 1.10 > 1.9 (not string order)


def test_a_version_in_another_scheme_names_the_test_set_line(tmp_path):
    ts = make_test_set(tmp_path, [q("q1", [("p1", 2, "2026-01-01")]), q("q2", [("p1", 1, "v3")])])
    build = corpus(tmp_path, [("p1", "2026-03-01")])
    with pytest.raises(InputError, match=r"ts.jsonl:2: doc_version 'v3'.*date versions"):
        staleness(ts, build)


def test_staleness_finding_counts_what_to_review(stale):
    """Of 6 judgments, q1/p1 is stale (grade 2) and q2/p9 removed (grade 0): 2 (33.3%) to
    review, 1 of them relevant, on 2 queries."""
    f = stale.finding()
    assert f.headline.answer.startswith("2 of the 6 judgments (33.3%) are stale or removed")
    assert f.headline.answer.endswith("(1 stale, 1 removed), 1 of them relevant, on 2 queries.")
    assert f.headline.verdict == "2 to review"
    assert list(f.display_table["share"]) == ["50.0%", "16.7%", "16.7%", "16.7%"]
    assert f.checks["holds"].all()
    assert f.description.startswith("6 judgments against the corpus build")
