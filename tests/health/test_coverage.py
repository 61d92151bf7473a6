"""Coverage on a hand-made test set: every status, unanswerable queries counted apart."""
import pytest
from scipy import stats

from ragnb.errors import InputError
from ragnb.health import coverage

from ._data import corpus, make_test_set, q


@pytest.fixture
def data(tmp_path):
    ts = make_test_set(tmp_path, [
        q("q1", [("p1", 2), ("p2", 0)]),                 # answer in the build
        q("q2", [("p9", 2), ("p3", 1)]),                 # answer gone, a supporting passage left
        q("q3", [("p2", 0)], unanswerable=True),         # nothing to find
        q("q4", [("p3", 1)]),                            # answerable, no answer judged
    ])
    build = corpus(tmp_path, [("p1", "2026-01-01"), ("p2", "2026-01-01"), ("p3", "2026-01-01")])
    return ts, build


def test_statuses_and_share(data):
    cov = coverage(*data)
    assert dict(zip(cov.queries["query_id"], cov.queries["status"])) == {
        "q1": "covered", "q2": "answer not in corpus", "q3": "unanswerable",
        "q4": "no answering passage judged"}
    assert cov.n_answerable == 3 and cov.n_covered == 1     # q3 is not in the denominator
    assert cov.share == pytest.approx(1 / 3)
    assert list(cov.uncovered()["query_id"]) == ["q2", "q4"]
    assert cov.counts.to_dict() == {"covered": 1, "answer not in corpus": 1,
                                    "no answering passage judged": 1, "unanswerable": 1}


def test_interval_is_clopper_pearson(data):
    row = coverage(*data).summary().iloc[0]
    # exact interval of 1/3 from the beta quantiles (Clopper & Pearson 1934)
    assert row["ci_low"] == pytest.approx(stats.beta.ppf(0.025, 1, 3), rel=1e-6)
    assert row["ci_high"] == pytest.approx(stats.beta.ppf(0.975, 2, 2), rel=1e-6)
    assert row["unanswerable"] == 1 and row["answerable"] == 3


def test_answer_grade_one_counts_supporting_passages(data):
    cov = coverage(*data, answer_grade=1)
    status = dict(zip(cov.queries["query_id"], cov.queries["status"]))
    assert status["q2"] == "covered" and status["q4"] == "covered"
    with pytest.raises(InputError, match="at least 1"):
        coverage(*data, answer_grade=0)


def test_a_plain_table_is_validated(data):
    import pandas as pd
    ts, _ = data
    table = pd.DataFrame({"passage_id": ["p1", "p1"], "doc_version": ["2026-01-01"] * 2})
    with pytest.raises(InputError, match="more than once"):
        coverage(ts, table)


def test_coverage_finding_leads_with_the_covered_share(data):
    """1 of 3 answerable queries covered: 33.3%; Clopper-Pearson 95%: lower 1 - 0.975^(1/3)
    = 0.84%, upper the 97.5% quantile of Beta(2, 2) = 90.6%."""
    from ragnb.result import Analysis

    cov = coverage(*data)
    assert isinstance(cov, Analysis)
    f = cov.finding()
    assert f.headline.answer.startswith("33.3% of the 3 answerable queries (1) have a grade-2 "
                                        "passage in the corpus build ")
    assert f.headline.answer.endswith("(95% interval [0.8%, 90.6%]); 2 are not: 1 answer not "
                                      "in corpus, 1 no answering passage judged.")
    assert f.headline.verdict == "33.3% covered"
    assert list(f.display_table["value"]) == ["4", "1", "3", "1", "1", "1",
                                              "33.3% [0.8%, 90.6%]"]
    assert f.checks["holds"].all()
    assert f.description.endswith("Clopper-Pearson exact binomial interval of 1 of 3")
