"""Run notebooks into reports: check parameters, execute with papermill, write the page.

:func:`plan` checks everything that can be checked before a kernel starts
(names, parameters, types, ``--data``) and raises :class:`~ragnb.errors.InputError`
on the first problem; :func:`run` executes the planned notebooks one after the
other in the report kernel (:mod:`ragnb.report.kernel`) and writes, for each,
``<out>/NN-slug.ipynb`` (the executed notebook, with its provenance in
``metadata.ragnb.provenance``) and ``<out>/NN-slug.html`` (the page,
:mod:`ragnb.report.html`).

Parameters given for a run apply to every selected notebook that declares them;
a parameter no selected notebook declares is an error (so a typo never passes
silently), as is a value that does not read as the declared type of any
notebook it applies to. ``data_dir`` is the conventional parameter of the
folder holding a notebook's input data; ``--data DIR`` sets it. Relative path
values given for a run (parameters named ``*_dir``, ``*_path``, ``*_file``,
``*_spec``) are made absolute against the caller's working directory, since
the kernel runs in the notebook's folder, where relative defaults resolve as
they do in JupyterLab.

A failing cell does not stop the other notebooks: its executed notebook (with
the error) is written, a stale page of the same name is removed, and the result
carries a one-line message naming the notebook, the cell (1-based, counted in
the source notebook, with its first line) and the exception.
"""
from __future__ import annotations

import difflib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import Any

import nbformat

from ragnb._atomic import write_atomic
from ragnb.errors import InputError
from ragnb.paths import NOTEBOOKS_DIR, REPORTS_DIR
from ragnb.report.notebooks import NotebookRef, discover, resolve
from ragnb.report.parameters import (
    PARAMETERS_TAG,
    Parameter,
    read_parameters,
    resolve_value,
    tagged_cells,
    unknown_parameter,
)
from ragnb.report.provenance import ParameterValue, is_path_parameter

#: The conventional parameter for the folder of a notebook's input data.
DATA_DIR_PARAMETER = "data_dir"
#: The first parameter of every workbook notebook: the workspace manifest.
WORKSPACE_PARAMETER = "workspace"


@dataclass(frozen=True)
class Job:
    """One notebook to run, with its checked parameter values."""

    notebook: NotebookRef
    declared: dict[str, Parameter]
    given: dict[str, Any]
    skip: str | None = None  # why the workspace cannot feed this notebook (not run)

    @property
    def values(self) -> dict[str, Any]:
        """Effective values: defaults overridden by the given ones."""
        return {n: self.given.get(n, p.default) for n, p in self.declared.items()}

    def parameter_values(self) -> list[ParameterValue]:
        """Every declared parameter with its effective value and origin."""
        return [
            ParameterValue(
                n, p.type.name, self.given.get(n, p.default),
                "given" if n in self.given else "default", p.help,
            )
            for n, p in self.declared.items()
        ]


@dataclass
class Result:
    """What running one notebook produced."""

    name: str
    ok: bool
    notebook_path: Path | None
    html_path: Path | None
    seconds: float
    html_bytes: int | None = None
    message: str = ""
    skipped: bool = False
    pdf_path: Path | None = None
    #: the notebook stopped on bad input (an :class:`InputError` from the data)
    bad_input: bool = False


def _absolute(value: Any, cwd: Path) -> Any:
    if isinstance(value, (str, PathLike)) and str(value):
        path = Path(value).expanduser()
        return str(path if path.is_absolute() else (cwd / path).resolve())
    return value


