"""Page 03-strata: inputs resolved from the manifest's names, every section from one run."""
from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pytest

from ragnb.pages import MissingInput, resolve, run, skip_reason
from ragnb.pages.strata import StrataInputs
from ragnb.paths import DEMO_DIR

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def finding():
    return run(resolve("03-strata", DEMO_DIR, resamples=200))


def test_resolve_reads_the_manifest_names_and_given_values_win():
    inputs = resolve("strata", DEMO_DIR)
    assert isinstance(inputs, StrataInputs)
    production = MANIFEST["test_sets"]["production"]
    assert inputs.split == "production"
    assert inputs.stratum == production["strata"]["by"]
    assert inputs.strata_spec.endswith(production["strata"]["spec"].lstrip("./"))
    assert inputs.reported == str(MANIFEST["report"]["strata"]["reported"])
    given = resolve("strata", DEMO_DIR, split="golden", stratum="intent", reported="none")
    assert (given.split, given.stratum, given.reported) == ("golden", "intent", "")


def test_a_test_set_without_strata_is_the_skip_reason(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "a.trec").write_text("q1 Q0 d1 1 1.0 t\n")
    (tmp_path / "ragnb.toml").write_text('[test_sets.main]\npath = "qrels.txt"\n'
                                         'runs = "*.trec"\n')
    reason = "test set 'main' has no strata file ([test_sets.main.strata] path)"
    with pytest.raises(MissingInput, match=r"has no strata file"):
        resolve("03-strata", tmp_path)
    assert skip_reason(tmp_path, "strata") == reason


def test_sections_run_from_the_chart_to_the_worst_query(finding):
    kinds = [(s.kind, s.appendix) for s in finding.sections]
    assert kinds[:4] == [("chart", False), ("table", False), ("markdown", False),
                         ("markdown", False)]
    assert [s.caption for s in finding.sections[2:4]] == ["Stratification", "Reading"]
    assert [s.caption.split(" (")[0] for s in finding.sections if s.kind == "table"][2:4] \
        == ["Largest losses", "Largest wins"]
    assert any(s.appendix and "every column" in s.caption for s in finding.sections)


def test_the_strata_sizes_add_up_and_the_losses_are_the_per_query_differences(finding):
    body = finding.display_table.set_index("stratum")
    strata = finding.source.strata
    assert int(body.loc["pooled", "n"]) == strata["n"].sum() == 200
    per = finding.objects["per_query"].table
    metric = finding.source.metric
    wide = per[per["metric"] == metric].pivot(index="query_id", columns="config",
                                               values="value")
    diff = (wide["round-40"] - wide["round-00"]).sort_values(kind="stable")
    section = next(s for s in finding.sections if s.caption.startswith("Largest losses"))
    losses = section.content   # data 0-1 (its CSV), shown in points by its units
    assert set(losses["query_id"]) <= set(diff.index[diff <= diff.iloc[4]])
    assert list(losses["delta"]) == pytest.approx(list(diff.iloc[:5].to_numpy()))
    assert section.units == {"baseline": "points", "challenger": "points",
                             "delta": "signed points"}
    assert f"{diff.iloc[0] * 100:+.1f}" in finding.to_text()
    pooled = finding.source.pooled["delta"]
    assert np.isclose(pooled, diff.mean())
    assert not pd.isna(pooled) and "NaN" not in finding.to_text()


def test_the_manifest_spec_is_stated_only_when_the_parameter_is_left_empty():
    from ragnb.pages import manifest_specs

    spec = MANIFEST["test_sets"]["production"]["strata"]["spec"]
    found = manifest_specs(DEMO_DIR, "strata", {"workspace": "x", "strata_spec": ""})
    assert list(found) == ["strata_spec"] and found["strata_spec"].endswith(spec.lstrip("./"))
    assert manifest_specs(DEMO_DIR, "strata", {"strata_spec": "mine.toml"}) == {}
    assert manifest_specs(DEMO_DIR, "trajectory", {}) == {}        # no spec parameter
