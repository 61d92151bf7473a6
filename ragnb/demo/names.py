"""Display names of the demo's configurations: config code -> the system it stands for.

What the demo's own files say: ``rounds.csv`` names the change each round kept
(round 0 is the January baseline, round 39 added a top-50 reranker, round 40
cut chunks from 512 to 384 tokens), and the label-bias runs are three embedders
(``m0`` e5, ``m1`` bge-m3, ``m2`` KURE) under two rerankers (``r1``, ``r2``).
A workspace passes its own mapping the same way (``display_names=``).
"""
from __future__ import annotations

_EMBEDDERS = {"m0": "e5", "m1": "bge-m3", "m2": "KURE"}
_RERANKERS = {"r1": "reranker 1", "r2": "reranker 2"}

#: Config code -> display name for the demo data.
DEMO_DISPLAY_NAMES: dict[str, str] = {
    "round-00": "January baseline",
    "round-39": "reranker top-50",
    "round-40": "July champion",
    **{f"{m}_{r}": f"{e} + {rr}" for m, e in _EMBEDDERS.items() for r, rr in _RERANKERS.items()},
}
