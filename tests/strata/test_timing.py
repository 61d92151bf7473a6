"""Spec timing: written before or after the scores, on what evidence (files outside git)."""
from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from ragnb.strata import StrataSpec, read_spec, spec_timing

T0 = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


def touch(path, when: datetime, text="x"):
    path.write_text(text)
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


@pytest.fixture
def inputs(tmp_path):
    """A test set modified on July 1st 12:00 and a run on July 2nd 12:00 (the latest)."""
    return [touch(tmp_path / "test.jsonl", T0),
            touch(tmp_path / "run.jsonl", T0.replace(day=2))]


def spec_file(tmp_path, written_at: str, modified: datetime):
    text = (f'column = "kind"\nwritten_at = {written_at}\nwritten_by = "A"\n')
    return read_spec(touch(tmp_path / "spec.toml", modified, text))


def test_written_before_the_latest_score_input(tmp_path, inputs):
    spec = spec_file(tmp_path, "2026-07-02T09:00:00Z", T0)
    timing = spec_timing(spec, inputs)
    assert timing.verdict == "before"
    assert timing.seconds_before_scores == 3 * 3600
    assert timing.scores_at.path.endswith("run.jsonl") and timing.scores_at.evidence == "modified"
    assert timing.line == ("Spec written at 2026-07-02 09:00 UTC by A: written before the "
                           "scores, 3 h before the latest score input, run.jsonl (modified "
                           "2026-07-02 12:00 UTC).")
    assert timing.facts()["relative_to_scores"] == "written before the scores"


def test_written_after_the_scores(tmp_path, inputs):
    spec = spec_file(tmp_path, "2026-07-04T12:30:00Z", T0.replace(day=5))
    timing = spec_timing(spec, inputs)
    assert timing.verdict == "after"
    assert "written AFTER the scores could be seen (2 d 30 min after" in timing.line
    assert "not a pre-registered one" in timing.line
    assert timing.facts()["relative_to_scores"] == "written AFTER the scores"


def test_a_declared_time_the_file_does_not_back_is_said(tmp_path, inputs):
    spec = spec_file(tmp_path, "2026-06-01T00:00:00Z", T0.replace(day=9))
    timing = spec_timing(spec, inputs)
    assert timing.verdict == "before"
    assert "The spec file itself was modified 2026-07-09 12:00 UTC, after the score inputs: " \
           "the declared time is the only evidence that it came first." in timing.line


def test_no_spec_claims_nothing(inputs):
    timing = spec_timing(StrataSpec.plain("kind"), inputs)
    assert timing.verdict == "no spec" and timing.seconds_before_scores is None
    assert timing.line.startswith("No stratification spec: the strata are the values of 'kind'")


def test_what_if_origin_is_stated(tmp_path, inputs):
    spec = StrataSpec("kind", written_at=T0.replace(day=3), written_by="B", origin="what-if")
    assert "exported from the what-if widget" in spec_timing(spec, inputs).line
