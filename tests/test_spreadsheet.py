"""CSV injection (issue 27, item 3): every CSV made for people neutralises formulas,
machine formats keep values exact, numbers are never touched.
"""
from __future__ import annotations

import base64
import contextlib
import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from ragnb.cli import main
from ragnb.report.display import csv_link
from ragnb.spreadsheet import FORMULA_START, neutral_cell, neutralised

#: Text from data that a spreadsheet would run (OWASP's first characters).
HOSTILE = ["=HYPERLINK(\"http://x\")", "+cmd|'/C_calc'!A0", "-2+3", "@SUM(A1:A9)",
           "\tx", "\rx"]


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def live_formulas(text: str, delimiter: str = ",") -> list[str]:
    """Cells of a CSV text that a spreadsheet would run as formulas (an independent
    reading of OWASP's rule: starts with = + - @ tab CR and is not a number)."""
    cells = [c for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
             for c in row]
    return [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")
            and not re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?%?", c)]


def test_a_cell_is_neutralised_by_its_first_character_and_numbers_are_values():
    assert FORMULA_START == ("=", "+", "-", "@", "\t", "\r")
    assert [neutral_cell(v) for v in HOSTILE] == ["'" + v for v in HOSTILE]
    for value in ("-0.5", "+1.1", "-5.13%", "1e-3", "-1e+5", "q1", "", "'=already", " =x",
                  -0.5, 3, None):
        assert neutral_cell(value) == value
    df = pd.DataFrame({"query_id": ["=1+1", "q2"], "delta": [-0.5, 0.25],
                       "stratum": pd.Categorical(["@evil", "-"]), "n": [1, -2]},
                      index=pd.Index(["-x", "y"], name="=idx"))
    df.columns = ["query_id", "=delta", "stratum", "n"]
    out = neutralised(df)
    assert out["query_id"].tolist() == ["'=1+1", "q2"]
    assert out["'=delta"].tolist() == [-0.5, 0.25] and out["n"].tolist() == [1, -2]
    assert out["stratum"].tolist() == ["'@evil", "'-"]
    assert out.index.tolist() == ["'-x", "y"]
    assert df["query_id"].tolist() == ["=1+1", "q2"]  # the input is left as it was


@pytest.fixture
def hostile_inputs(tmp_path):
    """A test set, two runs and strata whose ids and labels are formulas."""
    qids = [f"q{i}" for i in range(12)] + HOSTILE[:4]
    rng = np.random.default_rng(3)
    qrels = tmp_path / "t.qrels"
    qrels.write_text("".join(f"{q} 0 d{j} {int(rng.integers(0, 3))}\n"
                             for q in qids for j in range(4)))
    runs = {}
    for name in ("a", "b"):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"{q} Q0 {'=d' if j == 5 else 'd'}{j} {r + 1} {10 - r} t\n"
                               for q in qids for r, j in enumerate(rng.permutation(6))))
        runs[name] = run
    strata = tmp_path / "s.csv"
    strata.write_text("query_id,kind\n" + "".join(
        f"{q},{'@evil' if i % 2 else '=bad()'}\n" for i, q in enumerate(qids)))
    return {"qrels": qrels, "runs": runs, "strata": strata, "dir": tmp_path}


def test_every_csv_made_for_people_has_no_live_formula(hostile_inputs):
    h = hostile_inputs
    d, a, b = h["dir"], str(h["runs"]["a"]), str(h["runs"]["b"])
    written = {}
    # score --out x.csv (per query: query ids), and a config named like a formula
    code, _, err = cli("score", "--judgments", str(h["qrels"]), "--run", f"@cfg={a}",
                       "--metric", "ndcg@10", "--per-query", "--out", str(d / "score.csv"))
    assert code == 0, err
    written["score --out x.csv"] = (d / "score.csv").read_text()
    code, _, err = cli("score", "--judgments", str(h["qrels"]), f"--run=-cfg={a}",
                       "--metric", "ndcg@10", "--strata", str(h["strata"]), "--by", "kind",
                       "--out", str(d / "score.tsv"))
    assert code == 0, err
    written["score --out x.tsv"] = (d / "score.tsv").read_text()
    # compare --out x.csv with strata labelled like formulas
    code, _, err = cli("compare", "--judgments", str(h["qrels"]), "--baseline", f"@base={a}",
                       "--challenger", f"+chal={b}", "--metric", "ndcg@10", "--resamples",
                       "200", "--strata", str(h["strata"]), "--by", "kind", "--out",
                       str(d / "compare.csv"))
    assert code == 0, err
    written["compare --out x.csv"] = (d / "compare.csv").read_text()
    # --format csv on standard output
    code, out, err = cli("score", "--judgments", str(h["qrels"]), "--run", f"@cfg={a}",
                         "--metric", "ndcg@10", "--per-query", "--format", "csv")
    assert code == 0, err
    written["score --format csv"] = out
    # the labelling list handed to labellers
    code, _, err = cli("pool", "list", "--judgments", str(h["qrels"]), "--run", f"@a={a}",
                       "--run", f"b={b}", "--k", "6", "--csv", str(d / "pool.csv"),
                       "--jsonl", str(d / "pool.jsonl"))
    assert code == 0, err
    written["pool list --csv"] = (d / "pool.csv").read_text()
    # a report table's CSV download
    table = pd.read_csv(d / "score.csv", dtype=str, keep_default_na=False)
    raw = pd.DataFrame({"query_id": HOSTILE, "delta": np.linspace(-0.5, 0.5, len(HOSTILE))})
    link = csv_link(raw, "hostile")
    written["report CSV download"] = base64.b64decode(
        re.search(r"base64,([^\"]+)", link)[1]).decode()

    for where, text in written.items():
        delimiter = "\t" if where.endswith("tsv") else ","
        assert live_formulas(text, delimiter) == [], where
        assert "'=" in text or "'@" in text or "'-" in text or "'+" in text, where
    # what was neutralised is the text; the numbers are the values computed
    assert "'=HYPERLINK" in written["report CSV download"]
    assert "-0.5" in written["report CSV download"]
    assert (table["query_id"] == "'@SUM(A1:A9)").sum() == 1
    assert "'-2+3" in table["query_id"].tolist() and "q0" in table["query_id"].tolist()
    assert "'=d5" in written["pool list --csv"] and "'@a" in written["pool list --csv"]
    print(f"CSV writers neutralised: {len(written)} of {len(written)}: {sorted(written)}")


