"""The exact key operations behind the fast readers and the join.

Every expected value comes from pandas (``factorize``, ``duplicated``,
``merge``) on the same strings; the fingerprints only select candidates, so
the tests also force every fingerprint to collide and check that the answers
do not change (a collision may cost time, never correctness).
"""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ragnb.io import keys
from ragnb.io.keys import (
    block_codes,
    codes_for,
    duplicated_pairs,
    equal_strings,
    fingerprints,
    first_empty,
    id_series,
    matching_pairs,
)

ALPHABET = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789_-#é"))


def words(rng, pool, lengths=(1, 30)):
    """About ``pool`` distinct random strings with lengths in ``lengths`` (characters)."""
    out = ["".join(rng.choice(ALPHABET, size=rng.integers(*lengths))) for _ in range(pool)]
    return list(dict.fromkeys(out))


def random_ids(rng, n, pool, lengths=(1, 30)):
    """``n`` ids drawn from ``pool`` random strings (a list, or how many to make)."""
    if isinstance(pool, int):
        pool = words(rng, pool, lengths)
    return [pool[i] for i in rng.integers(0, len(pool), size=n)]


def chunked(values, pieces):
    """The strings as an arrow chunked array split into ``pieces`` chunks."""
    bounds = np.linspace(0, len(values), pieces + 1).astype(int)
    return pa.chunked_array([pa.array(values[a:b], type=pa.string())
                             for a, b in zip(bounds[:-1], bounds[1:])], type=pa.string())


@pytest.fixture(params=[None, 1, 7], ids=["fingerprints", "all-colliding", "7-buckets"])
def collide(request, monkeypatch):
    """Run the test as is, then with fingerprints that collide into 1 or 7 buckets."""
    buckets = request.param
    if buckets:
        def bucket(arr, out):  # by length: many groups of colliding strings
            out[...] = (np.diff(keys._offsets(arr)) % buckets).astype(np.uint64) << np.uint64(50)
        monkeypatch.setattr(keys, "_fingerprint_into", bucket)
        monkeypatch.setattr(keys, "_mix", lambda h, groups, table: None)
    return buckets


def test_fingerprints_equal_for_equal_strings_across_chunks():
    rng = np.random.default_rng(1)
    values = random_ids(rng, 5000, 300, lengths=(0, 40))
    fp = fingerprints(chunked(values, 7))
    by_value = {}
    for v, f in zip(values, fp):
        assert by_value.setdefault(v, f) == f
    # distinct strings of up to 8 bytes never share a fingerprint (exact encoding)
    short = {v: f for v, f in by_value.items() if len(v.encode()) <= 8}
    assert len(set(short.values())) == len(short)


def test_first_empty_and_nulls():
    assert first_empty(pa.chunked_array([["a", "b"], ["c", ""]])) == 3
    assert first_empty(pa.chunked_array([["a", None]])) == 1
    assert first_empty(pa.chunked_array([["a"], ["b"]])) == -1


@pytest.mark.parametrize("grouped", [True, False])
def test_block_codes_match_factorize(grouped):
    rng = np.random.default_rng(2)
    values = random_ids(rng, 3000, 50)
    if grouped:
        values = sorted(values, key=values.index)  # blocks of equal values
    codes, uniques = block_codes(chunked(values, 5))
    expected_codes, expected_uniques = pd.factorize(pd.Series(values))
    assert codes.tolist() == expected_codes.tolist()
    assert list(uniques) == list(expected_uniques)


def test_codes_for_marks_absent_values():
    index = pd.Index(["q2", "q1"])
    assert codes_for(pa.chunked_array([["q1", "q1", "q3", "q2"]]), index).tolist() == [1, 1, -1, 0]


def test_block_structure_is_remembered_per_array_object():
    a = pa.chunked_array([["x", "x", "y"]])
    b = pa.chunked_array([["y", "x", "x"]])  # another object: its own structure
    assert block_codes(a)[0].tolist() == [0, 0, 1]
    assert block_codes(b)[0].tolist() == [0, 1, 1]
    assert list(block_codes(a)[1]) == ["x", "y"]


def test_duplicated_pairs_matches_pandas(collide):
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 20, size=4000).astype(np.int32)
    values = random_ids(rng, 4000, 400)
    got = duplicated_pairs(groups, chunked(values, 3))
    expected = pd.DataFrame({"g": groups, "v": values}).duplicated().to_numpy()
    assert expected.any()
    assert np.array_equal(got, expected)


def test_duplicated_pairs_of_grouped_rows_sorted_piecewise(collide, monkeypatch):
    """Groups in contiguous blocks (a validated run): the keys are sorted in pieces cut at
    block heads; a repeat next to a piece boundary is still found."""
    monkeypatch.setattr(keys, "SORT_PIECE", 16)
    rng = np.random.default_rng(6)
    sizes = rng.integers(1, 40, size=150)
    groups = np.repeat(np.arange(len(sizes)), sizes).astype(np.int32)
    values = random_ids(rng, len(groups), 60)
    got = duplicated_pairs(groups, chunked(values, 4))
    expected = pd.DataFrame({"g": groups, "v": values}).duplicated().to_numpy()
    assert expected.any() and not expected.all()
    assert np.array_equal(got, expected)
    unique = pd.DataFrame({"g": groups, "v": values}).drop_duplicates()
    assert not duplicated_pairs(unique["g"].to_numpy(), chunked(list(unique["v"]), 3)).any()


