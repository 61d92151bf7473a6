"""A tiny git repository built by the tests, with hand-derived labels.

History of ``main`` (every change a ``--no-ff`` merge of a branch, except the last):

====  ==================  =====================================================
M1    fix-total           Invoice.total rounds; also poetry.lock and vendor/lib.py
M2    revert-fix-total    ``git revert -m 1 M1``
M3    cycle               prorate(amount, days) -> prorate(amount, days, cycle);
                          orders.py updated (api.py, another caller, is not);
                          orders.py starts calling rate_limited (limits.py)
M4    tweak               "Merge branch 'tweak'" only: no description
M5    move-locales        16 locale modules moved to pkg/i18n/ (16 edit-set files)
M6    preview-quota       api.py and limits.py; body holds a stack trace
C7    (direct commit)     a docstring in api.py (a task only with every_commit)
====  ==================  =====================================================
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ragnb.codetasks.git import git_available, neutral_env

BILLING = '''\
def prorate(amount, days):
    return amount * days / 30


class Invoice:
    def total(self):
        return 0
'''
ORDERS = '''\
from pkg.billing import prorate


def charge(order):
    return prorate(order.amount, order.days)
'''
API = '''\
from pkg.billing import prorate


def preview(amount):
    return prorate(amount, 30)
'''
LIMITS = '''\
def rate_limited(key):
    return False
'''


class Git:
    """Write files and commit with fixed names and dates (no user config needed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tick = 0
        path.mkdir(parents=True, exist_ok=True)
        self("init", "-q", "-b", "main")

    def __call__(self, *args: str) -> str:
        self.tick += 1
        date = f"2026-01-01T00:{self.tick // 60:02d}:{self.tick % 60:02d}+00:00"
        env = neutral_env({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
        proc = subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=t@example.org",
                               "-c", "commit.gpgsign=false", "-C", str(self.path), *args],
                              capture_output=True, text=True, env=env, check=True)
        return proc.stdout.strip()

    def write(self, files: dict[str, str | None]) -> None:
        for name, text in files.items():
            p = self.path / name
            if text is None:
                self("rm", "-q", name)
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
            self("add", name)

    def commit(self, message: str) -> str:
        self("commit", "-q", "-m", message)
        return self("rev-parse", "HEAD")

    def merge(self, branch: str, files: dict[str, str | None], message: str,
              merge_message: str) -> str:
        """Commit ``files`` on a new branch, merge it with --no-ff; returns the merge sha."""
        self("checkout", "-q", "-b", branch)
        self.write(files)
        self.commit(message)
        self("checkout", "-q", "main")
        self("merge", "-q", "--no-ff", "-m", merge_message, branch)
        return self("rev-parse", "HEAD")


@pytest.fixture(scope="session")
def tiny_repo(tmp_path_factory):
    """The repository above: ``(path, {"M1": sha, ...})``."""
    if not git_available():
        pytest.skip("git is not installed: the code-task miner reads repositories with git")
    g = Git(tmp_path_factory.mktemp("tiny") / "repo")
    locales = {f"pkg/locale/l{i:02d}.py": f"NAME = 'l{i:02d}'\n" for i in range(16)}
    g.write({"pkg/billing.py": BILLING, "pkg/orders.py": ORDERS, "pkg/api.py": API,
             "pkg/limits.py": LIMITS, "poetry.lock": "a==1\n", "vendor/lib.py": "X = 1\n",
             **locales})
    shas = {"root": g.commit("Initial import")}
    shas["M1"] = g.merge(
        "fix-total",
        {"pkg/billing.py": BILLING.replace("        return 0", "        return round(0, 2)"),
         "poetry.lock": "a==2\n", "vendor/lib.py": "X = 2\n"},
        "Round totals",
        "Merge pull request #1 from dev/fix-total\n\n"
        "Round the invoice total in pkg/billing.py\n\nCustomers saw fractions of a cent.")
    g("checkout", "-q", "-b", "revert-fix-total")
    g("revert", "--no-edit", "-m", "1", shas["M1"])
    g("checkout", "-q", "main")
    g("merge", "-q", "--no-ff", "-m", "Merge pull request #2 from dev/revert-fix-total\n\n"
      'Revert "Round the invoice total"', "revert-fix-total")
    shas["M2"] = g("rev-parse", "HEAD")
    shas["M3"] = g.merge(
        "cycle",
        {"pkg/billing.py": BILLING.replace("def prorate(amount, days):\n"
                                           "    return amount * days / 30",
                                           "def prorate(amount, days, cycle):\n"
                                           "    return amount * days / cycle"),
         "pkg/orders.py": ORDERS.replace("from pkg.billing import prorate",
                                         "from pkg.billing import prorate\n"
                                         "from pkg.limits import rate_limited")
         .replace("    return prorate(order.amount, order.days)",
                  "    if rate_limited(order.key):\n        return 0\n"
                  "    return prorate(order.amount, order.days, 30)")},
        "Explicit cycle",
        "Merge pull request #3 from dev/cycle\n\n"
        "Take an explicit cycle length when prorating\n\n"
        "Use it like this:\n\n```python\ndef prorate(amount, days, cycle):\n```\n")
    shas["M4"] = g.merge("tweak", {"pkg/api.py": API.replace("30)", "31)")}, "Tweak",
                         "Merge branch 'tweak'")
    moved = dict.fromkeys(locales)
    moved.update({name.replace("locale/", "i18n/"): text for name, text in locales.items()})
    shas["M5"] = g.merge("move-locales", moved, "Move locales",
                         "Merge pull request #5 from dev/move-locales\n\n"
                         "Move the locale tables into their own package")
    shas["M6"] = g.merge(
        "preview-quota",
        {"pkg/api.py": API.replace("30)", "31)").replace(
            "def preview(amount):\n", "def preview(amount):\n    check_quota()\n"),
         "pkg/limits.py": LIMITS + "\n\ndef check_quota():\n    return None\n"},
        "Quota in preview",
        "Merge pull request #6 from dev/preview-quota\n\n"
        "Preview requests should count against the quota\n\n"
        "```\nTraceback (most recent call last):\nQuotaError: over limit\n```\n")
    g.write({"pkg/api.py": '"""Previews."""\n' + API.replace("30)", "31)").replace(
        "def preview(amount):\n", "def preview(amount):\n    check_quota()\n")})
    shas["C7"] = g.commit("Document the api module\n\nA one-line docstring for the module.")
    return g.path, shas
