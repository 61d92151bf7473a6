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


def test_the_first_screen_is_for_the_user():
    """Issue 33: 4,657 words, no `pip install`, no picture, the developer's commands only.
    Above the reference material: at most 1,500 words, `pip install` and the two commands
    on the user's own files, and the picture of a page (a file in the repository)."""
    user = README.split("\n## Reference", 1)[0]
    assert len(user.split()) <= 1500
    quick = user.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [ln.split("#", 1)[0].strip() for ln in quick.splitlines()]
    assert any(ln.startswith("pip install ") for ln in lines)
    assert any(ln.startswith("ragnb init ") for ln in lines)
    assert any(ln.startswith("ragnb report --all ") for ln in lines)
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", user)
    assert pictures and all((PROJ_ROOT / p).is_file() for p in pictures)
    assert README.startswith("# ragnb\n\n```bash\nmake reports") and "\nmake test " in README


@pytest.mark.parametrize("page", sorted((PROJ_ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_every_docs_page_renders_and_every_link_resolves(page):
    from markdown_it import MarkdownIt

    text = page.read_text()
    inside = False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
    assert not inside, f"{page.name}: a code fence is never closed"
    assert MarkdownIt("commonmark").parse(text)[0].type == "heading_open"
    for target in re.findall(r"\]\(([^)#]+)\)", README + text):
        if not target.startswith("http"):
            base = PROJ_ROOT if target.startswith("docs/") else page.parent
            assert (base / target).exists(), (page.name, target)


def test_the_changelog_names_the_packaged_version():
    """Issue 33 #6: a version that moves. The top entry of CHANGELOG.md is the version
    ``pyproject.toml`` declares, and the installed package reports."""
    import tomllib

    import ragnb

    declared = tomllib.loads((PROJ_ROOT / "pyproject.toml").read_text())["project"]["version"]
    top = re.search(r"(?m)^## (\d+\.\d+\.\d+) — \d{4}-\d{2}-\d{2}$",
                    (PROJ_ROOT / "CHANGELOG.md").read_text())
    assert top and top.group(1) == declared == ragnb.__version__


@pytest.mark.slow
def test_the_wheel_ships_the_pages(tmp_path):
    """The README's quick start once failed on an installed ragnb ("a page is one of the
    notebooks , not '07-code-tasks'"): the wheel held no notebook. It holds every page."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(PROJ_ROOT),
                    "-w", str(tmp_path)], check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("ragnb-*.whl")
    shipped = {n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".ipynb")}
    pages = {f"ragnb/notebooks/{p.name}" for p in (PROJ_ROOT / "notebooks").glob("*.ipynb")}
    assert pages and shipped == pages
    # and the demo workspace it reads by default, without the local score cache or locks
    names = set(zipfile.ZipFile(wheel).namelist())
    demo = {f"ragnb/data/{p}" for p in _tracked("data")}
    assert demo and demo <= names
    assert not [n for n in names if ".ragnb-cache" in n or n.endswith(".lock")]


def _tracked(folder: str) -> list[str]:
    """Files git tracks under ``folder``, relative to it."""
    import subprocess

    out = subprocess.run(["git", "-C", str(PROJ_ROOT), "ls-files", folder], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("/", 1)[1] for line in out.splitlines()]
