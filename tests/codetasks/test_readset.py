"""Read set: code context of the description, imports, stack-trace files (derived by hand)."""
from ragnb.codetasks.readset import import_bindings, read_set, text_identifiers, trace_files

DESCRIPTION = '''Calling `Context.invoke` twice fails

The first command crashes when the parser is reused:

```
ctx = make_context(cli, args)
the command runs and then fails
```

Traceback (most recent call last):
  File "/venv/lib/site-packages/click/core.py", line 12, in invoke
    return _process_result(sub_ctx.command.invoke(sub_ctx))
UsageError: no such option
'''


def test_text_identifiers_are_code_not_prose():
    # prose words ("first", "command", "parser", "runs") are not identifiers, even the ones
    # in the code block's plain text line; the backticked, called, traced and exception
    # names are
    assert text_identifiers(DESCRIPTION) == ["Context", "UsageError", "invoke", "make_context"]


def test_trace_file_matches_the_longest_tail():
    files = ["src/click/core.py", "docs/core.py", "tests/test_core.py"]
    assert trace_files(DESCRIPTION, files) == {
        "src/click/core.py": "/venv/lib/site-packages/click/core.py"}


def test_imports_continued_by_backslash_and_parentheses():
    text = ("from click.decorators import pass_context, \\\n    group as g\n"
            "from .x import (y,\n    z)  # two\nimport a.b, c as d\n")
    assert import_bindings(text) == {
        "pass_context": (0, "click.decorators", "pass_context"),
        "g": (0, "click.decorators", "group"), "y": (1, "x", "y"), "z": (1, "x", "z"),
        "a": (0, "a", None), "a.b": (0, "a.b", None), "d": (0, "c", None)}


def test_read_set_records_why_each_file_is_in():
    tree = ["src/click/core.py", "src/click/utils.py", "src/click/exceptions.py",
            "src/click/parser.py", "src/click/misc.py"]
    defs = {"Context": {"src/click/core.py"}, "invoke": {"src/click/core.py",
                                                          "src/click/misc.py"},
            "make_context": {"src/click/utils.py"}, "UsageError": {"src/click/exceptions.py"}}

    def definitions(names):
        return {n: defs[n] for n in names if n in defs}

    def locate(importer, binding, attrs):
        return {"parser": ["src/click/parser.py"]}.get(binding[2], [])

    got = read_set(edit_set=["src/click/core.py"], tree=tree,
                   added_code={"src/click/core.py": ("from .parser import parser\n",
                                                     ["    p = parser()  # the parser"],
                                                     None)},
                   description=DESCRIPTION, definitions=definitions, locate=locate,
                   excluded=lambda p: False)
    # core.py is in the edit set (also the trace file); `invoke` is defined twice: ambiguous
    assert got == {"src/click/exceptions.py": ["text:UsageError"],
                   "src/click/parser.py": ["import:parser"],
                   "src/click/utils.py": ["text:make_context"]}


API = '''\
from pkg.models import Thing


def fetch(key):
    """Fetch one thing.

    Example::

        lookup(key)
    """
    return key
'''


def test_docstring_words_and_imports_are_not_code(tmp_path):
    # issue 28 item 7: identifiers were taken line by line with strings removed per line,
    # so a docstring's body (":rtype: Thing", "from pkg.util import lookup") counted as
    # code: models.py and util.py entered the read set of a docstring-only change
    from ragnb.codetasks import mine_tasks
    from tests.codetasks.conftest import Git

    g = Git(tmp_path / "repo")
    g.write({"pkg/models.py": "class Thing:\n    pass\n",
             "pkg/compat.py": "from json import JSONDecodeError\n",
             "pkg/util.py": "def lookup(key):\n    return key\n", "pkg/api.py": API})
    g.commit("Initial import")
    doc = API.replace('        lookup(key)\n    """', '        >>> from pkg.util import lookup\n'
                      '        >>> lookup(key)\n\n    :rtype: Thing\n    """')
    code = doc.replace("    return key\n", "    return Thing() if key else lookup(key)\n")
    tidy = code.replace("from pkg.models import Thing\n",
                        "from pkg.models import Thing\nfrom pkg.util import lookup\n")
    outside = tidy.replace("from pkg.models import Thing\n",
                           "from pkg.models import Thing\nfrom pkg.compat import JSONDecodeError\n"
                           ).replace("    return Thing()", "    if key is JSONDecodeError:\n"
                                     "        return None\n    return Thing()")
    docs_only = g.merge("doc", {"pkg/api.py": doc}, "Doc",
                        "Merge pull request #1 from a/doc\n\nSay what fetching returns")
    uses = g.merge("use", {"pkg/api.py": code}, "Use",
                   "Merge pull request #2 from a/use\n\nReturn a new thing for a key")
    imports = g.merge("tidy", {"pkg/api.py": tidy}, "Tidy",
                      "Merge pull request #3 from a/tidy\n\nImport the lookup helper at the top")
    provided = g.merge("outside", {"pkg/api.py": outside}, "Outside",
                       "Merge pull request #4 from a/outside\n\nNo thing for a decode error key")
    tasks = mine_tasks(g.path).tasks.set_index("sha")
    assert tasks.loc[docs_only, "read_set"] == []
    # an added import statement binds a name and uses none: util.py was not read
    assert tasks.loc[imports, "read_set"] == []
    # JSONDecodeError comes from json through pkg/compat.py: compat.py is what was read
    assert tasks.loc[provided, "read_from"] == {"pkg/compat.py": ["import:JSONDecodeError"]}
    # the code line uses Thing (imported at the top) and lookup (imported only in the
    # docstring: bound to nothing)
    assert tasks.loc[uses, "read_from"] == {"pkg/models.py": ["import:Thing"]}


def test_names_followed_through_star_imports(tmp_path):
    # found labelling httpx: `import httpx` then `httpx.URL(...)`, where httpx/__init__.py
    # re-exports with `from ._urls import *`, brought in nothing (the sketch of a module
    # recorded no star import)
    from ragnb.codetasks import mine_tasks
    from tests.codetasks.conftest import Git

    g = Git(tmp_path / "repo")
    g.write({"web/__init__.py": "from ._urls import *\n",
             "web/_urls.py": "__all__ = ['URL']\n\n\nclass URL:\n    pass\n",
             "tests/test_web.py": "import web\n\n\ndef test_a():\n    assert web\n"})
    g.commit("Initial import")
    sha = g.merge("t", {"tests/test_web.py": "import web\n\n\ndef test_a():\n"
                                             "    assert web.URL()\n"},
                  "T", "Merge pull request #1 from a/t\n\nTest that a URL can be made")
    task = mine_tasks(g.path).tasks.set_index("sha").loc[sha]
    assert task["read_from"] == {"web/_urls.py": ["import:web"]}
