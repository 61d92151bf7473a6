"""The report kernel: this interpreter, this ragnb, nothing installed."""
from __future__ import annotations

import os
import sys

import pytest
from jupyter_client.kernelspec import NoSuchKernel

from ragnb.paths import PACKAGE_DIR
from ragnb.report.kernel import (
    KERNEL_NAME,
    PACKAGE_DIR_ENV,
    REPORT_ENV,
    kernel_env,
    report_kernel,
)


def test_kernel_env_marks_the_report_and_points_at_this_ragnb(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/a", "/b"]))
    env = kernel_env()
    assert env[REPORT_ENV] == "1"
    assert env[PACKAGE_DIR_ENV] == str(PACKAGE_DIR)
    if PACKAGE_DIR.parent.name in ("site-packages", "dist-packages"):
        assert "PYTHONPATH" not in env
    else:  # a source checkout comes first, the caller's path after it
        assert env["PYTHONPATH"].split(os.pathsep) == [str(PACKAGE_DIR.parent), "/a", "/b"]


def test_report_kernel_spec_is_built_in_memory():
    with report_kernel() as args:
        assert args["kernel_name"] == KERNEL_NAME
        km = args["kernel_manager_class"](kernel_name=KERNEL_NAME)
        spec = km.kernel_spec
        assert spec.argv[0] == sys.executable
        assert spec.argv[1:3] == ["-m", "ragnb.startup"]
        assert spec.env[REPORT_ENV] == "1"
        folder = os.path.dirname(km.connection_file)
        assert os.path.isdir(folder)
        if os.name == "posix":
            assert km.transport == "ipc" and km.ip.startswith(folder)
        with pytest.raises(NoSuchKernel):
            km.kernel_spec_manager.get_kernel_spec("python3")
    assert not os.path.exists(folder)  # removed on exit
