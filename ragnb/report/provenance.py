"""Provenance of a report: what was run, on which files, by which code, when.

The runner collects, for every notebook it executes, a :class:`Provenance`
record; :mod:`ragnb.report.header` renders it at the top of the HTML page and
the executed notebook keeps it as JSON in ``metadata.ragnb.provenance``.

What is recorded, and the conventions that decide it:

- **Parameters**: every declared parameter with its type and effective value,
  marked ``given`` when the run set it (``-p``/``--data``) or ``default``.
- **Randomness**: the parameters named ``seed``, ``*_seed``, ``resamples``,
  ``*_resamples``, ``n_boot`` or ``*_permutations`` (:data:`RANDOMNESS_NAME`),
  repeated on their own line since they decide every interval.
- **Data files with sha256**: every parameter whose name ends in ``_dir``,
  ``_path``, ``_file`` or ``_spec`` (:data:`PATH_SUFFIXES`; a missing path is
  shown as missing), and only those: a free-text parameter that happens to name
  a folder is not hashed. Only regular files are read; a path that is neither a
  regular file nor a folder, or cannot be read, is shown as missing with the
  reason. Relative values resolve against the notebook's
  folder, the kernel's working directory. A file is listed with its size and
  sha256; a folder with every regular file under it (hidden ones skipped) and a
  *tree digest*: the sha256 of the sorted lines ``relative/path<TAB>sha256``, so
  one value identifies the whole folder.
- **Stratification / pre-registration specs**: parameters whose name ends in
  ``_spec`` (:data:`SPEC_SUFFIX`) also get their modification time relative to
  the start of the run (a spec written *after* the run started is flagged) and,
  when the file is in git, the time it was first committed and whether the
  working copy differs from the last commit.
- **Code**: ragnb's version, the git commit of the project with a dirty flag
  (``git status --porcelain``, untracked files included) when the project is a
  git checkout, Python and the versions of :data:`REPORTED_PACKAGES`.
- **Split ledger head**: for each ``*ledger_dir`` parameter naming a ledger,
  the head of its hash-chained log (``SEQ:HASH``, see
  :class:`ragnb.ledger.log.Head`), as the contributed section
  :data:`LEDGER_SECTION`; ``ragnb ledger verify --head SEQ:HASH`` later shows
  whether the log the report read was cut short or rewritten since.
- **When**: start (UTC) and duration of the execution, kernel start included.
- **Contributed facts**: a notebook adds rows with
  :func:`ragnb.report.provenance` / :func:`ragnb.report.note_split`; each call
  displays an output of MIME type :data:`PROVENANCE_MIMETYPE` holding
  ``{"section": str, "facts": {key: value}}``. :func:`contributed_facts`
  gathers them from the executed notebook, grouped by section (one table per
  section, one row per call); the HTML body does not show them.
"""
from __future__ import annotations

import hashlib
import json
import platform
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from ragnb.filefacts import git_history, git_output, modified_at, sha256_file
from ragnb.paths import PROJ_ROOT

#: MIME type of the display outputs that carry facts contributed by a notebook.
PROVENANCE_MIMETYPE = "application/vnd.ragnb.provenance+json"
#: Parameter-name endings that mark a path (hashed, and shown even when missing).
PATH_SUFFIXES = ("_dir", "_path", "_file", "_spec")
#: Contributed-facts section holding the head of each split ledger a run read.
LEDGER_SECTION = "Split ledger head"
#: Parameter-name ending that marks a stratification / pre-registration spec file.
SPEC_SUFFIX = "_spec"
#: Parameter names that fix the randomness of a run.
RANDOMNESS_NAME = re.compile(r"(^|_)(seed|resamples|n_boot|permutations)$")
#: Distributions whose versions a report states (with Python and ragnb).
REPORTED_PACKAGES = (
    "numpy",
    "pandas",
    "scipy",
    "pyarrow",
    "altair",
    "vl-convert-python",
    "papermill",
    "nbconvert",
    "ipykernel",
)


@dataclass(frozen=True)
class FileFact:
    """One data file: path as shown, size in bytes, sha256, modification time (UTC)."""

    path: str
    size: int
    sha256: str
    mtime: datetime


