"""Trajectory: a constructed case with a known divergence round, and the demo's checks."""
import numpy as np
import pandas as pd
import pytest

from ragnb.fit import four_cell
from ragnb.trajectory import trajectory
from ragnb.trajectory.charts import trajectory_chart


def constructed(rounds=12, hinge=4, n=400, seed=3):
    """Production rises 0.02 per round until ``hinge``, then stays; golden rises every round."""
    rng = np.random.default_rng(seed)
    rows = []
    base_g = rng.uniform(0.2, 0.8, n)
    base_p = rng.uniform(0.2, 0.8, n)
    for r in range(rounds + 1):
        g = base_g + 0.01 * r + rng.normal(0, 0.005, n)
        p = base_p + 0.02 * min(r, hinge) + rng.normal(0, 0.005, n)
        for split, v in (("golden", g), ("production", p)):
            rows += [{"split": split, "config": f"r{r:02d}", "query_id": f"q{i}", "value": x}
                     for i, x in enumerate(v)]
    scores = pd.DataFrame(rows)
    return scores, pd.DataFrame({"round": range(rounds + 1),
                                 "config": [f"r{r:02d}" for r in range(rounds + 1)]})


def test_divergence_round_is_found():
    scores, rounds = constructed()
    tr = trajectory(scores, rounds, resamples=200)
    assert tr.divergence_round == 4
    assert "After round 4 only the golden line moves" in tr.divergence_text


def test_no_divergence_when_both_lines_move():
    scores, rounds = constructed(hinge=12)
    assert trajectory(scores, rounds, resamples=200).divergence_round is None


def test_movement_and_inflation_by_hand():
    scores, rounds = constructed()
    tr = trajectory(scores, rounds, resamples=200)
    wide = scores[scores.split == "golden"].pivot(index="query_id", columns="config",
                                                   values="value")
    m = tr.movement.set_index("split")
    assert m.loc["golden", "total"] == pytest.approx(wide["r12"].mean() - wide["r00"].mean())
    # the split's one figure, from the 13 rounds' per-query scores: each round's own noise
    # has SD 0.005, so the SE of a difference between two is 0.005 sqrt(2 / 400) = 0.035
    # points, and successive champions are 0.01 apart, 28 such SEs: the winner r12 never
    # loses to r11 in any resample, so selection adds nothing (the worst case, all equal,
    # would say E[M_12] x SE / sqrt(2) = 0.05 points)
    assert tr.inflation["se"] == pytest.approx(0.005 * np.sqrt(2 / 400), rel=0.05)
    assert tr.inflation["method"] == "empirical-Bayes selection bootstrap"
    assert tr.inflation["inflation"] == 0.0
    assert tr.inflation["label"] == ("0.00 points (empirical-Bayes selection bootstrap over "
                                     "13 candidates)")
    assert tr.inflation["source"].startswith("median over pairs of candidates")


def test_movement_effect_size_by_hand():
    # six queries, a three-query pattern twice. last - first per query:
    # golden (0.1, 0.3, 0.2) x 2: mean 0.2, SD sqrt(4 x 0.01 / 5) -> d_z = sqrt 5;
    # production (0, 0.2, 0) x 2: mean 1/15, SD sqrt((4 + 8) / 225 / 5) -> d_z = sqrt(5/12)
    values = {("golden", "r0"): [0.2, 0.4, 0.6], ("golden", "r1"): [0.25, 0.5, 0.7],
              ("golden", "r2"): [0.3, 0.7, 0.8], ("production", "r0"): [0.1, 0.3, 0.5],
              ("production", "r1"): [0.1, 0.4, 0.5], ("production", "r2"): [0.1, 0.5, 0.5]}
    scores = pd.DataFrame([{"split": s, "config": c, "query_id": f"q{i}", "value": v}
                           for (s, c), vs in values.items() for i, v in enumerate(vs * 2)])
    tr = trajectory(scores, pd.DataFrame({"round": [0, 1, 2], "config": ["r0", "r1", "r2"]}),
                    resamples=200)
    m = tr.movement.set_index("split")["effect_size"]
    assert m["golden"] == pytest.approx(np.sqrt(5))
    assert m["production"] == pytest.approx(np.sqrt(5 / 12))


def test_endpoints_equal_the_four_cell_production_column():
    scores, rounds = constructed()
    tr = trajectory(scores, rounds, resamples=200)
    fc = four_cell(scores[scores.config.isin(["r00", "r12"])], baseline="r00", champion="r12",
                   resamples=200)
    check = tr.endpoint_check(fc)
    assert check["equal"].all()
    assert check.attrs["movement_equals_delta"]
    # the same comparison, so the same effect size as the four-cell delta row
    es = fc.deltas.set_index("split")["effect_size"]
    m = tr.movement.set_index("split")["effect_size"]
    assert m["production"] == pytest.approx(es["production"], abs=1e-12)
    assert m["golden"] == pytest.approx(es["golden"], abs=1e-12)


def test_chart_has_bands_lines_inflation_and_rule():
    scores, rounds = constructed()
    spec = trajectory_chart(trajectory(scores, rounds, resamples=200)).to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in spec["layer"]]
    # then the champions kept at the first round, the divergence round and the last, named
    assert marks == ["rect", "text", "area", "line", "rule", "text", "text", "text", "text"]
    named = [layer["data"] for layer in spec["layer"][-3:]]
    assert all(len(spec["datasets"][d["name"]]) == 1 for d in named)
    # a layered chart takes its axis from the first layer: whole rounds there too (CODEC's
    # three champions were labelled 0, 1, 1, 2, 2)
    axis = spec["layer"][0]["encoding"]["x"]["axis"]
    rounds = sorted(rounds["round"])
    assert axis["values"] == list(range(rounds[0], rounds[-1] + 1)) and axis["format"] == "d"


def test_too_few_champions_say_so_rather_than_no_divergence():
    # three champions cannot show a rise, a hinge and a flat stretch: the page says it cannot
    # date a divergence (CODEC's folds, 3 rounds), not that none happened
    import numpy as np
    import pandas as pd

    from ragnb.result import finding
    from ragnb.trajectory import trajectory

    rng = np.random.default_rng(3)
    rows = [{"split": s, "config": f"r{k}", "query_id": f"{s}{q}",
             "value": float(np.clip(0.4 + 0.05 * k + rng.normal(0, 0.1), 0, 1))}
            for s in ("golden", "production") for k in range(3) for q in range(40)]
    tr = trajectory(pd.DataFrame(rows), pd.DataFrame({"round": range(3),
                                                      "config": ["r0", "r1", "r2"]}),
                    resamples=200)
    head = finding(tr, chart=False).headline
    assert tr.divergence_round is None and head.verdict == "too few rounds"
    assert head.answer.startswith("Too few rounds to date a divergence: 3 champions (at least "
                                  "4 needed)")
    assert "Golden rose" in head.said
    assert "no divergence" not in head.answer and "01-fit" in head.next_step
