"""The bundled demo data: one documented generator per story, one fixed seed each.

``generate_all(out_dir)`` writes ``data/demo/`` (see ``data/README.md``):
the fit story of seed 000 (:mod:`ragnb.demo.fit`) and its split ledger
(:mod:`ragnb.demo.ledger`), and the label-bias story of seed 003
(:mod:`ragnb.demo.labelbias`, under ``labelbias/``) and the model-judge story
built on it (:mod:`ragnb.demo.judge`, under ``judge/``), the test-set health
files of seed 004 built on the fit story (:mod:`ragnb.demo.health`: the corpus
build and, under ``health/``, an older test-set version and a held-back
counterfactual), and the code-task story of seed 002
(:mod:`ragnb.demo.codetasks`, under ``codetasks/``; needs ``git``).
Regenerating gives byte-identical files.
"""
from __future__ import annotations

from pathlib import Path

from ragnb.paths import DEMO_DIR


def generate_all(out_dir: str | Path = DEMO_DIR) -> list[Path]:
    """Regenerate every demo file under ``out_dir``; returns the files written."""
    from ragnb.demo import codetasks, fit, health, judge, labelbias, ledger

    out_dir = Path(out_dir)
    files = fit.generate(out_dir)
    files += ledger.generate(out_dir)
    files += labelbias.generate(out_dir / "labelbias")
    files += judge.generate(out_dir / "judge", out_dir / "labelbias")
    files += health.generate(out_dir)
    files += codetasks.generate(out_dir / "codetasks")
    return files
