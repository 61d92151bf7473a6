"""The repository as git sees it: a subfolder stands for the whole work tree."""
import pytest

from ragnb.codetasks import mine_tasks
from ragnb.codetasks.git import Repo, git_available
from tests.codetasks.conftest import Git


@pytest.fixture(scope="module")
def two_folders(tmp_path_factory):
    if not git_available():
        pytest.skip("git is not installed")
    g = Git(tmp_path_factory.mktemp("sub") / "repo")
    g.write({"app/core.py": "def serve(port):\n    return port\n",
             "lib/util.py": "def helper(x):\n    return x\n"})
    g.commit("Initial import")
    g.merge("both", {"app/core.py": "def serve(port, host):\n    return port\n",
                     "lib/util.py": "def helper(x):\n    return x + 1\n"},
            "Both", "Merge pull request #1 from dev/both\n\nServe on a given host name too")
    return g.path


def test_a_subfolder_is_resolved_to_the_top_level(two_folders):
    # issue 28 item 5: --repo app/ used to diff with pathspec '.' relative to app/, so
    # lib/util.py's hunk (and its symbol `helper`) vanished from the task
    assert Repo(two_folders / "app").path == two_folders
    top, sub = mine_tasks(two_folders), mine_tasks(two_folders / "app")
    task = sub.tasks.iloc[0]
    assert task["edit_set"] == ["app/core.py", "lib/util.py"]
    assert task["symbols"] == ["helper", "serve"]
    assert task["signature_changes"][0]["after"] == "port, host"
    cols = ["sha", "edit_set", "symbols", "text", "read_set", "callers"]
    assert sub.tasks[cols].equals(top.tasks[cols])
