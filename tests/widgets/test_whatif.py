"""The what-if widget in plain Python: set controls' values, assert on the recomputed table.

Observers run at once outside a kernel (ipywidgets), so every assignment below
has already re-run the breakdown when the next line reads it. Expected values
come from the per-query scores directly (pandas means), from the demo data's
README figures, or from the spec file the widget exports.
"""
from __future__ import annotations

import pandas as pd
import pytest

import ragnb.strata.whatif as whatif_state
from ragnb.errors import InputError
from ragnb.metrics.score import score
from ragnb.strata import StrataSpec, breakdown, read_spec
from ragnb.widgets.whatif import WARNING, WhatIf
from tests.strata._workspaces import demo_comparison

RESAMPLES = 400


@pytest.fixture(scope="module")
def comparison():
    return demo_comparison()


def make(comparison, **options):
    options.setdefault("spec", "query_type")
    options.setdefault("chart", None)
    return WhatIf.from_comparison(comparison, baseline="round-00", challenger="round-40",
                                  resamples=RESAMPLES, **options)


def mean_difference(comparison, metric, query_ids=None, policy="lower"):
    """Mean challenger - baseline straight from the per-query scores."""
    t = score(comparison.test_set, comparison.runs, metric, policy=policy).table
    wide = t.pivot(index="query_id", columns="config", values="value")
    if query_ids is not None:
        wide = wide.loc[list(query_ids)]
    return float((wide["round-40"] - wide["round-00"]).mean())


def ids_of(comparison, column, values):
    t = comparison.table
    return t.loc[t[column].isin(values), "query_id"]


def test_starts_with_the_spec_and_one_checkbox_per_stratum(comparison):
    w = make(comparison)
    assert w.metric == "ndcg@10" and w.policy == "lower" and w.column == "query_type"
    assert [b.description for b in w.strata_box.children] == [
        "in_scope_single_turn (118)", "follow_up (41)", "out_of_scope (27)", "malformed (14)"]
    assert w.breakdown.pooled["n"] == 200
    assert 'data-pooled-n="200"' in w.table_html.value
    # the same headline block as the report page, from the same result shape
    pooled = w.breakdown.pooled["delta"] * 100
    assert 'id="ragnb-headline"' in w.status_html.value
    assert f": {pooled:+.1f} [" in w.status_html.value
    assert "checks hold" in w.status_html.value
    assert WARNING.split(":")[0] in w.log_html.value and "<li>none</li>" in w.log_html.value


def test_unticking_a_stratum_excludes_it_and_logs_it(comparison):
    w = make(comparison)
    w.checkbox("malformed").value = False
    kept = ids_of(comparison, "query_type", ["in_scope_single_turn", "follow_up",
                                             "out_of_scope"])
    assert w.breakdown.pooled["n"] == 186
    assert w.breakdown.pooled["delta"] == pytest.approx(
        mean_difference(comparison, "ndcg@10", kept), abs=1e-12)
    assert "malformed" not in set(w.breakdown.strata["stratum"])
    assert 'data-pooled-n="186"' in w.table_html.value
    assert w.log[-1].text == "excluded 'malformed' (14 queries)"
    assert "excluded &#x27;malformed&#x27; (14 queries)" in w.log_html.value
    w.checkbox("malformed").value = True
    assert w.breakdown.pooled["n"] == 200
    assert w.log[-1].text == "included 'malformed' again (14 queries)"


def test_merge_button_merges_and_the_merged_delta_is_size_weighted(comparison):
    w = make(comparison)
    before = w.breakdown.table.set_index("stratum")["delta"]
    w.merge_from_w.value = ("out_of_scope", "malformed")
    w.merge_name_w.value = "other"
    w.merge_btn.click()
    t = w.breakdown.table.set_index("stratum")
    assert t.loc["other", "n"] == 41
    assert t.loc["other", "delta"] == pytest.approx(
        (27 * before["out_of_scope"] + 14 * before["malformed"]) / 41, abs=1e-12)
    assert [b.description for b in w.strata_box.children][-1] == \
        "other (41) = out_of_scope + malformed"
    assert w.log[-1].text == "merged out_of_scope + malformed into 'other' (41 queries)"
    assert w.merge_name_w.value == ""


def test_merging_a_merged_stratum_again_expands_it(comparison):
    w = make(comparison)
    w.merge(["out_of_scope", "malformed"], "other")
    w.checkbox("other").value = False
    w.merge(["other", "follow_up"], "not_single_turn")
    assert dict(w.merges) == {"not_single_turn": ("out_of_scope", "malformed", "follow_up")}
    assert w.excluded == set()   # merging an excluded stratum includes it again
    assert w.breakdown.table.set_index("stratum").loc["not_single_turn", "n"] == 82


