"""Small checks for JSON values; every failure names the source and the key path."""
from __future__ import annotations

import math
from datetime import date
from typing import Literal, overload

from ragnb.errors import InputError


def obj(value: object, allowed: tuple[str, ...], required: tuple[str, ...], source: str,
        path: str) -> dict:
    """A JSON object with only ``allowed`` keys and all ``required`` ones."""
    if not isinstance(value, dict):
        raise InputError(f"must be a JSON object, got {type(value).__name__}",
                         source=source, key=path or "$")
    prefix = f"{path}." if path else ""
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InputError(f"unknown key (allowed: {', '.join(allowed)})",
                         source=source, key=prefix + str(unknown[0]))
    for k in required:
        if k not in value:
            raise InputError("required key is missing", source=source, key=prefix + k)
    return value


@overload
def integer(value: object, source: str, key: str, *, minimum: int,
            optional: Literal[False] = False) -> int: ...


@overload
def integer(value: object, source: str, key: str, *, minimum: int,
            optional: bool) -> int | None: ...


def integer(value: object, source: str, key: str, *, minimum: int,
            optional: bool = False) -> int | None:
    """An integer ``>= minimum`` (``None`` allowed when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InputError(
            f"must be an integer >= {minimum}{' or null' if optional else ''}, got {value!r}",
            source=source, key=key)
    return value


def number(value: object, source: str, key: str, *, positive: bool = True) -> float:
    """A finite number, strictly positive unless ``positive=False``."""
    if (not isinstance(value, (int, float)) or isinstance(value, bool)
            or not math.isfinite(value) or (positive and value <= 0)):
        raise InputError(f"must be a finite {'positive ' if positive else ''}number, "
                         f"got {value!r}", source=source, key=key)
    return float(value)


def boolean(value: object, source: str, key: str) -> bool:
    """``true`` or ``false`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise InputError(f"must be true or false, got {value!r}", source=source, key=key)
    return value


@overload
def text(value: object, source: str, key: str, *, optional: Literal[False] = False) -> str: ...


@overload
def text(value: object, source: str, key: str, *, optional: bool) -> str | None: ...


def text(value: object, source: str, key: str, *, optional: bool = False) -> str | None:
    """A non-empty string (``None`` allowed when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"must be a non-empty string, got {value!r}", source=source, key=key)
    return value


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def iso_date(value: object, source: str, key: str, *, optional: bool = False) -> str | None:
    """A calendar date written ``YYYY-MM-DD``."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or len(value) != 10 or not _is_date(value):
        raise InputError(f"must be a date written YYYY-MM-DD{' or null' if optional else ''}, "
                         f"got {value!r}", source=source, key=key)
    return value
