"""Provenance facts: hashes, data paths, specs, git state, contributed facts, header."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
from datetime import UTC, datetime, timedelta

import nbformat
import pytest

from ragnb.report.header import render_header, render_record
from ragnb.report.provenance import (
    PROVENANCE_MIMETYPE,
    ParameterValue,
    collect,
    contributed_facts,
    data_facts,
    git_state,
    sha256_file,
    spec_fact,
)

from .conftest import FIXTURE_DATA

RUN_START = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)


def pv(name, value, type_="str"):
    return ParameterValue(name, type_, value, "default")


def git(cwd, *args, date="2024-01-02T03:04:05+00:00"):
    env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd, env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()


def test_sha256_matches_hashlib():
    path = FIXTURE_DATA / "scores.csv"
    assert sha256_file(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert sha256_file(path, chunk=7) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_data_facts_follow_the_conventions(tmp_path):
    data = tmp_path / "data"
    (data / "runs").mkdir(parents=True)
    (data / "qrels.txt").write_bytes(b"q1 0 d1 1\n")
    (data / "runs" / "bm25.run").write_bytes(b"q1 Q0 d1 1 2.0 bm25\n")
    (data / ".hidden").write_bytes(b"ignored")
    (tmp_path / "notebooks").mkdir()
    base = tmp_path / "notebooks"
    params = [
        pv("data_dir", "../data"),              # folder: every file, tree digest
        pv("runs_path", "../missing.run"),      # path name, missing: listed as missing
        pv("qrels", "../data/qrels.txt"),       # other name: free text, never hashed
        pv("qrels_file", "../data/qrels.txt"),  # declared path: listed
        pv("metric", "ndcg@10"),                # plain text: not a path
        pv("k", 10, "int"),
        pv("empty_dir", ""),                    # empty value: nothing to hash
    ]
    facts = {f.parameter: f for f in data_facts(params, base)}
    assert set(facts) == {"data_dir", "runs_path", "qrels_file"}
    d = facts["data_dir"]
    assert d.kind == "dir" and [f.path for f in d.files] == ["qrels.txt", "runs/bm25.run"]
    h_qrels = hashlib.sha256(b"q1 0 d1 1\n").hexdigest()
    h_run = hashlib.sha256(b"q1 Q0 d1 1 2.0 bm25\n").hexdigest()
    assert [f.sha256 for f in d.files] == [h_qrels, h_run]
    lines = f"qrels.txt\t{h_qrels}\nruns/bm25.run\t{h_run}\n"
    assert d.tree_sha256 == hashlib.sha256(lines.encode()).hexdigest()
    assert facts["runs_path"].kind == "missing"
    assert facts["qrels_file"].kind == "file"
    assert facts["qrels_file"].files[0].sha256 == h_qrels
    assert facts["qrels_file"].files[0].size == 10


def test_spec_timing_relative_to_the_run(tmp_path):
    spec = tmp_path / "strata.toml"
    spec.write_text("[strata]\n")
    before = (RUN_START - timedelta(days=2, hours=3)).timestamp()
    os.utime(spec, (before, before))
    fact = spec_fact("strata_spec", "strata.toml", tmp_path, RUN_START)
    assert fact.sha256 == hashlib.sha256(b"[strata]\n").hexdigest()
    assert fact.seconds_before_run == pytest.approx(2 * 86400 + 3 * 3600)
    assert fact.git_first_commit is None  # not in git
    later = (RUN_START + timedelta(minutes=5)).timestamp()
    os.utime(spec, (later, later))
    fact = spec_fact("strata_spec", "strata.toml", tmp_path, RUN_START)
    assert fact.seconds_before_run == pytest.approx(-300)
    missing = spec_fact("strata_spec", "absent.toml", tmp_path, RUN_START)
    assert missing.sha256 is None and missing.seconds_before_run is None


def test_spec_in_git_states_first_commit_and_changes(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "strata.toml").write_text("a = 1\n")
    git(tmp_path, "add", "strata.toml")
    git(tmp_path, "commit", "-qm", "pre-register", date="2024-01-02T03:04:05+00:00")
    (tmp_path / "strata.toml").write_text("a = 2\n")
    git(tmp_path, "commit", "-qam", "change", date="2024-02-03T04:05:06+00:00")
    fact = spec_fact("strata_spec", "strata.toml", tmp_path, RUN_START)
    assert fact.git_first_commit == "2024-01-02T03:04:05+00:00"
    assert fact.git_modified is False
    (tmp_path / "strata.toml").write_text("a = 3\n")
    assert spec_fact("strata_spec", "strata.toml", tmp_path, RUN_START).git_modified is True


def test_git_state_commit_and_dirty_flag(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "f.txt").write_text("x")
    git(tmp_path, "add", "f.txt")
    git(tmp_path, "commit", "-qm", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    state = git_state(tmp_path)
    assert state.commit == head and state.dirty is False
    (tmp_path / "new.txt").write_text("untracked counts as dirty")
    assert git_state(tmp_path).dirty is True
    (tmp_path / "sub").mkdir()
    assert git_state(tmp_path / "sub") is None  # not the top of a checkout


def executed_with_facts():
    nb = nbformat.v4.new_notebook()
    def bundle(section, facts):
        return nbformat.v4.new_output(
            "display_data", data={PROVENANCE_MIMETYPE: {"section": section, "facts": facts},
                                  "text/plain": "..."})

    nb.cells = [
        nbformat.v4.new_code_cell("x", outputs=[
            bundle("Splits", {"split_id": "golden", "selections_against": 3})]),
        nbformat.v4.new_code_cell("y", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="hi"),
            bundle("Splits", {"split_id": "prod", "selections_against": 0, "inflation": 0.01}),
            bundle("Notes", {"remark": "<script>alert(1)</script>"}),
        ]),
    ]
    return nb


def test_contributed_facts_grouped_by_section():
    facts = contributed_facts(executed_with_facts())
    assert facts == {
        "Splits": [
            {"split_id": "golden", "selections_against": 3},
            {"split_id": "prod", "selections_against": 0, "inflation": 0.01},
        ],
        "Notes": [{"remark": "<script>alert(1)</script>"}],
    }


def test_header_escapes_and_warns(tmp_path):
    spec = tmp_path / "strata.toml"
    spec.write_text("x")
    later = (RUN_START + timedelta(hours=1)).timestamp()
    os.utime(spec, (later, later))
    params = [
        pv("label", "<script>alert(1)</script>"),
        pv("strata_spec", "strata.toml"),
        ParameterValue("seed", "int", 7, "given"),
        ParameterValue("n_resamples", "int", 2000, "default"),
    ]
    prov = collect("01-x", params, tmp_path, RUN_START, 3.26, executed_with_facts())
    line = render_header(prov)  # the compact line on top: when, version, data digests
    assert line.startswith('<header class="ragnb-provline"')
    assert "ran 2025-06-01 12:00:00 UTC" in line and "ragnb " in line
    assert "<code>strata_spec</code>" in line
    assert hashlib.sha256(b"x").hexdigest()[:12] in line
    assert "spec modified after the run started" in line
    assert 'href="#ragnb-provenance"' in line
    page = render_record(prov)  # the full record closes the page
    assert page.startswith('<footer class="ragnb-provenance" id="ragnb-provenance">')
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "modified 1 h after the run started" in page
    assert "<code>seed</code> = 7, <code>n_resamples</code> = 2000" in page
    assert "2025-06-01 12:00:00 UTC, took 3.3 s" in page
    assert "<th>split_id</th><th>selections_against</th><th>inflation</th>" in page
    assert "<td>golden</td><td>3</td><td>—</td>" in page
    assert hashlib.sha256(b"x").hexdigest() in page
    # the JSON form carries the same facts
    data = json.loads(json.dumps(prov.to_json()))
    assert data["started_at"] == "2025-06-01T12:00:00+00:00"
    assert data["contributed"]["Splits"][1]["inflation"] == 0.01


def test_compact_line_shows_the_digest_of_files_a_notebook_hashed_itself(tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    facts = [{"file": "/x/ragnb.toml", "sha256": "a" * 64, "bytes": 3},
             {"file": "/x/runs.jsonl", "sha256": "b" * 64, "bytes": 4}]
    nb.cells = [nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
        "display_data", data={PROVENANCE_MIMETYPE: {"section": "Workspace files", "facts": f},
                              "text/plain": ""}) for f in facts])]
    prov = collect("06-x", [], tmp_path, RUN_START, 1.0, nb)
    line = render_header(prov)
    assert ('data sha256 <code>ragnb.toml</code> <span class="digest" '
            f'title="{"a" * 64}">{"a" * 12}</span> and 1 more') in line
