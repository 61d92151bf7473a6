"""One selection-inflation figure per split on every surface of the demo (issue 23, item 6).

The demo's golden split used to show five figures: 1.42 (01/02/05), 0.45 (05's guard
row), 0.33 (02's optimism bootstrap), -0.05 (`compare --ledger`) and 1.35. Now each
surface shows :func:`ragnb.workspace.inflation.workspace_inflation`'s one figure.
"""
from __future__ import annotations

import io
import math
import shutil
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from ragnb.cli import main
from ragnb.paths import DEMO_DIR
from ragnb.stats import expected_max_normal
from ragnb.workspace import inflation as winf
from ragnb.workspace import open_workspace
from ragnb.workspace.splits import score_splits


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo workspace with its own copy of the ledger (the CLI may record scorings),
    everything else linked; the golden rounds' per-query nDCG@10 and the figure."""
    root = tmp_path_factory.mktemp("inflation")
    ws_dir = root / "demo"
    ws_dir.mkdir()
    for entry in DEMO_DIR.iterdir():
        if entry.name == "ledger":
            shutil.copytree(entry, ws_dir / "ledger")
        elif entry.name == "ragnb.toml":
            shutil.copy(entry, ws_dir / entry.name)
        else:
            (ws_dir / entry.name).symlink_to(entry)
    ws = open_workspace(ws_dir)
    names = list(ws.rounds()["config"])
    test_sets, runs = ws.splits(["golden"], names)
    table, _ = score_splits(test_sets, runs, "ndcg@10")
    wide = table.pivot(index="query_id", columns="config", values="value")[names]
    winf._CACHE.clear()
    return ws_dir, ws, wide, winf.workspace_inflation(ws, "golden", "ndcg@10")


def test_the_demo_golden_figure_is_derived(demo):
    """0.23 points, the empirical-Bayes selection bootstrap over the 41 rounds' configs.

    Derivation, independent of the estimator: only the top three rounds are within one SE
    of each other (60.20, 60.07, 59.85 points; the fourth is 1.1 below). Taking the observed
    means as true and drawing the means' noise from their exact covariance (400,000 draws),
    the winner is ahead of its true mean by 0.177 points (0.172 from the top three alone);
    the top two alone give 0.103 in closed form (two candidates: E[e_w] = s phi(gap / s)
    for any covariance, s = 0.286 the SE of their difference, gap = 0.130).
    The observed gaps are themselves widened by selection, so the estimate, which shrinks
    the three close leaders toward each other first, is above that plug-in, by 30%; and
    far below the worst case the count alone gives (all 41 equal: E[M_41] x SE between
    candidates 0.64 / sqrt(2) = 0.97 points)."""
    _, _, wide, figure = demo
    assert figure.method == "empirical-Bayes selection bootstrap"
    assert (figure.selections, figure.candidates, figure.n) == (40, 41, 300)
    assert f"{figure.points:.2f}" == "0.23"
    x = wide.to_numpy()
    m, cov = x.mean(axis=0), np.cov(x, rowvar=False) / len(x)
    top = np.argsort(-m)
    assert np.round(m[top[:4]] * 100, 2).tolist() == [60.2, 60.07, 59.85, 59.1]
    d = x[:, top[0]] - x[:, top[1]]
    s, gap = d.std(ddof=1) / math.sqrt(len(d)), m[top[0]] - m[top[1]]
    two = s * math.exp(-0.5 * (gap / s) ** 2) / math.sqrt(2 * math.pi)
    assert two * 100 == pytest.approx(0.103, abs=0.001)
    rng = np.random.default_rng(0)
    e = rng.multivariate_normal(np.zeros(len(m)), cov, size=400_000, method="cholesky")
    win = (m + e).argmax(axis=1)
    plug_in = float(e[np.arange(len(e)), win].mean())
    assert plug_in * 100 == pytest.approx(0.177, abs=0.005)
    worst = expected_max_normal(41) * figure.se / math.sqrt(2)
    assert worst * 100 == pytest.approx(0.97, abs=0.01)
    assert plug_in < figure.inflation < 1.5 * plug_in < worst / 3


