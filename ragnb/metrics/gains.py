"""Gain maps and the rank discount for nDCG: grade -> gain, rank -> discount.

Every DCG in the package (the metric kernels, the ideal DCG, the label-bias
bounds, the demo generator) takes its gain from a :class:`GainMap` here and its
discount from :func:`discount` / :func:`discount_prefix`.

Two built-in maps by name, ``exp`` (2^g - 1, the default of ``ndcg``) and
``linear`` (g, trec_eval's ``ndcg_cut``), plus maps from a file or a mapping,
for collections whose labels are not one relevance scale (relevance,
understandability, trust folded into one grade; a grade that should count
double). A metric names its map: ``ndcg@10(gain=linear)``,
``ndcg@10(gain=gains.json)`` or a name added with :func:`register_gain_map`
(how a workspace supplies its map).

File formats: JSON ``{"0": 0, "1": 1, "2": 5}`` (grade -> gain), or CSV with
columns ``grade,gain``. Grades are non-negative integers, gains finite
numbers; a grade that occurs in the judgments but has no gain is an error
naming it when the metric is scored.
"""
from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ragnb.errors import InputError, listed


def discount(pos) -> np.ndarray:
    """The DCG discount ``1 / log2(i + 1)`` at rank ``i = pos + 1`` (``pos`` 0-based).

    >>> [round(float(x), 4) for x in discount([0, 1, 2])]
    [1.0, 0.6309, 0.5]
    """
    return 1.0 / np.log2(np.asarray(pos, dtype=np.float64) + 2.0)


def discount_prefix(length: int, k: int | None = None) -> np.ndarray:
    """``D(t) = sum_{i < min(t, k)} discount(i)`` for ``t = 0..length`` (DCG of ``t`` items of
    gain 1; a block of ``c`` items from position ``s`` adds ``D(s + c) - D(s)``).
    """
    steps = discount(np.arange(length))
    if k is not None:
        steps[k:] = 0.0
    return np.r_[0.0, np.cumsum(steps)]


@dataclass(frozen=True)
class GainMap:
    """A named grade -> gain function; ``table`` is None for the built-in formulas."""

    name: str
    func: Callable[[np.ndarray], np.ndarray]
    table: tuple[tuple[int, float], ...] | None = None
    source: str = "built-in"

    def __call__(self, grades) -> np.ndarray:
        return self.func(grades)

    def increasing_from_zero(self, top: int) -> bool:
        """True when gain(0) = 0 and the gain rises with every grade up to ``top``
        (what the exact label bounds assume).
        """
        g = self(np.arange(top + 1, dtype=np.float64))
        return bool(g[0] == 0 and np.all(np.diff(g) > 0))


def _lookup(table: dict[int, float], name: str) -> Callable[[np.ndarray], np.ndarray]:
    top = max(table)
    lut = np.full(top + 1, np.nan)
    for grade, gain in table.items():
        lut[grade] = gain

    def func(grades) -> np.ndarray:
        g = np.asarray(grades, dtype=np.float64)
        idx = g.astype(np.int64)
        bad = (idx < 0) | (idx > top)
        out = np.full(g.shape, np.nan)
        out[~bad] = lut[idx[~bad]]
        if np.isnan(out).any():
            missing = sorted({int(x) for x in np.atleast_1d(g[np.isnan(out)])})
            raise InputError(f"grade(s) {listed(missing)} have no gain in gain map {name!r} "
                             f"(it maps {listed(sorted(table), most=12)})", key=name)
        return out

    return func


GAIN_MAPS: dict[str, GainMap] = {
    "exp": GainMap("exp", lambda g: np.exp2(np.asarray(g, dtype=np.float64)) - 1.0),
    "linear": GainMap("linear", lambda g: np.asarray(g, dtype=np.float64)),
}


def _validate(mapping: Mapping, source: str) -> dict[int, float]:
    table: dict[int, float] = {}
    if not mapping:
        raise InputError("a gain map needs at least one grade", source=source)
    for key, value in mapping.items():
        try:
            grade = int(key)
            if str(grade) != str(key).strip() or grade < 0:
                raise ValueError
        except (TypeError, ValueError):
            raise InputError(f"grade {key!r} is not a non-negative integer", source=source,
                             key=str(key)) from None
        try:
            gain = float(value)
        except (TypeError, ValueError):
            raise InputError(f"gain {value!r} of grade {grade} is not a number", source=source,
                             key=str(key)) from None
        if not math.isfinite(gain):
            raise InputError(f"gain of grade {grade} is not finite", source=source,
                             key=str(key))
        if grade in table:
            raise InputError(f"grade {grade} is mapped twice", source=source, key=str(key))
        table[grade] = gain
    return table


def register_gain_map(name: str, mapping: Mapping, *, source: str | None = None) -> GainMap:
    """Add (or replace) a gain map under ``name`` from ``{grade: gain}``."""
    if name in ("exp", "linear"):
        raise InputError(f"{name!r} is a built-in gain map and cannot be replaced", key=name)
    if not name or any(c in name for c in "(),= "):
        raise InputError(f"gain map name {name!r} must be non-empty without ( ) , = or spaces",
                         key=name)
    table = _validate(mapping, source or name)
    gm = GainMap(name, _lookup(table, name), tuple(sorted(table.items())), source or "mapping")
    GAIN_MAPS[name] = gm
    return gm


def load_gain_map(path: str | Path, name: str | None = None) -> GainMap:
    """Read a gain map from JSON (``{"grade": gain}``) or CSV (``grade,gain``) and register
    it under ``name`` (default: the path as given).
    """
    p = Path(path)
    if not p.is_file():
        raise InputError("gain map file not found", source=str(path))
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() == ".json":
        try:
            mapping = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", source=str(path),
                             line=exc.lineno) from None
        if not isinstance(mapping, dict):
            raise InputError("expected a JSON object {grade: gain}", source=str(path))
    elif p.suffix.lower() == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
        if rows and not {"grade", "gain"} <= set(rows[0]):
            raise InputError("a gain map CSV needs columns grade,gain; has "
                             f"{listed(rows[0], most=12)}",
                             source=str(path), line=1)
        mapping = {}
        for line, row in enumerate(rows, start=2):
            if row["grade"] in mapping:
                raise InputError(f"grade {row['grade']} is mapped twice", source=str(path),
                                 line=line)
            mapping[row["grade"]] = row["gain"]
    else:
        raise InputError("a gain map file must be .json or .csv", source=str(path))
    return register_gain_map(name or str(path), mapping, source=str(path))


def gain_map(name: str) -> GainMap:
    """The gain map called ``name``; a path to a .json/.csv file is (re)read each call."""
    if name.lower().endswith((".json", ".csv")):
        return load_gain_map(name)
    if name in GAIN_MAPS:
        return GAIN_MAPS[name]
    raise InputError(f"unknown gain map {name!r}; built-in: exp, linear; registered: "
                     f"{listed(sorted(set(GAIN_MAPS) - {'exp', 'linear'}), most=12) or 'none'}; "
                     "or a .json/.csv "
                     "file path", key=name)
