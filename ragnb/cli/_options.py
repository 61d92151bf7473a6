"""Every option two or more commands take, defined once (a registry: name -> flags, settings).

A command lists the options it takes by name (``add(p, "judgments", "run", ...)``);
a command may reword the help or change the default for its own case, never
the flags, the type or the choices. Building a parser imports nothing heavier
than this module and :mod:`ragnb.vocab`, so ``ragnb --help`` and ``ragnb
COMMAND --help`` stay fast.
"""
from __future__ import annotations

import argparse
import os
import re

from ragnb.vocab import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EXTRA,
    MAX_CUTOFF,  # noqa: F401 - for options bounded with bounded_int directly
    MAX_GRADE,  # noqa: F401 - for options bounded with bounded_int directly
    MAX_RESAMPLES,
    MISSING,
    NO_RELEVANT,
    ORDERS,
    POLICIES,
    RANGES,
)

#: The bootstrap seed every command uses unless given.


def bounded_int(lo: int, hi: int):
    """An argparse ``type``: a strict ASCII integer in ``[lo, hi]``, else a one-line error."""
    def parse(text: str) -> int:
        if not re.fullmatch(r"-?[0-9]{1,19}", text):
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not an integer")
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is outside [{lo:,}, {hi:,}]")
        return value

    parse.__name__ = "integer"
    return parse


def ranged(name: str):
    """:func:`bounded_int` over :data:`ragnb.vocab.RANGES` ``[name]``: the bound every
    surface (options, notebook parameters, manifest) shares.
    """
    lo, hi, _ = RANGES[name]
    return bounded_int(int(lo), int(hi))


