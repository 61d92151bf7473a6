"""``--workspace`` on compare, bounds and pool: the manifest's files give the same numbers as
the files named on the command line, configs are resolved through the manifest, and errors
name the manifest key."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

from ragnb.cli import main
from ragnb.paths import DEMO_DIR

GOLDEN = DEMO_DIR / "golden.jsonl"
PRODUCTION = DEMO_DIR / "production.jsonl"
LB = DEMO_DIR / "labelbias"


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def csv_of(*argv) -> pd.DataFrame:
    code, out, err = cli(*argv, "--format", "csv")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def test_compare_workspace_applies_its_ledger_like_the_ledger_option():
    """The workspace's own ledger is the split's policy, exactly as --ledger names it:
    the demo's production is a regression guard, and a +1.1-point lead under its
    2.04-point margin is refused with the same message either way."""
    run = DEMO_DIR / "runs" / "production"
    args = ["--baseline", "round-00", "--challenger", "round-40", "--metric", "ndcg@10",
            "--resamples", 300]
    code, _, ws_err = cli("compare", "--workspace", DEMO_DIR, "--split", "production", *args)
    files = ["--judgments", PRODUCTION, "--baseline", f"round-00={run}/round-00.jsonl",
             "--challenger", f"round-40={run}/round-40.jsonl", "--metric", "ndcg@10",
             "--resamples", 300]
    code_files, _, files_err = cli("compare", *files, "--ledger", DEMO_DIR / "ledger")
    assert code == code_files == 2
    assert ws_err == files_err
    assert "production is a regression guard and will not rank 'round-40' over 'round-00'" \
        in ws_err and "+1.11 points" in ws_err and "2.04 points" in ws_err
    # golden's +9.0 clears its margin: the workspace and the files agree row by row
    golden = DEMO_DIR / "runs" / "golden"
    ws = csv_of("compare", "--workspace", DEMO_DIR, "--split", "golden", *args, "--by", "intent")
    by_files = csv_of("compare", "--judgments", GOLDEN, "--baseline",
                      f"round-00={golden}/round-00.jsonl", "--challenger",
                      f"round-40={golden}/round-40.jsonl", "--metric", "ndcg@10",
                      "--resamples", 300, "--by", "intent", "--ledger", DEMO_DIR / "ledger")
    cols = ["stratum", "n", "delta", "ci_low", "ci_high", "p_value", "selections_against",
            "inflation"]
    pd.testing.assert_frame_equal(ws[cols], by_files[cols])
    assert (ws["selections_against"] == 40).all()


def _without_ledger(demo, tmp_path):
    """The demo workspace with no ``ledger`` key (its files linked, not copied; the
    specs included)."""
    tmp_path = tmp_path / "demo"
    tmp_path.mkdir()
    for entry in demo.iterdir():
        if entry.name not in ("ragnb.toml", "ledger"):
            (tmp_path / entry.name).symlink_to(entry)
    text = (demo / "ragnb.toml").read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.startswith("ledger =")]
    assert len(kept) == len(text.splitlines()) - 1
    (tmp_path / "ragnb.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return tmp_path


def test_compare_workspace_equals_files_and_reads_the_manifest_strata(tmp_path):
    run = DEMO_DIR / "runs" / "production"
    files = csv_of("compare", "--judgments", PRODUCTION, "--baseline",
                   f"round-00={run}/round-00.jsonl",
                   "--challenger", f"round-40={run}/round-40.jsonl", "--metric", "ndcg@10",
                   "--resamples", 300, "--by", "query_type", "--strata",
                   DEMO_DIR / "production_strata.csv")
    # a workspace without the demo's ledger (production is a regression guard there)
    ws_dir = _without_ledger(DEMO_DIR, tmp_path)
    ws = csv_of("compare", "--workspace", ws_dir, "--split", "production", "--baseline",
                "round-00", "--challenger", "round-40", "--metric", "ndcg@10", "--resamples", 300,
                "--by", "query_type")
    cols = ["stratum", "n", "delta", "ci_low", "ci_high", "p_value"]
    pd.testing.assert_frame_equal(ws[cols], files[cols])
    # the per-stratum deltas are the mean per-query differences (scored separately)
    per_query = csv_of("score", "--workspace", DEMO_DIR, "--split", "production", "--config",
                       "round-00", "--config", "round-40", "--metric", "ndcg@10", "--per-query")
    wide = per_query.pivot(index="query_id", columns="config", values="value")
    kinds = pd.read_csv(DEMO_DIR / "production_strata.csv").set_index("query_id")["query_type"]
    diff = (wide["round-40"] - wide["round-00"])
    by_kind = diff.groupby(kinds.reindex(diff.index)).mean()
    got = ws.set_index("stratum")["delta"]
    for kind, value in by_kind.items():
        assert got[kind] == pytest.approx(value, abs=1e-12)
    assert got["pooled"] == pytest.approx(diff.mean(), abs=1e-12)


def test_compare_workspace_errors_name_the_manifest_key():
    code, _, err = cli("compare", "--workspace", DEMO_DIR, "--split", "golden", "--baseline",
                       "round-00", "--challenger", "no-such-config", "--metric", "ndcg@10")
    assert code == 2
    assert "test_sets.golden.runs" in err and "no-such-config" in err
    code, _, err = cli("compare", "--workspace", DEMO_DIR, "--judgments", GOLDEN, "--baseline",
                       "round-00", "--challenger", "round-40", "--metric", "ndcg@10")
    assert code == 2 and "--workspace" in err
    code, _, err = cli("compare", "--workspace", DEMO_DIR, "--split", "nope", "--baseline",
                       "round-00", "--challenger", "round-40", "--metric", "ndcg@10")
    assert code == 2 and "test_sets.nope" in err


def test_bounds_workspace_equals_files():
    runs = [f"{p.stem}={p}" for p in sorted((LB / "runs").glob("m[02]_r1.trec"))]
    files = csv_of("bounds", "--judgments", LB / "testset.jsonl", "--order", "score",
                   *[a for r in runs for a in ("--run", r)], "--metric", "rr@10")
    ws = csv_of("bounds", "--workspace", DEMO_DIR, "--split", "labelbias", "--config", "m0_r1",
                "--config", "m2_r1", "--metric", "rr@10")
    assert len(ws) == 2 and set(ws["config"]) == {"m0_r1", "m2_r1"}
    pd.testing.assert_frame_equal(ws, files)
    # bound_min <= lower <= bound_max holds for every config
    assert (ws["bound_min"] <= ws["lower"] + 1e-12).all()
    assert (ws["lower"] <= ws["bound_max"] + 1e-12).all()
    code, _, err = cli("bounds", "--workspace", DEMO_DIR, "--split", "labelbias", "--config",
                       "m9", "--metric", "rr@10")
    assert code == 2 and "test_sets.labelbias.runs" in err


def test_pool_list_and_merge_read_the_workspace(tmp_path):
    runs = [f"{p.stem}={p}" for p in sorted((LB / "runs").glob("m[02]_r1.trec"))]
    files = csv_of("pool", "list", "--judgments", LB / "testset.jsonl", "--order", "score",
                   *[a for r in runs for a in ("--run", r)], "--k", 5, "--limit", 0)
    ws = csv_of("pool", "list", "--workspace", DEMO_DIR, "--split", "labelbias", "--config",
                "m0_r1", "--config", "m2_r1", "--k", 5, "--limit", 0)
    pd.testing.assert_frame_equal(ws, files)
    # every listed passage is unjudged and in one of the two runs' top 5 (checked by hand)
    judged = {(q["query_id"], j["passage_id"])
              for q in map(json.loads, (LB / "testset.jsonl").read_text().splitlines())
              for j in q["judgments"]}
    assert len(ws) > 0
    assert not {(q, p) for q, p in zip(ws["query_id"], ws["passage_id"])} & judged
    out = tmp_path / "merged.jsonl"
    code, text, err = cli("pool", "merge", "--workspace", DEMO_DIR, "--split", "labelbias",
                          "--labels", LB / "pooled_labels.csv", "--out", out)
    assert code == 0, err
    assert str(LB / "testset.jsonl") in text and out.exists()
    code, _, err = cli("pool", "list", "--workspace", DEMO_DIR, "--split", "labelbias",
                       "--run", f"x={runs[0]}")
    assert code == 2 and "--config" in err


def test_one_option_definition_and_one_resolution_function():
    import inspect

    from ragnb.cli import bounds, compare, pool, score

    for module in (score, compare, bounds, pool):
        src = inspect.getsource(module)
        assert '"workspace"' in src or "*INPUTS" in src  # the registry's --workspace
        assert "resolve_inputs(" in src and "open_workspace" not in src
