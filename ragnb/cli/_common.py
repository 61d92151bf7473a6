"""What the commands share when they run: NAME=FILE parsing, reading inputs (files or a
workspace), strata, the ledger lines and the output of tables.

The options themselves are defined in :mod:`ragnb.cli._options`; this module is
imported by a command's ``run`` (pandas loads when a table is written).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragnb.errors import InputError, listed

if TYPE_CHECKING:
    import pandas as pd

    from ragnb.io.testset import TestSet


def name_file(text: str, option: str = "--run") -> tuple[str | None, Path | str]:
    """Parse ``NAME=FILE`` (or just ``FILE``: the name is the file name).

    A path that exists as given is a file even when it contains ``=``; ``-`` is
    standard input.
    """
    if "=" in text and not os.path.lexists(text):
        name, _, path = text.partition("=")
        if not name or not path:
            raise InputError(f"expected NAME=FILE or FILE, got {text!r}", key=option)
        return name, Path(path)
    if not text:
        raise InputError("expected NAME=FILE or FILE, got an empty argument", key=option)
    return None, Path(text) if text != "-" else "-"


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: object, *, newlines: bool = True) -> str:
    r"""``text`` with control characters shown as escapes (``\x1b``, ``\u202e``).

    Ids, actors and reasons come from files and other users; printed raw, an
    escape sequence could rewrite the terminal (hide a line, fake a verdict).
    Tabs and (unless ``newlines`` is False) newlines are kept.
    """
    text = str(text)
    if not newlines:
        text = text.replace("\n", "\\n")
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


#: The text table's unit line (CSV and JSON keep metric values as they are, 0-1).
POINTS_LINE = "# metric values and differences in points (metric x 100); csv and json keep 0-1"
#: ``--out`` suffixes that name a table format (they win over ``--format``).
OUT_SUFFIXES = {".csv": "csv", ".json": "json", ".tsv": "tsv"}


def out_format(fmt: str, out: str | None) -> str:
    """The format written: the one ``--out``'s suffix names (:data:`OUT_SUFFIXES`), else
    ``--format``'s.
    """
    return OUT_SUFFIXES.get(Path(out).suffix.lower(), fmt) if out else fmt


def emit(df: pd.DataFrame, fmt: str, out: str | None, header_lines: Sequence[str] = (),
         points: tuple[str, ...] = (), *, notes_below: bool = False, dash: str = "") -> None:
    """Write a table as text, CSV, TSV or JSON records; header lines go to stderr unless text.

    An ``out`` file ending in ``.csv``, ``.tsv`` or ``.json`` gets that format
    whatever ``fmt`` says: every ``--out`` writes the format its suffix names.
    ``points`` names the columns of metric values: the text table shows them in
    points (x100, two decimals) and says so in a header line; CSV, TSV and JSON
    keep the values as computed. ``notes_below``: the text table comes first, its
    header lines under it, each wrapped to :data:`ragnb.result.TEXT_WIDTH` columns; a missing value
    shows as a dash, and ``dash`` (the reason) is the first line under the table
    when one is shown.
    """
    import pandas as pd

    from ragnb.spreadsheet import neutralised  # CSV/TSV for people: no live formulas

    fmt = out_format(fmt, out)
    shown = [c for c in points if c in df]
    if fmt == "table" and shown:
        from ragnb.result import points as in_points

        df = df.assign(**{c: [in_points(v, digits=2)
                              for v in pd.to_numeric(df[c], errors="coerce")] for c in shown})
        header_lines = [POINTS_LINE, *header_lines] if notes_below else [*header_lines,
                                                                          POINTS_LINE]
    people = neutralised(df) if fmt in ("csv", "tsv") else df  # CSV for people: no formulas
    data = delimited(people, "\t" if fmt == "tsv" else ",") if fmt in ("csv", "tsv") else None
    if data is not None:
        text = ""
    elif fmt == "tsv":
        text = people.to_csv(index=False, sep="\t")
    elif fmt == "csv":
        text = people.to_csv(index=False)
    elif fmt == "json":
        text = df.to_json(orient="records", indent=1, double_precision=15) + "\n"
    elif notes_below:
        from ragnb.result import MISSING

        table = dashed(df)
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200):
            body = table.to_string(index=False)
        dashes = dash and bool((table == MISSING).to_numpy().any())
        text = terminal_safe("\n".join([body, *wrapped([f"# {dash}"] if dashes else []),
                                         *wrapped(header_lines), ""]))
    else:
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200, "display.float_format", "{:.4f}".format):
            text = "\n".join([*header_lines, df.to_string(index=False), ""])
        text = terminal_safe(text)
    if fmt != "table":
        for line in header_lines:
            print(terminal_safe(line), file=sys.stderr)
    if out:
        from ragnb._atomic import write_atomic_bytes

        try:
            write_atomic_bytes(out, data if data is not None else text.encode("utf-8"))
        except OSError as exc:
            raise InputError(f"cannot write the output ({exc.strerror})", source=out) from None
    else:
        sys.stdout.write(data.decode("utf-8") if data is not None else text)


def dashed(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as text for a terminal: floats with 4 decimals, a dash
    (:data:`ragnb.result.MISSING`) for every missing value.
    """
    import pandas as pd

    from ragnb.result import MISSING

    shown = df.copy().astype(object)
    for column in df.columns:
        values = df[column]
        if pd.api.types.is_float_dtype(values):
            shown[column] = [MISSING if pd.isna(v) else f"{v:.4f}" for v in values]
        else:
            shown[column] = [MISSING if v is None or (not isinstance(v, str) and pd.isna(v))
                             else v for v in values]
    return shown


