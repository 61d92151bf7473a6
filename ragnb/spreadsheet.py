"""CSV made for people: cells a spreadsheet would run as formulas are neutralised.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
a formula to Excel, LibreOffice and Google Sheets (CSV injection); query ids,
query texts, config names and stratum labels come from data and other people.
Following OWASP's rule, such a text cell gets a leading single quote (``'=cmd``),
which spreadsheets show as text. Numbers are values, never formulas: numeric
columns are left as they are, and so is a text cell that is a plain number
(``-0.5``, ``+1.1``, ``-5.13%``).

Which CSVs are for people (neutralised here): the CSV download under every
report table (:func:`ragnb.report.display.csv_link`), the command line's
``--format csv`` / ``--out x.csv`` / ``x.tsv`` tables (``score``, ``compare``,
``bounds``, ``pool``, ``tasks score``) and the labelling list handed to
labellers (``ragnb pool list --csv``). Which are for machines (exact values):
JSON, JSON Lines and Parquet everywhere, and the test sets and runs that
``ragnb convert`` and ``ragnb pool merge`` write (:mod:`ragnb.io.writers`), which
ragnb and trec_eval read back.
"""
from __future__ import annotations

import re

import pandas as pd

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?%?")


def neutral_cell(value: object) -> object:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run.

    >>> neutral_cell("=1+2"), neutral_cell("@SUM(A1)"), neutral_cell("-0.5"), neutral_cell(-0.5)
    ("'=1+2", "'@SUM(A1)", '-0.5', -0.5)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START) \
            and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def _neutral_labels(labels: pd.Index) -> pd.Index:
    if isinstance(labels, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(neutral_cell(v) for v in t) for t in labels],
                                         names=labels.names)
    if pd.api.types.is_numeric_dtype(labels.dtype) and not pd.api.types.is_bool_dtype(
            labels.dtype):
        return labels
    return pd.Index([neutral_cell(v) for v in labels], name=labels.name, dtype=object)


def _neutral_column(column: pd.Series) -> pd.Series:
    """A text column neutralised; only its distinct values are looked at (a per-query
    table repeats each config, metric and query id), and a column none of whose values
    starts with a trigger comes back as it is (its dtype kept: pyarrow-backed text
    stays so for the CSV writer).
    """
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow" \
            and not _arrow_triggers(column):
        return column  # pyarrow-backed text, checked in arrow: none starts a formula
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    distinct = pd.Series(uniques, dtype=object)
    try:
        first = distinct.str[:1]  # NaN for values that are not text
    except AttributeError:  # an object column holding no text at all (e.g. ints and None)
        return column.astype(object)
    at = first.isin(FORMULA_START).to_numpy(bool)
    if not at.any():
        return column
    fixed = distinct.copy()
    fixed[at] = [neutral_cell(v) for v in distinct[at]]
    values = column.astype(object)
    rows = at[codes] & (codes >= 0)
    values[rows] = fixed.to_numpy()[codes[rows]]
    return values


def _arrow_triggers(column: pd.Series) -> bool:
    """Whether any cell of a pyarrow-backed text column starts with a formula trigger
    (one pass in arrow, no Python object per cell).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    first = pc.utf8_slice_codeunits(column.array.__arrow_array__(), 0, 1)
    return bool(pc.any(pc.is_in(first, value_set=pa.array(FORMULA_START))).as_py())


def neutralised(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells, column names and index labels cannot run as
    formulas (:func:`neutral_cell`); numeric columns are unchanged.
    """
    out = df.copy(deep=False)
    for i in range(out.shape[1]):
        column = out.iloc[:, i]
        if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(
                column.dtype) or pd.api.types.is_datetime64_any_dtype(column.dtype):
            continue
        out.isetitem(i, _neutral_column(column))
    out.columns = _neutral_labels(out.columns)
    out.index = _neutral_labels(out.index)
    return out


def people_csv(df: pd.DataFrame, **to_csv) -> str:
    """``df.to_csv(**to_csv)`` for a person to open: :func:`neutralised` first."""
    return neutralised(df).to_csv(**to_csv)
