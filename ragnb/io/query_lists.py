"""Query lists: the query ids that cut one test set into several (splits, folds).

A team often has one qrels file for a whole collection and a list of query ids
per split, or a folds file (cross-validation folds, a dev/test cut). Two shapes:

- a text file of query ids, one a line (the first whitespace-separated field;
  blank lines and lines starting with ``#`` are skipped);
- a JSON folds file: an object ``{"fold": [query ids]}`` (CODEC's ``folds.json``)
  or a list of lists of query ids (folds ``1``, ``2``, ... in order).

:func:`read_query_ids` reads one list, :func:`read_folds` every fold of a JSON
file; :meth:`ragnb.io.testset.TestSet.restricted` cuts a test set to a list.
"""
from __future__ import annotations

from collections.abc import Sequence

from ragnb.errors import InputError, listed
from ragnb.io.source import decode_utf8, json_id, loads, read_bytes, source_of

#: The shapes a folds file may have, for error messages.
FOLD_SHAPES = ('a JSON object {"fold": ["query id", ...]}, a JSON list of lists of query '
               "ids, or a text file of query ids, one a line")


def read_folds(path) -> dict[str, list[str]]:
    """Every fold of a JSON folds file: fold name -> query ids (in the file's order).

    Raises
    ------
    InputError
        Not JSON, another shape (naming the accepted ones), an empty fold, a query
        id listed twice (in one fold or in two).
    """
    src = source_of(path)
    text = decode_utf8(read_bytes(src), src)
    data = loads(text, src)
    if isinstance(data, list) and all(isinstance(f, list) for f in data):
        data = {str(i): f for i, f in enumerate(data, start=1)}
    if not isinstance(data, dict) or not data or not all(isinstance(v, list)
                                                         for v in data.values()):
        raise InputError(f"a folds file must be {FOLD_SHAPES}; got {_describe(data)}",
                         source=src)
    folds: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for name, ids in data.items():
        if not ids:
            raise InputError("the fold lists no query", source=src, key=str(name))
        folds[str(name)] = []
        for value in ids:
            qid = json_id(value, f"a query id of fold {name!r}", src, None)
            if qid in seen:
                raise InputError(f"query {qid!r} is listed in fold {seen[qid]!r} and again in "
                                 f"fold {name!r}", source=src, key=str(name))
            seen[qid] = str(name)
            folds[str(name)].append(qid)
    return folds


def read_query_ids(path, fold: str | Sequence[str] | None = None) -> list[str]:
    """The query ids of a list file, or of fold ``fold`` of a JSON folds file.

    ``fold`` may name several folds (``("1", "2", "3")``): their queries, fold by fold.
    """
    src = source_of(path)
    if fold is not None or _is_json(src):
        folds = read_folds(src)
        if fold is None:
            raise InputError(f"a folds file holds {len(folds)} folds ({listed(folds, 20)}); "
                             "name one", source=src)
        return [q for name in fold_names(fold, folds, src) for q in folds[name]]
    ids: list[str] = []
    lines: dict[str, int] = {}
    for number, raw in enumerate(decode_utf8(read_bytes(src), src).split("\n"), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[0] in lines:
            raise InputError(f"query {fields[0]!r} is listed twice (line {lines[fields[0]]})",
                             source=src, line=number)
        lines[fields[0]] = number
        ids.append(fields[0])
    if not ids:
        raise InputError(f"no query ids in the file; expected {FOLD_SHAPES}", source=src)
    return ids


def fold_names(fold: str | Sequence[str], folds: dict[str, list[str]], src=None,
               key: str | None = None) -> list[str]:
    """The folds ``fold`` names (one name or several), as keys of ``folds``.

    A fold is named as in the file (``3``) or as its test set is (``fold-3``); a fold
    named twice or not in the file is an error listing the folds.

    >>> fold_names(["fold-1", "2"], {"1": ["a"], "2": ["b"], "3": ["c"]})
    ['1', '2']
    """
    wanted = [fold] if isinstance(fold, str) else list(fold)
    by_name = {**{split_name(f): f for f in folds}, **{f: f for f in folds}}
    unknown = [f for f in wanted if f not in by_name]
    if unknown or not wanted:
        raise InputError(f"no fold {listed(unknown) or '(none named)'}; folds: "
                         f"{listed(folds, 20)}", source=src, key=key or listed(wanted))
    names = [by_name[f] for f in wanted]
    twice = sorted({f for f in names if names.count(f) > 1})
    if twice:
        raise InputError(f"fold(s) {listed(twice)} named twice", source=src,
                         key=key or listed(wanted))
    return names


def _is_json(src) -> bool:
    name = src.name.lower().removesuffix(".gz")
    if name.endswith(".json"):
        return True
    return src.text_head(64).lstrip().startswith((b"{", b"["))


def _describe(data) -> str:
    if isinstance(data, dict):
        bad = next((v for v in data.values() if not isinstance(v, list)), None)
        return ("an empty object" if not data else
                f"an object whose values include {type(bad).__name__} {str(bad)[:40]!r}")
    return f"a JSON {type(data).__name__}"


def split_name(fold: str) -> str:
    """A test-set name for fold ``fold``: the name itself, ``fold-<n>`` for a number.

    >>> split_name("3"), split_name("dev")
    ('fold-3', 'dev')
    """
    return f"fold-{fold}" if fold.isdigit() else fold