def wrapped(lines: Sequence[str]) -> list[str]:
    """``# note`` lines wrapped to :data:`ragnb.result.TEXT_WIDTH` columns (as every terminal
    text), continuations indented under the text (``#   ...``).
    """
    import textwrap

    from ragnb.result import TEXT_WIDTH

    out: list[str] = []
    for line in lines:
        text = line[2:] if line.startswith("# ") else line
        out += textwrap.wrap(text, TEXT_WIDTH - 2, initial_indent="# ", subsequent_indent="#   ",
                             break_on_hyphens=False, break_long_words=False) or ["#"]
    return out


def delimited(df: pd.DataFrame, sep: str) -> bytes | None:
    """``df`` as CSV (or TSV) bytes written by pyarrow, or None when pandas must write it.

    pyarrow writes a per-query table of 400,000 rows ~10x faster than ``to_csv``, and
    as ``to_csv`` does: no quotes, nulls as empty fields, floats shortest with
    integral ones as ``1.0`` (only a float under 1e-4 reads differently: ``0.00001``
    for ``1e-05``). None (pandas writes the table) when a column is neither text
    nor a number, or a value needs quoting (a separator, a quote or a newline).
    """
    import csv
    import io

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    if not all(isinstance(c, str) for c in df.columns):
        return None
    try:
        table = pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    columns = []
    for column in table.columns:
        kind = column.type
        if pa.types.is_floating(kind):  # "1" -> "1.0", as Python (and to_csv) write it
            text = pc.cast(column, pa.string())
            whole = pc.match_substring_regex(text, r"^-?[0-9]+$")
            column = pc.if_else(whole, pc.binary_join_element_wise(text, ".0", ""), text)
        elif not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
                  or pa.types.is_integer(kind)):
            return None
        columns.append(column)
    table = pa.table(columns, names=table.column_names)
    header = io.StringIO()
    csv.writer(header, delimiter=sep, lineterminator="\n").writerow(df.columns)
    sink = pa.BufferOutputStream()
    try:  # "none" refuses a value that needs quotes: pandas quotes just those
        pacsv.write_csv(table, sink, write_options=pacsv.WriteOptions(
            include_header=False, delimiter=sep, quoting_style="none"))
    except pa.ArrowInvalid:
        return None
    return header.getvalue().encode("utf-8") + sink.getvalue().to_pybytes()


def run_files(specs: list[str], order) -> list:
    """Unread :class:`~ragnb.io.runs.RunFile` objects of ``NAME=FILE`` specs, their names
    checked before any file is read.
    """
    from ragnb.io import RunFile

    runs = [RunFile.of(path, name=name, order=order) for name, path in map(name_file, specs)]
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        shared = sorted({n for n in names if names.count(n) > 1})
        raise InputError(f"two runs share the name(s) "
                         f"{listed(shared, most=20)}; use NAME=FILE", key="--run")
    return runs


def split_manifest(ledger_dir: str | None, test_set):
    """The ledger manifest of ``test_set`` (matched by content hash), or None."""
    if not ledger_dir:  # no ledger: the ledger package is not even imported
        return None
    from ragnb.ledger.policy import find_split

    return find_split(ledger_dir, test_set)