def unique_pairs(rng, n, n_groups, pool):
    frame = pd.DataFrame({"g": rng.integers(0, n_groups, size=n).astype(np.int32),
                          "v": random_ids(rng, n, pool)})
    return frame.drop_duplicates().reset_index(drop=True)


@pytest.mark.parametrize("pieces", [1, 4])
def test_matching_pairs_matches_pandas_merge(collide, pieces):
    rng = np.random.default_rng(4)
    pool = words(rng, 100)
    left = unique_pairs(rng, 800, 10, pool)
    right = unique_pairs(rng, 600, 10, pool)
    li, ri = matching_pairs(left["g"].to_numpy(), chunked(list(left["v"]), pieces),
                            right["g"].to_numpy(), chunked(list(right["v"]), pieces))
    merged = left.reset_index().merge(right.reset_index(), on=["g", "v"])
    expected = merged.sort_values("index_x")
    assert len(expected) > 100
    assert li.tolist() == expected["index_x"].tolist()  # left rows in increasing order
    assert ri.tolist() == expected["index_y"].tolist()


@pytest.mark.parametrize("pieces", [1, 3])
def test_matching_pairs_of_grouped_sides_laid_out_by_group(collide, pieces, monkeypatch):
    """Both sides grouped (each group one block; in different group orders, some groups on
    one side only): entries are laid out group by group and sorted in small pieces."""
    monkeypatch.setattr(keys, "SORT_PIECE", 8)
    rng = np.random.default_rng(8)
    pool = words(rng, 60)

    def grouped(order):
        frame = unique_pairs(rng, 1500, 40, pool)
        frame = frame[frame["g"].isin(order)]
        rank = {g: i for i, g in enumerate(order)}
        return frame.iloc[np.argsort(frame["g"].map(rank).to_numpy(), kind="stable")
                          ].reset_index(drop=True)

    left = grouped(list(rng.permutation(35)))
    right = grouped(list(range(5, 40)))
    li, ri = matching_pairs(left["g"].to_numpy(), chunked(list(left["v"]), pieces),
                            right["g"].to_numpy(), chunked(list(right["v"]), pieces))
    assert keys._group_layout(left["g"].to_numpy(), right["g"].to_numpy()) is not None
    merged = left.reset_index().merge(right.reset_index(), on=["g", "v"]).sort_values("index_x")
    assert len(merged) > 100
    assert li.tolist() == merged["index_x"].tolist()
    assert ri.tolist() == merged["index_y"].tolist()


def test_matching_pairs_with_an_empty_side():
    li, ri = matching_pairs(np.zeros(2, np.int32), pa.chunked_array([["a", "b"]]),
                            np.zeros(0, np.int32), pa.chunked_array([], type=pa.string()))
    assert len(li) == len(ri) == 0


def test_matching_pairs_with_small_blocks(monkeypatch):
    """Pieces and blockwise loops meet at their boundaries without losing a pair."""
    monkeypatch.setattr(keys, "BLOCK", 7)
    rng = np.random.default_rng(5)
    pool = words(rng, 80)
    left = unique_pairs(rng, 500, 5, pool)
    right = unique_pairs(rng, 400, 5, pool)
    li, ri = matching_pairs(left["g"].to_numpy(), chunked(list(left["v"]), 3),
                            right["g"].to_numpy(), chunked(list(right["v"]), 2))
    merged = left.reset_index().merge(right.reset_index(), on=["g", "v"]).sort_values("index_x")
    assert len(merged) > 20
    assert li.tolist() == merged["index_x"].tolist()
    assert ri.tolist() == merged["index_y"].tolist()


def test_equal_strings_mixed_string_types():
    a = pa.chunked_array([["aa", "b"], ["c"]], type=pa.string())
    b = pa.chunked_array([["c", "aa"]], type=pa.large_string())
    assert equal_strings(a, np.array([0, 1, 2]), b, np.array([1, 0, 0])).tolist() == [
        True, False, True]


def test_id_series_is_arrow_string():
    s = id_series(pa.chunked_array([["a"], ["b", "c"]], type=pa.large_string()))
    assert s.dtype == keys.ID_DTYPE
    assert s.tolist() == ["a", "b", "c"]


def test_take_sorted_across_chunks():
    values = pa.chunked_array([["a", "b"], [], ["c"], ["d", "e", "f"]])
    rows = np.array([0, 2, 3, 5])
    assert keys.take_sorted(values, rows).to_pylist() == ["a", "c", "d", "f"]
    assert keys.take_sorted(values, np.array([], dtype=int)).to_pylist() == []