def key_value(text: str) -> tuple[str, str]:
    """An argparse ``type``: ``KEY=VALUE`` as a pair (the value is typed later, by the
    notebook parameter it names).
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return key.strip(), value


def _ledger_default() -> str | None:
    return os.environ.get("RAGNB_LEDGER") or None


#: name -> (flags, argparse settings). ``default`` may be a callable, read when the
#: parser is built (an environment variable).
OPTIONS: dict[str, tuple[tuple[str, ...], dict]] = {
    # -- inputs: files or a workspace ------------------------------------------------------------
    "judgments": (("--judgments", "--test-set"), {
        "dest": "judgments", "metavar": "FILE", "default": None,
        "help": "test set JSONL (the ragnb test-set format), TREC qrels, or CSV/Parquet table"}),
    "judge": (("--judge",), {
        "default": None, "metavar": "[NAME=]FILE",
        "help": "a model judge's labels (TREC qrels, JSONL, CSV/TSV/Parquet), kept beside "
                "people's; NAME defaults to the file name up to the first dot"}),
    "run": (("--run",), {
        "action": "append", "default": [], "metavar": "NAME=FILE",
        "help": "a run (repeatable); NAME defaults to the file name"}),
    "workspace": (("--workspace", "-w"), {
        "metavar": "PATH", "default": None,
        "help": "read a workspace's test set and runs (ragnb.toml or its folder) instead of "
             "--judgments and run files; configs are named as in the manifest; ranking order, "
             "--extra and --missing from the manifest unless given"}),
    "split": (("--split",), {
        "default": None, "metavar": "NAME",
        "help": "with --workspace: the test set (default: production, golden or the first)"}),
    "config": (("--config",), {
        "action": "append", "default": [], "metavar": "CONFIG",
        "help": "with --workspace: a config (repeatable; default: all)"}),
    "notebooks": (("--notebooks",), {
        "metavar": "DIR", "default": None,
        "help": "notebooks folder (default: the project's notebooks/)"}),
    # -- servers: JupyterLab (lab) and Voila (app) ----------------------------------------------
    "port": (("--port",), {
        "type": bounded_int(1, 65535), "default": None,
        "help": "port to listen on (default: the server's own, 8888 or the next free one)"}),
    "no_browser": (("--no-browser",), {
        "action": "store_true", "help": "do not open a browser tab"}),
    "allow_root": (("--allow-root",), {
        "action": "store_true",
        "help": "let the server run as root (in a container); JupyterLab refuses root without it"}),
    "print_command": (("--print-command",), {
        "action": "store_true",
        "help": "print the server command and its environment, and exit (nothing is started)"}),
    # -- how a run meets the test set ------------------------------------------------------------
    "policy": (("--policy",), {
        "choices": POLICIES, "default": "lower",
        "help": "unjudged passages: lower = not relevant (default), condensed = removed before the "
             "cut, upper = relevant at --upper-grade and added to the ideal"}),
    "upper_grade": (("--upper-grade",), {
        "type": ranged("upper_grade"), "default": None,
        "help": "grade given to unjudged passages under --policy upper (default: top grade)"}),
    "relevance_level": (("--relevance-level",), {
        "type": bounded_int(1, MAX_GRADE), "default": None, "metavar": "GRADE",
        "help": "the least grade that counts as relevant for every binary measure that names "
             "none (P, recall, RR, AP, R-precision, bpref, infAP, success, RBP): trec_eval's -l "
             "(default 1, or the workspace's [workspace] relevance_level)"}),
    "top_grade": (("--top-grade",), {
        "type": ranged("top_grade"), "default": None,
        "help": "labels range over 0..TOP_GRADE (default: the test set's top grade)"}),
    "order": (("--order",), {
        "choices": ORDERS, "default": None,
        "help": "ranking order: 'score' = score descending, ties by passage id descending "
             "(trec_eval; default where the run has scores), 'rank' = the rank column (opt-in; "
             "default for JSONL lists). A note counts queries whose ranks disagree with the "
             "scores"}),
    "no_relevant": (("--no-relevant",), {
        "choices": NO_RELEVANT, "default": "keep",
        "help": "queries with no relevant passage: keep (scored, counted; default) or drop "
             "(counted)"}),
    "missing": (("--missing",), {
        "choices": MISSING, "default": "error",
        "help": "test-set queries a run has no ranking for: error (default), empty (scored as "
             "an empty ranking) or drop (left out, counted)"}),
    "extra": (("--extra",), {
        "choices": EXTRA, "default": "error",
        "help": "run queries the test set lacks: error (default) or drop (left out, counted)"}),
    "metrics": (("--metric",), {
        "action": "append", "required": True, "metavar": "METRIC",
        "help": "metric name such as ndcg@10 (repeatable)"}),
    "metric": (("--metric",), {
        "default": None, "metavar": "METRIC", "help": "metric with a cut-off, e.g. rr@10"}),
    "k": (("--k",), {
        "type": ranged("k"), "default": 10, "help": "rank cut-off (default 10)"}),
    # -- comparisons -----------------------------------------------------------------------------
    "baseline": (("--baseline",), {
        "default": None, "metavar": "CONFIG", "help": "the config to compare the others with"}),
    "challenger": (("--challenger",), {
        "action": "append", "default": None, "metavar": "CONFIG",
        "help": "a challenger config (repeatable; default: every other config)"}),
    "resamples": (("--resamples",), {
        "type": ranged("resamples"), "default": DEFAULT_RESAMPLES,
        "help": f"bootstrap resamples (default 10,000; at most {MAX_RESAMPLES:,})"}),
    "jobs": (("--jobs", "-j"), {
        "type": ranged("jobs"), "default": 1, "metavar": "N",
        "help": "processes scoring runs at once (default 1; 0 = one per core); the output is "
             "the serial output exactly"}),
    "cluster": (("--cluster",), {
        "default": None, "metavar": "ADDRESS",
        "help": "score the runs on a dask.distributed cluster, one run a task (tcp://host:8786; "
             "default: the workspace's [cluster] address; pip install 'ragnb[dask]'); the "
             "output is the serial output exactly"}),
    "seed": (("--seed",), {
        "type": ranged("seed"), "default": DEFAULT_SEED,
        "help": f"bootstrap seed (default {DEFAULT_SEED})"}),
    "ledger": (("--ledger",), {
        "metavar": "DIR", "default": _ledger_default,
        "help": "split ledger: show how often this test set has been selected against and the "
             "inflation that implies (default $RAGNB_LEDGER)"}),
    "alpha": (("--alpha",), {
        "type": float, "default": None, "metavar": "ALPHA",
        "help": "error rate of the decision or interval (default 0.05)"}),
    "margin": (("--margin",), {
        "type": float, "default": None, "metavar": "POINTS",
        "help": "margin in points (metric x 100)"}),
    "value": (("--value",), {
        "type": float, "default": None, "metavar": "VALUE",
        "help": "a metric mean, 0-1 (not points)"}),
    "key": (("--key",), {
        "metavar": "KEY", "default": None,
        "help": "idempotency key: if a decision with this key is already recorded on the split, "
             "record nothing (so a retry cannot count twice)"}),
    "labels": (("--labels",), {
        "metavar": "FILE", "default": None,
        "help": "new judgments from pooled labelling (test-set JSONL, qrels or CSV/Parquet)"}),
    "tasks": (("--tasks",), {
        "metavar": "FILE", "default": None, "help": "code tasks (from `ragnb tasks mine`)"}),
    # -- strata ----------------------------------------------------------------------------------
    "strata": (("--strata",), {
        "metavar": "FILE", "default": None,
        "help": "query annotations: CSV/TSV/Parquet/JSONL keyed by query id, or a JSON object "
             "query id -> fields (CODEC's topics.json); may cover more queries than the test "
             "set (counted in a note)"}),
    "strata_key": (("--strata-key",), {
        "metavar": "COLUMN", "default": "query_id",
        "help": "the column of --strata holding query ids (default query_id)"}),
    "strata_columns": (("--strata-columns",), {
        "metavar": "A,B,...", "default": None,
        "help": "column names of a header-less --strata file (its first line is data)"}),
    "by": (("--by",), {
        "metavar": "COLUMN", "default": None,
        "help": "stratum column (in --strata, or in the test set's query metadata, e.g. intent)"}),
    # -- notebook parameters (report, run) -------------------------------------------------------
    "parameter": (("-p", "--parameter"), {
        "action": "append", "type": key_value, "default": [], "metavar": "KEY=VALUE",
        "help": "set a parameter (repeatable); the value is read as the declared type"}),
    # -- output ----------------------------------------------------------------------------------
    "per_query": (("--per-query",), {
        "action": "store_true", "help": "print the per-query table instead of the summary"}),
    "format": (("--format",), {
        "choices": ("table", "csv", "json"), "default": "table",
        "help": "table (text, metric values in points), csv or json (values 0-1)"}),
    "out": (("--out",), {
        "metavar": "FILE", "default": None,
        "help": "write the table here instead of stdout (a .csv/.tsv/.json suffix names the "
             "format)"}),
}

#: How a run meets the test set: every scoring command takes these.
SCORING = ("policy", "upper_grade", "order", "no_relevant", "missing", "extra")
#: A test set and runs from files or from a workspace.
INPUTS = ("judgments", "run", "workspace", "split", "config")
#: Strata from a file or the test set's query metadata.
STRATA = ("strata", "strata_key", "strata_columns", "by")
#: Bootstrap settings.
RESAMPLING = ("resamples", "seed")
#: Where and how the table goes.
OUTPUT = ("format", "out")


def add(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *names: str,
        **changes: dict) -> None:
    """Add the options ``names`` (keys of :data:`OPTIONS`) to ``parser``.

    ``changes`` maps an option name to settings that differ for this command
    (``help``, ``default``, ``required``, ``metavar``); flags, type and choices
    never change.
    """
    unknown = set(changes) - set(names)
    if unknown:
        raise ValueError(f"changes for options not added: {sorted(unknown)}")
    for name in names:
        flags, settings = OPTIONS[name]
        settings = {**settings, **changes.get(name, {})}
        fixed = {k for k in ("type", "choices", "action", "dest") if k in changes.get(name, {})}
        if fixed:
            raise ValueError(f"--{name}: {sorted(fixed)} are defined once, in OPTIONS")
        if callable(settings.get("default")):
            settings["default"] = settings["default"]()
        parser.add_argument(*flags, **settings)


def actions(parser: argparse.ArgumentParser):
    """The one sub-command style: a command with several actions (``ragnb pool list``)
    takes the action as a nested sub-parser, ``args.action`` naming it.
    """
    return parser.add_subparsers(dest="action", metavar="ACTION", required=True)


def action(sub, name: str, text: str) -> argparse.ArgumentParser:
    """One action of :func:`actions`, its one-line help also its description."""
    return sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
