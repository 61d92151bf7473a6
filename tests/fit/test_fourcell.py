"""Four-cell table: hand-built cases for each reading, and seed 000's figures on the demo."""
import numpy as np
import pandas as pd
import pytest

from ragnb.fit import EFFECT_ROW, four_cell
from ragnb.fit.charts import four_cell_chart
from ragnb.paths import DEMO_DIR
from ragnb.workspace import open_workspace
from ragnb.workspace.splits import score_splits
from tests._four_cell_sim import SCENARIOS, simulate


def table(values: dict) -> pd.DataFrame:
    """{(split, config): array of per-query values} -> tidy scores."""
    rows = [{"split": s, "config": c, "query_id": f"{s}-{i}", "value": v}
            for (s, c), vs in values.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows).assign(metric="m")


def noisy(rng, n, level, gain=0.0):
    base = np.clip(rng.normal(level, 0.15, n), 0, 1)
    return base, np.clip(base + gain + rng.normal(0, 0.02, n), 0, 1)


def case(golden_level, prod_level, golden_gain, prod_gain, n=300, seed=1):
    rng = np.random.default_rng(seed)
    bg, cg = noisy(rng, n, golden_level, golden_gain)
    bp, cp = noisy(rng, n, prod_level, prod_gain)
    return table({("golden", "base"): bg, ("golden", "champ"): cg,
                  ("production", "base"): bp, ("production", "champ"): cp})


def test_cells_and_deltas_are_the_means():
    scores = table({("golden", "b"): [0.2, 0.4], ("golden", "c"): [0.5, 0.7],
                    ("production", "b"): [0.1, 0.3], ("production", "c"): [0.2, 0.4]})
    fc = four_cell(scores, baseline="b", champion="c", resamples=500)
    assert fc.cell("b", "golden") == pytest.approx(0.3)
    assert fc.cell("c", "production") == pytest.approx(0.3)
    # two queries a set: a delta, but too few queries for an interval
    d = fc.deltas.set_index("split")
    assert d.loc["golden", "delta"] == pytest.approx(0.3)
    assert np.isnan(d.loc["golden", "ci_low"]) and np.isnan(d.loc["golden", "mde"])
    assert fc.honest_gain == pytest.approx(0.1)
    assert fc.share_not_carried == pytest.approx(1 - 0.1 / 0.3)
    assert fc.display_table().loc["c − b", "golden"] == "+30.0 (too few queries to say)"
    assert fc.display_table().loc[EFFECT_ROW, "golden"] == "— (SD of differences is 0)"


def test_delta_row_has_the_effect_size():
    # golden d = (0.1, 0.3, 0.2): mean 0.2, SD (n-1) sqrt((0.01 + 0.01 + 0) / 2) = 0.1 -> 2.0
    # production d = (0, 0.2, 0): mean 0.2/3, SD sqrt(2 (0.2/3)^2 + (0.4/3)^2) / sqrt 2
    #   = 0.2/sqrt 3 -> d_z = 1/sqrt 3 = 0.577
    scores = table({("golden", "b"): [0.2, 0.4, 0.6], ("golden", "c"): [0.3, 0.7, 0.8],
                    ("production", "b"): [0.1, 0.3, 0.5], ("production", "c"): [0.1, 0.5, 0.5]})
    fc = four_cell(scores, baseline="b", champion="c", resamples=200)
    d = fc.deltas.set_index("split")["effect_size"]
    assert d["golden"] == pytest.approx(2.0)
    assert d["production"] == pytest.approx(1 / np.sqrt(3))
    assert list(fc.display_table().loc[EFFECT_ROW]) == ["+2.00", "+0.58"]
    assert "mean difference / SD of differences" in fc.description


@pytest.mark.parametrize("levels, reading", [
    ((0.5, 0.5, 0.09, 0.0), "fit"),            # equally hard, gain collapses
    ((0.5, 0.3, 0.09, 0.03), "difficulty and fit"),  # harder, and the gain collapses
    ((0.5, 0.3, 0.06, 0.06), "difficulty, gain carried over"),  # harder, the gain holds
    ((0.5, 0.5, 0.05, 0.05), "carried over"),  # the gain holds
    ((0.5, 0.5, 0.0, 0.0), "inconclusive"),    # no gain anywhere
])
def test_readings(levels, reading):
    fc = four_cell(case(*levels), baseline="base", champion="champ", resamples=2000)
    assert fc.reading == reading, fc.explanation


