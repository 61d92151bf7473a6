"""Page 01-fit: inputs resolved from the manifest's names, every section from one run."""
from __future__ import annotations

import tomllib

import numpy as np
import pytest

from ragnb.pages import resolve, run
from ragnb.pages.fit import FitInputs
from ragnb.paths import DEMO_DIR
from tests.pages import missing_reason, small_workspace

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))


_write = small_workspace


def test_resolve_reads_the_manifest_names_and_given_values_win():
    report = MANIFEST["report"]
    inputs = resolve("01-fit", DEMO_DIR)
    assert isinstance(inputs, FitInputs)
    assert (inputs.baseline, inputs.champion) == (report["baseline"], report["challenger"])
    assert (inputs.golden, inputs.production) == ("golden", "production")
    given = resolve("fit", DEMO_DIR, champion="round-39", metric="rr@10", seed=3)
    assert (given.champion, given.metric, given.seed) == ("round-39", "rr@10", 3)


@pytest.mark.parametrize("text, reason", [
    ('[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n',
     "needs two test sets, one with role golden and one with role production"),
    ('[test_sets.golden]\nrole = "golden"\npath = "qrels.txt"\nruns = "runs/*.trec"\n'
     '[test_sets.production]\nrole = "production"\npath = "qrels.txt"\nruns = "runs/*.trec"\n',
     "no baseline and challenger configs ([report] baseline, challenger)"),
    ('[report]\nbaseline = "a"\nchallenger = "c"\n'
     '[test_sets.golden]\nrole = "golden"\npath = "qrels.txt"\nruns = "runs/*.trec"\n'
     '[test_sets.production]\nrole = "production"\npath = "qrels.txt"\nruns = "runs/*.trec"\n',
     "test set 'golden' has no run of c; its configs: a, b"),
    ('[report]\nbaseline = "a"\nchallenger = "bb"\n'     # a typo: the closest config named
     '[test_sets.golden]\nrole = "golden"\npath = "qrels.txt"\nruns = "runs/*.trec"\n'
     '[test_sets.production]\nrole = "production"\npath = "qrels.txt"\nruns = "runs/*.trec"\n',
     "test set 'golden' has no run of bb (bb: did you mean b?); its configs: a, b"),
])
def test_a_missing_input_is_named_by_resolve_and_is_the_skip_reason(tmp_path, text, reason):
    ws = _write(tmp_path, text)
    assert missing_reason(ws, "01-fit") == reason


def fc_depth_rows(finding):
    return finding.source.depth.display_table().values.tolist()


def test_run_shows_the_four_cells_the_reading_and_the_split_ledger():
    finding = run(resolve("01-fit", DEMO_DIR, resamples=200))
    captions = [s.caption for s in finding.sections]
    assert [s.kind for s in finding.sections] == ["chart", "table", "markdown", "table",
                                                  "table", "markdown"]
    assert captions[2] == "Reading" and captions[3].startswith("How often each split")
    # judging depth beside the level gap (issue 33 #2): golden median 20 judgments a query,
    # production 11, both fully judged in the baseline's top 10: judged alike (20/11 < 2)
    depth = finding.sections[4]
    assert depth.caption == "Judging depth" and "judged alike by this rule" in depth.note
    assert fc_depth_rows(finding) == [["golden", 300, 20.0, "100%"],
                                      ["production", 200, 11.0, "100%"]]
    # the production delta shown is the mean per-query difference of the scores kept
    s = finding.objects["scores"]
    fc = finding.source
    overlap = finding.objects["overlap"]
    # the demo's splits share no query id (nothing set aside); 92 production queries repeat
    # a golden query's templated text, which is counted and named, not set aside
    assert overlap.shared == () and len(overlap.same_text) == 92
    assert "92 production queries repeat the text of a golden query" in finding.headline.said
    prod = s[s["split"] == "production"]
    wide = prod.pivot(index="query_id", columns="config", values="value")
    assert len(wide) == 200
    assert np.isclose(fc.delta("production"), (wide["round-40"] - wide["round-00"]).mean())
    golden = s[s["split"] == "golden"].pivot(index="query_id", columns="config", values="value")
    assert np.isclose(fc.delta("golden"), (golden["round-40"] - golden["round-00"]).mean())
    assert f"{fc.delta('golden') * 100:+.1f}" in finding.sections[1].content.iloc[2, 1]
    ledger = finding.sections[3].content.set_index("split")
    assert ledger.loc["golden", "selections against"] == 40       # the demo ledger's count
    assert "NaN" not in finding.to_text()
