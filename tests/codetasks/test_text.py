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
    # the seed's example title
    ("fix proration for partner subs in serializers.py", "fix proration for partner subs in"),
    ("see billing/proration.py:42 and ./billing/", "see and"),
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
    ("renewal is not renew", "renewal is not"),                     # whole words only
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
