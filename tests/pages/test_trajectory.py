"""Page 02-trajectory: inputs resolved from the manifest's names, every section from one run."""
from __future__ import annotations

import tomllib

import numpy as np
import pandas as pd
import pytest

from ragnb.pages import resolve, run
from ragnb.pages.trajectory import TrajectoryInputs
from ragnb.paths import DEMO_DIR
from ragnb.result import plain_markdown
from tests.pages import missing_reason, small_workspace

MANIFEST = tomllib.loads((DEMO_DIR / "ragnb.toml").read_text(encoding="utf-8"))
TWO_SPLITS = ('[test_sets.golden]\nrole = "golden"\npath = "qrels.txt"\nruns = "runs/*.trec"\n'
              '[test_sets.production]\nrole = "production"\npath = "qrels.txt"\n'
              'runs = "runs/*.trec"\n')


_write = small_workspace


@pytest.fixture(scope="module")
def finding():
    return run(resolve("02-trajectory", DEMO_DIR, resamples=200))


def _wide(finding, split):
    s = finding.objects["scores"]
    return s[s["split"] == split].pivot(index="query_id", columns="config", values="value")


def test_resolve_reads_the_manifest_names_and_given_values_win():
    inputs = resolve("02-trajectory", DEMO_DIR)
    assert isinstance(inputs, TrajectoryInputs)
    assert (inputs.golden, inputs.production) == ("golden", "production")    # by role
    assert (inputs.metric, inputs.policy) == (MANIFEST["report"]["metric"],
                                              MANIFEST["report"]["policy"])
    assert (inputs.resamples, inputs.seed, inputs.watch_batch) == (10_000, 20260729, 20)
    # the manifest only: neither the rounds file nor a run is read
    assert inputs.workspace.files_read() == [DEMO_DIR.resolve() / "ragnb.toml"]
    given = resolve("trajectory", DEMO_DIR, metric="rr@10", policy="upper", watch_batch=50,
                    seed=3)
    assert (given.metric, given.policy, given.watch_batch, given.seed) == \
        ("rr@10", "upper", 50, 3)


@pytest.mark.parametrize("text, reason", [
    (TWO_SPLITS, "no rounds of champions ([rounds] configs)"),
    ('[rounds]\nconfigs = ["a", "b"]\n[test_sets.main]\npath = "qrels.txt"\n'
     'runs = "runs/*.trec"\n',
     "needs two test sets, one with role golden and one with role production"),
    ('[rounds]\nconfigs = ["a", "c", "b", "d"]\n' + TWO_SPLITS,
     "test set 'golden' has no run of round config(s) c, d; its configs: a, b"),
])
def test_a_missing_input_is_named_by_resolve_and_is_the_skip_reason(tmp_path, text, reason):
    ws = _write(tmp_path, text)
    assert missing_reason(ws, "02-trajectory") == reason


def test_a_batch_of_no_queries_is_refused():
    from ragnb.errors import InputError

    with pytest.raises(InputError, match="watch_batch"):
        resolve("02-trajectory", DEMO_DIR, watch_batch=0)


def test_sections_run_from_the_chart_to_the_split_ledger(finding):
    captions = [s.caption for s in finding.sections]
    assert [s.kind for s in finding.sections] == [
        "chart", "table", "markdown", "markdown", "markdown", "chart", "table", "table",
        "markdown", "table", "table", "markdown"]
    assert captions[2:5] == ["Divergence", "Selection inflation", "Production as it arrives"]
    assert captions[7].startswith("When this watch would stop at each true gain")
    assert captions[8] == "Consistency with the four-cell table"
    assert captions[10].startswith("How often each split")
    assert [s.appendix for s in finding.sections] == [False] * 11 + [True]   # the notes
    assert all(s.caption and (s.kind != "markdown" or s.content.strip())
               for s in finding.sections)                                # no empty header
    assert "of each round's champion on golden and production" in captions[0]


def test_the_endpoints_are_the_mean_per_query_scores(finding):
    rounds = finding.objects["rounds"]
    first, last = rounds["config"].iloc[0], rounds["config"].iloc[-1]
    assert (first, last, len(rounds)) == ("round-00", "round-40", 41)
    golden, production = _wide(finding, "golden"), _wide(finding, "production")
    assert (len(golden), len(production)) == (300, 200)
    gain = (production[last] - production[first]).mean()
    rise = (golden[last] - golden[first]).mean()
    fc = finding.objects["four_cell"]
    assert np.isclose(fc.delta("production"), gain) and np.isclose(fc.delta("golden"), rise)
    mv = finding.source.movement.set_index("split")["total"]
    assert np.isclose(mv["production"], gain) and np.isclose(mv["golden"], rise)
    answer = finding.headline.said
    # each line's movement carries the four-cell delta's own interval (same seed, same
    # resamples): production's spans 0 and is said to be unresolved
    d = fc.deltas.set_index("split")
    ci = {s: f"[{d.loc[s, 'ci_low'] * 100:+.1f}, {d.loc[s, 'ci_high'] * 100:+.1f}]"
          for s in ("golden", "production")}
    assert d.loc["production", "ci_low"] < 0 < d.loc["production", "ci_high"]
    assert f"Golden rose {rise * 100:+.1f} {ci['golden']} points" in answer
    assert (f"production moved {gain * 100:+.1f} {ci['production']} points (not resolved)"
            in finding.headline.answer)
    # production as it arrives: the last batch has every production query, the same gain
    batches = finding.objects["watch"].batches
    assert int(batches["n"].iloc[-1]) == 200 and np.isclose(batches["estimate"].iloc[-1], gain)
    assert f"the gain is {gain * 100:+.1f} points" in plain_markdown(finding.sections[4].content)
    # the consistency check: the endpoints are the production means of the two configs
    ends = finding.objects["endpoints"]
    assert ends["equal"].all() and ends.attrs["movement_equals_delta"]
    assert list(ends["trajectory"]) == pytest.approx([production[first].mean(),
                                                      production[last].mean()])
    assert "delta: **yes**" in finding.sections[8].content
    assert list(finding.sections[9].content["equal"]) == ["yes", "yes"]
    assert finding.checks["holds"].all() and len(finding.checks) == 6
    text = finding.to_text()
    assert f"{production[last].mean() * 100:.1f}" in text and "NaN" not in text