def test_every_surface_shows_the_one_figure(demo):
    """Pages (01, 02, 05 and the guard row, the index through their headlines), the ledger
    tables, the CLI (compare --ledger with files, compare --workspace, score --ledger,
    ledger show) and the what-if widget: one number for golden, each computed afresh."""
    from ragnb.fit import four_cell
    from ragnb.ledger import Ledger
    from ragnb.ledger.finding import SplitUse
    from ragnb.ledger.views import guard_report, split_status
    from ragnb.result import finding
    from ragnb.trajectory import trajectory

    ws_dir, ws, wide, figure = demo
    points = f"{figure.points:.2f} points"
    shown = {}

    def fresh():  # the cached figure (the trajectory and the CLI compute theirs afresh)
        return winf.workspace_inflation(ws, "golden", "ndcg@10")

    rounds = ws.rounds()
    test_sets, runs = ws.splits(["golden", "production"], list(rounds["config"]))
    scores, _ = score_splits(test_sets, runs, "ndcg@10")
    # 02: the trajectory computes it itself from the rounds (same function, same seed)
    tr = trajectory(scores, rounds, resamples=200)
    shown["02 trajectory"] = tr.inflation["inflation"]
    assert points in " ".join(finding(tr, display_names={}).headline.why)
    # 01: the four-cell table's split rows and its ledger table
    per_split = {"golden": fresh(), "production": winf.workspace_inflation(ws, "production",
                                                                           "ndcg@10")}
    pair = scores[scores["config"].isin(["round-00", "round-40"])]
    fc = four_cell(pair, baseline="round-00", champion="round-40", resamples=200,
                   inflation=per_split)
    shown["01 four-cell"] = fc.splits.set_index("split").loc["golden", "inflation"]
    status = split_status(ws.ledger_dir, test_sets, se=per_split).set_index("split")
    shown["01/02 split table"] = status.loc["golden", "inflation"]
    assert status.loc["production", "inflation"] == 0.0
    # 05: the manifests table, the guard row and the headline
    manifests = Ledger(ws.ledger_dir).manifests(se={"golden": fresh()})
    shown["05 manifests"] = manifests.set_index("split").loc["golden", "inflation"]
    means = wide[["round-39", "round-40"]].mean().to_dict()
    guard = guard_report("golden", means, "round-40", 40, 0.0029, 0.16, inflation=fresh())
    assert guard.loc[0, "selection_bias_points"] == round(figure.points, 2)
    assert guard.loc[0, "outcome"] == "refused" and points in guard.loc[0, "detail"]
    headline = SplitUse(manifests, guard, "golden", 0.0029).finding().headline.why[0]
    assert f"by about {points} (empirical-Bayes selection bootstrap)" in headline
    # the CLI, each command in a fresh cache
    base = ["--baseline", "round-00", "--challenger", "round-40", "--metric", "ndcg@10",
            "--resamples", 200, "--format", "csv"]
    golden_runs = DEMO_DIR / "runs" / "golden"
    for name, argv in {
        "compare --ledger (files)": ["compare", "--judgments", DEMO_DIR / "golden.jsonl",
                                     "--baseline", f"round-00={golden_runs}/round-00.jsonl",
                                     "--challenger", f"round-40={golden_runs}/round-40.jsonl",
                                     "--metric", "ndcg@10", "--resamples", 200, "--format",
                                     "csv", "--ledger", ws_dir / "ledger"],
        "compare --workspace": ["compare", "--workspace", ws_dir, "--split", "golden", *base],
    }.items():
        winf._CACHE.clear()  # each computes the figure afresh
        code, out, err = cli(*argv)
        assert code == 0, err
        shown[name] = pd.read_csv(io.StringIO(out)).loc[0, "inflation"]
        assert f"selection inflation on golden after 40 selections: {points}, " \
               "empirical-Bayes selection bootstrap over 41 candidates" in err
    for name, argv in {
        "score --ledger": ["score", "--judgments", DEMO_DIR / "golden.jsonl", "--run",
                           f"round-40={golden_runs}/round-40.jsonl", "--metric", "ndcg@10",
                           "--ledger", ws_dir / "ledger"],
        "ledger show": ["ledger", "--ledger", ws_dir / "ledger", "show", "golden"],
    }.items():
        code, out, err = cli(*argv)
        assert code == 0, err
        assert points in out + err and "empirical-Bayes selection bootstrap" in out + err
        shown[name] = figure.inflation
    # the what-if widget's status line, for the metric and policy it is set to
    widget = _whatif_line(ws)
    assert widget == f"Selection inflation on golden (40 selections against it): {points} " \
                     "(empirical-Bayes selection bootstrap over 41 candidates)."
    assert all(v == figure.inflation for v in shown.values()), shown


