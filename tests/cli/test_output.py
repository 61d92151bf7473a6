"""Tables written as CSV/TSV by pyarrow (``ragnb.cli._common.delimited``): the bytes pandas'
``to_csv`` writes, or None where pandas must write them."""
import numpy as np
import pandas as pd
import pytest

from ragnb.cli._common import delimited


def per_query(n=400):
    rng = np.random.default_rng(3)
    values = rng.random(n).round(6) + 1e-4  # >= 1e-4: Python's repr needs no exponent
    values[:5] = [1.0, 0.0, 1 / 3, np.nan, -2.0]
    return pd.DataFrame({
        "config": pd.Series(["bm25"] * n, dtype="string[pyarrow]"),
        "query_id": pd.Series([f"q{i // 4}" for i in range(n)], dtype="string[pyarrow]"),
        "metric": pd.Series(np.tile(["ndcg@10", "rr@10", "recall@100", "p@10"], n // 4),
                            dtype="string[pyarrow]"),
        "value": values, "n": np.arange(n), "note": [None, "x y", *["ok"] * (n - 2)]})


@pytest.mark.parametrize("sep", [",", "\t"])
def test_the_bytes_pandas_writes(sep):
    df = per_query()
    assert delimited(df, sep) == df.to_csv(index=False, sep=sep).encode()


def test_pandas_writes_what_needs_quotes_or_is_not_text_or_a_number():
    assert delimited(pd.DataFrame({"query_id": ["q1", "a,b"]}), ",") is None
    assert delimited(pd.DataFrame({"query_id": ["q1", 'say "x"']}), "\t") is None
    assert delimited(pd.DataFrame({"significant": [True, False]}), ",") is None
    assert delimited(pd.DataFrame({"mixed": ["q1", 2]}), ",") is None
    assert delimited(pd.DataFrame({"a,b": [1]}), ",") == b'"a,b"\n1\n'   # header as csv quotes
