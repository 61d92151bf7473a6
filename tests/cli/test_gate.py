"""``ragnb gate``: exit codes, JSON schema, the Markdown summary, ledger events, guard and seal."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from markdown_it import MarkdownIt

from ragnb.cli import main
from ragnb.io import read_test_set
from ragnb.ledger import Ledger
from ragnb.paths import DEMO_DIR

RUNS = DEMO_DIR / "runs" / "production"


def cli(*argv, env=None, monkeypatch=None):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def workspace(tmp_path, gate: str, ledger: str = "fresh"):
    """The demo's production split with three configs, its own ledger in ``tmp_path``."""
    led = tmp_path / "ledger"
    if ledger == "demo":
        import shutil

        shutil.copytree(DEMO_DIR / "ledger", led)
    else:
        led.mkdir(exist_ok=True)
    (tmp_path / "ragnb.toml").write_text(f"""
[workspace]
ledger = "{led}"
[test_sets.production]
path = "{DEMO_DIR / 'production.jsonl'}"
role = "production"
[test_sets.production.runs]
"round-00" = "{RUNS / 'round-00.jsonl'}"
"round-39" = "{RUNS / 'round-39.jsonl'}"
"round-40" = "{RUNS / 'round-40.jsonl'}"
[test_sets.production.strata]
path = "{DEMO_DIR / 'production_strata.csv'}"
by = "query_type"
[gate]
baseline = "round-00"
metric = "ndcg@10"
{gate}
""")
    return tmp_path, led


def register(led, role="working"):
    ts = read_test_set(DEMO_DIR / "production.jsonl")
    return Ledger(led).register("production", ts.judgments.drop(columns="line", errors="ignore"),
                                list(ts.query_ids), role=role)


@pytest.fixture(autouse=True)
def no_step_summary(monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_SHA", raising=False)


def test_pass_fail_exit_codes_json_and_summary(tmp_path, monkeypatch):
    ws, led = workspace(tmp_path, 'kind = "non_inferiority"\nmargin = 3.0')
    step = tmp_path / "step.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "abc",
                         "--json", tmp_path / "g.json", "--summary", tmp_path / "s.md")
    assert code == 0, err
    assert out.startswith("PASS: round-40 vs round-00 on production, ndcg@10 +1.1 points")
    doc = json.loads((tmp_path / "g.json").read_text())
    assert doc["schema"] == "ragnb.gate/1" and doc["verdict"] == "pass" and doc["exit_code"] == 0
    assert set(doc) == {"schema", "verdict", "exit_code", "headline", "split", "baseline",
                        "challenger", "rule", "method", "metrics", "strata", "ledger", "notes"}
    m = doc["metrics"][0]
    assert m["metric"] == "ndcg@10" and m["n"] == 200 and m["passed"] is True
    assert m["low"] > -0.03 and m["delta"] == pytest.approx(m["challenger_mean"]
                                                             - m["baseline_mean"])
    assert doc["rule"] == {"kind": "non_inferiority", "margin_points": 3.0, "alpha": 0.05,
                           "stratum_drop_points": None, "text": doc["rule"]["text"]}
    assert doc["ledger"] is None  # the split is in no ledger yet
    summary = (tmp_path / "s.md").read_text()
    assert step.read_text() == "earlier step\n" + summary + "\n"
    tokens = MarkdownIt().enable("table").parse(summary)
    cells = [t.children[0].content for t in tokens if t.type == "inline"
             and t.map and tokens[tokens.index(t) - 1].type == "td_open"]
    assert cells[:7] == ["ndcg@10", "200", "49.8", "50.9", "+1.1", cells[5], "pass"]
    assert summary.startswith("## ✅ ragnb gate: PASS")
    # the same change, a stricter rule: exit 1, and the summary says why
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--margin", "0.5",
                         "--json", "-")
    assert code == 1 and err.startswith("FAIL:")
    assert json.loads(out)["verdict"] == "fail"


def test_errors_exit_2_naming_the_key(tmp_path):
    ws, _ = workspace(tmp_path, 'kind = "better"')
    code, _, err = cli("gate", "-w", ws, "--challenger", "round-40")
    assert code == 2 and "gate.kind" in err and "must be one of non_inferiority" in err
    ws, _ = workspace(tmp_path, "margin = -1")
    code, _, err = cli("gate", "-w", ws, "--challenger", "round-40")
    assert code == 2 and "gate.margin" in err and "points >= 0" in err
    ws, _ = workspace(tmp_path, "")
    code, _, err = cli("gate", "-w", ws, "--challenger", "round-99")
    assert code == 2 and "no run of config 'round-99'" in err


def test_a_decision_is_one_selection_per_key(tmp_path):
    ws, led = workspace(tmp_path, "margin = 3.0")
    register(led)
    for key in ("c1", "c1", "c2"):
        code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--key", key)
        assert code == 0, err
    events = [e for e in Ledger(led).events() if e.event == "selection"]
    assert [e.payload["key"] for e in events] == ["gate:c1:round-40-vs-round-00",
                                                  "gate:c2:round-40-vs-round-00"]
    assert events[0].payload["winner"] == "round-40"
    assert Ledger(led).manifest("production").selections_against == 2
    assert "already recorded under key gate:c1" in cli("gate", "-w", ws, "--challenger",
                                                       "round-40", "--key", "c1")[1]
    # a failing gate keeps the baseline
    code, out, _ = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "c3",
                       "--margin", "0")
    assert code == 1 and Ledger(led).events()[-1].payload["winner"] == "round-00"
    assert "selected against 3 times" in out
    code, out, _ = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "c4",
                       "--no-record")
    assert "not recorded (--no-record" in out
    assert Ledger(led).manifest("production").selections_against == 3


