"""Manifest JSON: round trip, and errors that name the file and the key."""
from __future__ import annotations

import json

import pytest

from ragnb.errors import InputError
from ragnb.ledger.manifest import UnsealPolicy, read_manifest, write_manifest
from ragnb.ledger.thresholdout import ThresholdoutParams

GOLDEN = {
    "format": "ragnb-manifest/1",
    "split_id": "golden-v1-300@sha256:" + "e5b2" * 16,
    "role": "regression_guard",
    "selections_against": 40,
    "sealed": False,
    "unseal_policy": None,
    "retired_for_selection_at": "2026-07-02",
    "budget": 40,
    "scoring_runs_used": 0,
    "reusable_holdout": None,
    "holdout_answers": 0,
    "holdout_spent": 0,
    "n_queries": 300,
    "n_judgments": 911,
    "queries_sha256": "0" * 64,
    "registered_at": "2026-01-05T09:00:00+00:00",
}
PROD = dict(GOLDEN, split_id="prod-2026Q2-200@sha256:" + "9c44" * 16, role="confirmation",
            selections_against=0, sealed=True, retired_for_selection_at=None, budget=1,
            n_queries=200, unseal_policy={
                "max_scoring_runs": 1, "max_candidates": 3, "publish_whatever_they_say": True,
                "text": "one scoring run, top-3 candidates, results published whatever they say"})


def _write(tmp_path, d, name="m.json"):
    p = tmp_path / name
    p.write_text(json.dumps(d))
    return p


@pytest.mark.parametrize("d", [GOLDEN, PROD])
def test_round_trip(tmp_path, d):
    m = read_manifest(_write(tmp_path, d))
    assert m.to_dict() == d
    write_manifest(tmp_path / "out.json", m)
    assert json.loads((tmp_path / "out.json").read_text()) == d


def test_seed_fields_are_readable(tmp_path):
    m = read_manifest(_write(tmp_path, PROD))
    assert (m.name, m.role, m.sealed, m.selections_against) == (
        "prod-2026Q2-200", "confirmation", True, 0)
    assert m.unseal_policy == UnsealPolicy()  # the default is seed 000's policy


@pytest.mark.parametrize(("change", "key", "match"), [
    ({"role": "golden"}, "role", "not one of working, regression_guard, confirmation"),
    ({"selections_against": -1}, "selections_against", "integer >= 0"),
    ({"selections_against": "40"}, "selections_against", "integer >= 0"),
    ({"sealed": "false"}, "sealed", "true or false"),
    ({"budget": 0}, "budget", "integer >= 1 or null"),
    ({"retired_for_selection_at": "02/07/2026"}, "retired_for_selection_at", "YYYY-MM-DD"),
    ({"split_id": "golden"}, "split_id", "not a split id"),
    ({"format": "ragnb-manifest/9"}, "format", "unsupported format"),
    ({"colour": "red"}, "colour", "unknown key"),
    ({"sealed": True}, "sealed", "only a confirmation split can be sealed"),
    ({"retired_for_selection_at": None}, "retired_for_selection_at",
     "exactly when role is regression_guard"),
    ({"role": "working", "retired_for_selection_at": None}, "selections_against",
     "should have been demoted"),
])
def test_errors_name_file_and_key(tmp_path, change, key, match):
    p = _write(tmp_path, dict(GOLDEN, **change), "golden.json")
    with pytest.raises(InputError, match=match) as info:
        read_manifest(p)
    assert info.value.source == str(p)
    assert info.value.key == key
    assert str(p) in str(info.value) and f"[{key}]" in str(info.value)


def test_missing_key(tmp_path):
    d = dict(GOLDEN)
    del d["selections_against"]
    with pytest.raises(InputError, match=r"golden.json \[selections_against\]: required key"):
        read_manifest(_write(tmp_path, d, "golden.json"))


def test_nested_keys_are_named_with_their_path(tmp_path):
    bad = dict(PROD, unseal_policy=dict(PROD["unseal_policy"], max_candidates=0))
    with pytest.raises(InputError, match=r"\[unseal_policy.max_candidates\].*integer >= 1"):
        read_manifest(_write(tmp_path, bad))
    bad = dict(PROD, reusable_holdout={"budget": 5, "threshold": 0.04, "sigma": -1, "seed": 1})
    with pytest.raises(InputError, match=r"\[reusable_holdout.sigma\].*positive"):
        read_manifest(_write(tmp_path, bad))


def test_invalid_json_names_the_line(tmp_path):
    p = tmp_path / "broken.json"
    p.write_text('{\n  "split_id": "x",\n  "role": working\n}')
    with pytest.raises(InputError, match=r"broken.json:3: not valid JSON"):
        read_manifest(p)
    (tmp_path / "empty.json").write_text("  ")
    with pytest.raises(InputError, match="empty"):
        read_manifest(tmp_path / "empty.json")
    with pytest.raises(InputError, match="cannot read manifest"):
        read_manifest(tmp_path / "absent.json")


def test_policy_objects_validate_themselves():
    with pytest.raises(InputError, match=r"max_scoring_runs.*integer >= 1"):
        UnsealPolicy(max_scoring_runs=0)
    with pytest.raises(InputError, match=r"budget.*integer >= 1"):
        ThresholdoutParams(budget=0)
    assert ThresholdoutParams(budget=3).with_seed().seed is not None
