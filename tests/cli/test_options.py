"""Command-line options are defined once (``ragnb.cli._options.OPTIONS``) and every command
uses one sub-command style; ``--missing`` means the same everywhere."""
from __future__ import annotations

import argparse
import ast
import inspect
from collections import defaultdict

import pytest

from ragnb import vocab
from ragnb.cli import _commands, build_parser
from ragnb.cli._options import OPTIONS, add

#: Flags that two commands spell alike for different things (not one option).
DIFFERENT_THINGS = {
    "--kind": "convert: what the input file is; gate: the rule's kind",
    "--json": "ledger: a switch, print JSON records; gate: write the decision's JSON to FILE "
              "(beside the text on stdout, for CI)",
    "--name": "convert: the run tag or split name; init: the workspace's name",
    "--role": "init: NAME=ROLE per test set; ledger register: the split's own role",
}
#: Uses of a registry flag with another shape, each with its reason.
OTHER_SHAPES = {
    ("report", "--out"): "a folder of pages, not a table",
    ("demo", "--out"): "a folder of demo files, not a table",
    ("tasks score", "--run"): "the one retriever run scored, no NAME=",
    ("init", "--challenger"): "the one challenger written to the manifest",
    ("init", "--test-set"): "several named test sets ([NAME=]FILE) for the manifest",
    ("init", "--strata"): "repeatable: one file for every test set, or SPLIT=FILE per test set",
    ("init", "--split"): "defines a split (NAME=IDS, a file of query ids) instead of naming one",
    ("ledger score", "--config"): "the one config whose scoring is recorded",
    ("gate", "--run"): "the one challenger run, not repeatable",
    ("gate", "--challenger"): "the one challenger config gated",
    ("gate", "--metric"): "optional here: the manifest's [gate] metric is the default",
    ("ledger", "--metric"): "one metric, optional: the metric of the selection inflation shown",
    ("audit", "--baseline"): "the baseline's reported figure (0-1), not a config",
}


def _actions() -> dict[str, list[tuple[str, argparse.Action]]]:
    """Every option flag -> [(command path, action)] over the full parser tree."""
    seen: dict[str, list] = defaultdict(list)

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            else:
                for flag in action.option_strings:
                    seen[flag].append((" ".join(path), action))

    walk(build_parser(), [])
    return seen


def _registry_flag(flag: str) -> list[dict]:
    return [settings for flags, settings in OPTIONS.values() if flag in flags]


def test_every_use_of_a_registered_flag_has_the_registered_type_and_choices():
    checked = 0
    for flag, uses in _actions().items():
        specs = _registry_flag(flag)
        if not specs:
            continue
        for where, action in uses:
            if (where, flag) in OTHER_SHAPES:
                continue
            match = [s for s in specs
                     if s.get("type") is action.type
                     and tuple(s.get("choices") or ()) == tuple(action.choices or ())
                     and (s.get("action") == "append") == isinstance(action,
                                                                     argparse._AppendAction)]
            assert match, f"{where} {flag}: not the definition in OPTIONS"
            checked += 1
    assert checked > 60  # the walk reached every command


def test_a_flag_two_commands_take_is_defined_once():
    for flag, uses in _actions().items():
        commands = {where.split()[0] for where, _ in uses if where}
        if len(commands) < 2 or flag in ("-h", "--help") or flag in DIFFERENT_THINGS:
            continue
        assert _registry_flag(flag), f"{flag} is defined separately by {sorted(commands)}"


def test_missing_means_the_same_in_every_command():
    uses = _actions()["--missing"]
    assert {where for where, _ in uses} >= {"score", "compare", "bounds", "pool list",
                                            "pool shard", "tasks score"}
    for where, action in uses:
        assert tuple(action.choices) == vocab.MISSING == ("error", "empty", "drop"), where


def test_one_sub_command_style_nested_parsers_no_action_positional():
    # the style is argparse sub-parsers (ledger, pool, tasks): no positional word with choices
    for flag_less in _positionals():
        where, action = flag_less
        assert not action.choices, f"{where}: positional {action.dest} with choices"
    tree = build_parser()
    sub = next(a for a in tree._actions if isinstance(a, argparse._SubParsersAction))
    for command in ("ledger", "pool", "tasks"):
        nested = [a for a in sub.choices[command]._actions
                  if isinstance(a, argparse._SubParsersAction)]
        assert nested and nested[0].dest == "action", command


def _positionals():
    out = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif not action.option_strings:
                out.append((" ".join(path), action))

    walk(build_parser(), [])
    return out


def test_commands_declare_options_through_the_registry_not_add_argument():
    # a registered flag spelled out in a command module would be a second definition
    registered = {f for flags, _ in OPTIONS.values() for f in flags}
    allowed = {(w.split()[0], f) for w, f in OTHER_SHAPES}
    for name, module in _commands().items():
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                flag = node.args[0].value
                assert flag not in registered or (name, flag) in allowed, f"{name}: {flag}"


def test_a_command_may_reword_an_option_but_not_change_its_shape():
    p = argparse.ArgumentParser()
    with pytest.raises(ValueError, match="defined once"):
        add(p, "missing", missing={"choices": ("error", "empty")})
    with pytest.raises(ValueError, match="not added"):
        add(p, "order", missing={"help": "x"})
    add(p, "missing", missing={"help": "reworded"})
    assert p.parse_args(["--missing", "drop"]).missing == "drop"


def test_the_top_level_help_builds_no_command_parser(capsys):
    tree = build_parser(only="")
    sub = next(a for a in tree._actions if isinstance(a, argparse._SubParsersAction))
    assert all(len(p._actions) == 1 for p in sub.choices.values())  # only -h
    full = build_parser(only="score")
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert len(sub.choices["score"]._actions) > 20 and len(sub.choices["compare"]._actions) == 1
