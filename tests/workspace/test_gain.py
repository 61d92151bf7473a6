"""The workspace's gain map: [workspace] gain or [gains], checked in the manifest and used for
nDCG metrics that name no map."""
from __future__ import annotations

import numpy as np
import pytest

from ragnb.errors import InputError
from ragnb.metrics.score import score
from ragnb.workspace import open_workspace, parse_manifest

# q1 judges d1 grade 1 and d2 grade 2; run a ranks d1 then d2 (the lower grade first).
QRELS = "q1 0 d1 1\nq1 0 d2 2\n"
RUN = "q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\n"
BASE = '[test_sets.main]\npath = "qrels.txt"\nruns = "runs/*.trec"\n'


def ndcg_by_hand(g1: float, g2: float) -> float:
    """DCG = g(1) + g(2) / log2 3; ideal DCG = g(2) + g(1) / log2 3."""
    return (g1 + g2 / np.log2(3)) / (g2 + g1 / np.log2(3))


def workspace(tmp_path, text: str, files: dict[str, str] | None = None):
    (tmp_path / "runs").mkdir(exist_ok=True)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs" / "a.trec").write_text(RUN)
    for name, content in (files or {}).items():
        (tmp_path / name).write_text(content)
    (tmp_path / "ragnb.toml").write_text(text)
    return open_workspace(tmp_path)


def ndcg(ws, metric: str) -> float:
    s = score(ws.test_set("main"), ws.runs("main"), ws.setting("fit", "metric", metric))
    return float(s.table["value"].iloc[0])


def test_gains_table_is_used_for_ndcg_without_a_map(tmp_path):
    ws = workspace(tmp_path, BASE + '[gains]\n"0" = 0\n"1" = 1\n"2" = 5\n')
    assert ws.gain.startswith("workspace-")
    assert ws.setting("fit", "metric", "ndcg@10") == f"ndcg@10(gain={ws.gain})"
    assert ndcg(ws, "ndcg@10") == pytest.approx(ndcg_by_hand(1, 5))          # 0.7378
    # a metric that names its map keeps it; other metrics are untouched
    assert ndcg(ws, "ndcg@10(gain=exp)") == pytest.approx(ndcg_by_hand(1, 3))  # 0.7967
    assert ws.setting("fit", "metric", "rr@10") == "rr@10"
    assert ws.setting("fit", "metric", "ndcg_cut_10") == "ndcg_cut_10"        # trec_eval: linear


@pytest.mark.parametrize("name, content", [
    ("gains.json", '{"0": 0, "1": 1, "2": 5}'),
    ("gains.csv", "grade,gain\n0,0\n1,1\n2,5\n"),
])
def test_gain_file_is_the_same_map_as_the_table(tmp_path, name, content):
    ws = workspace(tmp_path, f'[workspace]\ngain = "{name}"\n' + BASE, {name: content})
    assert ndcg(ws, "ndcg@10") == pytest.approx(ndcg_by_hand(1, 5))
    # content-addressed name: the same map as a [gains] table gets the same name
    other = workspace(tmp_path, BASE + '[gains]\n"0" = 0\n"1" = 1\n"2" = 5\n')
    assert other.gain == ws.gain


def test_built_in_names_and_the_default(tmp_path):
    ws = workspace(tmp_path, '[workspace]\ngain = "linear"\n' + BASE)
    assert ws.gain == "linear"
    assert ndcg(ws, "ndcg@10") == pytest.approx(ndcg_by_hand(1, 2))           # 0.8597
    ws = workspace(tmp_path, BASE)
    assert ws.gain == "exp" and ws.setting("fit", "metric", "ndcg@10") == "ndcg@10"
    assert ndcg(ws, "ndcg@10") == pytest.approx(ndcg_by_hand(1, 3))


@pytest.mark.parametrize("text, files, key, message", [
    ('[workspace]\ngain = "expo"\n' + BASE, {}, "workspace.gain", "must be exp, linear or a"),
    ('[workspace]\ngain = "nope.json"\n' + BASE, {}, "workspace.gain", "no such file"),
    ('[workspace]\ngain = "g.json"\n' + BASE, {"g.json": "[1, 2]"}, "workspace.gain",
     "expected a JSON object"),
    ('[workspace]\ngain = "g.csv"\n' + BASE, {"g.csv": "grade,gain\n1,x\n"}, "workspace.gain",
     "is not a number"),
    ('[workspace]\ngain = "linear"\n' + BASE + '[gains]\n"1" = 1\n', {}, "gains",
     "not both"),
    (BASE + '[gains]\n"1" = 1\n"high" = 3\n', {}, "gains.high", "not a non-negative integer"),
    (BASE + '[gains]\n"1" = "much"\n', {}, "gains.1", "is not a number"),
])
def test_errors_name_the_key(tmp_path, text, files, key, message):
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs" / "a.trec").write_text(RUN)
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    (tmp_path / "ragnb.toml").write_text(text)
    with pytest.raises(InputError, match=message) as err:
        parse_manifest(tmp_path)
    assert err.value.key == key
    assert err.value.source == str((tmp_path / "ragnb.toml").resolve())