def _whatif_line(ws) -> str:
    """The line the what-if widget adds under its headline (the demo's strata are on
    production; the widget is built on golden with the intent column)."""
    pytest.importorskip("ipywidgets")
    from ragnb.widgets.whatif import WhatIf

    comparison = ws.comparison("golden", ["round-00", "round-40"])
    w = WhatIf.from_comparison(comparison, baseline="round-00", challenger="round-40",
                               metric="ndcg@10", resamples=200, seed=1, chart=None,
                               columns=["intent"],
                               inflation=lambda m, p: winf.workspace_inflation(ws, "golden",
                                                                               m, p))
    w.update()
    lines = [x for x in w.status_html.value.split("<p>") if "Selection inflation" in x]
    assert len(lines) == 1
    return lines[0].split("</p>")[0].replace("&#x27;", "'")


def test_a_ledger_finds_its_workspace_only_when_the_manifest_names_it(demo, tmp_path):
    """The ragnb.toml beside the ledger folder, whose ``ledger`` key names that folder, and
    only a test set with the split's content: else None (the worst case is shown)."""
    ws_dir, ws, _, _ = demo
    split_id = ws.split_manifest("golden").split_id
    found = winf.workspace_of_ledger(ws_dir / "ledger", split_id)
    assert found is not None and found[1] == "golden"
    assert winf.workspace_of_ledger(ws_dir / "ledger", "golden@sha256:" + "0" * 64) is None
    lone = shutil.copytree(ws_dir / "ledger", tmp_path / "ledger")  # no ragnb.toml beside it
    assert winf.workspace_of_ledger(lone, split_id) is None
    (tmp_path / "ragnb.toml").write_text((ws_dir / "ragnb.toml").read_text())  # names ./ledger,
    assert winf.workspace_of_ledger(lone, split_id) is None  # whose test sets are not there
    assert winf.workspace_of_ledger(None, split_id) is None


@pytest.fixture
def own_demo(tmp_path, monkeypatch):
    """A copy of the demo workspace whose files a test may change, its cache in the
    workspace (``$RAGNB_CACHE`` unset) and the in-process figures forgotten."""
    ws_dir = shutil.copytree(DEMO_DIR, tmp_path / "demo",
                             ignore=shutil.ignore_patterns(".ragnb-cache"))
    monkeypatch.delenv("RAGNB_CACHE", raising=False)
    winf._CACHE.clear()
    yield ws_dir
    winf._CACHE.clear()


def _figure(ws_dir, scorings: list):
    """The golden figure in a fresh workspace object and an empty in-process cache, as a
    fresh process computes it (``scorings``, the :func:`scorings` fixture, counts the times
    the runs were scored)."""
    winf._CACHE.clear()
    ws = open_workspace(ws_dir)
    return winf.workspace_inflation(ws, "golden", "ndcg@10"), ws


@pytest.fixture
def scorings(monkeypatch):
    """The list of splits whose candidates were scored (not read from the cache)."""
    seen: list[str] = []
    real = winf._computed

    def counted(workspace, split, *args):
        seen.append(split)
        return real(workspace, split, *args)

    monkeypatch.setattr(winf, "_computed", counted)
    return seen


def test_the_cached_figure_is_the_computed_one(own_demo, scorings):
    """Cold (computed and stored), warm (read back) and with the cache off: the same
    figure, field for field (0.23 points), and the same files listed as read."""
    from ragnb.workspace.cache import CACHE_DIRNAME

    cold, ws_cold = _figure(own_demo, scorings)
    assert scorings == ["golden"] and f"{cold.points:.2f}" == "0.23"
    assert len(list((own_demo / CACHE_DIRNAME / "inflation").glob("*.json"))) == 1
    assert (own_demo / CACHE_DIRNAME / ".gitignore").read_text().endswith("\n*\n")
    warm, ws_warm = _figure(own_demo, scorings)
    assert scorings == ["golden"]  # read back: no run scored
    assert warm == cold and warm.inflation == cold.inflation
    assert ws_warm.files_read() == ws_cold.files_read()
    assert sum("runs/golden" in str(p) for p in ws_warm.files_read()) == 41


