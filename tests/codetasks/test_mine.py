"""Mining the tiny repository of conftest.py: every label derived by hand from its history."""
import pytest

from ragnb.codetasks import filter_table, mine_tasks
from ragnb.codetasks.git import Repo
from ragnb.errors import InputError


@pytest.fixture(scope="module")
def mined(tiny_repo):
    path, _ = tiny_repo
    return mine_tasks(path)


def task(mined, shas, name):
    rows = mined.tasks[mined.tasks["sha"] == shas[name]]
    assert len(rows) == 1
    return rows.iloc[0]


def test_one_task_per_merge_with_its_first_parent(mined, tiny_repo):
    _, shas = tiny_repo
    assert mined.tasks["sha"].tolist() == [shas[m] for m in ("M1", "M2", "M3", "M4", "M5", "M6")]
    assert mined.tasks["task_id"].tolist() == [shas[m][:12] for m in
                                               ("M1", "M2", "M3", "M4", "M5", "M6")]
    assert task(mined, shas, "M3")["parent"] == shas["M2"]       # what gets indexed
    assert task(mined, shas, "M1")["parent"] == shas["root"]
    assert set(mined.tasks["kind"]) == {"merge"}


def test_filters_and_table(mined, tiny_repo):
    _, shas = tiny_repo
    failed = {name: task(mined, shas, name)["failed"] for name in ("M1", "M2", "M3", "M4", "M5",
                                                                   "M6")}
    assert failed == {"M1": ["reverted"], "M2": ["revert"], "M3": [], "M4": ["description"],
                      "M5": ["edit_files"], "M6": []}
    assert mined.kept["sha"].tolist() == [shas["M3"], shas["M6"]]
    table = filter_table(mined.tasks, mined.options).set_index("step")
    assert table["remaining"].tolist() == [6, 6, 5, 4, 4, 4, 4, 4, 4, 3, 2, 2]
    assert table.loc[["revert", "reverted", "edit_files", "description"], "dropped"].tolist() == [
        1, 1, 1, 1]
    assert table.loc[["bot", "release", "chore", "changelog_only", "docs_only", "config_only"],
                     "fails"].tolist() == [0, 0, 0, 0, 0, 0]


def test_edit_set_excludes_lock_and_vendored_files(mined, tiny_repo):
    _, shas = tiny_repo
    m1 = task(mined, shas, "M1")
    assert m1["edit_set"] == ["pkg/billing.py"]
    assert m1["excluded"] == ["poetry.lock", "vendor/lib.py"]
    assert m1["symbols"] == ["total"]            # the hunk header: def total(self):


def test_rename_lists_old_paths_as_edit_set_and_new_ones_as_added(mined, tiny_repo):
    _, shas = tiny_repo
    m5 = task(mined, shas, "M5")
    assert m5["edit_set"] == [f"pkg/locale/l{i:02d}.py" for i in range(16)]
    assert m5["added"] == [f"pkg/i18n/l{i:02d}.py" for i in range(16)]


def test_signature_change_callers_read_set_and_text(mined, tiny_repo):
    _, shas = tiny_repo
    m3 = task(mined, shas, "M3")
    assert m3["edit_set"] == ["pkg/billing.py", "pkg/orders.py"]
    assert m3["symbols"] == ["charge", "prorate"]
    assert m3["signature_changes"] == [{"path": "pkg/billing.py", "name": "prorate",
                                        "qualname": "prorate", "before": "amount, days",
                                        "after": "amount, days, cycle"}]
    # every file of the parent calling prorate( except billing.py itself
    assert m3["callers"] == ["pkg/api.py", "pkg/orders.py"]
    # orders.py starts calling rate_limited, defined in limits.py (not changed)
    assert m3["read_set"] == ["pkg/limits.py"]
    # the body quotes the new def line: dropped
    assert m3["body_dropped"]
    assert m3["text"] == "Take an explicit cycle length when prorating"


def test_paths_and_symbols_stripped_from_text(mined, tiny_repo):
    _, shas = tiny_repo
    m1 = task(mined, shas, "M1")
    # "total" (Invoice.total) is a plain word in prose: kept; the path goes with its "in"
    assert m1["text"] == "Round the invoice total\n\nCustomers saw fractions of a cent."
    assert m1["description"].startswith("Round the invoice total in pkg/billing.py")


def test_stack_trace_body_is_kept(mined, tiny_repo):
    _, shas = tiny_repo
    m6 = task(mined, shas, "M6")
    assert not m6["body_dropped"]
    assert m6["text"] == ("Preview requests should count against the quota\n\n```\n"
                          "Traceback (most recent call last):\nQuotaError: over limit\n```")
    assert m6["edit_set"] == ["pkg/api.py", "pkg/limits.py"]
    assert m6["read_set"] == []       # check_quota is new; limits.py is in the edit set
    assert m6["signature_changes"] == [] and m6["callers"] == []


def test_read_set_of_a_one_line_change(mined, tiny_repo):
    _, shas = tiny_repo
    m4 = task(mined, shas, "M4")       # api.py now calls prorate(amount, 31)
    assert m4["read_set"] == ["pkg/billing.py"]
    assert m4["text"] == ""