def test_cli_score_and_compare_with_workspace_use_its_map(tmp_path):
    import io
    from contextlib import redirect_stderr, redirect_stdout

    import pandas as pd

    from ragnb.cli import main

    ws = workspace(tmp_path, '[workspace]\ngain = "linear"\n' + BASE)
    # a second query both configs answer perfectly (nDCG 1): compare needs two
    (tmp_path / "qrels.txt").write_text(QRELS + "q2 0 d3 1\n")
    (tmp_path / "runs" / "a.trec").write_text(RUN + "q2 Q0 d3 1 1.0 a\n")
    (tmp_path / "runs" / "b.trec").write_text("q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\n"
                                              "q2 Q0 d3 1 1.0 b\n")

    def csv_of(*argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv] + ["--format", "csv"])
        assert code == 0, err.getvalue()
        return pd.read_csv(io.StringIO(out.getvalue()))

    got = csv_of("score", "--workspace", tmp_path, "--metric", "ndcg@10", "--per-query")
    assert set(got["metric"]) == {"ndcg@10(gain=linear)"}
    q1 = got[got["query_id"] == "q1"].set_index("config")["value"]
    assert q1["a"] == pytest.approx(ndcg_by_hand(1, 2)) and q1["b"] == pytest.approx(1.0)
    comp = csv_of("compare", "--workspace", tmp_path, "--baseline", "a", "--challenger", "b",
                  "--metric", "ndcg@10", "--resamples", 100)
    assert comp.loc[0, "delta"] == pytest.approx((1 - ndcg_by_hand(1, 2)) / 2)
    assert ws.gain == "linear"


def test_init_help_documents_the_keys():
    from ragnb.cli.init import description

    DESCRIPTION = description()

    assert "[workspace] gain" in DESCRIPTION and "[gains]" in DESCRIPTION
    assert "  gain " in DESCRIPTION and "  GRADE " in DESCRIPTION  # the key listing


def test_cli_pool_with_workspace_uses_its_map(tmp_path):
    """The judge-next swings of ``pool list --workspace`` are those of the workspace's
    linear map (as with the files and ``ndcg@10(gain=linear)``), not exp's."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    import pandas as pd

    from ragnb.cli import main

    workspace(tmp_path, '[workspace]\ngain = "linear"\n' + BASE)
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 3\nq2 0 d3 2\n")
    (tmp_path / "runs" / "a.trec").write_text(
        "q1 Q0 d1 1 3.0 a\nq1 Q0 x1 2 2.0 a\nq1 Q0 d2 3 1.0 a\nq2 Q0 x2 1 2.0 a\n"
        "q2 Q0 d3 2 1.0 a\n")
    (tmp_path / "runs" / "b.trec").write_text(
        "q1 Q0 d2 1 3.0 b\nq1 Q0 d1 2 2.0 b\nq1 Q0 x3 3 1.0 b\nq2 Q0 d3 1 2.0 b\n"
        "q2 Q0 x2 2 1.0 b\n")

    def csv_of(*argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv] + ["--format", "csv"])
        assert code == 0, err.getvalue()
        return pd.read_csv(io.StringIO(out.getvalue())).set_index("passage_id")["swing"]

    files = ["--judgments", tmp_path / "qrels.txt", "--run", f"a={tmp_path / 'runs/a.trec'}",
             "--run", f"b={tmp_path / 'runs/b.trec'}"]
    ws = csv_of("pool", "list", "--workspace", tmp_path, "--baseline", "a", "--metric", "ndcg@10")
    linear = csv_of("pool", "list", *files, "--baseline", "a", "--metric", "ndcg@10(gain=linear)")
    exp = csv_of("pool", "list", *files, "--baseline", "a", "--metric", "ndcg@10(gain=exp)")
    # a TREC qrels file implies linear gain, as init writes it (issue 36 #1)
    implied = csv_of("pool", "list", *files, "--baseline", "a", "--metric", "ndcg@10")
    pd.testing.assert_series_equal(ws.sort_index(), linear.sort_index())
    pd.testing.assert_series_equal(implied.sort_index(), linear.sort_index())
    assert not np.allclose(exp.sort_index(), linear.sort_index())