@dataclass(frozen=True)
class PathFact:
    """A path-valued parameter: a file, a folder (with its files) or a missing path."""

    parameter: str
    value: str
    resolved: str
    kind: str  # "file", "dir" or "missing"
    files: tuple[FileFact, ...] = ()
    tree_sha256: str | None = None


@dataclass(frozen=True)
class SpecFact:
    """A spec file (``*_spec`` parameter) with its timing relative to the run."""

    parameter: str
    value: str
    resolved: str
    sha256: str | None
    mtime: datetime | None
    seconds_before_run: float | None
    git_first_commit: str | None = None
    git_modified: bool | None = None


@dataclass(frozen=True)
class GitState:
    """Commit of the project checkout and whether the working tree differs from it."""

    commit: str
    dirty: bool
    branch: str | None = None


@dataclass(frozen=True)
class ParameterValue:
    """A parameter of a run: declared type, effective value, ``given`` or ``default``."""

    name: str
    type: str
    value: Any
    origin: str
    help: str = ""


@dataclass
class Provenance:
    """Everything the header of one report states."""

    notebook: str
    started_at: datetime
    duration_s: float | None
    parameters: list[ParameterValue]
    data: list[PathFact]
    specs: list[SpecFact]
    ragnb_version: str
    git: GitState | None
    python: str
    packages: dict[str, str]
    contributed: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def randomness(self) -> list[ParameterValue]:
        """The parameters named like seeds and resample counts."""
        return [p for p in self.parameters if RANDOMNESS_NAME.search(p.name)]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (datetimes as ISO 8601 UTC)."""

        def convert(obj: Any) -> Any:
            if isinstance(obj, datetime):
                return obj.astimezone(UTC).isoformat()
            if isinstance(obj, dict):
                return {k: convert(v) for k, v in obj.items()}
            if isinstance(obj, (list, tuple)):
                return [convert(v) for v in obj]
            return obj

        return json.loads(json.dumps(convert(asdict(self)), default=str))


def file_fact(path: Path, shown: str) -> FileFact:
    """Size, sha256 and modification time of one file."""
    return FileFact(shown, path.stat().st_size, sha256_file(path), modified_at(path))


def tree_digest(files: Iterable[FileFact]) -> str:
    """sha256 over the sorted lines ``path<TAB>sha256`` of a folder's files."""
    lines = "".join(f"{f.path}\t{f.sha256}\n" for f in sorted(files, key=lambda f: f.path))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def is_path_parameter(name: str) -> bool:
    """Whether the name marks a path-valued parameter (:data:`PATH_SUFFIXES`)."""
    return name.endswith(PATH_SUFFIXES)


