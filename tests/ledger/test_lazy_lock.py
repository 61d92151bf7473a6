"""Reading a ledger takes no lock, so filelock loads only for a write; and the lock class
stays an attribute of ``ragnb.ledger.log`` that a test can replace."""
import subprocess
import sys

import pandas as pd
import pytest

from ragnb.errors import InputError
from ragnb.ledger import Ledger
from ragnb.ledger import log as log_module
from ragnb.paths import DEMO_DIR, PROJ_ROOT


def test_reading_the_demo_ledger_imports_no_filelock():
    code = ("import sys; from ragnb.ledger import Ledger; "
            f"Ledger({str(DEMO_DIR / 'ledger')!r}).manifest('golden'); "
            "print('filelock' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PROJ_ROOT, timeout=120, check=True)
    assert out.stdout.strip() == "False"


def test_a_write_takes_the_module_s_lock_class(tmp_path, monkeypatch):
    taken = []

    class Refusing:
        def __init__(self, path, **_):
            self.lock_file, self.timeout = path, 60
            taken.append(path)

        def __enter__(self):
            raise PermissionError(13, "Permission denied", self.lock_file)

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(log_module, "FileLock", Refusing)
    judgments = pd.DataFrame({"query_id": ["q1"], "passage_id": ["p1"], "grade": [1]})
    with pytest.raises(InputError, match="cannot write to the ledger"):
        Ledger(tmp_path).register("golden", judgments)
    assert taken and taken[0].endswith(".lock")
