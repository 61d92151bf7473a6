"""``ragnb watch``: batches from files, from [watch] or by size; the table and its header."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

from ragnb.cli import main
from ragnb.paths import DEMO_DIR


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def batch_files(tmp_path, sizes=(80, 60, 60)):
    lines = (DEMO_DIR / "production.jsonl").read_text().splitlines()
    files, start = [], 0
    for i, size in enumerate(sizes):
        f = tmp_path / f"week-{i + 1}.jsonl"
        f.write_text("\n".join(lines[start:start + size]) + "\n")
        files.append(f)
        start += size
    return files


def test_batches_by_size_on_the_demo():
    code, out, err = cli("watch", "-w", DEMO_DIR, "--split", "production", "--baseline",
                         "round-00", "--champion", "round-40", "--batch-size", "50",
                         "--margin", "0")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# keep labelling (about ")
    assert "95% simultaneously over every batch" in lines[1] and "n=200 queries in 4" in lines[1]
    assert [ln.split()[0] for ln in lines[-4:]] == ["b1", "b2", "b3", "b4"]


def test_batch_files_with_dates_give_the_same_sequence_as_the_same_order(tmp_path):
    files = batch_files(tmp_path)
    args = ["watch", "-w", DEMO_DIR, "--split", "production", "--baseline", "round-00",
            "--champion", "round-40", "--format", "json"]
    code, out, err = cli(*args, *sum((["--batch", f"2026-07-0{i + 1}={f}"]
                                      for i, f in enumerate(files)), []))
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["batch"], r["date"], r["n_batch"], r["n"]) for r in rows] == [
        ("week-1", "2026-07-01", 80, 80), ("week-2", "2026-07-02", 60, 140),
        ("week-3", "2026-07-03", 60, 200)]
    # the same queries in the same order, cut by size at the same places: same ends
    code, out, _ = cli("watch", "-w", DEMO_DIR, "--split", "production", "--baseline",
                       "round-00", "--champion", "round-40", "--format", "json",
                       "--batch-size", "20")
    by_size = {r["n"]: r for r in json.loads(out)}
    assert by_size[200]["low"] == rows[-1]["low"] and by_size[200]["high"] == rows[-1]["high"]
    assert by_size[140]["estimate"] == rows[1]["estimate"]


def test_a_query_judged_twice_is_an_error_naming_the_file(tmp_path):
    a, b, _ = batch_files(tmp_path)
    code, _, err = cli("watch", "-w", DEMO_DIR, "--split", "production", "--baseline",
                       "round-00", "--champion", "round-40", "--batch", a, "--batch", a)
    assert code == 2 and str(a) in err and "was judged in batch week-1 already" in err


def test_watch_section_of_the_manifest(tmp_path):
    folder = tmp_path / "batches"
    folder.mkdir()
    batch_files(folder)
    (tmp_path / "ragnb.toml").write_text(f"""
[test_sets.production]
path = "{DEMO_DIR / 'production.jsonl'}"
role = "production"
runs = "{DEMO_DIR / 'runs' / 'production'}/round-*.jsonl"
[watch]
baseline = "round-39"
champion = "round-41"
margin = 1.0
batches = "batches"
""")
    code, out, err = cli("watch", "-w", tmp_path)
    assert code == 2 and "no run of config 'round-41'" in err
    text = (tmp_path / "ragnb.toml").read_text().replace('"round-41"', '"round-40"')
    (tmp_path / "ragnb.toml").write_text(text.replace("margin = 1.0", "margin = 1.0\nalpha = 0.1"))
    code, out, err = cli("watch", "-w", tmp_path)
    assert code == 0, err
    assert "90% simultaneously" in out and "margin 1 points" in out
    assert "week-1" in out and "week-3" in out
    code, _, err = cli("watch", "-w", tmp_path, "--champion", "round-39")
    assert code == 2 and "the champion is the baseline 'round-39'" in err
    (tmp_path / "ragnb.toml").write_text(text.replace("margin = 1.0", "margin = -1.0"))
    code, _, err = cli("watch", "-w", tmp_path)
    assert code == 2 and "watch.margin" in err