def test_bad_merges_say_why_and_change_nothing(comparison):
    w = make(comparison)
    w.merge(["malformed"], "x")
    assert w.error == "select two strata or more to merge"
    assert "select two strata" in w.status_html.value
    w.merge(["malformed", "follow_up"], "out_of_scope")
    assert "already a stratum" in w.error
    assert w.merges == {} and len(w.breakdown.strata) == 4


def test_excluding_everything_is_an_error_shown_in_the_widget(comparison):
    w = make(comparison)
    for box in list(w.strata_box.children):
        box.value = False
    assert "every stratum is excluded" in w.error
    assert "Cannot compute" in w.status_html.value
    w.checkbox("follow_up").value = True
    assert w.error is None and w.breakdown.pooled["n"] == 41


def test_metric_k_and_policy_switches_recompute(comparison):
    w = make(comparison)
    w.metric_w.value = "rr"
    assert w.metric == "rr@10" and w.breakdown.metric == "rr@10"
    assert w.breakdown.pooled["delta"] == pytest.approx(mean_difference(comparison, "rr@10"),
                                                        abs=1e-12)
    w.k_w.value = 5
    assert w.breakdown.metric == "rr@5"
    assert w.breakdown.pooled["delta"] == pytest.approx(mean_difference(comparison, "rr@5"),
                                                        abs=1e-12)
    w.policy_w.value = "condensed"
    assert w.breakdown.policy == "condensed"
    assert w.breakdown.pooled["delta"] == pytest.approx(
        mean_difference(comparison, "rr@5", policy="condensed"), abs=1e-12)
    assert [e.text for e in w.log] == [
        "metric 'ndcg' -> 'rr': now rr@10, lower policy",
        "k 10 -> 5: now rr@5, lower policy",
        "unjudged 'lower' -> 'condensed': now rr@5, condensed policy"]
    w.metric_w.value = "judged"   # k carries over to the new family
    assert w.breakdown.metric == "judged@5"


def test_the_reported_figure_is_only_reconciled_for_its_metric(comparison):
    w = make(comparison, reported_points="+1.1")
    assert w.breakdown.reconciliation is not None and not w.breakdown.reconciliation.flagged
    w.metric_w.value = "rr"
    assert w.breakdown.reconciliation is None
    assert "The reported figure (+1.1 points) is for ndcg@10 under the lower policy: not " \
           "reconciled with rr@10 (lower)." in w.status_html.value
    w.metric_w.value = "ndcg"
    assert w.breakdown.reconciliation is not None


def test_p_at_5_whose_strata_cancel_exactly_still_computes(comparison):
    w = make(comparison, spec="intent")
    w.metric_w.value = "p"
    w.k_w.value = 5
    assert w.error is None and w.breakdown.metric == "p@5"