def split_figure(inputs, manifest, metric: str, policy: str = "lower", *,
                 se: float | None = None, se_source: str = ""):
    """The split's one selection-inflation figure for a command (None when unknown).

    From the workspace (``--workspace``: its rounds' or configs' scores on the
    split, :func:`ragnb.workspace.inflation.workspace_inflation`), else from the
    workspace the ledger folder belongs to, else the worst case from ``se``
    (:func:`ragnb.workspace.inflation.ledger_inflation`): the figure the pages of
    the same workspace show.
    """
    if manifest is None:
        return None
    from ragnb.workspace.inflation import ledger_inflation, workspace_inflation

    if getattr(inputs, "manifest", None) is not None and inputs.split is not None \
            and manifest.selections_against:
        from ragnb.workspace.workspace import open_workspace

        ws = getattr(inputs, "workspace", None) or open_workspace(inputs.manifest)
        figure = workspace_inflation(ws, inputs.split, metric, policy)
        if figure is not None:
            return figure
    return ledger_inflation(getattr(inputs, "ledger", None), manifest, metric, policy, se=se,
                            se_source=se_source)


def ledger_line(manifest, ledger_dir: str | None, figure=None, test_set=None) -> list[str]:
    """Header line(s) stating a split's selections_against and its selection inflation
    (``figure``, :func:`split_figure`), and, given ``test_set``, that it matched its
    split by its queries only.
    """
    if not ledger_dir:
        return []
    if manifest is not None and test_set is not None:
        from ragnb.ledger.policy import queries_note

        note = queries_note(manifest, test_set)
        if note:
            return [*ledger_line(manifest, ledger_dir, figure), f"# note: {note}"]
    if manifest is None:
        return [(f"# split ledger {ledger_dir}: this test set is not registered (its content "
                 "hash matches no split), so how often it was selected against is unknown")]
    n = manifest.selections_against
    text = (f"# split {manifest.split_id}: role {manifest.role}, selections_against {n}"
            + (f", retired for selection {manifest.retired_for_selection_at}"
               if manifest.retired_for_selection_at else "")
            + (", sealed" if manifest.sealed else ""))
    if n:
        text += ("; " + figure.describe() if figure is not None else
                 "; its selection inflation is unknown here (no candidates' scores, no SE)")
    return [text]


def guard_sealed(ledger_dir: str | None, manifest, values: Mapping[str, float | None],
                 metric: str, note: str = "ragnb CLI") -> None:
    """The ledger's scoring policy (:func:`ragnb.ledger.policy.admit_scoring`): refused
    (:class:`~ragnb.errors.PolicyError`, before anything is printed) on a sealed split
    with no open unseal run for these configs; recorded when allowed.
    """
    if not ledger_dir:  # no ledger, nothing to admit (and nothing to import)
        return
    from ragnb.ledger.policy import admit_scoring

    admit_scoring(ledger_dir, manifest, list(values), metric=metric, values=values,
                  note=note)


def strata_labels(args: argparse.Namespace, test_set, query_ids,
                  workspace_strata: pd.DataFrame | None = None):
    """Stratum label per query (``--by`` in ``--strata``, else in the workspace's strata
    table when given, else in the query metadata) and notes.
    """
    from ragnb.io import read_strata
    from ragnb.io.strata import assign_strata

    if args.strata and not args.by:
        raise InputError("--strata needs --by COLUMN", key="--by")
    columns = [c.strip() for c in args.strata_columns.split(",")] if args.strata_columns else None
    if workspace_strata is not None and not args.strata:
        labels, notes = assign_strata(workspace_strata, query_ids, args.by,
                                      source=workspace_strata.attrs.get("source"))
        return labels, (*workspace_strata.attrs.get("notes", ()), *notes)
    if args.strata:
        table = read_strata(args.strata, key=args.strata_key, columns=columns)
        source = args.strata
    else:
        table, source = test_set.queries, f"{test_set.source} (query metadata)"
    return assign_strata(table, query_ids, args.by, source=source)