def test_a_sealed_split_is_refused_unless_unsealed(tmp_path):
    ws, led = workspace(tmp_path, "margin = 3.0")
    register(led, role="confirmation")
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "k")
    assert code == 2 and out == "" and "sealed and can be scored only through its unseal" in err
    Ledger(led).unseal("production", ["round-00", "round-40"])
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "k")
    assert code == 0, err
    kinds = [e.event for e in Ledger(led).events()]
    assert kinds[-3:] == ["scored", "scored", "selection"]


def test_a_regression_guard_refuses_to_rank_and_alerts_on_drops(tmp_path):
    ws, led = workspace(tmp_path, 'kind = "superiority"', ledger="demo")
    before = len(Ledger(led).events())
    # the demo's production is a regression guard: +1.1 points is under its noise margin
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "k")
    assert code == 2 and "regression guard and will not rank" in err
    assert len(Ledger(led).events()) == before
    # a non-inferiority gate ranks nothing: recorded as scorings, no selection counted
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--key", "k",
                         "--kind", "non_inferiority", "--margin", "3")
    assert code == 0, err
    new = Ledger(led).events()[before:]
    assert [e.event for e in new] == ["scored", "scored"]
    assert new[0].payload["note"] == "ragnb gate gate:k:round-40-vs-round-00"
    assert "time to refresh" in out and "regression guard" in out


def test_markdown_escapes_text_from_data(tmp_path):
    ws, _ = workspace(tmp_path, "margin = 3.0")
    evil = tmp_path / "run.jsonl"
    evil.write_text((RUNS / "round-40.jsonl").read_text())
    code, _, err = cli("gate", "-w", ws, "--run", f"[x](javascript:alert(1))<b>={evil}",
                       "--summary", tmp_path / "s.md", "--no-record")
    assert code == 0, err
    html = MarkdownIt().render((tmp_path / "s.md").read_text())
    assert "<a " not in html and "<b>" not in html and "&lt;b&gt;" in html


def readme_commands() -> list[str]:
    import re

    from ragnb.paths import PROJ_ROOT

    text = (PROJ_ROOT / "README.md").read_text()
    block = text.split("## Gate every change", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].strip() for line in
            re.sub(r"\\\n\s*", " ", block).splitlines() if line.startswith("ragnb ")]


@pytest.mark.parametrize("command", readme_commands())
def test_readme_gate_examples_run_as_documented(command):
    """Each example runs; a gate example records nothing (the demo's ledger stays as shipped)."""
    import shlex

    before = (DEMO_DIR / "ledger" / "events.jsonl").read_bytes()
    code, out, err = cli(*shlex.split(command)[1:])
    assert code == 0, err  # round-40 is shown within 1 point of round-39 (t-bounds, n = 300)
    assert out.strip()
    assert (DEMO_DIR / "ledger" / "events.jsonl").read_bytes() == before


def test_gate_and_watch_on_trec_cast_2021(tmp_path, real_data):
    """A workspace on real data: the gate's difference is the mean of the per-query
    differences ``ragnb score --per-query`` gives, and the watch stops where the sequence does."""
    cast = real_data / "trec-cast-2021" / "2021"
    runs = cast / "baselines" / "document_runs"
    (tmp_path / "ragnb.toml").write_text(f"""
[workspace]
extra = "drop"
[test_sets.cast]
path = "{cast / 'trec-cast-qrels-docs.2021.qrel'}"
[test_sets.cast.runs]
bm25 = "{runs / 'org_manual_bm25.run.gz'}"
ance = "{runs / 'org_manual_ance_bert.run.gz'}"
[gate]
baseline = "bm25"
metric = "ndcg@10"
margin = 2.0
[watch]
baseline = "bm25"
champion = "ance"
batch_size = 16
""")
    code, out, err = cli("gate", "-w", tmp_path, "--challenger", "ance", "--json", "-",
                         "--no-record")
    assert code == 0, err
    doc = json.loads(out)
    code, per_query, err = cli("score", "-w", tmp_path, "--metric", "ndcg@10", "--per-query",
                               "--format", "json")
    assert code == 0, err
    import pandas as pd

    wide = pd.DataFrame(json.loads(per_query)).pivot(index="query_id", columns="config",
                                                     values="value")
    m = doc["metrics"][0]
    assert m["n"] == len(wide) == 158
    # score --format json keeps 10 decimals
    assert m["delta"] == pytest.approx((wide["ance"] - wide["bm25"]).mean(), abs=1e-9)
    code, out, err = cli("watch", "-w", tmp_path, "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["n"] for r in rows][:3] == [16, 32, 48] and rows[-1]["n"] == 158
    first = next(r for r in rows if r["status"] != "keep labelling")
    assert first["low"] > 0 and first["status"] == "gain above zero established"


def test_json_to_stdout_is_json_alone_and_the_finding_goes_to_stderr(tmp_path):
    """The README's CI example (``--json -``) once printed the text finding and the JSON
    together on stdout, so the JSON did not parse.
    """
    ws, _ = workspace(tmp_path, 'kind = "non_inferiority"\nmargin = 3.0')
    code, out, err = cli("gate", "-w", ws, "--challenger", "round-40", "--no-record",
                         "--json", "-")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["verdict"] == "pass"
    assert err.startswith("PASS: round-40 vs round-00 on production")
