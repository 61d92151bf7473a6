"""Near-duplicate groups: normalisation, n-gram Jaccard by hand, union-find chains, keep rule."""
import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.health import near_duplicate_groups, normalise_query
from ragnb.health.duplicates import jaccard


def queries(texts):
    return pd.DataFrame({"query_id": [f"q{i}" for i in range(len(texts))], "query": texts})


@pytest.mark.parametrize("text, expected", [
    ("  Reset   my PASSWORD?! ", "reset my password"),
    ("Billing-address_change", "billing address change"),
    ("Ｒｅｓｅｔ", "reset"),                      # full-width letters (NFKC)
    ("???", ""),
])
def test_normalise(text, expected):
    assert normalise_query(text) == expected


def test_jaccard_by_hand():
    # " abcd " -> { ab, abc, bcd, cd }; " abce " -> { ab, abc, bce, ce }: 2 shared of 6
    assert jaccard("abcd", "abce") == pytest.approx(2 / 6)
    assert jaccard("Reset password!", "reset PASSWORD") == 1.0
    # n = 1: {' ', a, b} vs {' ', a, b, c}
    assert jaccard("ab", "abc", n=1) == pytest.approx(3 / 4)


def test_groups_members_and_the_query_to_keep():
    texts = ["Reset password?", "how do I change my billing address", "reset   PASSWORD",
             "weather tomorrow", "How do I change my billing address!!", "???", "!!"]
    d = near_duplicate_groups(queries(texts), threshold=0.9)
    m = d.members
    assert [list(g["query_id"]) for _, g in m.groupby("group")] == [
        ["q0", "q2"], ["q1", "q4"], ["q5", "q6"]]   # empty normalised texts are identical
    assert list(m.loc[m["keep"], "query_id"]) == ["q0", "q1", "q5"]
    s = d.summary().iloc[0]
    assert (s["queries"], s["groups"], s["queries_in_groups"],
            s["drop_if_one_kept"]) == (7, 3, 6, 3)
    assert d.groups()["keep_query"].tolist() == ["Reset password?",
                                                 "how do I change my billing address", "???"]


def test_single_linkage_chains_and_reports_the_weakest_pair():
    # n = 1 sets: ab~abc 3/4, abc~bcd 3/5, ab~bcd 2/5: a chain at threshold 0.6
    d = near_duplicate_groups(queries(["ab", "abc", "bcd", "xyz"]), threshold=0.6, n=1)
    assert d.members["query_id"].tolist() == ["q0", "q1", "q2"]
    assert d.members["min_similarity"].iloc[0] == pytest.approx(2 / 5)
    assert d.members.loc[d.members["keep"], "query_id"].tolist() == ["q0"]   # shortest
    assert near_duplicate_groups(queries(["ab", "abc", "bcd"]), threshold=0.7, n=1).n_groups == 1


def test_markup_stays_data():
    d = near_duplicate_groups(queries(["<script>alert(1)</script> x"] * 2))
    assert d.members["query"].iloc[0] == "<script>alert(1)</script> x"


@pytest.mark.parametrize("kwargs, message", [
    ({"threshold": 0}, "threshold"), ({"threshold": 1.5}, "threshold"), ({"n": 0}, "`n`"),
    ({"column": "text"}, "no 'text' field"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(InputError, match=message):
        near_duplicate_groups(queries(["a"]), **kwargs)


def test_duplicates_finding_counts_the_queries_that_repeat():
    """7 queries, groups {q0, q2}, {q1, q4}, {q5, q6}: 3 would go (3/7 = 42.9%), 4 stay."""
    texts = ["Reset password?", "how do I change my billing address", "reset   PASSWORD",
             "weather tomorrow", "How do I change my billing address!!", "???", "!!"]
    f = near_duplicate_groups(queries(texts), threshold=0.9).finding()
    assert f.headline.answer == ("3 of the 7 queries (42.9%) repeat another: 6 queries fall in "
                                 "3 near-duplicate groups (the largest has 2); keeping one per "
                                 "group leaves 4.")
    assert list(f.display_table["keep"]) == ["Reset password? (q0)",
                                             "how do I change my billing address (q1)",
                                             "??? (q5)"]
    assert f.checks["holds"].all()
    assert f.description.startswith("7 queries; groups: character 3-gram Jaccard >= 0.9")
    none = near_duplicate_groups(queries(["a b c", "x y z"]), threshold=0.9).finding()
    assert none.headline.answer == "No two of the 2 queries are near-duplicates."