@dataclass(frozen=True)
class Inputs:
    """What a scoring command reads: test set, runs, score options and, from a workspace,
    its strata table (query metadata joined with the strata file) and manifest path.
    """

    test_set: TestSet
    runs: list
    options: dict
    strata: pd.DataFrame | None = None
    manifest: Path | None = None
    split: str | None = None
    gain: str = "exp"
    #: The split ledger that governs this split: ``--ledger`` (or ``$RAGNB_LEDGER``),
    #: else the workspace's own ``ledger`` key; None when neither names one.
    ledger: str | None = None

    #: ``--relevance-level``, else the workspace's ``relevance_level`` (trec_eval's -l).
    relevance_level: int = 1
    #: The :class:`~ragnb.workspace.Workspace` read (``--workspace``), else None: the split's
    #: selection inflation (:func:`split_figure`) reuses its test set and ledger match.
    workspace: Any = field(default=None, compare=False, repr=False)

    def cluster(self, given: str | None) -> str | None:
        """``--cluster``, else the workspace's ``[cluster] address``, else None (this machine)."""
        return given or (self.workspace.spread["cluster"] if self.workspace is not None else None)

    def jobs(self, given: int) -> int:
        """``--jobs`` when given (not its default 1), else the workspace's ``[cluster] jobs``."""
        return given if given != 1 or self.workspace is None else self.workspace.spread["jobs"]

    def metric(self, text: str) -> str:
        """A metric with the workspace's gain map when it is an nDCG naming none
        (:func:`ragnb.metrics.registry.with_gain`), and the relevance level when it is a
        binary measure naming none (:func:`~ragnb.metrics.registry.with_relevance_level`).
        """
        from ragnb.metrics.registry import with_gain, with_relevance_level

        return with_relevance_level(with_gain(text, self.gain), self.relevance_level)


def workspace_split(args: argparse.Namespace):
    """The workspace of ``--workspace`` and the test set to read: ``--split``, else
    ``[report.<command>] test_set`` / ``[report] test_set``, production, golden, the first.
    """
    from ragnb.workspace import open_workspace

    if args.judgments:
        raise InputError("--workspace replaces --judgments; give one or the other",
                         key="--workspace")
    ws = open_workspace(args.workspace)
    return ws, args.split or ws.test_set_for(getattr(args, "command", None) or "score")


def resolve_inputs(args: argparse.Namespace, runs: list[str], run_flag: str = "--run",
                   *, read: bool = True) -> Inputs:
    """The test set and runs of a command: from ``--workspace`` (``runs`` are config names,
    default every config of the split) or from ``--judgments`` and ``runs`` (``NAME=FILE``).

    With ``read=False`` the runs are unread :class:`~ragnb.io.runs.RunFile` objects, for a
    command that only scores them (:func:`~ragnb.metrics.score.score` then holds one run
    in memory at a time).

    Errors name the manifest key (``test_sets.<split>.runs``) or the missing option.
    """
    from ragnb.io import read_test_set

    def loaded(files: list) -> list:
        return [f.read() for f in files] if read else files

    if not getattr(args, "workspace", None):
        if not args.judgments or not runs:
            raise InputError(f"give --judgments and {run_flag}, or --workspace",
                             key="--judgments" if not args.judgments else run_flag)
        from ragnb.io.source import implied_gain

        return Inputs(read_test_set(args.judgments), loaded(run_files(runs, args.order)),
                      {"missing": args.missing, "extra": args.extra},
                      ledger=getattr(args, "ledger", None),
                      relevance_level=getattr(args, "relevance_level", None) or 1,
                      gain=implied_gain(args.judgments))   # as init writes it (issue 36 #1)
    from ragnb.io import RunFile
    from ragnb.strata import strata_table

    if run_flag == "--run" and getattr(args, "run", None):
        raise InputError("--workspace replaces --run files; name configs with --config",
                         key="--workspace")
    ws, split = workspace_split(args)
    entry = ws.test_set_entry(split)
    configs = list(runs) or ws.configs(split)
    if len(set(configs)) != len(configs):
        raise InputError(f"a config is named twice: {listed(configs, most=20)}", key="--config")
    order = args.order or ws.run_order
    files = []
    for c in configs:
        if c not in entry.runs:
            raise InputError(f"no run of config {c!r} on test set {split!r}; configs: "
                             f"{', '.join(entry.runs) or 'none'}", source=ws.manifest.path,
                             key=f"test_sets.{split}.runs")
        files.append(RunFile.of(entry.runs[c], name=c, order=order))
    options = {"missing": args.missing if args.missing != "error" else ws.manifest.missing,
               "extra": args.extra if args.extra != "error" else ws.manifest.extra}
    test_set = ws.test_set(split)
    strata = strata_table(test_set, ws.strata(split))
    notes = strata.attrs.get("notes", ())
    strata = strata[strata["query_id"].isin(set(test_set.query_ids))]
    strata.attrs["notes"] = notes
    strata.attrs.setdefault("source", str(entry.strata.path if entry.strata else test_set.source))
    return Inputs(test_set, loaded(files), options, strata, ws.manifest.path, split, ws.gain,
                  getattr(args, "ledger", None)
                  or (None if ws.manifest.ledger is None else str(ws.manifest.ledger)),
                  getattr(args, "relevance_level", None) or ws.manifest.relevance_level,
                  ws)