def test_the_divergence_names_what_changed_and_the_chart_names_the_champions(finding):
    tr = finding.source
    assert tr.divergence_round == 9
    assert "Golden and production part after round 9" in finding.headline.answer
    table = pd.read_csv(DEMO_DIR / MANIFEST["rounds"]["path"])
    change = table.set_index("round").loc[9, "change"]
    divergence = plain_markdown(finding.sections[2].content)
    assert divergence.startswith(tr.divergence_text)
    assert (f"What changed at round 9: the champion went from round-08 (round 8) to round-09 "
            f"(change: {change}). The first champion after the lines part is round-10 "
            "(round 10).") in divergence
    assert "What changed at round 9: the champion went from round-08" \
        in " ".join(finding.to_text().split())
    spec = finding.sections[0].content.to_dict()
    named = [spec["datasets"][layer["data"]["name"]][0]["config"] for layer in spec["layer"][-3:]]
    names = MANIFEST["display_names"]
    assert named == [f"{names['round-00']} (round-00)", f"{names['round-40']} (round-40)",
                     "round-09"]
    for layer in (0, 3):   # the first layer's axis is the chart's; the lines' agrees
        axis = spec["layer"][layer]["encoding"]["x"]["axis"]
        # whole rounds only, at most 12 ticks: 0 to 40 every 4th round
        assert axis["values"] == list(range(0, 41, 4)) and axis["format"] == "d"


def test_the_split_ledger_and_the_inflation_agree(finding):
    ledger = finding.sections[10].content.set_index("split")
    assert ledger.loc["golden", "selections against"] == 40            # the demo ledger's count
    figure = finding.objects["inflation"]["golden"].inflation
    assert f"{figure * 100:.2f} points" in finding.headline.said
    assert ledger.loc["golden", "selection inflation (points)"].startswith(f"{figure * 100:.2f}")


def test_what_changed_names_the_configs_around_the_round_or_nothing():
    from ragnb.pages.trajectory import divergence_change
    from ragnb.trajectory import trajectory
    from tests.trajectory.test_rounds import constructed

    def own_ids(scores):   # each split its own queries (constructed() gives both the same ids)
        return scores.assign(query_id=scores["split"].str[0] + scores["query_id"])

    scores, rounds = constructed()                          # production flat after round 4
    tr = trajectory(own_ids(scores), rounds, resamples=200)
    said = plain_markdown(divergence_change(tr, rounds.assign(change="x"), {"r04": "four"}))
    assert said == ("What changed at round 4: the champion went from r03 (round 3) to four "
                    "(r04) (change: x). The first champion after the lines part is r05 "
                    "(round 5).")
    assert "(change" not in divergence_change(tr, rounds, {})     # no change column
    shared = trajectory(scores, rounds, resamples=200)     # production is golden's queries
    assert shared.overlap.refused and divergence_change(shared, rounds, {}) == ""
    scores, rounds = constructed(hinge=12)                  # both lines move: no round
    tr = trajectory(own_ids(scores), rounds, resamples=200)
    assert tr.divergence_round is None and divergence_change(tr, rounds, {}) == ""


def test_a_rounds_file_of_configs_only_is_read_in_its_order(tmp_path):
    ws = _write(tmp_path, '[rounds]\npath = "rounds.csv"\n' + TWO_SPLITS)
    (tmp_path / "rounds.csv").write_text("config\nb\na\n")   # the manifest's one column
    inputs = resolve("02-trajectory", ws, resamples=200)
    assert inputs.workspace.files_read() == [tmp_path.resolve() / "ragnb.toml"]   # not read yet
    finding = run(inputs)
    assert list(finding.objects["rounds"]["config"]) == ["b", "a"]
    assert finding.source.divergence_round is None                # two rounds date nothing
    assert "dashed rule" not in finding.sections[0].caption      # no rule is drawn
    assert [s.caption for s in finding.sections if s.kind == "markdown"][0] == "Divergence"


@pytest.mark.parametrize("shared", [20, 60])
def test_production_as_it_arrives_reads_the_queries_the_trajectory_reads(shared):
    # production queries golden also holds were selected against: the trajectory sets them
    # aside, so the watch does too (its last estimate is the line's movement); a production
    # set that is golden again is not read at all
    from types import SimpleNamespace

    from ragnb.pages.trajectory import _production_as_it_arrives
    from ragnb.trajectory import trajectory
    from tests.truth.test_fit_truth import _rounds

    scores, rounds = _rounds(shared=shared)
    tr = trajectory(scores, rounds, resamples=100)
    inputs = SimpleNamespace(production="production", metric="m", watch_batch=10)
    watch, shown = _production_as_it_arrives(inputs, scores.assign(metric="m"), tr.overlap,
                                             "r0", "r5", {})
    if shared == 60:
        assert tr.overlap.refused and watch is None and shown is None
        return
    last = watch.batches.iloc[-1]
    moved = tr.movement.set_index("split").loc["production", "total"]
    assert int(last["n"]) == 40 and np.isclose(last["estimate"], moved)
