"""Task text: description, code-block rule, path and symbol stripping."""
import pytest

from ragnb.codetasks.text import description, has_change_code, strip_leaks, task_text, word_count

FILES = ["billing/proration.py", "billing/serializers.py", "shop/api/__init__.py", "README.md"]


@pytest.mark.parametrize("message, expected", [
    ("Merge pull request #12 from org/fix-proration\n\nFix proration\n\nBody.",
     "Fix proration\n\nBody."),
    ("Merge branch 'fix-cache' into main", ""),
    ("Merge remote-tracking branch 'origin/main'", ""),
    ("Fix proration\n\nSigned-off-by: Ann <a@b.c>\nCo-authored-by: Bo <b@c.d>", "Fix proration"),
    ("Plain squash commit title", "Plain squash commit title"),
])
def test_description(message, expected):
    assert description(message) == expected


@pytest.mark.parametrize("text, expected", [
    # the seed's example title: the path goes with the "in" that led to it
    ("fix proration for partner subs in serializers.py", "fix proration for partner subs"),
    ("see billing/proration.py:42 and ./billing/", "see"),
    ("the billing.proration module", "the module"),
    ("call shop.api.build_route() instead", "call instead"),
    # not paths: and/or, a URL-free sentence, a version number
    ("retry and/or fail after 1.5 seconds", "retry and/or fail after 1.5 seconds"),
])
def test_paths_stripped(text, expected):
    assert strip_leaks(text, [], FILES) == expected


@pytest.mark.parametrize("text, expected", [
    ("change calculate_proration to take a cycle", "change to take a cycle"),
    ("`calculate_proration()` ignores the cycle", "ignores the cycle"),
    ("Subscription.renew forgets the grace period", "forgets the grace period"),
    ("renewal is not `renew`", "renewal is not"),                   # whole words only
    # a plain word that is also a symbol stays in prose; as code it goes
    ("renew fails twice", "renew fails twice"),
    ("calling renew() twice fails", "calling twice fails"),
])
def test_symbols_stripped(text, expected):
    assert strip_leaks(text, ["calculate_proration", "renew"], FILES) == expected


def test_code_block_from_the_change_drops_the_body():
    changed = ["    return amount * days / cycle", "def prorate(amount, days, cycle):"]
    quoting = "Like this:\n\n```python\ndef prorate(amount, days, cycle):\n```"
    trace = "```\nTraceback (most recent call last):\nKeyError: 'cycle'\n```"
    assert has_change_code(quoting, changed)
    assert not has_change_code(trace, changed)
    assert not has_change_code("`def prorate(amount, days, cycle):` inline", changed)
    text, dropped = task_text(f"Merge pull request #1 from a/b\n\nProrate by cycle\n\n{quoting}",
                              [], FILES, changed)
    assert (text, dropped) == ("Prorate by cycle", True)
    text, dropped = task_text(f"Prorate by cycle\n\n{trace}", [], FILES, changed)
    assert not dropped and text.endswith("KeyError: 'cycle'\n```")


def test_word_count():
    assert word_count("Fix it: now (really)") == 4
    assert word_count(" \n") == 0


def test_task_texts_of_a_repository(tmp_path):
    # issue 28 item 9: a title-only merge gave six words (its commits' messages unused);
    # stripping left "in" dangling and removed the words `json` and `get` (also symbols);
    # release and config-only merges were kept
    from ragnb.codetasks import mine_tasks
    from ragnb.codetasks.git import git_available
    from tests.codetasks.conftest import Git

    if not git_available():
        pytest.skip("git is not installed")
    g = Git(tmp_path / "repo")
    api = "def get(url):\n    return url\n\n\ndef json(body):\n    return body\n"
    g.write({"pkg/api.py": api, "pkg/__init__.py": "__version__ = '1.0'\n", "tox.ini": "[tox]\n",
             "HISTORY.rst": "1.0\n"})
    g.commit("Initial import")
    g("checkout", "-q", "-b", "decode")
    g.write({"pkg/api.py": api.replace("return body", "return body.strip()")})
    g.commit("Strip whitespace before decoding\n\nServers pad bodies with newlines.")
    g.write({"pkg/api.py": api.replace("return body", "return body.strip() or None")})
    g.commit("fixup! Strip whitespace before decoding")
    g("checkout", "-q", "main")
    g("merge", "-q", "--no-ff", "-m", "Merge pull request #4 from a/decode\n\n"
      "Fix json of get responses in pkg/api.py", "decode")
    decode = g("rev-parse", "HEAD")
    release = g.merge("rel", {"pkg/__init__.py": "__version__ = '1.1'\n", "HISTORY.rst": "1.1\n"},
                      "Release", "Merge pull request #5 from a/rel\n\nv1.1.0")
    config = g.merge("ci", {"tox.ini": "[tox]\nenvlist = py312\n",
                            ".github/workflows/ci.yml": "on: push\n"}, "CI",
                     "Merge pull request #6 from a/ci\n\nRun the tests on Python 3.12")
    tasks = mine_tasks(g.path).tasks.set_index("sha")
    assert tasks.loc[decode, "symbols"] == ["json"]
    assert tasks.loc[decode, "text"] == ("Fix json of get responses\n\n"
                                         "Strip whitespace before decoding\n\n"
                                         "Servers pad bodies with newlines.")
    assert tasks.loc[decode, "kept"]
    assert tasks.loc[release, "failed"] == ["release"]
    assert tasks.loc[config, "failed"] == ["config_only"]


@pytest.mark.parametrize("text, symbols, want", [
    # issue 37 item 6, task texts of pallets/flask: a list of removed names goes with its
    # conjunction; a leading dot (`.env`) or colon (`:fire:`) is not sentence punctuation
    ("move send_file and send_from_directory to Werkzeug", ["send_file", "send_from_directory"],
     "move to Werkzeug"),
    ("rename make_app, create_app or build_app", ["make_app", "create_app", "build_app"],
     "rename"),
    ("[Fixed 2823] Checking if .env is file before prompting to install dotenv", [],
     "[Fixed 2823] Checking if .env is file before prompting to install dotenv"),
    ("Add .svg to select_jinja_autoescape (#4840)", ["select_jinja_autoescape"],
     "Add .svg (#4840)"),
    (":fire: Remove code supposed to be removed at v1.0", [],
     ":fire: Remove code supposed to be removed at v1.0"),
    ("Stop change CWD to .env/.flaskenv location", [],
     "Stop change CWD to .env/.flaskenv location"),
])
def test_stripping_keeps_the_sentence(text, symbols, want):
    assert strip_leaks(text, symbols, ["src/flask/helpers.py"]) == want
