"""Changed symbols, identifiers and signature changes."""
from ragnb.codetasks.diff import FileDiff, parse_diff
from ragnb.codetasks.symbols import (
    changed_symbols,
    defined_names,
    identifiers,
    signature_changes,
)


def test_defined_names_across_languages():
    assert defined_names("class Invoice(Base):") == ["Invoice"]
    assert defined_names("func Prorate(amount int) int {") == ["Prorate"]
    assert defined_names("export async function loadCart(id) {") == ["loadCart"]
    assert defined_names("    result = prorate(x)") == []
    assert defined_names("# we define nothing here") == []


def test_changed_symbols_from_lines_and_hunk_headers():
    d = FileDiff("a.py", added=["def new_helper(x):", "    return x"],
                 removed=["    return 0"], contexts=["class Invoice:", "    def total(self):"])
    assert changed_symbols([d]) == ["Invoice", "new_helper", "total"]


def test_identifiers_skip_comments_strings_keywords_builtins():
    lines = ['    if rate_limited(key) and len(items) > 0:  # was Subscription',
             "    log('Subscription renewed', order.id)", "    self.__init__()"]
    # `id` is a builtin name, even as an attribute
    assert identifiers(lines) == ["items", "key", "log", "order", "rate_limited"]


BEFORE = '''\
def prorate(amount, days=30):
    return amount


class Plan:
    def renew(self, when, *, grace=0):
        return when

    def cancel(self):
        return None


def keep(a, b):
    return a
'''


def test_signature_changes_compare_names_and_kinds():
    after = (BEFORE.replace("def prorate(amount, days=30):", "def prorate(amount, days=31):")
             .replace("def renew(self, when, *, grace=0):", "def renew(self, when, grace=0):")
             .replace("def cancel(self):", "def cancel(self, reason):"))
    changes = signature_changes("plan.py", BEFORE, after)
    # a new default is not a signature change; a keyword-only that became positional is
    assert [(c.qualname, c.name, c.before, c.after) for c in changes] == [
        ("Plan.renew", "renew", "self, when, *, grace=0", "self, when, grace=0"),
        ("Plan.cancel", "cancel", "self", "self, reason")]


def test_signature_changes_need_both_versions_that_parse():
    assert signature_changes("plan.py", BEFORE, None) == []
    assert signature_changes("plan.py", BEFORE, "def broken(:\n") == []
    assert signature_changes("plan.go", BEFORE, BEFORE.replace("days=30", "d")) == []


def test_parse_diff_files_and_hunks():
    text = """diff --git a/a.py b/a.py
index 1..2 100644
--- a/a.py
+++ b/a.py
@@ -1,2 +1,2 @@ def f(x):
--- a removed SQL-style comment line
+++ an added line starting with two pluses
@@ -9 +9 @@
-x = 1
+x = 2
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+y = 1
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-z = 1
"""
    d = parse_diff(text)
    assert list(d) == ["a.py", "new.py", "gone.py"]
    assert d["a.py"].removed == ["-- a removed SQL-style comment line", "x = 1"]
    assert d["a.py"].added == ["++ an added line starting with two pluses", "x = 2"]
    assert d["a.py"].contexts == ["def f(x):"]
    assert d["new.py"].added == ["y = 1"] and d["gone.py"].removed == ["z = 1"]


def test_signature_changes_under_module_level_try_and_if():
    # issue 28 item 8: after a module-level def, the `def` header patterns nested the
    # functions under `try:`/`if:` inside it (qualname "first.compat"), so changes to
    # them were missed; the syntax trees say they are module-level functions
    before = ("def first(a):\n    return a\n\n\ntry:\n    import json\n\n"
              "    def compat(x):\n        return x\nexcept ImportError:\n"
              "    def compat(x):\n        return None\n\n\nif True:\n"
              "    def guarded(p, q):\n        return p\n\n\n"
              "class K:\n    if True:\n        def m(self, a):\n            return a\n")
    after = (before.replace("    def compat(x):\n        return x",
                            "    def compat(x, strict=False):\n        return x")
             .replace("def guarded(p, q)", "def guarded(p)")
             .replace("def m(self, a)", "def m(self, a, b)"))
    found = [(c.qualname, c.before, c.after) for c in signature_changes("c.py", before, after)]
    assert found == [("compat", "x", "x, strict=False"), ("guarded", "p, q", "p"),
                     ("K.m", "self, a", "self, a, b")]
