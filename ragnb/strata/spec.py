"""Stratification specs: which column, which merges, which exclusions — fixed in advance.

A stratified comparison is only a test of a pre-stated question when the
strata were defined before any per-stratum score was seen; a filter proposed
after looking at the numbers is the fitting procedure again (seed 000). The
spec is the small file that states the definition and when it was written, so
that a report can show its hash and whether it predates the scores.

File format (TOML; one spec per file; every key below, nothing else)::

    # Stratification spec (pre-registration)
    column = "query_type"                   # required: the stratum column
    written_at = 2026-07-03T09:00:00Z       # required: when, with a time zone
    written_by = "annotator A"              # required: who
    origin = "pre-registered"               # or "what-if" (exported from the widget)
    note = "why these strata"               # optional
    exclude = ["malformed"]                 # optional: strata left out of the comparison
    log = ["..."]                           # optional: what-if history (exports write it)

    [merge]                                 # optional: new label = [old labels]
    other = ["out_of_scope", "malformed"]

Merges are applied first, then exclusions (which may name an original label
or a merged one). :func:`read_spec` is the one place a spec is checked: every
error names the file and the key. :func:`apply_spec` is the one code path
from a strata table and a spec to the stratum of every compared query; the
notebook, the what-if widget and the report all go through it.
"""
from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

import pandas as pd

from ragnb.errors import InputError
from ragnb.io.strata import UNCLASSIFIED, assign_strata

ORIGINS = ("pre-registered", "what-if", "parameters")
#: Keys a spec file may hold (anything else is a typo and an error).
KEYS = ("column", "written_at", "written_by", "origin", "note", "exclude", "merge", "log")
REQUIRED = ("column", "written_at", "written_by")
#: A label no stratum may take (the pooled row of every table).
RESERVED = "pooled"


