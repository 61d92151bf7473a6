"""The top-level API: every advertised name resolves, and a short session works."""
import pytest

import ragnb
from ragnb.paths import DEMO_DIR


@pytest.mark.parametrize("name", ragnb.__all__)
def test_every_exported_name_resolves(name):
    assert getattr(ragnb, name) is not None


def test_unknown_attribute():
    with pytest.raises(AttributeError):
        ragnb.nope  # noqa: B018


def test_a_short_session():
    golden = ragnb.read_test_set(DEMO_DIR / "golden.jsonl")
    runs = [ragnb.read_run(DEMO_DIR / "runs" / "golden" / f"round-{r:02d}.jsonl") for r in (0, 40)]
    s = ragnb.score(golden, runs, "ndcg@10")
    r = ragnb.paired_bootstrap(s.values("round-00", "ndcg@10"), s.values("round-40", "ndcg@10"),
                               resamples=2000)
    assert round(r.delta * 100, 1) == 9.0 and r.ci_low > 0 and r.n == 300


def test_compare_configs_takes_the_scores_as_score_returns_them():
    # score -> compare composes: the same rows as `ragnb compare` on the same files
    import io
    from contextlib import redirect_stdout

    import numpy as np
    import pandas as pd

    from ragnb.cli import main

    test_set = DEMO_DIR / "production.jsonl"
    paths = [DEMO_DIR / "runs" / "production" / f"round-{r:02d}.jsonl" for r in (0, 40)]
    s = ragnb.score(ragnb.read_test_set(test_set), [ragnb.read_run(p) for p in paths],
                    "ndcg@10")
    table = ragnb.compare_configs(s, baseline="round-00", metric="ndcg@10", resamples=500)
    (row,) = table.to_dict("records")
    diff = s.values("round-40", "ndcg@10") - s.values("round-00", "ndcg@10")
    assert np.isclose(row["delta"], np.mean(diff)) and row["n"] == 200
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["compare", "--judgments", str(test_set), "--baseline", str(paths[0]),
                     "--challenger", str(paths[1]), "--metric", "ndcg@10", "--resamples",
                     "500", "--format", "csv"]) == 0
    cli = pd.read_csv(io.StringIO(out.getvalue())).iloc[0]
    for column in ("delta", "ci_low", "ci_high", "p_value"):
        assert np.isclose(row[column], cli[column]), column
    with pytest.raises(ragnb.InputError, match="scores must be a Scores"):
        ragnb.compare_configs([1, 2], baseline="a", metric="m")


def test_run_page_is_resolve_then_run():
    from ragnb.pages import resolve, run

    one = ragnb.run_page("01-fit", DEMO_DIR, resamples=200)
    two = run(resolve("01-fit", DEMO_DIR, resamples=200))
    assert one.to_text() == two.to_text()
    assert one.headline.question == "Is the gain real or fit?"
