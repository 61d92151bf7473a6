"""The health review's rules and headline: checks named by what they look at, failures by
what failed, and a check computed on another split names it (issue 23 #12).

The inputs are constructed stand-ins with the fields the rules read, so each branch is
set by hand; the expected sentences are written out from those figures."""
from types import SimpleNamespace

import pandas as pd

from ragnb.health import HealthReview, health_review
from ragnb.result import finding


def _inputs(*, lost=0, stale=0, unanswerable_outside=False, outside=(), small=(), groups=0,
            diverged=False):
    cov = SimpleNamespace(n_answerable=40, n_covered=40 - lost, share=(40 - lost) / 40,
                          summary=lambda: pd.DataFrame({"ci_low": [0.9], "ci_high": [1.0]}))
    return {
        "coverage": cov,
        "staleness_per_query": pd.DataFrame({"needs_review": [True] * stale
                                                              + [False] * (50 - stale)}),
        "unanswerable": pd.DataFrame([{"share": 0.3 if unanswerable_outside else 0.15,
                                    "ci_low": 0.2 if unanswerable_outside else 0.08,
                                    "ci_high": 0.4 if unanswerable_outside else 0.25,
                                    "target": 0.15, "target_outside": unanswerable_outside}]),
        "mix": pd.DataFrame({"source": ["ticket", "search"],
                          "outside": [s in outside for s in ("ticket", "search")]}),
        "buckets": pd.DataFrame({"bucket": ["billing", "login"],
                              "too_small": [b in small for b in ("billing", "login")]}),
        "target": 0.05,
        "duplicates": SimpleNamespace(n_groups=groups, members=list(range(2 * groups)),
                                   n_queries=50),
        "holdout": SimpleNamespace(diverged=diverged, result=SimpleNamespace(
            delta=-0.098 if diverged else -0.01, ci_low=-0.14 if diverged else -0.05,
            ci_high=-0.056 if diverged else 0.03)),
    }


def test_all_hold_and_the_held_back_check_names_its_split():
    f = finding(health_review("production", holdout_split="golden", **_inputs()))
    assert f.headline.answer == ("All 7 health checks hold for production; the held-back 20% "
                                 "check ran on golden.")
    assert f.headline.next_step.startswith("Keep using the test set")
    assert list(f.display_table["split"]) == ["production"] * 6 + ["golden"]
    assert list(f.display_table["check"])[-1] == "held-back 20%"


def test_a_failing_held_back_check_is_said_as_what_failed_on_its_split():
    """Issue 23 #12: 'failing: held-back 20% agrees' read as a contradiction, and 'Fix first'
    cited golden's check on the production page without naming golden."""
    f = finding(health_review("production", holdout_split="golden",
                              **_inputs(diverged=True, groups=3)))
    assert f.headline.answer == (
        "5 of 7 health checks hold for production; most urgent: held-back 20% disagrees with "
        "the rest by -9.8 points [-14.0, -5.6] (on golden).")
    assert f.headline.why[0] == "Also failing: 3 near-duplicate groups hold 6 of 50 queries."
    assert f.headline.why[-1].startswith("Holding: coverage, ")
    assert f.headline.next_step == "Fix the held-back 20% check first; its chart is below."
    assert "20% agrees" not in f.headline.answer


def test_every_rule_fails_on_its_own_figures_on_one_split():
    f = finding(health_review("golden", **_inputs(lost=3, stale=4, unanswerable_outside=True,
                                                  outside=("search",), small=("login",),
                                                  groups=1, diverged=True)))
    assert f.headline.answer == (
        "0 of 7 health checks hold for golden; most urgent: held-back 20% disagrees with the "
        "rest by -9.8 points [-14.0, -5.6].")
    assert f.headline.why == tuple(f"Also failing: {x}." for x in (
        "3 of 40 answerable queries have no answer in the build (92.5% covered [90.0%, "
        "100.0%])", "4 of 50 queries have stale or removed judgments",
        "unanswerable share 30.0% [20.0%, 40.0%] misses the target 15%",
        "declared source share outside its interval: search",
        "1 of 2 buckets are too small to see 5 points: login",
        "1 near-duplicate groups hold 2 of 50 queries"))
    assert list(f.checks["holds"]) == [False] * 7
    assert set(f.display_table["split"]) == {"golden"}


def test_a_check_added_by_hand_without_a_failure_sentence_says_it_fails():
    review = HealthReview("production")
    review.add("coverage", False, "3 lost")
    assert finding(review).headline.answer == ("0 of 1 health checks hold for production; "
                                               "most urgent: coverage fails (3 lost).")


def test_the_row_of_all_queries_is_not_counted_as_a_bucket():
    # bucket_scores ends with a row for all queries together: "6 of 7 buckets" on the demo
    # counted it beside its six intents
    inputs = _inputs()
    inputs["buckets"] = pd.DataFrame({"bucket": ["billing", "login", "all queries"],
                                      "too_small": [True, True, False]})
    f = finding(health_review("production", **inputs))
    assert f.headline.answer == ("6 of 7 health checks hold for production; most urgent: 2 of "
                                 "2 buckets are too small to see 5 points: billing, login.")