def test_machine_formats_keep_values_exact(hostile_inputs):
    h = hostile_inputs
    d, a = h["dir"], str(h["runs"]["a"])
    code, _, err = cli("score", "--judgments", str(h["qrels"]), "--run", f"@cfg={a}",
                       "--metric", "ndcg@10", "--per-query", "--out", str(d / "score.json"))
    assert code == 0, err
    records = json.loads((d / "score.json").read_text())
    assert {r["query_id"] for r in records} >= set(HOSTILE[:4])
    assert {r["config"] for r in records} == {"@cfg"}
    code, _, err = cli("pool", "list", "--judgments", str(h["qrels"]), "--run", f"@a={a}",
                       "--k", "6", "--jsonl", str(d / "pool.jsonl"))
    assert code == 0, err
    assert "=d5" in {json.loads(line)["passage_id"]
                     for line in (d / "pool.jsonl").read_text().splitlines()}
    # a converted test set is data for readers: exact, read back unchanged
    code, _, err = cli("convert", str(h["qrels"]), "--out", str(d / "t.csv"))
    assert code == 0, err
    back = pd.read_csv(d / "t.csv", dtype=str)
    assert set(HOSTILE[:4]) <= set(back["query_id"])


def test_an_object_column_without_text_is_left_alone():
    """Found merging issue 27 with the ledger's split table: an object column of integers
    and None (selections_against of splits, some unknown) made ``.str`` raise."""
    import pandas as pd

    from ragnb.spreadsheet import people_csv

    df = pd.DataFrame({"split": ["=golden", "production"],
                       "selections_against": pd.Series([40, None], dtype=object)})
    assert people_csv(df, index=False) == "split,selections_against\n'=golden,40\nproduction,\n"


def _cell_by_cell(df: pd.DataFrame) -> pd.DataFrame:
    """The neutralisation as it was first written (issue 25's reference): every text cell
    through :func:`neutral_cell`, the column made ``object``."""
    out = df.copy()
    for c in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[c].dtype)
                or pd.api.types.is_bool_dtype(out[c].dtype)):
            out[c] = pd.Series([neutral_cell(v) for v in out[c].astype(object)],
                               index=out.index, dtype=object)
    return out


@pytest.mark.parametrize("storage", ["pyarrow", "python", "object"])
def test_the_per_query_csv_is_the_cell_by_cell_one(storage):
    """The per-query CSV (issue 25: written by arrow, a text column checked once per
    distinct value or in arrow) has the same cells as the cell-by-cell neutralisation,
    byte for byte, whatever the text columns' storage; read back at full precision it
    gives the values scored."""
    from ragnb.cli._common import delimited

    rng = np.random.default_rng(7)
    n = 500
    qids = [f"q{i}" for i in range(n)]
    qids[3], qids[10], qids[11] = "=cmd()", "-0.5", None
    values = rng.random(n)
    values[:8] = [0.0, 1.0, 1e-05, 0.1 + 0.2, np.nan, 1e20, 2 / 3, -0.0]
    kind = object if storage == "object" else pd.StringDtype(storage)
    frames = []
    for metric in ("ndcg@10", "@rr@10"):
        frames.append(pd.DataFrame({
            "config": pd.Series(["run"] * n, dtype=kind),
            "query_id": pd.Series(qids, dtype=kind),
            "metric": pd.Series([metric] * n, dtype=kind),
            "value": values}))
    table = pd.concat(frames, ignore_index=True)
    for df in (table, table.assign(query_id=table["query_id"].fillna("plain"))):
        new, old = neutralised(df), _cell_by_cell(df)
        pd.testing.assert_frame_equal(new.astype(object), old.astype(object),
                                      check_column_type=False)
        written = delimited(new, ",")
        assert written is not None and written == delimited(old, ",")
        back = pd.read_csv(io.BytesIO(written),  # pandas 3 reads floats exactly
                           dtype={"config": str, "query_id": str, "metric": str},
                           keep_default_na=False, na_values={"value": [""]})
        np.testing.assert_array_equal(back["value"].to_numpy(), df["value"].to_numpy())
        assert set(back["metric"]) == {"ndcg@10", "'@rr@10"}
        assert "'=cmd()" in set(back["query_id"]) and "-0.5" in set(back["query_id"])


def test_clean_text_keeps_its_column():
    """A pyarrow-backed text column with nothing to neutralise is not copied to Python
    objects (what made the per-query CSV of 100,000 queries slow)."""
    df = pd.DataFrame({"q": pd.Series(["a", "b", None], dtype="string[pyarrow]"),
                       "v": [1.0, 2.0, 3.0]})
    out = neutralised(df)
    assert out["q"].dtype == df["q"].dtype
    q = neutralised(df.assign(q=["a", "=b", None]))["q"]
    assert q[:2].tolist() == ["a", "'=b"] and q.isna()[2]
