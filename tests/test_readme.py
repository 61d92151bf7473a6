"""The README's command-line examples run as written (so they cannot drift)."""
import io
import os
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout

import pytest

from ragnb.cli import main
from ragnb.paths import PROJ_ROOT

README = (PROJ_ROOT / "README.md").read_text()
SKIP = ("report", "demo")   # they write files; tests/report and tests/demo cover them


def commands() -> list[str]:
    block = README.split("## Command line", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", " ", block)
    out = []
    for line in joined.splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("ragnb ") and line.split()[1] not in SKIP:
            out.append(line)
    return out


def test_the_readme_has_examples():
    assert len(commands()) >= 4


@pytest.mark.parametrize("command", commands())
def test_readme_example_runs(command, monkeypatch):
    monkeypatch.chdir(PROJ_ROOT)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(shlex.split(command)[1:])
    assert code == 0, err.getvalue()
    assert out.getvalue().strip()
    assert os.getcwd() == str(PROJ_ROOT)


def test_the_readme_renders_as_commonmark_with_every_heading_and_fence():
    """Rendered by a CommonMark parser (markdown-it-py), every ``#`` line outside a fence is
    a heading and every fence closes: a fence closed with text after it (```` ``` text````)
    once turned 30 lines, the heading "Explore interactively" among them, into code.
    """
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(README)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    written, inside = [], False
    for line in README.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif not inside and re.match(r"#{1,6} ", line):
            written.append(line.lstrip("#").strip())
    assert not inside, "a code fence is never closed"
    assert headings == written
    assert "Explore interactively" in headings
    for t in tokens:
        if t.type == "fence":
            assert not re.search(r"^#{2,} ", t.content, re.M), t.content[:80]