def test_every_commit_mode(tiny_repo):
    path, shas = tiny_repo
    m = mine_tasks(path, every_commit=True)
    assert m.tasks["sha"].tolist()[-1] == shas["C7"]
    c7 = m.tasks.iloc[-1]
    assert c7["kind"] == "commit" and c7["parent"] == shas["M6"] and c7["kept"]
    assert c7["edit_set"] == ["pkg/api.py"]
    assert shas["root"] not in m.tasks["sha"].tolist()      # no parent: never a task


def test_bounds_are_options(tiny_repo):
    path, shas = tiny_repo
    m = mine_tasks(path, max_files=16, min_words=0)
    kept = set(m.kept["sha"])
    assert shas["M5"] in kept and shas["M4"] in kept


def test_bad_repository_and_branch(tmp_path, tiny_repo):
    with pytest.raises(InputError, match="not a git repository"):
        Repo(tmp_path)
    # the error names the branches there are (--branch master where the mainline is main)
    with pytest.raises(InputError, match=r"not a commit: 'nope'; branches: cycle, fix-total, "
                                         r"main, .* \(choose one with --branch\)$"):
        mine_tasks(tiny_repo[0], "nope")
    with pytest.raises(InputError, match="max_files 0 is below min_files 1"):
        mine_tasks(tiny_repo[0], max_files=0)


@pytest.fixture(scope="module")
def squash_repo(tmp_path_factory):
    """A merged pull request reverting its own WIP commit, then a squash merge, then a commit."""
    from ragnb.codetasks.git import git_available
    from tests.codetasks.conftest import Git

    if not git_available():
        pytest.skip("git is not installed")
    g = Git(tmp_path_factory.mktemp("squash") / "repo")
    g.write({"net/headers.py": "def parse(raw):\n    return raw\n",
             "net/body.py": "def read(raw):\n    return raw\n"})
    shas = {"root": g.commit("Initial import")}
    g("checkout", "-q", "-b", "wip")
    g.write({"net/body.py": "def read(raw):\n    print(raw)\n    return raw\n"})
    shas["wip"] = g.commit("WIP: debug print")
    g("revert", "--no-edit", shas["wip"])
    g.write({"net/headers.py": "def parse(raw):\n    return raw.strip()\n"})
    g.commit("Strip header values")
    g("checkout", "-q", "main")
    g("merge", "-q", "--no-ff", "-m", "Merge pull request #11 from dev/wip\n\n"
      "Strip whitespace around header values", "wip")
    shas["M1"] = g("rev-parse", "HEAD")
    g.write({"net/body.py": "def read(raw):\n    return raw or b''\n"})
    shas["S2"] = g.commit("Read an empty body as empty bytes (#12)\n\n"
                          "A missing body used to come back as None.")
    g.write({"net/body.py": "def read(raw):\n    return raw or b''  # empty\n"})
    shas["C3"] = g.commit("Tidy a comment")
    return g.path, shas


def test_internal_revert_is_neither_revert_nor_reverted(squash_repo):
    # issue 28 item 4: the PR's own "Revert WIP" flagged it `revert`, and the WIP commit
    # being reverted (on the same branch) flagged it `reverted`
    path, shas = squash_repo
    m1 = mine_tasks(path).tasks.set_index("sha").loc[shas["M1"]]
    assert m1["failed"] == [] and m1["kept"]
    assert m1["edit_set"] == ["net/headers.py"]   # the WIP change and its revert cancel out


def test_squash_merges_are_mined_by_default(squash_repo):
    # issue 28 item 3: a first-parent commit titled "... (#12)" is a merged pull request
    path, shas = squash_repo
    mined = mine_tasks(path)
    assert mined.tasks["sha"].tolist() == [shas["M1"], shas["S2"]]
    s2 = mined.tasks.iloc[1]
    assert s2["kind"] == "squash" and s2["kept"] and s2["edit_set"] == ["net/body.py"]
    assert s2["text"] == "Read an empty body as empty bytes (#12)\n\n" \
                         "A missing body used to come back as None."
    assert mine_tasks(path, squash=False).tasks["sha"].tolist() == [shas["M1"]]
    assert mined.warnings == ()


def test_shallow_clone_and_nothing_to_mine_warn(squash_repo, tmp_path):
    import subprocess

    from ragnb.codetasks.git import neutral_env

    path, shas = squash_repo
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{path}", str(shallow)],
                   check=True, env=neutral_env(), capture_output=True)
    mined = mine_tasks(shallow)
    # M1, S2, C3 are all a depth-3 clone has: M1's parents are grafted away, S2 is mined
    assert mined.tasks["sha"].tolist() == [shas["S2"]]
    assert len(mined.warnings) == 1 and mined.warnings[0].startswith("the clone is shallow")
    plain = tmp_path / "plain"
    from tests.codetasks.conftest import Git

    g = Git(plain)
    g.write({"a.py": "A = 1\n"})
    g.commit("One")
    g.write({"a.py": "A = 2\n"})
    g.commit("Two")
    none = mine_tasks(plain)
    assert none.tasks.empty
    assert none.warnings == ("nothing to mine on the first-parent history of main: no merge "
                             "commit and no squash-merged pull request (title ending '(#N)'); "
                             "its 1 single-parent commit(s) are changes with --every-commit",)
