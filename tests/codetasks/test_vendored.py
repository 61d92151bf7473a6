"""Vendored roots (own version, own licence, wholesale updates) and bookkeeping files."""
import pytest

from ragnb.codetasks import mine_tasks
from ragnb.codetasks.git import git_available
from ragnb.codetasks.mine import bookkeeping_table, exclusion_table
from ragnb.codetasks.vendored import nested_roots, wholesale_roots
from tests.codetasks.conftest import Git

UTIL = "def helper(x):\n    return x\n"


@pytest.fixture(scope="module")
def vendoring(tmp_path_factory):
    """``pkg`` vendors idna (own ``__version__``) and chardet (updated wholesale) in packages/."""
    if not git_available():
        pytest.skip("git is not installed")
    g = Git(tmp_path_factory.mktemp("vendored") / "repo")
    chardet = {f"pkg/packages/chardet/m{i}.py": f"X = {i}\n" for i in range(3)}
    g.write({"pkg/__init__.py": "__version__ = '2.0'\n", "pkg/util.py": UTIL,
             "pkg/api.py": "from pkg.util import helper\n\n\ndef get(u):\n    return helper(u)\n",
             "pkg/packages/__init__.py": "",
             "pkg/packages/idna/__init__.py": "__version__ = '2.5'\n",
             "pkg/packages/idna/core.py": "from pkg.util import helper\n\nY = helper(2)\n",
             "pkg/packages/chardet/__init__.py": "", **chardet,
             "HISTORY.rst": "2.0\n", "AUTHORS.rst": "Ann\n"})
    shas = {"root": g.commit("Initial import")}
    shas["M1"] = g.merge(
        "scale", {"pkg/util.py": "def helper(x, scale=1):\n    return x * scale\n",
                  "pkg/packages/idna/core.py": "from pkg.util import helper\n\nY = helper(3)\n",
                  "HISTORY.rst": "2.0\n- helpers scale\n", "AUTHORS.rst": "Ann\nBo\n"},
        "Scale", "Merge pull request #1 from bo/scale\n\nLet the helper scale its input value")
    shas["M2"] = g.merge(
        "chardet", {f: t.replace("X =", "X = 1 +") for f, t in chardet.items()},
        "Chardet", "Merge pull request #2 from bo/chardet\n\nUpdate chardet to 3.0.4")
    return g.path, shas


def test_vendored_roots_are_excluded_and_counted(vendoring):
    # issue 28 item 1: idna (its own __version__, nested in pkg/) and chardet (updated
    # wholesale by "Update chardet to ...") counted as first-party code
    path, shas = vendoring
    mined = mine_tasks(path)
    assert mined.vendored == {"pkg/packages/chardet": "wholesale update",
                              "pkg/packages/idna": "own version"}
    m1, m2 = (mined.tasks.set_index("sha").loc[shas[m]] for m in ("M1", "M2"))
    assert m1["edit_set"] == ["pkg/util.py"]
    assert m1["excluded"] == ["pkg/packages/idna/core.py"]
    # helper(x) -> helper(x, scale): api.py calls it; the vendored idna/core.py is no caller
    assert m1["callers"] == ["pkg/api.py"]
    # its title is a dependency bump too (issue 37 #4)
    assert m2["edit_set"] == [] and m2["failed"] == ["chore", "edit_files"]
    table = exclusion_table(mined.tasks, mined.options, mined.vendored).set_index("pattern")
    assert table.loc["pkg/packages/chardet/ (vendored: wholesale update)", "files"] == 3
    assert table.loc["pkg/packages/idna/ (vendored: own version)", "changes"] == 1
    off = mine_tasks(path, vendored=False).tasks.set_index("sha").loc[shas["M1"]]
    assert off["edit_set"] == ["pkg/packages/idna/core.py", "pkg/util.py"]


def test_bookkeeping_files_are_kept_out_of_edit_sets(vendoring):
    # issue 28 item 2: HISTORY.rst and AUTHORS.rst were in the edit set, so a perfect code
    # retriever missed a file of every task that updates them
    path, shas = vendoring
    mined = mine_tasks(path)
    m1 = mined.tasks.set_index("sha").loc[shas["M1"]]
    assert m1["bookkeeping"] == ["AUTHORS.rst", "HISTORY.rst"]
    assert "HISTORY.rst" not in m1["edit_set"] and m1["kept"]
    assert bookkeeping_table(mined.tasks).to_dict("records") == [
        {"file": "AUTHORS.rst", "changes": 1}, {"file": "HISTORY.rst", "changes": 1}]


def test_nested_package_without_version_or_licence_is_first_party():
    tree = {"app/__init__.py": "1", "app/models/__init__.py": "2", "app/models/user.py": "3",
            "app/ext/__init__.py": "4", "app/ext/COPYING": "5", "LICENSE": "6"}
    assert nested_roots(tree, lambda sha: False) == {"app/ext": "own licence"}
    # "Update the docs" touching docs/ files, or an update of a top-level folder: no root
    assert wholesale_roots([("Update docs for 2.0", ["a/docs/x.rst", "a/docs/y.rst",
                                                     "a/z.rst"]),
                            ("Update app to py3", ["app/a.py", "app/b.py", "app/c.py"]),
                            # no version: a refactoring (found on httpx), not a dependency
                            ("Update dispatch interface", ["tests/dispatch/a.py",
                                                           "tests/dispatch/b.py",
                                                           "tests/dispatch/c.py"])]) == {}


def test_a_package_beside_a_vendored_one_is_vendored():
    """Issue 37 item 4: psf/requests vendored idna (seven files, no licence, no version)
    and oreos beside urllib3 in requests/packages/; they were edit-set files of kept tasks.
    A package in a vendoring folder nested in a package, beside a known root, is a root;
    a top-level packages/ folder (a monorepo) or a first-party sibling folder is not."""
    from ragnb.codetasks.vendored import beside_roots

    tree = ["req/__init__.py", "req/packages/__init__.py", "req/packages/README.rst",
            "req/packages/idna/__init__.py", "req/packages/idna/core.py",
            "req/packages/oreos/__init__.py", "req/models/__init__.py",
            "packages/__init__.py", "packages/web/__init__.py", "packages/api/__init__.py"]
    roots = {"req/packages/urllib3": "wholesale update", "packages/web": "own version"}
    assert beside_roots(tree, roots) == {"req/packages/idna": "beside a vendored package",
                                         "req/packages/oreos": "beside a vendored package"}
