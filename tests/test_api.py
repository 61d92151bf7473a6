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
