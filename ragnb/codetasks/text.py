"""Task text: the change's description with the answer taken out (seed 002).

A description whose title says "fix proration in serializers.py" hands the
retriever the answer, so the text a task gives the retriever is stripped:

1. **Description.** The commit message without git's own first line of a
   merge (``Merge pull request #12 from ...``, ``Merge branch 'x'``) and
   without trailers (``Signed-off-by:`` ...). The first remaining line is the
   title, the rest the body; a merge with a title only takes its own commits'
   messages as body (:func:`branch_body`).
2. **Body dropped** when it holds a fenced code block (```` ``` ```` or
   ``~~~``) with a line of the change: a non-blank line of at least
   :data:`MIN_CODE_LINE` characters equal, stripped, to an added or removed
   line of the diff. A block that is not from the change (a stack trace) stays.
3. **File paths stripped**: any token ending in a source or config extension
   (``serializers.py``, ``api/v1/user.go``), any slash path whose components
   include a folder of the repository (``billing/``), and any dotted Python
   module path of the repository (``billing.proration``, also followed by a
   name) — with the preposition that led to it (``in serializers.py``), so the
   sentence still reads.
4. **Symbol names stripped where they give the answer away**: a changed symbol
   (:func:`ragnb.codetasks.symbols.changed_symbols`) that looks like code
   (``rate_limited``, ``HTTPAdapter``, :func:`looks_like_code`) wherever it
   stands, with a qualifier (``Subscription.renew``), call parentheses and
   backticks; a plain word (``json``, ``get``, ``total``) only where it is
   written as code (backticks, ``Session.get``, ``get()``) — in prose it is
   the word.

What remains is closer to what an agent receives: a symptom, sometimes a stack
trace, sometimes a single sentence.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

#: Shortest code line that counts as "from the change" when found in a code block.
MIN_CODE_LINE = 6
#: Source and configuration file extensions recognised in the text.
EXTENSIONS = ("py", "pyi", "go", "rs", "js", "jsx", "ts", "tsx", "java", "kt", "rb", "php",
              "c", "h", "cc", "cpp", "hpp", "cs", "swift", "scala", "sql", "proto", "yaml",
              "yml", "toml", "json", "cfg", "ini", "lock", "sh", "md", "rst", "txt")

_MERGE_LINE = re.compile(r"^Merge (pull request #\d+ from \S+|(remote-tracking )?branch(es)? "
                         r"'[^']*'.*|tag '[^']*'.*|[0-9a-f]{7,40}.*|commit .*)$")
_TRAILER = re.compile(r"^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Change-Id|"
                      r"Reviewed-on|Tested-by): ", re.IGNORECASE)
_FIXUP = re.compile(r"^(?:fixup|squash|amend)! ")
_FENCE = re.compile(r"^(?P<fence>```|~~~)[^\n]*\n(?P<code>.*?)^(?P=fence)",
                    re.DOTALL | re.MULTILINE)
#: Words that only make sense with the path or name after them ("in", "to the"), removed with it.
_LEAD = (r"(?:(?<![\w`])(?i:in|into|inside|within|to|from|of|for|at|on|under|via)[ \t]+"
         r"(?:(?i:the|a|an)[ \t]+)?)?")
_FILE = re.compile(_LEAD + r"`?(?<![\w./-])(?:[\w.-]+/)*[\w-][\w.-]*\.(?:"
                   + "|".join(EXTENSIONS) + r")(?![\w/])(?::\d+)?`?")
_SLASH_PATH = re.compile(_LEAD + r"`?(?<![\w./:-])\.?/?(?:[\w.-]+/)+[\w.-]*`?")
_DOTTED = re.compile(_LEAD + r"`?(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?`?")
_QUALIFIER = r"(?:[A-Za-z_]\w*\.)"
#: Marks a removed path or name until the text is tidied, so that a list of removed
#: names goes with its commas and conjunction ("move send_file and send_file_x to ...").
_GONE = "\x00"
_GONE_LIST = re.compile(r"\x00(?:[ \t]*(?:,|,?[ \t]+(?:and|or|&))[ \t]*\x00)+")


def description(message: str) -> str:
    r"""A commit message without git's merge line and trailers (the PR's title and body).

    Examples
    --------
    >>> description("Merge pull request #7 from dev/fix\n\nStop double billing"
    ...             "\n\nSigned-off-by: A <a@b>")
    'Stop double billing'
    >>> description("Merge branch 'fix-cache'")
    ''
    """
    lines = message.strip().splitlines()
    if lines and _MERGE_LINE.match(lines[0].strip()):
        lines = lines[1:]
    lines = [ln for ln in lines if not _TRAILER.match(ln.strip())]
    return "\n".join(lines).strip()


def split_title(text: str) -> tuple[str, str]:
    """``(title, body)``: the first line and the rest (stripped)."""
    title, _, body = text.strip().partition("\n")
    return title.strip(), body.strip()


def has_change_code(body: str, changed_lines: Iterable[str]) -> bool:
    """Whether ``body`` holds a fenced code block with a line of the change."""
    changed = {ln.strip() for ln in changed_lines if len(ln.strip()) >= MIN_CODE_LINE}
    for m in _FENCE.finditer(body):
        if any(ln.strip() in changed for ln in m["code"].splitlines()):
            return True
    return False


def _module_paths(files: Iterable[str]) -> set[str]:
    """Every dotted suffix (two parts or more) of the Python module paths of ``files``."""
    found: set[str] = set()
    for f in files:
        if f.endswith(".py"):
            parts = f[:-3].split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.update(".".join(parts[i:]) for i in range(len(parts) - 1))
    return found


def _token(m: re.Match) -> str:
    """The path or name a match found, without the lead words (``in the``) before it."""
    lead = re.match(_LEAD, m.group(0))
    return m.group(0)[lead.end() if lead else 0:]


def looks_like_code(name: str) -> bool:
    """Whether a name reads as code in prose: ``snake_case``, ``camelCase``/``CamelCase``, digits.

    A plain word (``json``, ``get``, ``Session``) does not: it is stripped from
    a task text only where it is written as code (:func:`strip_leaks`).

    Examples
    --------
    >>> [looks_like_code(n) for n in ("rate_limited", "HTTPAdapter", "get", "Session", "v2")]
    [True, True, False, False, True]
    """
    return "_" in name.strip("_") or any(c.isdigit() for c in name) or any(
        c.isupper() for c in name[1:])


def _symbol_pattern(name: str) -> re.Pattern:
    """Where ``name`` gives the answer away: anywhere when it looks like code, else as code.

    As code: in backticks, qualified (``Session.get``), or called (``get()``).
    """
    n = re.escape(name)
    if looks_like_code(name):
        return re.compile(_LEAD + r"`?(?<![\w.])" + _QUALIFIER + r"*" + n
                          + r"(?!\w)(?:\(\))?`?")
    return re.compile(_LEAD + r"(?:`" + _QUALIFIER + r"*" + n + r"(?:\(\))?`"
                      r"|(?<![\w.])" + _QUALIFIER + r"+" + n + r"(?!\w)(?:\(\))?"
                      r"|(?<![\w.])" + n + r"\(\))")


def strip_leaks(text: str, symbols: Iterable[str], files: Iterable[str]) -> str:
    """Remove file paths, module paths and ``symbols`` from ``text``, then tidy spaces.

    Parameters
    ----------
    text : str
    symbols : iterable of str
        Names to remove (whole words).
    files : iterable of str
        Paths of the repository (the parent tree): their folders and module
        paths are recognised as paths.

    Examples
    --------
    >>> strip_leaks("Fix `calculate_proration()` in billing/proration.py for partners.",
    ...             ["calculate_proration"], ["billing/proration.py"])
    'Fix for partners.'
    >>> strip_leaks("move send_file and send_from_directory to Werkzeug",
    ...             ["send_file", "send_from_directory"], [])
    'move to Werkzeug'
    >>> strip_leaks(":fire: Checking if .env is a file", [], [])
    ':fire: Checking if .env is a file'
    """
    files = list(files)
    folders = {part for f in files for part in f.split("/")[:-1]}
    modules = _module_paths(files)

    def slash(m: re.Match) -> str:
        parts = _token(m).strip("`./").split("/")
        return _GONE if folders.intersection(parts) else m.group(0)

    def dotted(m: re.Match) -> str:
        token = _token(m).strip("`").removesuffix("()")
        head = token.rsplit(".", 1)[0]
        return _GONE if token in modules or head in modules else m.group(0)

    text = _FILE.sub(_GONE, text)
    text = _SLASH_PATH.sub(slash, text)
    text = _DOTTED.sub(dotted, text)
    for name in sorted(set(symbols), key=len, reverse=True):
        text = _symbol_pattern(name).sub(_GONE, text)
    text = _GONE_LIST.sub(_GONE, text).replace(_GONE, "")
    text = re.sub(r"(?<!`)``(?!`)|\(\s*\)", "", text)
    text = re.sub(r"[ \t]+([,.;:!?)])(?=\s|$)", r"\1", text)   # not `.env`, `:fire:`
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return "\n".join(re.sub(r"^[:;,.]+(?:\s+|$)", "", ln.strip())
                     for ln in text.splitlines()).strip()


def branch_body(title: str, messages: Iterable[str]) -> str:
    r"""A body made of a merge's own commit messages (oldest first), for a merge that has none.

    Merge commits, ``fixup!``/``squash!``/``amend!`` commits, messages of
    fewer than three words (``WIP``, ``Change 12``) and messages repeating the
    title or an earlier message are left out.

    Examples
    --------
    >>> branch_body("Retry on reset", ["Retry once on ECONNRESET\n\nSeen behind proxies.",
    ...                                "fixup! Retry once", "Retry on reset"])
    'Retry once on ECONNRESET\n\nSeen behind proxies.'
    """
    seen = {title.strip()}
    parts = []
    for message in messages:
        text = description(message)
        first = text.partition("\n")[0].strip()
        if (word_count(text) < 3 or _MERGE_LINE.match(message.strip().partition("\n")[0])
                or _FIXUP.match(first) or text in seen or first in seen):
            continue
        seen.update({text, first})
        parts.append(text)
    return "\n\n".join(parts)


def task_text(message: str, symbols: Iterable[str], files: Iterable[str],
              changed_lines: Iterable[str], commits: Sequence[str] = ()) -> tuple[str, bool]:
    """The text a task gives the retriever, and whether the body was dropped.

    The description (:func:`description`) split into title and body — a merge
    whose message is a title only (GitHub's default merge message carries the
    pull request's title) gets its own ``commits``' messages as body
    (:func:`branch_body`); the body dropped when it holds code from the change
    (:func:`has_change_code`); then :func:`strip_leaks` on what is left.
    """
    title, body = split_title(description(message))
    if title and not body:
        body = branch_body(title, commits)
    dropped = bool(body) and has_change_code(body, changed_lines)
    kept = title if dropped or not body else f"{title}\n\n{body}"
    return strip_leaks(kept, symbols, files), dropped


def word_count(text: str) -> int:
    """Number of words (runs of letters or digits) in ``text``."""
    return len(re.findall(r"[^\W_]+", text))
