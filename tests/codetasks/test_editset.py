"""Edit set: vendored, lock and generated files excluded; added files apart."""
import pytest

from ragnb.codetasks.editset import is_excluded, split_changes


@pytest.mark.parametrize("path", [
    "vendor/github.com/x/y.go", "web/node_modules/react/index.js", "poetry.lock", "Cargo.lock",
    "services/api/go.sum", "web/package-lock.json", "gen/user.pb.go", "proto/user_pb2.py",
    "web/src/api.generated.ts", "third_party/zlib/zlib.h", "yarn.lock",
    ".hgtags",    # werkzeug 551ac8222258: a merge whose only edit was the tag line hg wrote
])
def test_excluded(path):
    assert is_excluded(path)


@pytest.mark.parametrize("path", [
    "billing/proration.py", "vendoring.md", "docs/vendor.md", "lockfile.py", "go.mod",
    "src/node_modules_helper.js", "docs/hgtags.md",
])
def test_not_excluded(path):
    assert not is_excluded(path)


def test_patterns_are_configurable():
    assert is_excluded("fixtures/big.json", ["fixtures/"])
    assert not is_excluded("poetry.lock", ["fixtures/"])


def test_split_changes():
    c = split_changes([("M", "b.py"), ("A", "new.py"), ("D", "a.py"), ("M", "poetry.lock"),
                       ("A", "vendor/x.py")])
    assert c.edit_set == ("a.py", "b.py")
    assert c.added == ("new.py",)
    assert c.excluded == ("poetry.lock", "vendor/x.py")