@dataclass(frozen=True)
class StrataSpec:
    """A stratification: column, merges (new label -> old labels), exclusions.

    Attributes
    ----------
    column : str
        The metadata column whose values are the strata.
    merge : dict of str -> tuple of str
        Each new label and the labels it replaces (applied before exclusions).
    exclude : tuple of str
        Labels (after merging) whose queries are left out of the comparison.
    written_at : datetime or None
        When the spec was written (aware, UTC). ``None`` only for a spec made
        from notebook parameters (``origin="parameters"``), which claims nothing.
    written_by : str
    origin : {"pre-registered", "what-if", "parameters"}
    note : str
    log : tuple of str
        For exported what-ifs: every step taken, in order.
    source : str
        The file it was read from ("" when built in code).
    """

    column: str
    merge: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = ()
    written_at: datetime | None = None
    written_by: str = ""
    origin: str = "parameters"
    note: str = ""
    log: tuple[str, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        # normalise containers (lists given in code become tuples) before checking
        object.__setattr__(self, "merge", {new: tuple(old) if isinstance(old, (list, tuple))
                                           else old for new, old in dict(self.merge).items()})
        object.__setattr__(self, "exclude", tuple(self.exclude) if isinstance(
            self.exclude, (list, tuple)) else self.exclude)
        object.__setattr__(self, "log", tuple(self.log))
        _check(self, self.source or "stratification spec")

    @classmethod
    def plain(cls, column: str) -> StrataSpec:
        """The column's own values as strata: no merge, no exclusion, no claim of timing."""
        return cls(column=column)

    @property
    def is_plain(self) -> bool:
        return not self.merge and not self.exclude

    def describe(self) -> str:
        """One line: column, merges and exclusions."""
        parts = [f"strata = values of {self.column!r}"]
        for new, old in self.merge.items():
            parts.append(f"{' + '.join(old)} merged into {new!r}")
        if self.exclude:
            parts.append(f"excluded: {', '.join(self.exclude)}")
        return "; ".join(parts)

    def to_toml(self) -> str:
        """The spec as TOML text that :func:`read_spec` reads back to an equal spec."""
        if self.written_at is None or not self.written_by:
            raise InputError("a spec file needs written_at and written_by", key="written_at")
        lines = ["# Stratification spec for ragnb (see ragnb.strata.spec)"]
        if self.origin == "what-if":
            lines += ["# Exported from the what-if widget: these strata were chosen after seeing",
                      "# per-stratum scores. A report built from it is reproducible, not",
                      "# pre-registered."]
        lines += [
            f"column = {_toml_str(self.column)}",
            f"written_at = {self.written_at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}",
            f"written_by = {_toml_str(self.written_by)}",
            f"origin = {_toml_str(self.origin)}",
        ]
        if self.note:
            lines.append(f"note = {_toml_str(self.note)}")
        lines.append(f"exclude = {_toml_list(self.exclude)}")
        if self.log:
            lines.append("log = [")
            lines += [f"    {_toml_str(entry)}," for entry in self.log]
            lines.append("]")
        lines.append("")
        lines.append("[merge]")
        lines += [f"{_toml_str(new)} = {_toml_list(old)}" for new, old in self.merge.items()]
        return "\n".join(lines) + "\n"


def _toml_str(text: str) -> str:
    # JSON string escapes (\" \\ \n \t \uXXXX ...) are all valid TOML basic-string escapes.
    return json.dumps(str(text), ensure_ascii=False)


def _toml_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(_toml_str(i) for i in items) + "]"


def _check(spec: StrataSpec, source: str) -> None:
    """The rules every spec obeys, whether read from a file or built in code."""
    if not isinstance(spec.column, str) or not spec.column.strip():
        raise InputError("`column` must be a non-empty string", source=source, key="column")
    if spec.origin not in ORIGINS:
        raise InputError(f"`origin` must be one of {', '.join(ORIGINS)}; got {spec.origin!r}",
                         source=source, key="origin")
    if spec.origin != "parameters" and (spec.written_at is None or not spec.written_by):
        raise InputError("a pre-registered or what-if spec states written_at and written_by",
                         source=source, key="written_at" if spec.written_at is None
                         else "written_by")
    if spec.written_at is not None and spec.written_at.tzinfo is None:
        raise InputError("`written_at` needs a time zone (e.g. 2026-07-03T09:00:00Z)",
                         source=source, key="written_at")
    if not isinstance(spec.exclude, tuple):
        raise InputError("`exclude` must be a list of labels", source=source, key="exclude")
    seen: dict[str, str] = {}
    for new, old in spec.merge.items():
        key = f"merge.{new}"
        if not isinstance(old, tuple):
            raise InputError("a merge lists labels", source=source, key=key)
        if not isinstance(new, str) or not new or new == RESERVED:
            raise InputError(f"a merged stratum needs a name other than {RESERVED!r}",
                             source=source, key=key)
        if not old:
            raise InputError("a merge lists at least one label", source=source, key=key)
        for label in old:
            if not isinstance(label, str):
                raise InputError(f"labels are strings; got {label!r}", source=source, key=key)
            if label in seen:
                raise InputError(f"label {label!r} is merged twice (also in merge.{seen[label]})",
                                 source=source, key=key)
            seen[label] = new
    if len(set(spec.exclude)) != len(spec.exclude):
        raise InputError("a label is excluded twice", source=source, key="exclude")
    for label in spec.exclude:
        if not isinstance(label, str):
            raise InputError(f"labels are strings; got {label!r}", source=source, key="exclude")
        if label in seen and label not in spec.merge:
            raise InputError(f"{label!r} is merged into {seen[label]!r}; exclude "
                             f"{seen[label]!r} or leave {label!r} out of the merge",
                             source=source, key="exclude")


def _string_list(value, source: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", source=source, key=key)
    return tuple(value)


def _datetime(value, source: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InputError(f"not an ISO 8601 time: {value!r}", source=source,
                             key="written_at") from None
    if not isinstance(value, datetime):
        raise InputError("expected a date and time with a time zone (2026-07-03T09:00:00Z)",
                         source=source, key="written_at")
    if value.tzinfo is None:
        raise InputError("`written_at` needs a time zone (e.g. 2026-07-03T09:00:00Z)",
                         source=source, key="written_at")
    return value.astimezone(UTC)


def read_spec(path: str | PathLike[str]) -> StrataSpec:
    """Read and check a stratification spec (TOML); errors name the file and the key."""
    path = Path(path)
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the spec ({exc.strerror})", source=source) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("the spec is not UTF-8 text", source=source) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=source) from None
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(map(repr, unknown))}; a spec holds "
                         f"{', '.join(KEYS)}", source=source, key=unknown[0])
    for key in REQUIRED:
        if key not in data:
            raise InputError(f"missing required key `{key}`", source=source, key=key)
    for key in ("column", "written_by", "origin", "note"):
        if key in data and not isinstance(data[key], str):
            raise InputError("expected a string", source=source, key=key)
    merge = data.get("merge", {})
    if not isinstance(merge, dict):
        raise InputError("expected a table of new label = [old labels]", source=source,
                         key="merge")
    spec = StrataSpec(
        column=data["column"],
        merge={new: _string_list(old, source, f"merge.{new}") for new, old in merge.items()},
        exclude=_string_list(data.get("exclude", []), source, "exclude"),
        written_at=_datetime(data["written_at"], source),
        written_by=data["written_by"],
        origin=data.get("origin", "pre-registered"),
        note=data.get("note", ""),
        log=_string_list(data.get("log", []), source, "log"),
        source=source,
    )
    if spec.origin == "parameters":
        raise InputError("origin 'parameters' is for specs built in code, not files",
                         source=source, key="origin")
    if not spec.written_by.strip():
        raise InputError("`written_by` must name someone", source=source, key="written_by")
    return spec


def write_spec(spec: StrataSpec, path: str | PathLike[str]) -> Path:
    """Write ``spec`` as TOML (refuses to overwrite an existing file)."""
    path = Path(path)
    if path.exists():
        raise InputError("refusing to overwrite an existing spec; choose a new file name",
                         source=path)
    path.write_text(spec.to_toml(), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Applied:
    """The strata of a comparison after a spec was applied.

    Attributes
    ----------
    labels : Series
        ``query_id -> stratum`` for the queries compared (merges applied,
        exclusions removed; missing values are ``"unclassified"``).
    excluded : Series
        ``query_id -> stratum`` (after merging) of the queries left out.
    original : Series
        ``query_id -> stratum`` before the spec: the column's own values.
    labelled_elsewhere : int
        Rows of the strata table whose query is not among ``query_ids``.
    steps : tuple of str
        What the spec did, with counts, in order.
    spec : StrataSpec
    """

    labels: pd.Series
    excluded: pd.Series
    original: pd.Series
    labelled_elsewhere: int
    steps: tuple[str, ...]
    spec: StrataSpec

    @property
    def n_unclassified(self) -> int:
        return int((self.original == UNCLASSIFIED).sum())


def apply_spec(strata: pd.DataFrame | pd.Series, spec: StrataSpec | str,
               query_ids: Iterable | None = None) -> Applied:
    """Apply a stratification spec to a strata table: the one path to a comparison's strata.

    Parameters
    ----------
    strata : DataFrame or Series
        A table with ``query_id`` and the spec's column (e.g. from
        :func:`ragnb.io.read_strata` or :func:`ragnb.strata.strata_table`), or a
        Series ``query_id -> label`` (then the column name is not checked).
    spec : StrataSpec or str
        The spec, or a column name for :meth:`StrataSpec.plain`.
    query_ids : iterable, optional
        The queries being compared (default: every query in the table). Queries
        the table does not classify form the ``"unclassified"`` stratum;
        table rows for other queries are counted in ``labelled_elsewhere``.

    Returns
    -------
    Applied

    Raises
    ------
    InputError
        Naming the spec's file and key, when the column is not in the table or
        a merge or exclusion names a label the column does not have.
    """
    if isinstance(spec, str):
        spec = StrataSpec.plain(spec)
    where = spec.source or "stratification spec"
    if isinstance(strata, pd.DataFrame):
        if spec.column not in strata.columns:
            available = [c for c in strata.columns if c not in ("query_id", "line")]
            raise InputError(f"column {spec.column!r} is not in the strata table (columns: "
                             f"{', '.join(map(str, available))})", source=where, key="column")
        table_ids = pd.Index(strata["query_id"].astype("str"))
        series = pd.Series(strata[spec.column].array, index=table_ids)
    elif isinstance(strata, pd.Series):
        series = strata.copy()
        series.index = series.index.astype("str")
        table_ids = series.index
    else:
        raise InputError(f"strata must be a table or a Series, got {type(strata).__name__}",
                         source=where)
    series = _integral(series)
    order = _natural_order(series)
    ids = table_ids if query_ids is None else pd.Index(list(query_ids), dtype="str")
    elsewhere = len(table_ids.difference(ids))
    original, _ = assign_strata(series, ids.union(table_ids, sort=False), spec.column,
                                source=where)
    original = original.reindex(ids)
    if (original == RESERVED).any():
        raise InputError(f"a stratum may not be called {RESERVED!r} (the pooled row)",
                         source=where, key=spec.column)
    present = set(original)
    counts = original.value_counts()
    steps: list[str] = []
    labels = original.copy()
    for new, old in spec.merge.items():
        missing = [label for label in old if label not in present]
        if missing:
            raise InputError(f"{', '.join(map(repr, missing))} is not a value of "
                             f"{spec.column!r} (values: {', '.join(sorted(map(str, present)))})",
                             source=where, key=f"merge.{new}")
        if new in present and new not in old:
            raise InputError(f"{new!r} is already a value of {spec.column!r}; merge it by "
                             f"listing it, or choose another name", source=where,
                             key=f"merge.{new}")
        labels[original.isin(old)] = new
        steps.append(f"merged {' + '.join(f'{o} ({counts[o]})' for o in old)} into "
                     f"{new!r} ({int(original.isin(old).sum())} queries)")
    after = set(labels)
    missing = [label for label in spec.exclude if label not in after]
    if missing:
        raise InputError(f"{', '.join(map(repr, missing))} is not a stratum here (strata: "
                         f"{', '.join(sorted(map(str, after)))})", source=where, key="exclude")
    out = labels.isin(spec.exclude)
    for label in spec.exclude:
        steps.append(f"excluded {label!r} ({int((labels == label).sum())} queries)")
    if out.all():
        raise InputError("every stratum is excluded: nothing left to compare", source=where,
                         key="exclude")
    if order is not None:  # keep the column's own order (e.g. turn buckets), merges in place
        merged_into = {o: new for new, old in spec.merge.items() for o in old}
        ordered = list(dict.fromkeys(merged_into.get(c, c) for c in order))
        ordered += sorted(set(labels) - set(ordered), key=lambda c: (c == UNCLASSIFIED, c))
        labels = pd.Series(pd.Categorical(labels, categories=ordered), index=labels.index)
    return Applied(labels=labels[~out].rename("stratum"), excluded=labels[out].rename("stratum"),
                   original=original.rename(spec.column), labelled_elsewhere=elsewhere,
                   steps=tuple(steps), spec=spec)


def _natural_order(series: pd.Series) -> list[str] | None:
    """The column's own order of labels: categories, or numbers ascending; else None.

    Numbers may arrive as text (strata files are read as text): ``"10"`` sorts after ``"9"``.
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        return list(map(str, series.cat.categories))
    values = {v for v in series.dropna() if not (isinstance(v, str) and v == "")}
    if not values or any(isinstance(v, bool) for v in values):
        return None
    try:
        numbers = {str(v): float(v) for v in values}
    except (TypeError, ValueError):
        return None
    return sorted(numbers, key=numbers.__getitem__)


def _integral(series: pd.Series) -> pd.Series:
    """Whole numbers stored as floats (a column with gaps) label as ``1``, not ``1.0``."""
    if pd.api.types.is_float_dtype(series.dtype):
        values = series.dropna()
        if len(values) and (values == values.round()).all():
            return series.astype("Int64").astype(object).where(series.notna(), None)
    return series
