"""The four-cell verdict against simulated truth at n = 30 and 50 per set (issue 23 #7, #8).

``tests/fit/test_fourcell.py`` checks the n = 200 targets (>= 90% right). At smaller n a
right reading is a power limit, but a *confident wrong* one is not: at n = 50 "fit" was
read "carried over" in 6.5% of draws and "harder and collapsed" as "gain carried over" in
5%. Here a confident reading (anything but "inconclusive" and "refused") that differs
from the truth may occur in at most 5% of draws (binomial band, ``allowed_wrong``), part by
part: a level gap the sample does not resolve reads "no level difference is resolved" and
claims nothing; for the noise-only champion (best of 40 equal configs) "carried over" is
the wrong sentence.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragnb.fit import four_cell
from ragnb.fit.finding import four_cell_headline
from ragnb.fit.fourcell import JOINT
from ragnb.io.overlap import split_overlap
from tests._four_cell_sim import SCENARIOS, simulate
from tests.truth._scenarios import allowed_wrong

DRAWS = 40


#: reading -> (level, gain), the inverse of the reading table.
PARTS = {reading: parts for parts, reading in JOINT.items()}


def wrong_reading(reading: str, correct: str | None) -> bool:
    """A confident part of the reading that the scenario's truth contradicts.

    The reading joins a level part (harder / easier, or "alike": no level gap
    resolved, said as such) and a gain part (carried over / collapsed, or unresolved).
    A resolved part that differs from the truth is wrong; an unresolved one is not a
    claim. For the noise-only champion any carried-over gain is wrong.
    """
    if reading == "refused":
        return False
    level, gain = PARTS[reading]
    if correct is None:
        return gain == "carried over"
    true_level, true_gain = PARTS[correct]
    return ((level != "alike" and level != true_level)
            or (gain != "unresolved" and gain != true_gain))


@pytest.mark.slow
@pytest.mark.parametrize("n", [30, 50])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_confident_four_cell_reading_is_rarely_wrong(scenario, n):
    rng = np.random.default_rng(2350 + 7 * n + list(SCENARIOS).index(scenario))
    readings = [four_cell(simulate(scenario, rng, n=n), baseline="base", champion="champ",
                          resamples=300, seed=i).reading for i in range(DRAWS)]
    wrong = sum(wrong_reading(r, SCENARIOS[scenario][3]) for r in readings)
    assert wrong <= allowed_wrong(DRAWS), pd.Series(readings).value_counts()


def test_fit_seed_000_inconclusive_reading_gives_queries_needed():
    """A 'fit' truth at n = 30 that the table cannot resolve says so, with a number."""
    rng = np.random.default_rng(30)
    for i in range(20):
        fc = four_cell(simulate("fit", rng, n=30), baseline="base", champion="champ",
                       resamples=300, seed=i)
        if "inconclusive" in fc.reading:
            head = four_cell_headline(fc, {})
            assert head.answer.startswith("Inconclusive at this n")
            assert "queries per set would resolve the gap" in head.said
            assert fc.queries_needed > 30
            return
    pytest.fail("no inconclusive reading in 20 draws at n = 30")


def _shared(scores: pd.DataFrame, k: int) -> pd.DataFrame:
    """Production's first ``k`` queries renamed to golden ids: re-judged golden queries."""
    out = scores.copy()
    prod = out["split"] == "production"
    ids = sorted(out.loc[prod, "query_id"].unique(), key=lambda q: int(q[1:]))[:k]
    out.loc[prod & out["query_id"].isin(ids), "query_id"] = (
        out.loc[prod & out["query_id"].isin(ids), "query_id"].str.replace("p", "g", n=1))
    return out


def test_production_made_of_golden_queries_gets_no_verdict():
    """Issue 23 #8: production = re-judgements of 29 golden queries gave 'Ship'."""
    rng = np.random.default_rng(29)
    scores = _shared(simulate("transfer", rng, n=29), 29)
    fc = four_cell(scores, baseline="base", champion="champ", resamples=300)
    head = four_cell_headline(fc, {})
    assert fc.reading == "refused" and head.verdict == "refused: test sets overlap"
    assert "Ship" not in head.next_step
    assert "production shares 29 of its 29 queries with golden (29 by query id)" in head.answer


def test_partly_shared_production_is_read_on_its_disjoint_part():
    rng = np.random.default_rng(12)
    scores = _shared(simulate("transfer", rng, n=200), 50)
    fc = four_cell(scores, baseline="base", champion="champ", resamples=300)
    prod = fc.deltas.set_index("split").loc["production"]
    assert prod["n"] == 150 and fc.overlap.disjoint == 150
    assert "the fit is read on the 150 production queries not shared" in fc.explanation
    assert "read on the 150 production queries not shared with golden" in four_cell_headline(
        fc, {}).said


def test_identical_texts_under_other_ids_are_counted_and_named():
    g = pd.DataFrame({"query_id": ["g1", "g2"], "query": ["How do I reset?", "Price of X"]})
    p = pd.DataFrame({"query_id": [f"p{i}" for i in range(12)],
                      "query": ["how do i  RESET?"] + [f"fresh {i}" for i in range(11)]})
    o = split_overlap(g, p)
    # counted and named, not set aside: independent samples repeat short texts
    assert o.same_id == () and o.same_text == ("p0",) and o.disjoint == 12 and not o.refused
    assert "1 production queries have the text of a golden query" in o.describe()


def _rounds(shared: int, n: int = 60, rounds: int = 5):
    """Champions rescored on golden and production; the first ``shared`` production queries
    carry golden ids (re-judged golden queries)."""
    rng = np.random.default_rng(shared)
    rows = []
    base_g, base_p = rng.uniform(0.2, 0.8, n), rng.uniform(0.2, 0.8, n)
    for r in range(rounds + 1):
        for split, base, step in (("golden", base_g, 0.02), ("production", base_p, 0.0)):
            v = base + step * r + rng.normal(0, 0.01, n)
            ids = [f"g{i}" if split == "golden" or i < shared else f"p{i}" for i in range(n)]
            rows += [{"split": split, "config": f"r{r}", "query_id": q, "value": x}
                     for q, x in zip(ids, v)]
    return pd.DataFrame(rows), pd.DataFrame({"round": range(rounds + 1),
                                             "config": [f"r{r}" for r in range(rounds + 1)]})


def test_trajectory_counts_shared_queries_and_refuses_a_copy_of_golden():
    """Issue 23 #8, trajectory page: the overlap is counted; a production line made of
    golden's own queries dates nothing."""
    from ragnb.result import finding
    from ragnb.trajectory import trajectory

    scores, rounds = _rounds(shared=60)
    tr = trajectory(scores, rounds, resamples=200)
    head = finding(tr, chart=False).headline
    assert tr.overlap.refused and head.verdict == "refused: test sets overlap"
    assert head.answer.startswith("No divergence reading: production shares 60 of its 60")

    scores, rounds = _rounds(shared=20)
    tr = trajectory(scores, rounds, resamples=200)
    assert tr.overlap.disjoint == 40 and not tr.overlap.refused
    prod = tr.points[tr.points["split"] == "production"]
    assert (prod["n"] == 40).all()   # the line is drawn on the 40 unshared queries
    assert "Production is read on the 40 queries not shared with golden." in finding(
        tr, chart=False).headline.why
