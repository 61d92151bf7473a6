"""The ``ragnb`` command line: a registry of subcommands.

Each module in this package that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` is a subcommand; modules are
discovered, so adding a command never touches this file. Bad input ends with a
one-line message on stderr and exit code 2.
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


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every discovered subcommand."""
    from ragnb import __version__

    parser = argparse.ArgumentParser(
        prog="ragnb",
        description="Statistically honest retrieval evaluation: scores, comparisons, reports.",
    )
    parser.add_argument("--version", action="version", version=f"ragnb {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in _commands().items():
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", module.HELP),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ragnb`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except RagnbError as exc:
        from ragnb.cli._common import terminal_safe

        print(f"ragnb {args.command}: {terminal_safe(exc, newlines=False)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `ragnb score ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