def test_one_metric_only():
    scores = pd.concat([case(0.5, 0.5, 0, 0), case(0.5, 0.5, 0, 0).assign(metric="other")])
    with pytest.raises(Exception, match="one metric"):
        four_cell(scores, baseline="base", champion="champ")


def test_missing_config_is_named():
    with pytest.raises(Exception, match="no scores for config 'nope'"):
        four_cell(case(0.5, 0.5, 0, 0), baseline="nope", champion="champ")


@pytest.fixture(scope="module")
def demo_four_cell():
    ts, runs = open_workspace(DEMO_DIR).splits(["golden", "production"], ["round-00", "round-40"])
    scores, _ = score_splits(ts, runs, "ndcg@10")
    return four_cell(scores, baseline="round-00", champion="round-40", resamples=2000,
                     selections={"golden": 40, "production": 0})


def test_demo_tells_seed_000s_story(demo_four_cell):
    fc = demo_four_cell
    assert round(fc.cell("round-00", "golden"), 3) == 0.512
    assert round(fc.cell("round-00", "production"), 3) == 0.498
    assert round(fc.delta("golden") * 100, 1) == 9.0
    assert round(fc.delta("production") * 100, 1) == 1.1
    assert fc.reading == "fit"
    # seed 000: "eight of nine points" did not carry over
    assert fc.share_not_carried == pytest.approx(1 - 1.1 / 9.0, abs=0.01)
    assert "shallow labelling" in fc.limit


def test_selections_show_the_implied_inflation(demo_four_cell):
    from ragnb.stats import expected_max_normal

    s = demo_four_cell.splits.set_index("split")
    # per-config noise = paired SE / sqrt(2) (exchangeable configs)
    assert s.loc["golden", "inflation"] == pytest.approx(
        expected_max_normal(40) * s.loc["golden", "se_delta"] / np.sqrt(2))
    assert s.loc["production", "inflation"] == 0.0
    assert s.loc["golden", "se_source"] == (
        "calibrated SE of the paired difference round-40 − round-00 over 300 queries")


def test_chart_spec(demo_four_cell):
    spec = four_cell_chart(demo_four_cell).to_dict()
    assert len(spec["layer"]) == 2
    assert len(spec["datasets"][next(iter(spec["datasets"]))]) == 4   # four cells


@pytest.mark.parametrize("names", [{"base": "zeta", "champ": "alpha"},
                                   {"base": "alpha", "champ": "zeta"}])