def plan(
    names: Sequence[str] | None,
    parameters: Mapping[str, Any] | None = None,
    *,
    data_dir: str | PathLike[str] | None = None,
    notebooks_dir: str | PathLike[str] = NOTEBOOKS_DIR,
    cwd: str | PathLike[str] | None = None,
    workspace: str | PathLike[str] | None = None,
) -> list[Job]:
    """Check names and parameters; the jobs to run.

    Parameters
    ----------
    names : sequence of str or None
        Notebook names (``01``, ``fit``, ``01-fit``); ``None`` for all notebooks.
    parameters : mapping, optional
        Values to set; text is parsed to each notebook's declared type.
    data_dir : path, optional
        Sets the ``data_dir`` parameter; must be an existing folder.
    notebooks_dir : path
        Where the notebooks are (default :data:`ragnb.paths.NOTEBOOKS_DIR`).
    cwd : path, optional
        Base of relative path values given here (default: the current directory).
    workspace : path, optional
        A workspace manifest (or its folder): sets the ``workspace`` parameter.
        Every notebook is checked against the workspace it will read (this one,
        else its default) with :func:`ragnb.pages.skip_reason`; with
        ``names=None`` one that cannot run gets a ``skip`` reason, a named one
        is an error. ``data_dir`` naming a folder with a ``ragnb.toml`` is a
        workspace.

    Raises
    ------
    InputError
        Unknown notebook, invalid parameters cell, unknown or mistyped parameter,
        missing data folder.
    """
    cwd = Path.cwd() if cwd is None else Path(cwd)
    notebooks_dir = _absolute(notebooks_dir, cwd)
    notebooks = discover(notebooks_dir) if names is None else resolve(names, notebooks_dir)
    if not notebooks:
        raise InputError(f"no notebooks to run in {notebooks_dir}")
    given: dict[str, Any] = dict(parameters or {})
    if data_dir is not None and workspace is None:
        from ragnb.workspace import MANIFEST_NAME

        if (Path(_absolute(data_dir, cwd)) / MANIFEST_NAME).is_file():
            workspace, data_dir = data_dir, None
    if workspace is not None:
        if WORKSPACE_PARAMETER in given:
            raise InputError(f"give the workspace once: --workspace or -p {WORKSPACE_PARAMETER}",
                             key="--workspace")
        given[WORKSPACE_PARAMETER] = _absolute(workspace, cwd)
    if data_dir is not None:
        folder = _absolute(data_dir, cwd)
        if not Path(folder).is_dir():
            raise InputError(f"data folder {data_dir} does not exist", key="--data")
        if DATA_DIR_PARAMETER in given:
            raise InputError(f"give `{DATA_DIR_PARAMETER}` once: --data or -p", key="--data")
        given[DATA_DIR_PARAMETER] = folder
    declared = {nb.name: read_parameters(nb.path) for nb in notebooks}
    if data_dir is not None and not any(DATA_DIR_PARAMETER in p for p in declared.values()):
        raise InputError(
            f"--data sets `{DATA_DIR_PARAMETER}`, which "
            f"{', '.join(nb.name for nb in notebooks)} "
            f"{'does' if len(notebooks) == 1 else 'do'} not declare",
            key="--data",
        )
    for key in given:
        if not any(key in params for params in declared.values()):
            if len(notebooks) == 1:
                nb = notebooks[0]
                raise unknown_parameter(key, declared[nb.name], source=nb.name)
            known = sorted({n for params in declared.values() for n in params})
            close = difflib.get_close_matches(key, known, n=1)
            raise InputError(
                f"unknown parameter `{key}`: declared by none of "
                f"{', '.join(nb.name for nb in notebooks)}"
                + (f"; did you mean `{close[0]}`?" if close else ""),
                key=key,
            )
    jobs = []
    for nb in notebooks:
        mine = {}
        for key, value in given.items():
            param = declared[nb.name].get(key)
            if param is None:
                continue
            value = resolve_value(param, value, source=nb.name)
            if ((is_path_parameter(key) or key == WORKSPACE_PARAMETER)
                    and param.type.name in ("str", "Optional[str]")):
                value = _absolute(value, cwd)
            mine[key] = value
        skip = _skip_reason(nb, declared[nb.name], mine)
        if skip and names is not None:
            where = _workspace_of(nb, declared[nb.name], mine)
            raise InputError(f"{nb.name} cannot run on workspace {where}: {skip}", key=nb.name)
        jobs.append(Job(nb, declared[nb.name], mine, skip))
    return jobs


def _workspace_of(nb: NotebookRef, declared: dict[str, Parameter], given: dict[str, Any]
                  ) -> Path | None:
    """The manifest a notebook will read: the given one, else its default (``""``:
    ``$RAGNB_WORKSPACE``, else the bundled demo).
    """
    if WORKSPACE_PARAMETER not in declared:
        return None
    value = given.get(WORKSPACE_PARAMETER, declared[WORKSPACE_PARAMETER].default)
    if not str(value).strip():
        from ragnb.workspace.default import default_workspace

        return default_workspace()
    path = Path(str(value)).expanduser()
    return path if path.is_absolute() else (nb.path.parent / path).resolve()


def _skip_reason(nb: NotebookRef, declared: dict[str, Parameter], given: dict[str, Any]
                 ) -> str | None:
    """Why the notebook's workspace cannot feed it (None when it can, or it has none)."""
    from ragnb.pages import skip_reason
    from ragnb.workspace import open_workspace

    path = _workspace_of(nb, declared, given)
    if path is None:
        return None
    return skip_reason(open_workspace(path), nb.slug, given)