def resolve_path(value: str, base_dir: Path) -> Path:
    """``value`` as a path, relative ones against ``base_dir``, ``~`` expanded."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else base_dir / path


def path_fact(parameter: str, value: str, base_dir: Path) -> PathFact:
    """Hash the file or every file under the folder a parameter names."""
    resolved = resolve_path(value, base_dir).resolve()
    try:
        if resolved.is_file():
            return PathFact(parameter, value, str(resolved), "file",
                            (file_fact(resolved, resolved.name),))
        if resolved.is_dir():
            files = tuple(
                file_fact(p, p.relative_to(resolved).as_posix())
                for p in sorted(resolved.rglob("*"))
                if p.is_file() and not p.is_symlink()
                and not any(part.startswith(".") for part in p.relative_to(resolved).parts)
            )
            return PathFact(parameter, value, str(resolved), "dir", files, tree_digest(files))
    except OSError as exc:
        return PathFact(parameter, value, f"{resolved}: not hashed, {exc.strerror or exc}",
                        "missing")
    if resolved.exists():
        return PathFact(parameter, value, f"{resolved}: not a regular file or folder, not hashed",
                        "missing")
    return PathFact(parameter, value, str(resolved), "missing")


def data_facts(parameters: Iterable[ParameterValue], base_dir: Path) -> list[PathFact]:
    """The data paths of a run (see the module docstring for which parameters)."""
    facts = []
    for p in parameters:
        if not isinstance(p.value, str) or not p.value:
            continue
        if is_path_parameter(p.name):
            facts.append(path_fact(p.name, p.value, base_dir))
    return facts


def ledger_facts(parameters: Iterable[ParameterValue], base_dir: Path) -> list[dict[str, Any]]:
    """The head (``SEQ:HASH``) of each split ledger a ``*ledger_dir`` parameter names."""
    from ragnb.errors import InputError
    from ragnb.ledger import Ledger

    rows = []
    for p in parameters:
        if not p.name.endswith("ledger_dir") or not isinstance(p.value, str) or not p.value:
            continue
        root = resolve_path(p.value, base_dir)
        if not (root / "events.jsonl").is_file():
            continue
        try:
            head = str(Ledger(root).head())
        except (InputError, OSError) as exc:
            head = f"unreadable: {exc}"
        rows.append({"parameter": p.name, "ledger": p.value, "head": head})
    return rows


def git_state(root: Path = PROJ_ROOT) -> GitState | None:
    """Commit, dirty flag and branch of ``root``'s checkout; ``None`` outside git.

    ``root`` must be the top of the checkout: a package installed inside some
    other repository (a virtualenv in a clone) reports no commit.
    """
    top = git_output(["rev-parse", "--show-toplevel"], root)
    if not top or Path(top).resolve() != root.resolve():
        return None
    commit = git_output(["rev-parse", "HEAD"], root)
    if not commit:
        return None
    status = git_output(["status", "--porcelain"], root)
    branch = git_output(["rev-parse", "--abbrev-ref", "HEAD"], root)
    return GitState(commit, bool(status), None if branch in (None, "HEAD") else branch)


def spec_fact(parameter: str, value: str, base_dir: Path, run_start: datetime) -> SpecFact:
    """Hash and timing of a spec file relative to the start of the run."""
    resolved = resolve_path(value, base_dir).resolve()
    if not resolved.is_file():
        return SpecFact(parameter, value, str(resolved), None, None, None)
    mtime = modified_at(resolved)
    first, modified = git_history(resolved)
    return SpecFact(
        parameter,
        value,
        str(resolved),
        sha256_file(resolved),
        mtime,
        (run_start - mtime).total_seconds(),
        first,
        modified,
    )


def package_versions(names: Iterable[str] = REPORTED_PACKAGES) -> dict[str, str]:
    """Installed versions of ``names`` (``"not installed"`` when absent)."""
    found = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def contributed_facts(nb: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Facts a notebook displayed with :data:`PROVENANCE_MIMETYPE`, by section."""
    sections: dict[str, list[dict[str, Any]]] = {}
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            payload = output.get("data", {}).get(PROVENANCE_MIMETYPE)
            if payload is None:
                continue
            if isinstance(payload, str):  # some writers store JSON as text
                payload = json.loads(payload)
            sections.setdefault(str(payload.get("section", "Notes")), []).append(
                dict(payload.get("facts", {}))
            )
    return sections


def collect(
    notebook: str,
    parameters: list[ParameterValue],
    base_dir: Path,
    started_at: datetime,
    duration_s: float | None,
    executed: Mapping[str, Any] | None = None,
) -> Provenance:
    """Gather the provenance of one run.

    Parameters
    ----------
    notebook : str
        ``NN-slug`` of the notebook.
    parameters : list of ParameterValue
        Every declared parameter with its effective value.
    base_dir : Path
        The kernel's working directory (the notebook's folder): relative paths
        resolve against it.
    started_at : datetime
        Start of the execution (aware, UTC).
    duration_s : float or None
        Wall time of the execution in seconds.
    executed : notebook, optional
        The executed notebook, for the facts it contributed.
    """
    from ragnb import __version__

    specs = [
        spec_fact(p.name, p.value, base_dir, started_at)
        for p in parameters
        if p.name.endswith(SPEC_SUFFIX) and isinstance(p.value, str) and p.value
    ]
    return Provenance(
        notebook=notebook,
        started_at=started_at,
        duration_s=duration_s,
        parameters=parameters,
        data=data_facts(parameters, base_dir),
        specs=specs,
        ragnb_version=__version__,
        git=git_state(),
        python=f"{platform.python_implementation()} {platform.python_version()}",
        packages=package_versions(),
        contributed=_with_ledger(ledger_facts(parameters, base_dir),
                                 contributed_facts(executed) if executed is not None else {}),
    )


def _with_ledger(rows: list[dict[str, Any]], contributed: dict) -> dict:
    return {LEDGER_SECTION: rows, **contributed} if rows else contributed