def test_the_champion_is_red_whatever_the_names_order(names):
    """Issue 33 #10: the colour followed the alphabet (red champion on one workspace, grey on
    another); and the legend cut the names off ("January baseline (round-00), bas...")."""
    fc = four_cell(case(0.5, 0.5, 0.05, 0.05, n=40), baseline="base", champion="champ",
                   resamples=200)
    color = four_cell_chart(fc, names).to_dict()["layer"][0]["encoding"]["color"]
    assert dict(zip(color["scale"]["domain"], color["scale"]["range"])) == {
        f"{names['base']} (base), baseline": "#888888",
        f"{names['champ']} (champ), champion": "#cc0000"}
    assert color["legend"]["labelLimit"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_joint_reading_is_right_in_simulated_scenarios(scenario):
    """Issue 11's targets at n = 200 per set (``tests/_four_cell_sim.py``): >= 90%
    correct for transfer, fit, harder-and-transfer and harder-and-collapse, and
    "carried over" <= 5% for a noise-only champion (best of 40 equal configs).
    80 draws a scenario (``benchmarks/four_cell.py`` prints the 300-draw table:
    94-97% correct; noise-only 'carried over' 2-3%). Binomial band: at a true 94%,
    80 draws give >= 68 correct (85%) with probability > 99.5%; at a true 2.5%,
    > 8 'carried over' (10%) has probability < 0.5%."""
    rng = np.random.default_rng(20261201 + list(SCENARIOS).index(scenario))
    readings = [four_cell(simulate(scenario, rng), baseline="base", champion="champ",
                          resamples=500, seed=i).reading for i in range(80)]
    correct = SCENARIOS[scenario][3]
    if correct is None:
        assert readings.count("carried over") <= 8
    else:
        assert readings.count(correct) >= 68, pd.Series(readings).value_counts()


def test_the_method_line_names_the_interval_each_figure_got():
    """Issue 33 #9: with 10 skewed queries a split the golden delta comes from the
    skew-corrected interval (about 30% of golden queries gain 0.6; Cochran's rule fails) and
    both gaps from betting intervals; the method line says so for each and calls no
    guarded figure a calibrated t-interval."""
    rng = np.random.default_rng(7)
    rows = []
    for split in ("golden", "production"):
        for q in range(10):
            base = 0.0 if rng.random() < 0.6 else rng.random()
            gain = 0.6 if (split == "golden" and rng.random() < 0.3) else 0.0
            rows += [{"split": split, "config": c, "query_id": f"{split}{q}", "value": v}
                     for c, v in (("b", base), ("c", min(1.0, base + gain)))]
    fc = four_cell(pd.DataFrame(rows), baseline="b", champion="c", resamples=2000)
    deltas = fc.description.split("deltas: ")[1].split("; difficulty")[0]
    golden, production = deltas.split("; production ")
    assert "skew-corrected t-interval" in golden and "calibrated t" not in golden
    assert golden.endswith("p from the skew-corrected t-test (Hall 1992)")
    assert "calibrated t-interval" in production  # all ten production differences are 0
    # the carry-over's production group is ten zeros: not a gain known without error
    assert fc.carry.guard == "betting"
    gaps = fc.description.split("difficulty and carry-over: ")[1]
    assert f"difficulty {'two betting' if fc.difficulty.guard else 'percentile'}" in gaps
    assert "carry-over two betting intervals" in gaps and "second group's values" in gaps
    cells = fc.description.split("; deltas")[0]
    guarded = fc.cells[fc.cells["guard"] != ""]
    assert len(guarded) and all(f"{c} on {s}" in cells
                                for c, s in zip(guarded["config"], guarded["split"]))


def test_no_golden_gain_is_no_gain_to_carry_over_not_a_wait():
    """CODEC, first vs last run in file order: the champion is -11.6 [-26.5, +3.4] on
    fold-1 and -12.9 [-24.8, -1.0] on fold-2, and the page said 'Inconclusive at this n
    ... collect about 17 queries per set'. With no golden gain there is nothing to carry:
    the answer is the production figure, 'worse' only where its interval is below 0.
    A loss that deepens on production is not 'fit' either (it read "Fit: c's -3.0-point
    gain over b on golden ...")."""
    from ragnb.fit.finding import four_cell_headline
    from ragnb.result import NUMBER_WITH_INTERVAL

    rows = []
    for split, shift in (("golden", -0.03), ("production", -0.12)):
        for q in range(30):
            base = 0.3 + 0.4 * ((q * 7) % 10) / 10
            wiggle = 0.1 * (((q * 3) % 5) - 2)             # -0.20 .. +0.20, symmetric
            rows += [{"split": split, "config": c, "query_id": f"{split[0]}{q}", "value": v}
                     for c, v in (("b", base), ("c", base + shift + wiggle))]
    fc = four_cell(pd.DataFrame(rows), baseline="b", champion="c", resamples=1000)
    d = fc.deltas.set_index("split")
    assert d.loc["golden", "ci_high"] > 0 > d.loc["golden", "delta"]      # not resolved
    assert d.loc["production", "ci_high"] < 0                           # resolved worse
    assert fc.reading == "inconclusive"
    h = four_cell_headline(fc, {})
    assert h.answer.startswith("No gain to carry over: c is -3.0 points against b on golden")
    assert h.answer.endswith(", worse on production.") and "both" not in h.answer
    assert len(NUMBER_WITH_INTERVAL.findall(h.answer)) == 1
    assert h.next_step == "Keep b: c loses on production too."
