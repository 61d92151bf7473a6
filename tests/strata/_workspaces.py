"""Workspaces for the strata tests: the demo's, and CODEC / TREC CAsT 2021 read in place."""
from __future__ import annotations

from pathlib import Path

from ragnb.paths import DEMO_DIR
from ragnb.strata import turn_depth
from ragnb.workspace import open_workspace


def demo_comparison(configs=("round-00", "round-40")):
    """The demo production sample with its strata file (what notebook 03 reads by default)."""
    return open_workspace(DEMO_DIR).comparison("production", list(configs))


def codec_workspace(real: Path, tmp: Path):
    """CODEC documents: ndcg qrels, every document run, topics.json (field Domain)."""
    root = real / "codec"
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "ragnb.toml").write_text(
        f'[test_sets.codec]\npath = "{root}/qrels/document_ndcg.qrels"\n'
        f'runs = "{root}/system_runs/runs/document_*.run.gz"\n'
        f'[test_sets.codec.strata]\npath = "{root}/topics/topics.json"\nby = "Domain"\n')
    return open_workspace(tmp)


def cast_workspace(real: Path, tmp: Path):
    """TREC CAsT 2021 documents; strata: turn depth of the judged turns' ids."""
    root = real / "trec-cast-2021" / "2021"
    qrels = root / "trec-cast-qrels-docs.2021.qrel"
    tmp.mkdir(parents=True, exist_ok=True)
    manifest = (f'[workspace]\nextra = "drop"\n[test_sets.cast]\npath = "{qrels}"\n'
                f'runs = "{root}/baselines/document_runs/*.run.gz"\n')
    (tmp / "ragnb.toml").write_text(manifest)
    ids = open_workspace(tmp).test_set("cast").query_ids
    turn_depth(ids).to_csv(tmp / "turns.csv", index=False)
    (tmp / "ragnb.toml").write_text(
        manifest + '[test_sets.cast.strata]\npath = "turns.csv"\nby = "turn_depth"\n')
    return open_workspace(tmp)