def _with_manifest_specs(job: Job) -> list[ParameterValue]:
    """The run's parameter values, with each spec parameter left empty set to the spec file
    the workspace's manifest gives it (origin "workspace"), so the header's spec-timing
    table states it as it does a spec given with ``-p``.
    """
    from ragnb.pages import manifest_specs
    from ragnb.workspace import open_workspace

    values = job.parameter_values()
    path = _workspace_of(job.notebook, job.declared, job.given)
    if path is None:
        return values
    found = manifest_specs(open_workspace(path), job.notebook.slug, job.values)
    out = []
    for v in values:
        if v.name in found:
            v = replace(v, value=found[v.name], origin="workspace")
        elif v.name == WORKSPACE_PARAMETER and not str(v.value).strip():
            v = replace(v, value=str(path))  # the default "" shown as the manifest it means
        out.append(v)
    return out


def failure_message(job: Job, exc: Exception, notebook_path: Path) -> str:
    """One line: notebook, cell (1-based in the source notebook, first line), exception."""
    from papermill.exceptions import PapermillExecutionError

    if isinstance(exc, PapermillExecutionError):
        index = exc.cell_index
        source = nbformat.read(job.notebook.path, as_version=4)
        params_at = tagged_cells(source, PARAMETERS_TAG)[0]
        if job.given and index > params_at:
            index -= 1  # papermill's injected-parameters cell
        first = next((ln.strip() for ln in exc.source.splitlines() if ln.strip()), "")
        evalue = (str(exc.evalue).strip().splitlines() or [""])[0][:200]
        what = f"{exc.ename}: {evalue}" if evalue else exc.ename
        return (
            f"{job.notebook.name}: cell {index + 1} (`{first}`) raised {what}; "
            f"executed notebook with the error: {notebook_path}"
        )
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
    return f"{job.notebook.name}: execution failed: {type(exc).__name__}: {text}"


def _write_text(path: Path, text: str) -> None:
    write_atomic(path, text)


def _keep_failed(running: Path, failed_path: Path) -> bool:
    """Keep papermill's partial notebook as ``NN-slug.failed.ipynb`` when it has content."""
    try:
        if running.exists() and running.stat().st_size:
            os.chmod(running, 0o666 & ~_umask())
            os.replace(running, failed_path)
            return True
        running.unlink(missing_ok=True)
    except OSError:
        pass
    return False


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_out_dir(out_dir: str | PathLike[str], jobs: Sequence[Job]) -> Path:
    """The output folder, created if needed; a file, a notebooks folder or an
    unwritable folder is an :class:`InputError` before anything runs.
    """
    out = Path(out_dir).resolve()  # papermill changes directory while it runs
    if out.exists() and not out.is_dir():
        raise InputError("is a file; the output must be a folder", source=out_dir)
    for job in jobs:
        if out == job.notebook.path.parent.resolve():
            raise InputError("is the notebooks folder: reports would overwrite the source "
                             "notebooks; choose another output folder", source=out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output folder ({exc.strerror})",
                         source=out_dir) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError("the output folder is not writable", source=out_dir)
    return out


