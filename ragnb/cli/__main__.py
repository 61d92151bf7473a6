"""``python -m ragnb.cli``: the same as the ``ragnb`` console script."""
import sys

from ragnb.cli import main

sys.exit(main())
