"""Tests of the pages (:mod:`ragnb.pages`), one module a page."""


def missing_reason(workspace, slug: str) -> str:
    """The reason page ``slug``'s ``resolve`` gives for what ``workspace`` lacks, checked to
    be the skip reason under the page's every name (``01-fit``, ``fit``)."""
    import pytest

    from ragnb.pages import MissingInput, resolve, skip_reason

    with pytest.raises(MissingInput) as raised:
        resolve(slug, workspace)
    reason = raised.value.reason
    assert skip_reason(workspace, slug) == reason == skip_reason(workspace, slug.split("-", 1)[1])
    return reason


def small_workspace(folder, manifest: str, configs=("a", "b")):
    """A two-query workspace in ``folder``: ``qrels.txt``, one run per config under
    ``runs/`` (``runs/<config>.trec``) and ``manifest`` as its ``ragnb.toml``."""
    (folder / "runs").mkdir()
    for name in configs:
        (folder / "runs" / f"{name}.trec").write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d3 1 1.0 t\n")
    (folder / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d3 2\n")
    (folder / "ragnb.toml").write_text(manifest)
    return folder
