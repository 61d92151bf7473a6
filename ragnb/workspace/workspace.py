"""A workspace: the test sets, runs and annotations of one evaluation, read on demand.

:class:`Workspace` is what notebooks, reports, the what-if widget and the CLI
read. It comes from a manifest (:func:`open_workspace`, checked by
:func:`ragnb.workspace.manifest.parse_manifest`) or from in-memory tables
(:meth:`Workspace.from_data`: DataFrames or pytrec_eval/ranx-style dicts,
validated like files). Every file it reads is remembered, so a report can list
exactly the files its figures come from (:meth:`Workspace.files_read`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from ragnb.errors import InputError
from ragnb.io import as_run, as_test_set, read_strata
from ragnb.io.run import Order, Run
from ragnb.io.testset import TestSet
from ragnb.workspace.manifest import MANIFEST_NAME, Manifest, StrataEntry, parse_manifest

#: A quoted value in an error message (``'...'`` or ``"..."``, escapes allowed).
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")

Source = Any  # a path, a DataFrame, a dict, a TestSet or a Run


class Workspace:
    """The single data contract of an evaluation (see :mod:`ragnb.workspace.manifest`)."""

    def __init__(self, manifest: Manifest):
        self.manifest = manifest
        self._test_sets: dict[str, TestSet] = {}
        self._runs: dict[tuple[str, str], Run] = {}
        self._sources: dict[str, Source] = {n: e.path for n, e in manifest.test_sets.items()}
        self._run_sources: dict[str, dict[str, Source]] = {
            n: dict(e.runs) for n, e in manifest.test_sets.items()}
        self._read: dict[str, Path] = {}
        self._strata_frames: dict[str, pd.DataFrame] = {}  # given in memory (from_data)
        self._split_manifests: dict[str, object] = {}
        self._admitted: set[tuple[str, str]] = set()
        #: Quote file text in read errors wherever the file is: True only for a manifest
        #: written in this process from paths the user gave (``ragnb init``).
        self.trusted_paths = False

    # ------------------------------------------------------------- building
    @classmethod
    def from_data(cls, test_sets: Mapping[str, Source], runs: Mapping[str, Mapping[str, Source]],
                  *, roles: Mapping[str, str] | None = None, order: str = "score",
                  extra: str = "error", missing: str = "error",
                  strata: Mapping[str, pd.DataFrame] | None = None,
                  display_names: Mapping[str, str] | None = None,
                  report: Mapping[str, Any] | None = None, name: str = "in memory",
                  ledger: str | Path | None = None) -> Workspace:
        """A workspace from tables in memory (no manifest).

        Parameters
        ----------
        test_sets : mapping
            split name -> test set: a long DataFrame ``query_id, passage_id,
            grade``, a dict ``{query_id: {passage_id: grade}}`` (pytrec_eval's
            qrels), a path or a :class:`~ragnb.io.testset.TestSet`.
        runs : mapping
            split name -> {config -> run}: a long DataFrame ``query_id,
            passage_id, rank and/or score``, a dict ``{query_id: {passage_id:
            score}}`` (pytrec_eval/ranx run), a path or a :class:`~ragnb.io.run.Run`.
        roles : mapping, optional
            split name -> golden, production, confirmation or other.
        strata : mapping, optional
            split name -> a table with ``query_id`` and stratum columns.
        ledger : path, optional
            A split ledger folder: its policy holds for these test sets as for a
            manifest's ``ledger`` (a sealed split is scored only through its unseal policy).
        """
        from ragnb.workspace.manifest import ROLES, TestSetEntry

        roles = dict(roles or {})
        for split, role in roles.items():
            if role not in ROLES:
                raise InputError(f"role must be one of {', '.join(ROLES)}", key=f"roles.{split}")
        entries = {n: TestSetEntry(n, Path(f"<{n}>"), roles.get(n, "other")) for n in test_sets}
        manifest = Manifest(Path(f"<{name}>") / MANIFEST_NAME, name, order, extra, missing,
                            entries, ledger=None if ledger is None else Path(ledger),
                            display_names=dict(display_names or {}), report=dict(report or {}))
        ws = cls(manifest)
        ws._sources = dict(test_sets)
        for split in runs:
            if split not in test_sets:
                raise InputError(f"runs given for {split!r}, which is not a test set", key=split)
        ws._run_sources = {n: dict(runs.get(n, {})) for n in test_sets}
        ws._strata_frames = dict(strata or {})
        return ws

    # ------------------------------------------------------------- reading
    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def root(self) -> Path:
        return self.manifest.root

    @property
    def test_set_names(self) -> list[str]:
        return list(self._sources)

    def role(self, role: str) -> str | None:
        """The test set with ``role`` (golden, production, confirmation), or None."""
        return next((n for n, e in self.manifest.test_sets.items() if e.role == role), None)

    @contextmanager
    def _quiet_outside(self, source: Source) -> Iterator[None]:
        """Errors reading a file outside the workspace's folder quote none of its text.

        A manifest is untrusted input: one naming a file elsewhere on the machine
        must not turn a read error into a way of printing that file's lines.
        """
        try:
            yield
        except InputError as exc:
            if self.trusted_paths or not isinstance(source, (str, Path)) or str(source) == "-":
                raise
            path = Path(source).resolve()
            if path == self.root or self.root in path.parents:
                raise
            problem = _QUOTED.sub("'...'", exc.problem)
            raise InputError(f"{problem} (text not quoted: the file is outside the workspace)",
                             source=exc.source, line=exc.line, key=exc.key) from None

    def _remember(self, source: Source) -> None:
        if isinstance(source, (str, Path)):
            path = Path(source).resolve()
            self._read[str(path)] = path

    def test_set(self, name: str) -> TestSet:
        """The test set ``name`` (read once, validated like any file)."""
        if name not in self._sources:
            raise InputError(f"no test set {name!r}; test sets: {', '.join(self._sources)}",
                             source=self.manifest.path, key=f"test_sets.{name}")
        if name not in self._test_sets:
            source = self._sources[name]
            entry = self.manifest.test_sets[name]
            with self._quiet_outside(source):
                test_set = as_test_set(source, name=name, format=entry.format)
            self._remember(source)
            if entry.judge is not None:  # a model judge's labels beside the people's
                from ragnb.io.judges import attach_judge

                with self._quiet_outside(entry.judge.path):
                    test_set = attach_judge(test_set, entry.judge.path, name=entry.judge.name,
                                            format=entry.judge.format)
                self._remember(entry.judge.path)
            if entry.queries is not None:  # one split or fold of a larger file (and its judge)
                from ragnb.io.query_lists import read_query_ids

                listed = entry.queries
                where = " ".join(filter(None, (str(listed.path), listed.folds)))
                test_set = test_set.restricted(read_query_ids(listed.path, listed.fold),
                                               listed_in=where)
                self._remember(listed.path)
            self._test_sets[name] = test_set
        return self._test_sets[name]

    def configs(self, name: str) -> list[str]:
        """Configs with a run on test set ``name`` (manifest order)."""
        self.test_set_entry(name)
        return list(self._run_sources.get(name, {}))

    def test_set_entry(self, name: str):
        if name not in self.manifest.test_sets:
            raise InputError(f"no test set {name!r}; test sets: {', '.join(self._sources)}",
                             source=self.manifest.path, key=f"test_sets.{name}")
        return self.manifest.test_sets[name]

    @property
    def run_order(self) -> Order | None:
        """The ``order`` passed to readers: None (score where scores exist) or "rank"."""
        return None if self.manifest.order == "score" else "rank"

    def run(self, name: str, config: str) -> Run:
        """Config ``config``'s run on test set ``name``."""
        sources = self._run_sources.get(name, {})
        if config not in sources:
            raise InputError(f"no run of config {config!r} on test set {name!r}; configs: "
                             f"{', '.join(sources) or 'none'}", source=self.manifest.path,
                             key=f"test_sets.{name}.runs")
        if (name, config) not in self._runs:
            self._admit(name, [config])
            with self._quiet_outside(sources[config]):
                self._runs[name, config] = as_run(sources[config], name=config,
                                                  order=self.run_order)
            self._remember(sources[config])
        return self._runs[name, config]

    def runs(self, name: str, configs: Iterable[str] | None = None) -> list[Run]:
        """Runs on test set ``name`` (every config when ``configs`` is None).

        Reading a config's run is scoring it on ``name``: the split ledger's policy
        decides first (:meth:`_admit`), for all the configs at once.
        """
        configs = list(self.configs(name) if configs is None else configs)
        sources = self._run_sources.get(name, {})
        self._admit(name, [c for c in dict.fromkeys(configs) if c in sources])
        return [self.run(name, c) for c in configs]

    def check_runs(self, name: str) -> list[tuple[str, set, tuple, int]]:
        """Read and validate every run of test set ``name`` without scoring it (``ragnb init``).

        Returns ``(config, query ids outside the test set, reader notes, test-set queries
        it ranks)`` per config. The runs are not kept: nothing here is a scoring, so the
        ledger is not asked (scoring goes through :meth:`runs`, which the ledger's policy
        admits).
        """
        qids = set(self.test_set(name).query_ids)
        out = []
        for config, source in self._run_sources.get(name, {}).items():
            run = as_run(source, name=config, order=self.run_order)
            self._remember(source)
            ranked = set(run.query_ids)
            out.append((config, ranked - qids, tuple(run.notes), len(ranked & qids)))
        return out

    def split_manifest(self, name: str):
        """Test set ``name``'s split in the workspace's ledger (by content hash), or None.

        :class:`ragnb.ledger.Manifest`: its role, ``selections_against`` and
        whether it is sealed; None without a ledger or when the ledger does not
        know this content.
        """
        if name not in self._split_manifests:
            from ragnb.ledger.policy import find_split

            ledger = self.manifest.ledger
            self._split_manifests[name] = (find_split(ledger, self.test_set(name))
                                           if ledger is not None else None)
        return self._split_manifests[name]

    def _admit(self, name: str, configs: list[str]) -> None:
        """The ledger's scoring policy for ``configs`` on test set ``name``
        (:func:`ragnb.ledger.policy.admit_scoring`): on a sealed confirmation split it
        raises :class:`~ragnb.errors.PolicyError` unless an unseal run is open for these
        configs, and records each scoring it allows. Each config is admitted once per
        workspace object (its run is read once).
        """
        configs = [c for c in configs if (name, c) not in self._admitted]
        if not configs:
            return
        from ragnb.ledger.policy import admit_scoring

        manifest = self.split_manifest(name)
        if manifest is not None and manifest.role == "confirmation":
            self._split_manifests[name] = admit_scoring(
                self.manifest.ledger, manifest, configs,
                note=f"run read for scoring by workspace {self.name!r}")
        self._admitted.update((name, c) for c in configs)

    def splits(self, names: Sequence[str], configs: Sequence[str]
               ) -> tuple[dict[str, TestSet], dict[str, list[Run]]]:
        """Test sets and runs of ``configs`` per split (for :func:`.splits.score_splits`)."""
        return ({n: self.test_set(n) for n in names},
                {n: self.runs(n, configs) for n in names})

    @property
    def score_options(self) -> dict[str, str]:
        """``extra`` and ``missing`` for :func:`ragnb.metrics.score.score`."""
        return {"extra": self.manifest.extra, "missing": self.manifest.missing}

    @property
    def spread(self) -> dict[str, Any]:
        """How :func:`ragnb.metrics.score.score` spreads this workspace's runs: ``jobs``
        (``[cluster] jobs``, processes of this machine) and ``cluster`` (its address).
        """
        return {"jobs": self.manifest.jobs, "cluster": self.manifest.cluster}

    def strata_entry(self, name: str) -> StrataEntry | None:
        return self.test_set_entry(name).strata

    def strata(self, name: str) -> pd.DataFrame | None:
        """Query annotations of test set ``name`` (``query_id`` + columns), or None."""
        if name in self._strata_frames:
            return self._strata_frames[name]
        entry = self.strata_entry(name)
        if entry is None:
            return None
        self._remember(entry.path)
        with self._quiet_outside(entry.path):
            return read_strata(entry.path, key=entry.key, columns=entry.columns or None)

    def comparison(self, name: str, configs: Sequence[str]):
        """What a stratified breakdown reads (:class:`ragnb.strata.Comparison`): the test
        set, the runs of ``configs`` and its query metadata joined with its strata file.
        Annotated queries the test set lacks are counted in ``table.attrs["notes"]``.
        """
        from ragnb.io.strata_table import Comparison, strata_table

        test_set = self.test_set(name)
        runs = self.runs(name, configs)
        table = strata_table(test_set, self.strata(name))
        inputs = (test_set.source, *(r.source for r in runs))
        return Comparison(test_set, runs, table, tuple(str(p) for p in inputs),
                          self.manifest.extra)

    def stratum(self, name: str, notebook: str = "strata", given: str = "") -> str:
        """The stratum column: given, ``[report.<notebook>] stratum``, the strata ``by``."""
        entry = self.strata_entry(name)
        column = self.setting(notebook, "stratum", given) or (entry.by if entry else "")
        if not column:
            raise InputError(f"name the stratum column ([test_sets.{name}.strata] by)",
                             source=self.manifest.path, key=f"test_sets.{name}.strata.by")
        return column

    def spec_path(self, name: str, notebook: str = "strata", given: str = "") -> str:
        """The stratification spec file: given, ``[report.<notebook>] spec``, the strata
        ``spec``, else "" (none).
        """
        entry = self.strata_entry(name)
        spec = self.setting(notebook, "spec", given) or (entry.spec if entry else None)
        if spec:
            self._remember(spec)
        return str(spec) if spec else ""

    def rounds(self) -> pd.DataFrame:
        """Ordered champions: a table with a ``config`` column (and ``round``)."""
        m = self.manifest
        if m.rounds_path is not None:
            self._remember(m.rounds_path)
            table = pd.read_csv(m.rounds_path, dtype={"config": str})
            if "config" not in table:
                raise InputError("rounds file has no `config` column", source=m.rounds_path,
                                 key="rounds.path")
            return table
        if not m.rounds:
            raise InputError("no rounds in the workspace ([rounds] configs = [...])",
                             source=m.path, key="rounds")
        return pd.DataFrame({"round": range(len(m.rounds)), "config": list(m.rounds)})

    @property
    def has_rounds(self) -> bool:
        return bool(self.manifest.rounds) or self.manifest.rounds_path is not None

    @property
    def ledger_dir(self) -> str:
        """The split ledger folder, or "" for none."""
        if self.manifest.ledger is None:
            return ""
        self._remember(self.manifest.ledger)
        return str(self.manifest.ledger)

    # ------------------------------------------------------------- settings
    @property
    def display_names(self) -> dict[str, str]:
        """Map of config -> name shown in reports (``[display_names]``)."""
        return dict(self.manifest.display_names)

    def display_name(self, config: str) -> str:
        """The name shown for ``config`` (the config itself when none is given)."""
        return self.manifest.display_names.get(config, config)

    def setting(self, notebook: str, key: str, given: Any = "", default: Any = "") -> Any:
        """A report setting: ``given`` when set, else ``[report.<notebook>]``, ``[report]``,
        then ``default``. A ``metric`` comes back with the workspace's gain map
        (:meth:`metric`).
        """
        if given not in ("", None, [], {}):
            value = given
        else:
            own = self.manifest.report_by_notebook.get(notebook, {})
            value = own[key] if key in own else self.manifest.report.get(key, default)
        return self.metric(value) if key == "metric" and value else value

    @property
    def gain(self) -> str:
        """The workspace's nDCG gain map name (``[workspace] gain`` or ``[gains]``; ``exp``)."""
        return self.manifest.gain

    def metric(self, text: str) -> str:
        """``text`` with the workspace's gain map when the metric takes a ``gain`` and
        names none: ``ndcg@10`` -> ``ndcg@10(gain=<workspace map>)``; ``ndcg@10(gain=linear)``,
        other metrics and the default ``exp`` map are returned unchanged. A binary measure
        naming no ``rel`` gets ``[workspace] relevance_level`` (trec_eval's -l) when it is not 1.
        """
        from ragnb.metrics.registry import with_gain, with_relevance_level

        return with_relevance_level(with_gain(text, self.gain), self.manifest.relevance_level)

    def test_set_for(self, notebook: str, given: str = "") -> str:
        """The test set a single-split notebook reads: given, set in the manifest, the
        production, golden or else the first test set.
        """
        name = self.setting(notebook, "test_set", given)
        return name or self.role("production") or self.role("golden") or self.test_set_names[0]

    def pair(self, notebook: str, baseline: str = "", challenger: str = "") -> tuple[str, str]:
        """Baseline and challenger configs: given, from the manifest, else an error."""
        b = self.setting(notebook, "baseline", baseline)
        c = self.setting(notebook, "challenger", challenger)
        if not b or not c:
            raise InputError("name the baseline and challenger configs ([report] baseline, "
                             "challenger)", source=self.manifest.path, key="report")
        return b, c

    # ------------------------------------------------------------- provenance
    def use(self, path: str | Path | None) -> str:
        """Record a file read outside the workspace's loaders; its path as text ("" for none)."""
        if not path:
            return ""
        self._remember(path)
        return str(path)

    def files_read(self) -> list[Path]:
        """Every file (or folder) this workspace has read so far, manifest first."""
        files = [self.manifest.path] if self.manifest.path.is_file() else []
        return files + [p for p in self._read.values() if p != self.manifest.path]

    def __repr__(self) -> str:
        return (f"Workspace({self.name!r}, test sets {self.test_set_names}, "
                f"manifest {self.manifest.path})")


def open_workspace(path: str | Path | Workspace = "", *, trusted_paths: bool = False
                   ) -> Workspace:
    """The workspace of a manifest (a ``ragnb.toml`` or the folder holding one).

    ``""`` (every notebook's default) is :func:`ragnb.workspace.default.default_workspace`:
    ``$RAGNB_WORKSPACE``, else the bundled demo. ``trusted_paths``: the manifest was just
    written from paths the user typed (``ragnb init``), so read errors quote file text
    wherever the file is; a manifest read from disk is untrusted input and does not.
    """
    if isinstance(path, Workspace):
        return path
    if isinstance(path, str) and not path.strip():
        from ragnb.workspace.default import default_workspace

        path = default_workspace()
    ws = Workspace(parse_manifest(path))
    ws.trusted_paths = trusted_paths
    return ws
