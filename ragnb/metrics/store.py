"""Per-query scores kept as a partitioned Parquet table, and read back as :class:`Scores`.

A sweep of hundreds of runs scored on a cluster (:mod:`ragnb.metrics.parallel`)
is a table too big to print and too costly to score twice; it is kept as one
Parquet file per config in a folder, Hive-style (``config=<name>/part-0.parquet``,
the name URI-encoded), so pyarrow, dask, DuckDB or Spark read it as one table
partitioned by config, and :func:`read_scores` gives back the :class:`Scores`
that :func:`ragnb.metrics.score.score` returned, bit for bit: the same
``config, query_id, metric, value`` rows in the same order, the label policy,
the notes (what was dropped, counted), the queries with no relevant passage and
each run's ranking order. Those live in ``_scores.json`` beside the partitions
(a leading underscore: Parquet readers skip it), with each partition's row count
and sha256, checked on reading, so a partition edited, lost or added is an error
that names it, never a silently different table.

The folder is written whole or not at all: into a temporary sibling, then renamed
over the target, which may only be an earlier score table (a folder holding
anything else is refused, never replaced).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from ragnb.errors import InputError
from ragnb.io.testset import Note
from ragnb.metrics.score import Scores

#: The file beside the partitions that describes them.
SIDECAR = "_scores.json"
#: What the sidecar's ``format`` says; bumped when the layout changes.
FORMAT = "ragnb-scores/1"
COLUMNS = ["query_id", "metric", "value"]


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_scores(scores: Scores, folder: str | os.PathLike[str]) -> Path:
    """Write ``scores`` as a partitioned Parquet table in ``folder`` (replaced whole)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = Path(folder)
    if target.exists() and not (target / SIDECAR).is_file() and (
            not target.is_dir() or any(target.iterdir())):
        raise InputError("exists and is not a score table written by ragnb: give a new "
                         "folder (a score table is only ever replaced by another)",
                         source=target)
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        parts = []
        table = scores.table
        for config, rows in table.groupby("config", sort=False):
            part = Path(f"config={quote(str(config), safe='')}") / "part-0.parquet"
            (work / part).parent.mkdir()
            frame = rows[COLUMNS].reset_index(drop=True)
            pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), work / part)
            parts.append({"config": str(config), "path": part.as_posix(), "rows": len(frame),
                          "sha256": _digest(work / part)})
        meta = {"format": FORMAT, "policy": scores.policy, "parts": parts,
                "notes": [asdict(n) for n in scores.notes],
                "no_relevant": [str(q) for q in scores.no_relevant],
                "orders": dict(scores.orders)}
        (work / SIDECAR).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old",
                                        dir=target.parent))
            os.replace(target, old / target.name)
        os.replace(work, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def read_scores(folder: str | os.PathLike[str]) -> Scores:
    """The :class:`Scores` a :func:`write_scores` folder holds, every partition verified.

    Raises
    ------
    InputError
        Naming the folder or the partition: no sidecar, another format, a partition
        missing, added, or whose bytes or row count differ from what was written.
    """
    import pyarrow.parquet as pq

    root = Path(folder)
    side = root / SIDECAR
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"no {SIDECAR}: not a score table written by ragnb "
                         "(ragnb score --per-query --out FOLDER/)", source=root) from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot be read as a score table's description ({e})",
                         source=side) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise InputError(f"format {meta.get('format') if isinstance(meta, dict) else None!r}, "
                         f"expected {FORMAT!r}", source=side, key="format")
    listed_parts = {p["path"] for p in meta["parts"]}
    found = {p.relative_to(root).as_posix() for p in root.glob("config=*/*.parquet")}
    if found - listed_parts:
        raise InputError(f"partitions not written with the table: "
                         f"{', '.join(sorted(found - listed_parts))}", source=root)
    frames = []
    for part in meta["parts"]:
        path = root / part["path"]
        if not path.is_file():
            raise InputError("missing: the table is not whole", source=path)
        if _digest(path) != part["sha256"]:
            raise InputError("its bytes are not those written (edited or damaged)",
                             source=path)
        frame = pq.read_table(path).to_pandas()
        if len(frame) != part["rows"] or list(frame.columns) != COLUMNS:
            raise InputError(f"{len(frame)} rows of {list(frame.columns)}, written "
                             f"{part['rows']} of {COLUMNS}", source=path)
        frames.append(frame.assign(config=part["config"]))
    table = (pd.concat(frames, ignore_index=True) if frames
             else pd.DataFrame(columns=["config", *COLUMNS]))
    return Scores(table[["config", *COLUMNS]], meta["policy"],
                  tuple(Note(**note) for note in meta["notes"]),
                  pd.Index(meta["no_relevant"], dtype=object), dict(meta["orders"]))
