"""Where an installed ragnb keeps its demo and writes its reports (issue 33: an installed
ragnb had no demo and wrote reports inside site-packages)."""
from __future__ import annotations

import shutil

import ragnb
from ragnb import paths
from ragnb.workspace import open_workspace


def test_in_a_clone_the_demo_and_reports_are_the_repositorys():
    assert paths.IN_CHECKOUT
    assert paths.DEMO_DIR == paths.PROJ_ROOT / "data" / "demo"
    assert paths.REPORTS_DIR == paths.PROJ_ROOT / "reports"
    # the package's own link reaches the same files (what a wheel ships)
    assert (paths.BUNDLED_DATA / "demo" / "ragnb.toml").read_bytes() == \
        (paths.DEMO_DIR / "ragnb.toml").read_bytes()


def test_the_demo_is_copied_out_of_the_package_once_and_opens(tmp_path):
    bundled = tmp_path / "site-packages" / "ragnb" / "data"
    shutil.copytree(paths.BUNDLED_DATA, bundled,
                    ignore=shutil.ignore_patterns(".ragnb-cache", "*.lock"))
    (bundled / "demo" / ".ragnb-cache").mkdir()          # never copied
    home = tmp_path / "home" / "data"
    demo = paths.ensure_demo(home, bundled)
    assert demo == home / "demo" and (demo / "ragnb.toml").is_file()
    assert not (demo / ".ragnb-cache").exists()
    assert (home / ".version").read_text().strip() == ragnb.__version__
    ws = open_workspace(demo)
    assert ws.test_set_names[:2] == ["golden", "production"]
    assert len(ws.test_set("golden").queries) == 300
    # second call: already there, nothing copied again
    (demo / "marker").write_text("kept")
    assert paths.ensure_demo(home, bundled) == demo and (demo / "marker").is_file()
    # after an upgrade the copy is renewed
    (home / ".version").write_text("0.0.1\n")
    paths.ensure_demo(home, bundled)
    assert not (demo / "marker").exists()
    assert not [p for p in home.parent.iterdir() if p.name.startswith(".data-")]
