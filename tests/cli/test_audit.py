"""``ragnb audit`` on the issue's example: text in points, JSON 0-1, errors exit 2."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ragnb.cli import main


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_issue_example_text_and_json():
    args = ["audit", "--n", "10", "--value", "1.00", "--baseline", "0.70", "--metric",
            "recall@5"]
    code, out, err = cli(*args)
    assert code == 0, err
    first, floor, mde, _ = out.splitlines()
    assert first.startswith("recall@5 = 100.0 points on 10 queries supports a true mean "
                            "anywhere in [69.2, 100.0]")
    assert "is not established at this n" in first
    assert floor.endswith("0.00195 (exact sign-flip test: 2 / 2^10)")
    assert mde.startswith("minimum detectable effect (80% power, alpha 0.05): 45.6 points")
    code, out, _ = cli(*args, "--format", "json")
    doc = json.loads(out)
    assert doc["low"] == pytest.approx(0.025 ** 0.1) and doc["min_p"] == 2 / 1024


def test_points_given_as_a_value_is_an_error():
    code, out, err = cli("audit", "--n", "10", "--value", "70")
    assert code == 2 and out == ""
    assert err.strip() == ("ragnb audit: [--value]: must be a metric value in [0, 1], got 70.0 "
                           "(give 0.70, not 70)")