def test_the_cache_can_be_turned_off_or_moved(own_demo, scorings, monkeypatch, tmp_path):
    from ragnb.workspace.cache import CACHE_DIRNAME, CACHE_ENV

    monkeypatch.setenv(CACHE_ENV, "off")
    first, _ = _figure(own_demo, scorings)
    second, _ = _figure(own_demo, scorings)
    assert scorings == ["golden", "golden"] and first == second
    assert not (own_demo / CACHE_DIRNAME).exists()
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "elsewhere"))
    third, _ = _figure(own_demo, scorings)
    fourth, _ = _figure(own_demo, scorings)
    assert len(scorings) == 3 and third == fourth == first
    assert list((tmp_path / "elsewhere" / "inflation").glob("*.json"))
    assert not (own_demo / CACHE_DIRNAME).exists()


def test_a_changed_input_or_a_bad_entry_is_computed_afresh(own_demo, scorings):
    """A run file rewritten (one round's run swapped for another's: a different figure),
    a corrupt entry and one of another shape: each scored again, never used."""
    from ragnb.workspace.cache import CACHE_DIRNAME

    cold, _ = _figure(own_demo, scorings)
    runs = own_demo / "runs" / "golden"
    (runs / "round-39.jsonl").write_bytes((runs / "round-40.jsonl").read_bytes())
    changed, _ = _figure(own_demo, scorings)
    assert scorings == ["golden", "golden"] and changed != cold
    winf._CACHE.clear()
    expected = winf._computed(open_workspace(own_demo), "golden",
                              list(open_workspace(own_demo).rounds()["config"]), 40,
                              "ndcg@10", "lower", winf.SEED)
    assert changed == expected
    assert _figure(own_demo, scorings)[0] == changed and len(scorings) == 3  # stored again
    (entry,) = (own_demo / CACHE_DIRNAME / "inflation").glob("*.json")
    for bad in ("{not json", '{"version": 1, "slot": 0, "key": 0, "value": {}}', "[]"):
        entry.write_text(bad)
        assert _figure(own_demo, scorings)[0] == changed
    assert len(scorings) == 6
    text = entry.read_text().replace('"inflation": 0.0', '"no_such_field": 0.0')
    entry.write_text(text)
    assert _figure(own_demo, scorings)[0] == changed and len(scorings) == 7


def test_a_read_only_workspace_goes_uncached(own_demo, scorings, monkeypatch):
    """A cache folder that cannot be written (a file in its place) costs nothing but time."""
    from ragnb.workspace.cache import CACHE_DIRNAME

    (own_demo / CACHE_DIRNAME).write_text("not a folder")
    first, _ = _figure(own_demo, scorings)
    second, _ = _figure(own_demo, scorings)
    assert first == second and scorings == ["golden", "golden"]


def test_the_demo_cache_is_ignored_by_git():
    """``data/demo`` is committed; its cache folder must never be."""
    import subprocess

    from ragnb.paths import PROJ_ROOT
    from ragnb.workspace.cache import CACHE_DIRNAME

    if not (PROJ_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    probe = DEMO_DIR / CACHE_DIRNAME / "inflation" / "x.json"
    done = subprocess.run(["git", "check-ignore", "-q", str(probe)], cwd=PROJ_ROOT)
    assert done.returncode == 0


def test_the_cache_is_keyed_by_content_and_an_edited_entry_is_not_trusted(own_demo, scorings):
    """Issue 34 #4: an entry edited by hand changed the printed figure (0.23 -> 0.00 points),
    and a run rewritten with its size and mtime kept (touch -r) kept the old figure. The
    key holds each file's sha256 and the entry its own checksum: both are computed again."""
    import json
    import os

    from ragnb.workspace.cache import CACHE_DIRNAME

    cold, _ = _figure(own_demo, scorings)
    (entry,) = (own_demo / CACHE_DIRNAME / "inflation").glob("*.json")
    data = json.loads(entry.read_text())
    data["value"]["inflation"] = 0.0
    entry.write_text(json.dumps(data))
    edited, _ = _figure(own_demo, scorings)
    assert edited == cold and f"{edited.points:.2f}" == "0.23" and len(scorings) == 2
    # same size, same mtime, other bytes: two lines of round-39's run swapped
    run = own_demo / "runs" / "golden" / "round-39.jsonl"
    st = run.stat()
    lines = run.read_bytes().splitlines(keepends=True)
    i = next(i for i in range(len(lines) - 1) if lines[i] != lines[i + 1]
             and len(lines[i]) == len(lines[i + 1]))
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    run.write_bytes(b"".join(lines))
    os.utime(run, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert run.stat().st_size == st.st_size and run.stat().st_mtime_ns == st.st_mtime_ns
    _figure(own_demo, scorings)
    assert len(scorings) == 3   # scored again: the bytes changed
