"""Judging depth beside the level gap (issue 33 #2): a level reading on sets judged to
different depths says so in its own sentence."""
import numpy as np
import pandas as pd

from ragnb.fit import four_cell
from ragnb.fit.depth import judging_depth
from ragnb.io.testset import TestSet


def _test_set(depths):
    """A test set whose query i has depths[i] judgments."""
    ids = [f"q{i}" for i in range(len(depths))]
    judgments = pd.DataFrame(
        [{"query_id": q, "passage_id": f"{q}p{j}", "grade": int(j == 0)}
         for q, d in zip(ids, depths, strict=True) for j in range(d)])
    return TestSet(queries=pd.DataFrame({"query_id": ids}), judgments=judgments)


def _shallow_golden_deep_production():
    """Issue 33 #2's shape: golden 30 topics, 17 of them with fewer than 20 judgments
    (median 7.5 by construction), production 20 topics (median 190.5)."""
    golden = [5] * 15 + [10] * 2 + [60] * 13                   # sorted middle pair 5, 10
    production = [12] * 8 + [181] * 2 + [200] * 10             # sorted middle pair 181, 200
    return {"golden": _test_set(golden), "production": _test_set(production)}


def test_medians_and_the_rule():
    sets = _shallow_golden_deep_production()
    d = judging_depth(sets, "golden", "production", judged={"golden": 0.6, "production": 0.95},
                      k=10)
    assert d.table["median_judgments"].tolist() == [7.5, 190.5]
    assert d.differs
    assert d.reason == ("median 7.5 judgments a golden query, 190.5 a production one; 60% of "
                        "the baseline's top 10 judged on golden, 95% on production")
    alike = judging_depth({"golden": _test_set([20] * 10), "production": _test_set([11] * 10)},
                          "golden", "production", judged={"golden": 1.0, "production": 0.95},
                          k=10)
    assert not alike.differs and alike.clause() == ""     # 20 / 11 < 2, 5 points < 10


def _scores():
    """Baseline 13 points on golden, 37 on production (the finding's figures, in shape);
    the champion adds 2 points on every other query."""
    rows = []
    for split, level, n in (("golden", 0.13, 30), ("production", 0.37, 20)):
        base = level + np.linspace(-0.1, 0.1, n)          # symmetric: Cochran's rule holds
        for q in range(n):
            rows += [{"split": split, "config": c, "query_id": f"{split[0]}{q}", "value": v}
                     for c, v in (("base", base[q]), ("champ", base[q] + 0.02 * (q % 2)))]
    return pd.DataFrame(rows)


def test_an_easier_reading_on_sets_judged_differently_says_so_in_its_sentence():
    """Fails before issue 33 #2: the level sentence read 'production is easier for a fixed
    pipeline' with the depth only in the Limit paragraph."""
    sets = _shallow_golden_deep_production()
    depth = judging_depth(sets, "golden", "production", k=10)
    fc = four_cell(_scores(), baseline="base", champion="champ",
                   resamples=1000, depth=depth)
    assert fc.reading.startswith("easier")
    level = fc.explanation.split("Gain gap")[0]
    assert "judged differently (median 7.5 judgments a golden query, 190.5 a production one)" \
        in level and "judging depth may explain the level gap" in level
    why = [b for b in fc.finding(display_names={}).headline.why if "easier" in b]
    assert len(why) == 1 and "judged differently" in why[0]
    # without a depth difference the same scores read as before
    plain = four_cell(_scores(), baseline="base", champion="champ",
                      resamples=1000)
    assert "judged differently" not in plain.explanation
