"""``python -m ragnb``: the same as the ``ragnb`` console script."""
import sys

from ragnb.cli import console

sys.exit(console())
