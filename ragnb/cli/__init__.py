"""The ``ragnb`` command line: a registry of subcommands.

Each module in this package that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` is a subcommand; modules are
discovered, so adding a command never touches this file. A command module
imports nothing heavy at module level (its ``run`` imports what it uses); its
long help is ``DESCRIPTION``, or ``description()`` when the text is computed
(the metric list), so building a parser stays cheap. Only the named command's parser
is built in full: ``ragnb --help`` reads each command's ``HELP`` and nothing more. Bad
input ends with a one-line message on stderr and exit code 2. A command that starts
another program and sets ``PASSES_ON = True`` gets the words after ``--`` as
``args.passed_on``.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from ragnb.errors import RagnbError


def _commands() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            found[module.NAME] = module
    return dict(sorted(found.items()))


def description(module) -> str:
    """A command's long help: ``description()`` if it computes one, else ``DESCRIPTION``."""
    if hasattr(module, "description"):
        return module.description()
    return getattr(module, "DESCRIPTION", module.HELP)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every discovered subcommand.

    With ``only`` (a command name) just that command's options are built; the
    others are listed by name and help (enough for ``ragnb --help``).
    """
    parser = argparse.ArgumentParser(
        prog="ragnb",
        description="Statistically honest retrieval evaluation: scores, comparisons, reports.",
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the installed version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in _commands().items():
        if only is not None and name != only:
            sub.add_parser(name, help=module.HELP)
            continue
        p = sub.add_parser(name, help=module.HELP, description=description(module),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


class _Version(argparse.Action):
    """``--version``: the version is looked up when asked (importlib.metadata is slow)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from ragnb import __version__

        print(f"ragnb {__version__}")  # on stdout, as argparse's own version action does
        parser.exit()


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top-level
    options, ``--help`` and ``--version``, take no value).
    """
    return next((a for a in argv if not a.startswith("-")), None)


def _passed_on(argv: list[str], command: str | None) -> tuple[list[str], list[str] | None]:
    """``argv`` cut at its first ``--`` and the words after it, for a command that hands
    them to a program it starts (``PASSES_ON = True``: ``ragnb lab``, ``ragnb app``);
    for other commands ``argv`` unchanged and None (``--`` keeps argparse's meaning).
    """
    module = _commands().get(command) if command else None
    if not getattr(module, "PASSES_ON", False):
        return argv, None
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ragnb`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(argv)
    parser = build_parser(only=command or "")  # "": names only, for --help
    argv, extra = _passed_on(argv, command)
    args = parser.parse_args(argv)
    if extra is not None:
        args.passed_on = extra
    try:
        return int(args._run(args) or 0)
    except RagnbError as exc:
        from ragnb.cli._common import terminal_safe

        print(f"ragnb {args.command}: {terminal_safe(exc, newlines=False)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `ragnb score ... | head`
        return 0


def console() -> int:
    """The ``ragnb`` console script (and ``python -m ragnb.cli``): :func:`main` in a
    process set up for one job (:func:`ragnb.startup.one_shot_process`: an optional
    3-4 s import skipped, the garbage collector set for a short life).

    :func:`main` itself leaves the process alone, so tests and notebooks that call
    it are unaffected.
    """
    from ragnb.startup import one_shot_process

    one_shot_process()
    return main()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console())
