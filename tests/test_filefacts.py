"""A file's git history in reports: the first commit survives a rename (pre-registration)."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from ragnb.filefacts import git_history

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo, *args, date):
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date,
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def test_a_moved_spec_keeps_the_date_it_was_first_committed(tmp_path):
    """Committed 2026-01-02, moved into another folder 2026-03-04: the first commit is
    still 2026-01-02 (``git log --diff-filter=A`` alone gives the move's date)."""
    _git(tmp_path, "init", "-q", date="2026-01-02T10:00:00+00:00")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "s.toml").write_text("name = 'x'\n")
    _git(tmp_path, "add", ".", date="2026-01-02T10:00:00+00:00")
    _git(tmp_path, "commit", "-qm", "spec", date="2026-01-02T10:00:00+00:00")
    (tmp_path / "demo").mkdir()
    _git(tmp_path, "mv", "specs", "demo/specs", date="2026-03-04T10:00:00+00:00")
    _git(tmp_path, "commit", "-qm", "move", date="2026-03-04T10:00:00+00:00")
    first, modified = git_history(tmp_path / "demo" / "specs" / "s.toml")
    assert first == "2026-01-02T10:00:00+00:00" and modified is False
    (tmp_path / "demo" / "specs" / "s.toml").write_text("name = 'y'\n")
    assert git_history(tmp_path / "demo" / "specs" / "s.toml") == (first, True)
    (tmp_path / "loose.toml").write_text("")
    assert git_history(tmp_path / "loose.toml") == (None, None)