def test_scores_are_cached_per_metric_and_policy(comparison, monkeypatch):
    calls = []
    real = whatif_state.score

    def counting(*args, **kwargs):
        calls.append((args[2], kwargs["policy"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(whatif_state, "score", counting)
    w = make(comparison)
    w.checkbox("malformed").value = False     # strata change: no scoring
    w.metric_w.value = "rr"
    w.metric_w.value = "ndcg"                 # back: cached
    w.checkbox("malformed").value = True
    assert calls == [("ndcg@10", "lower"), ("rr@10", "lower")]


def test_column_switch_clears_merges_and_exclusions(comparison):
    w = make(comparison)
    w.checkbox("malformed").value = False
    w.column_w.value = "intent"
    assert w.excluded == set() and w.merges == {}
    assert set(w.breakdown.strata["stratum"]) == set(comparison.table["intent"])
    assert w.breakdown.pooled["n"] == 200
    assert w.log[-1].text == ("stratum column 'query_type' -> 'intent' (merges and exclusions "
                              "cleared)")


def test_reset_returns_to_the_starting_spec(comparison):
    start = StrataSpec("query_type", merge={"other": ("out_of_scope", "malformed")},
                       exclude=("follow_up",))
    w = make(comparison, spec=start)
    assert w.breakdown.pooled["n"] == 159
    w.column_w.value = "source"
    w.reset()
    assert (w.column, w.merges, w.excluded) == ("query_type", dict(start.merge), {"follow_up"})
    assert w.breakdown.pooled["n"] == 159 and not w.checkbox("follow_up").value
    assert w.log[-1].text.startswith("reset to the starting stratification")


def test_export_is_a_spec_that_reproduces_the_table(comparison, tmp_path):
    w = make(comparison, report_parameters={"workspace": "/data/demo/ragnb.toml"},
             reported_points="+1.1")
    assert "-p reported=+1.1" in w.report_command(tmp_path / "x.toml")  # the figure, explicit
    w.merge(["out_of_scope", "malformed"], "other")
    w.checkbox("follow_up").value = False
    w.metric_w.value = "rr"
    path = w.export_spec(tmp_path / "whatif.toml", written_by="analyst")
    spec = read_spec(path)
    assert (spec.column, dict(spec.merge), spec.exclude, spec.origin, spec.written_by) == \
        ("query_type", {"other": ("out_of_scope", "malformed")}, ("follow_up",), "what-if",
         "analyst")
    assert [line.split(" ", 1)[1] for line in spec.log] == [e.text for e in w.log]
    # the report computes the breakdown from the file: the same table as the widget
    sc = score(comparison.test_set, comparison.runs, "rr@10")
    again = breakdown(sc, comparison.table, spec, baseline="round-00", challenger="round-40",
                      resamples=RESAMPLES)
    pd.testing.assert_frame_equal(again.table, w.breakdown.table)
    command = w.report_command(path)
    assert command.startswith("ragnb report 03-strata -p workspace=/data/demo/ragnb.toml ")
    assert f"-p strata_spec={path}" in command and "-p metric=rr@10" in command
    # the +1.1 was for ndcg@10: the rr@10 report must not be flagged against it
    assert "-p reported=none" in command


def test_export_button_needs_a_name_and_writes_the_command(comparison, tmp_path):
    w = make(comparison)
    w.export_path_w.value = str(tmp_path / "x.toml")
    w.export_btn.click()
    assert "say who writes the spec" in w.export_html.value
    w.written_by_w.value = "me"
    w.export_btn.click()
    assert "ragnb report 03-strata" in w.export_html.value
    assert (tmp_path / "x.toml").is_file()
    assert w.log[-1].text == f"exported the spec to {tmp_path / 'x.toml'}"


def test_export_without_a_file_name_writes_a_dated_one(comparison, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = make(comparison)
    w.written_by_w.value = "me"
    w.export_btn.click()
    (written,) = tmp_path.glob("strata-whatif-*.toml")
    assert read_spec(written).origin == "what-if"


def test_a_bad_spec_fails_at_construction_naming_file_and_key(comparison, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('column = "query_type"\nwritten_at = 2026-01-01T00:00:00Z\n'
                    'written_by = "a"\nexclude = ["typo"]\n')
    with pytest.raises(InputError, match="'typo' is not a stratum here") as err:
        make(comparison, spec=read_spec(path))
    assert (err.value.source, err.value.key) == (str(path), "exclude")


@pytest.mark.parametrize("chart", ["vega", "svg"])
def test_both_chart_modes_redraw(comparison, chart):
    w = make(comparison, chart=chart)
    if chart == "vega":
        first = w.chart_w.spec
        w.checkbox("malformed").value = False
        values = w.chart_w.spec["data"]["values"]  # the redraw's spec has its data inline
        assert first != w.chart_w.spec
    else:
        assert w.chart_html.value.startswith("<svg")
        w.checkbox("malformed").value = False
        assert "excluded: malformed (n=14)" in w.chart_html.value
        return
    assert "pooled, size-weighted (n=186)" in [v["row"] for v in values]
    assert set(w.timings) == {"scores", "bootstrap", "table", "chart", "total"}


def test_names_notes_and_method_read_as_on_the_page(comparison):
    """Issue 33 #11: the widget showed 'round-40 vs round-00' under a finding that says
    'July champion (round-40)', a 217-character note wrapped one row to 16 lines, and
    the method paragraph sat above the table."""
    names = {"round-00": "January baseline", "round-40": "July champion"}
    w = make(comparison, display_names=names)
    assert "July champion (round-40) − January baseline (round-00), points" in \
        w.table_html.value
    assert "July champion (round-40)" in w.status_html.value
    # out_of_scope's note ("zero-width interval: cannot move by construction ...") is a
    # numbered note under the table, its cell a marker
    assert '<td class="txt">[1]</td>' in w.table_html.value
    assert "[1] zero-width interval: cannot move by construction" in w.table_html.value
    # the method (intervals, resamples, seed) comes after the table and the chart
    children = list(w.widget.children)
    assert children.index(w.method_html) > children.index(w.chart_box)
    assert "Method: ndcg@10 (lower policy)" in w.method_html.value
    assert "test each interval inverts" in w.method_html.value
    assert "interval inverts" not in w.status_html.value
