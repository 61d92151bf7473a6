"""Filters for bots, changelog-only and docs-only changes, and vendored trees (by hand)."""
import subprocess

import pytest

from ragnb.codetasks import filter_table, mine_tasks
from ragnb.codetasks.git import git_available, neutral_env
from ragnb.codetasks.kinds import doc_kind, is_bot, merge_source
from ragnb.codetasks.mine import exclusion_table
from tests.codetasks.conftest import Git


def test_bot_names():
    assert is_bot(["dependabot[bot]"]) and is_bot(["renovate-bot"])
    assert is_bot(["pre-commit-ci[bot]", "66853113+pre-commit-ci[bot]@users.noreply.github.com"])
    assert not is_bot(["Ada Lovelace", "ada@example.org", "robot"])   # `[bot]` is literal
    assert is_bot(["ci-runner"], ["ci-*"])
    # a person's branch named like a bot is not a bot's; a bot's branch is
    assert not is_bot(merge_source("Merge pull request #1 from pallets/github-actions"))
    assert is_bot(merge_source("Merge pull request #2 from me/dependabot/npm/left-pad-2"))


def test_doc_kinds():
    assert doc_kind(["CHANGES.rst", "changes/123.bugfix"]) == "changelog"
    assert doc_kind(["docs/conf.py", "README.md", "CHANGES.rst"]) == "docs"
    # a requirements file is configuration (issue 28 item 9), no documentation
    assert doc_kind(["requirements.txt"]) == "config" and doc_kind([]) is None
    assert doc_kind(["requirements.txt", "pkg/app.py"]) is None


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    if not git_available():
        pytest.skip("git is not installed: the code-task miner reads repositories with git")
    g = Git(tmp_path_factory.mktemp("kinds") / "repo")
    g.write({"app.py": "def run():\n    return 1\n", "CHANGES.rst": "0.1\n",
             "docs/index.rst": "Docs\n", "static/lib/jq.js": "var a;\n",
             ".gitattributes": "static/lib/** linguist-vendored\n"})
    g.commit("Initial import")
    shas = {}
    # a bot's change: its branch commit is authored by dependabot[bot]
    g("checkout", "-q", "-b", "bump")
    (g.path / "app.py").write_text("def run():\n    return 2\n")
    g("add", "app.py")
    env = neutral_env({"GIT_AUTHOR_DATE": "2026-01-02T00:00:00+00:00",
                       "GIT_COMMITTER_DATE": "2026-01-02T00:00:00+00:00"})
    subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@example.org", "-C",
                    str(g.path), "commit", "-q", "--author",
                    "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>",
                    "-m", "Bump run"], check=True, env=env, capture_output=True)
    g("checkout", "-q", "main")
    g("merge", "-q", "--no-ff", "-m", "Merge pull request #1 from me/bump\n\nBump the run "
      "value for everyone", "bump")
    shas["bot"] = g("rev-parse", "HEAD")
    shas["changelog"] = g.merge("notes", {"CHANGES.rst": "0.2\n"}, "Notes",
                                "Merge pull request #2 from me/notes\n\nRelease notes for 0.2")
    shas["docs"] = g.merge("docs", {"docs/index.rst": "More docs\n", "CHANGES.rst": "0.3\n"},
                           "Docs", "Merge pull request #3 from me/docs\n\nExplain the run "
                           "command better")
    shas["vendored"] = g.merge("code", {"app.py": "def run():\n    return 3\n",
                                        "static/lib/jq.js": "var b;\n"}, "Code",
                               "Merge pull request #4 from me/code\n\nRun returns three now "
                               "for everyone")
    return mine_tasks(g.path), shas


def test_each_filter_counted(mined):
    m, shas = mined
    failed = dict(zip(m.tasks["sha"], m.tasks["failed"]))
    assert failed[shas["bot"]] == ["bot"]
    # the changelog is bookkeeping, not edit set: the edit set is empty as well
    assert failed[shas["changelog"]] == ["changelog_only", "edit_files"]
    assert failed[shas["docs"]] == ["docs_only"]
    assert failed[shas["vendored"]] == []
    table = filter_table(m.tasks, m.options).set_index("step")
    assert table.loc[["bot", "changelog_only", "docs_only"], "dropped"].tolist() == [1, 1, 1]
    assert table.loc["kept", "remaining"] == 1


def test_gitattributes_vendored_tree_is_excluded_and_counted(mined):
    m, shas = mined
    task = m.tasks.set_index("sha").loc[shas["vendored"]]
    assert task["edit_set"] == ["app.py"] and task["excluded"] == ["static/lib/jq.js"]
    table = exclusion_table(m.tasks, m.options)
    assert table.to_dict("records") == [
        {"pattern": ".gitattributes linguist-*", "files": 1, "changes": 1}]