def run(
    jobs: Sequence[Job],
    out_dir: str | PathLike[str] = REPORTS_DIR,
    *,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    pdf: bool = False,
) -> list[Result]:
    """Execute the jobs and write their executed notebooks and pages.

    Parameters
    ----------
    jobs : sequence of Job
        From :func:`plan`.
    out_dir : path
        Where ``NN-slug.ipynb`` and ``NN-slug.html`` go (created if needed).
    progress : bool
        Show papermill's per-cell progress bar (on stderr).
    log : callable, optional
        Receives one line per notebook started and finished (default: stderr).
    pdf : bool
        Also print each page to ``NN-slug.pdf`` with headless chromium
        (:mod:`ragnb.report.pdf`).

    After the notebooks, ``<out>/index.html`` lists every report in the folder
    with its headline (:mod:`ragnb.report.index`).

    Returns
    -------
    list of Result
        One per job, in order; failures have ``ok=False`` and a one-line message.
    """
    import papermill

    from ragnb.report.header import render_header, render_record
    from ragnb.report.html import headline_of, render_page
    from ragnb.report.kernel import report_kernel
    from ragnb.report.provenance import collect

    if log is None:
        def log(line: str) -> None:
            print(line, file=sys.stderr, flush=True)

    out = check_out_dir(out_dir, jobs)
    results: list[Result] = []
    # papermill's side files go into a folder made for this run (mode 0700, a fresh
    # random name), never by a fixed name in ``out``, where a planted symlink would
    # send the executed notebook to its target; the same file system as ``out``, so a
    # failed notebook is renamed out of it
    with report_kernel() as kernel, tempfile.TemporaryDirectory(
            prefix=".ragnb-running-", dir=out) as private:
        for i, job in enumerate(jobs, start=1):
            name = job.notebook.name
            nb_path, html_path = out / f"{name}.ipynb", out / f"{name}.html"
            if job.skip:
                log(f"[{i}/{len(jobs)}] {name}: skipped: {job.skip}")
                results.append(Result(name, True, None, None, 0.0,
                                      message=f"{name}: skipped: {job.skip}", skipped=True))
                continue
            # papermill writes as it goes: into a side file, so the previous notebook and
            # page stay in place until the new ones are complete (then each is renamed in)
            running = Path(private) / f"{name}.running.ipynb"
            failed_path = out / f"{name}.failed.ipynb"
            log(f"[{i}/{len(jobs)}] {name}: running {job.notebook.path}")
            started = datetime.now(UTC)
            t0 = time.perf_counter()
            try:
                executed = papermill.execute_notebook(
                    str(job.notebook.path),
                    str(running),
                    parameters=dict(job.given),
                    cwd=str(job.notebook.path.parent),
                    progress_bar=progress,
                    **kernel,
                )
            except Exception as exc:  # noqa: BLE001 - every failure becomes a one-line result
                seconds = time.perf_counter() - t0
                kept = _keep_failed(running, failed_path)
                message = failure_message(job, exc, failed_path)
                log(f"[{i}/{len(jobs)}] {name}: FAILED after {seconds:.1f} s"
                    + (" (the previous page is kept)" if html_path.exists() else ""))
                results.append(Result(name, False, failed_path if kept else None, None, seconds,
                                      message=message,
                                      bad_input=getattr(exc, "ename", "") == "InputError"))
                continue
            seconds = time.perf_counter() - t0
            prov = collect(
                name, _with_manifest_specs(job), job.notebook.path.parent, started, seconds,
                executed,
            )
            executed.metadata["ragnb"] = {"provenance": prov.to_json(),
                                          "headline": headline_of(executed)}
            try:
                page = render_page(
                    executed, name=name, header_html=render_header(prov),
                    footer_html=render_record(prov), base_dir=str(job.notebook.path.parent),
                )
            except InputError as exc:
                running.unlink(missing_ok=True)
                log(f"[{i}/{len(jobs)}] {name}: FAILED (page not written)")
                results.append(Result(name, False, None, None, seconds, message=str(exc)))
                continue
            try:
                _write_text(nb_path, nbformat.writes(executed))
                _write_text(html_path, page)
            except OSError as exc:
                running.unlink(missing_ok=True)
                message = (f"{name}: cannot write to {out} ({exc.strerror}); the previous page, "
                           "if any, is unchanged")
                log(f"[{i}/{len(jobs)}] {name}: FAILED (page not written)")
                results.append(Result(name, False, None, None, seconds, message=message))
                continue
            running.unlink(missing_ok=True)
            failed_path.unlink(missing_ok=True)
            size = html_path.stat().st_size
            log(f"[{i}/{len(jobs)}] {name}: done in {seconds:.1f} s -> {html_path} "
                f"({size / 1024:.0f} KB)")
            result = Result(name, True, nb_path, html_path, seconds, size)
            if pdf:
                from ragnb.errors import RagnbError
                from ragnb.report.pdf import write_pdf

                try:
                    result.pdf_path = write_pdf(html_path)
                    log(f"[{i}/{len(jobs)}] {name}: PDF -> {result.pdf_path}")
                except RagnbError as exc:
                    result.ok, result.message = False, f"{name}: {exc}"
            results.append(result)
    from ragnb.report.index import write_index

    index = write_index(out)
    log(f"index of {out}: {index}")
    return results


def build_reports(
    names: Sequence[str] | None,
    parameters: Mapping[str, Any] | None = None,
    *,
    data_dir: str | PathLike[str] | None = None,
    out_dir: str | PathLike[str] = REPORTS_DIR,
    notebooks_dir: str | PathLike[str] = NOTEBOOKS_DIR,
    progress: bool = False,
    workspace: str | PathLike[str] | None = None,
) -> list[Result]:
    """:func:`plan` then :func:`run`: what ``ragnb report`` does, for tests and scripts.

    Examples
    --------
    >>> results = build_reports(["fit"], {"resamples": 200}, out_dir=tmp)  # doctest: +SKIP
    >>> assert all(r.ok for r in results), [r.message for r in results]  # doctest: +SKIP
    """
    jobs = plan(names, parameters, data_dir=data_dir, notebooks_dir=notebooks_dir,
                workspace=workspace)
    return run(jobs, out_dir, progress=progress)
