"""What-if stratification widget: change the strata, the metric or the policy and watch.

:class:`WhatIf` shows the stratified breakdown (:func:`ragnb.strata.breakdown`)
of a :class:`ragnb.strata.whatif.WhatIfState` as a table and a chart that are
recomputed on every change: stratum column, strata included or excluded,
strata merged, metric, cut-off ``k`` and label policy. Every change re-runs
the bootstrap (per-query scores are cached per ``(metric, policy)``, so only
the first use of a metric scores the runs).

The honesty rules of the state (:mod:`ragnb.strata.whatif`) are shown in the
widget itself: every exclusion, merge and switch is logged, visibly, under the
warning that a filter chosen after seeing per-stratum scores is not a
pre-registered analysis; the log exports as a ``what-if`` stratification spec
file that the report takes as ``-p strata_spec=FILE``.

The widget is built from ipywidgets (imported when a ``WhatIf`` is made) and
draws the chart as inline SVG (vl-convert, in the kernel), so it works the
same in JupyterLab, Voila and a plain kernel, with no network. In plain Python
(tests) setting a control's ``value`` or calling ``button.click()`` runs the
update at once; the state is in :attr:`WhatIf.breakdown`, :attr:`WhatIf.log`
and the HTML widgets' ``value``.
"""
from __future__ import annotations

import html
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ragnb.errors import InputError, RagnbError
from ragnb.io.run import Run
from ragnb.io.strata import UNCLASSIFIED
from ragnb.io.strata_table import Comparison
from ragnb.io.testset import TestSet
from ragnb.metrics import POLICIES, REGISTRY, parse_metric
from ragnb.metrics.judged import Policy
from ragnb.metrics.registry import metric_label
from ragnb.metrics.score import Scores
from ragnb.report.display import checks_html, headline_html, table_html
from ragnb.result import LONG_CELL, display_name, finding
from ragnb.strata.breakdown import Breakdown
from ragnb.strata.spec import StrataSpec
from ragnb.strata.whatif import REPORT_NOTEBOOK, WARNING, LogEntry, WhatIfState
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    import altair as alt

__all__ = ["CUTOFFS", "REPORT_NOTEBOOK", "WARNING", "LogEntry", "WhatIf"]

CUTOFFS = (1, 3, 5, 10, 20, 50, 100)
#: HTML widgets inherit the controls' line height (one row = one control); text and
#: tables inside them read better with the normal one.
_BLOCK_STYLE = "line-height: 1.4; white-space: normal"


def _long_cells_as_notes(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Cells longer than :data:`ragnb.result.LONG_CELL` as ``[n]``, their text as note n.

    The terminal's rule (:func:`ragnb.result.text_table`): a free-text note no longer
    wraps one row of a narrow notebook column to a dozen lines.
    """
    notes: list[str] = []

    def cell(value: Any) -> Any:
        if isinstance(value, str) and len(value) > LONG_CELL:
            notes.append(value)
            return f"[{len(notes)}]"
        return value

    out = table.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = [cell(v) for v in out[column]]
    return out, notes


def _missing_ipywidgets():
    return InputError("the what-if widget needs ipywidgets: pip install ipywidgets "
                      "(it comes with `pip install ragnb`)")


class WhatIf:
    """Interactive stratified breakdown; display :attr:`widget`.

    The session (stratification, metric, policy, log) is :attr:`state`, a
    :class:`~ragnb.strata.whatif.WhatIfState` made from the same arguments;
    the widget adds the controls and draws the result.

    Parameters
    ----------
    test_set, runs, table, baseline, challenger, spec, metric, policy, reported_points, \
resamples, seed, min_stratum, extra, columns, report_parameters
        As for :class:`~ragnb.strata.whatif.WhatIfState`.
    inflation : callable, optional
        ``(metric, policy) -> SelectionInflation or None``: the split's one
        selection-inflation figure for the metric and policy chosen (e.g.
        :func:`ragnb.workspace.inflation.workspace_inflation` of the workspace and
        split), shown under the headline as on every other surface.
    chart : {"vega", "svg", None}
        How the chart is drawn: ``"vega"`` (default) is Altair's
        :class:`~altair.JupyterChart` widget, drawn by the browser (the kernel
        only sends the spec, ~15 ms; offline: its browser code comes from vl-convert);
        ``"svg"`` draws it in the kernel with vl-convert (~0.1-0.4 s
        per update, no browser code needed); ``None`` draws no chart.
    """

    def __init__(self, test_set: TestSet, runs: Sequence[Run] | Mapping[str, Run],
                 table: pd.DataFrame, *, baseline: str, challenger: str,
                 spec: StrataSpec | str | None = None, metric: str = "ndcg@10",
                 policy: Policy = "lower", reported_points=None,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 min_stratum: int = 10, extra: str = "error",
                 columns: Sequence[str] | None = None,
                 report_parameters: Mapping[str, object] | None = None,
                 chart: str | None = "vega", inflation: Callable | None = None,
                 display_names: Mapping[str, str] | None = None) -> None:
        try:
            import ipywidgets as w
        except ImportError:  # pragma: no cover - a dependency of ragnb
            raise _missing_ipywidgets() from None
        if chart not in ("vega", "svg", None):
            raise InputError(f"chart must be 'vega', 'svg' or None, got {chart!r}", key="chart")
        self.state = WhatIfState(
            test_set, runs, table, baseline=baseline, challenger=challenger, spec=spec,
            metric=metric, policy=policy, reported_points=reported_points,
            resamples=resamples, seed=seed, min_stratum=min_stratum, extra=extra,
            columns=columns, report_parameters=report_parameters)
        self.draw_chart = chart
        self.inflation = inflation
        self.display_names = dict(display_names or {})
        self.columns = self.state.columns
        self.breakdown: Breakdown | None = None
        self.error: str | None = None
        self.timings: dict[str, float] = {}
        self._quiet = False

        parsed = parse_metric(metric)
        style = {"description_width": "initial"}
        self.column_w = w.Dropdown(options=self.columns, value=self.column,
                                   description="stratum column", style=style)
        self.metric_w = w.Dropdown(options=list(REGISTRY), value=parsed.spec.name,
                                   description="metric", style=style)
        cutoffs = sorted(set(CUTOFFS) | ({parsed.k} if parsed.k else set()))
        self.k_w = w.Dropdown(options=cutoffs, value=parsed.k or 10, description="k",
                              disabled=not parsed.spec.cutoff,
                              layout=w.Layout(width="160px"), style={"description_width": "20px"})
        self.policy_w = w.ToggleButtons(options=list(POLICIES), value=policy,
                                        description="unjudged", style=style)
        self.strata_box = w.VBox()
        self.merge_from_w = w.SelectMultiple(options=[], rows=4, description="merge",
                                             style=style)
        self.merge_name_w = w.Text(placeholder="name of the merged stratum")
        self.merge_btn = w.Button(description="merge selected", icon="compress")
        self.reset_btn = w.Button(description="reset to the spec", icon="undo")
        self.export_path_w = w.Text(value="", description="export to", style=style,
                                    placeholder="strata-whatif-<date-time>.toml")
        self.written_by_w = w.Text(placeholder="your name", description="written by",
                                   style=style)
        self.export_btn = w.Button(description="export spec", icon="download")
        self.export_html = w.HTML()
        self.status_html = w.HTML()
        self.table_html = w.HTML()
        self.method_html = w.HTML()
        self.chart_html = w.HTML()
        self.chart_box = w.Box([self.chart_html])
        self.chart_w: alt.JupyterChart | None = None  # made at the first update
        self.log_html = w.HTML()
        self._checkboxes: dict[str, object] = {}

        self.column_w.observe(self._on_column, names="value")
        self.metric_w.observe(self._on_metric, names="value")
        self.k_w.observe(self._on_metric, names="value")
        self.policy_w.observe(self._on_metric, names="value")
        self.merge_btn.on_click(lambda _: self._on_merge())
        self.reset_btn.on_click(lambda _: self.reset())
        self.export_btn.on_click(lambda _: self._on_export())

        controls = w.VBox([
            w.HBox([self.column_w, self.metric_w, self.k_w]), self.policy_w,
            w.HTML("<b>Strata</b> (untick to exclude)"), self.strata_box,
            w.HBox([self.merge_from_w, w.VBox([self.merge_name_w, self.merge_btn])]),
            self.reset_btn,
        ])
        export = w.VBox([w.HTML("<b>Turn this what-if into a report</b>"),
                         w.HBox([self.export_path_w, self.written_by_w, self.export_btn]),
                         self.export_html])
        # the answer, then its table and chart; how it was made below them, not above
        self.widget = w.VBox([controls, self.status_html, self.table_html, self.chart_box,
                              self.method_html, self.log_html, export])
        self.widget.add_class("ragnb-whatif")
        self._sync_metric()
        self._rebuild_strata()
        self.update()

    @classmethod
    def from_comparison(cls, comparison: Comparison, **options) -> WhatIf:
        """Build from a :class:`ragnb.strata.Comparison`.

        Such as :meth:`ragnb.workspace.Workspace.comparison` returns.
        """
        options.setdefault("extra", comparison.extra)
        return cls(comparison.test_set, comparison.runs, comparison.table, **options)

    # ----------------------------------------------------------------- state
    def _sync_metric(self) -> None:
        """Set the state's metric and policy from the controls."""
        family = REGISTRY[self.metric_w.value]
        text = family.name + (f"@{self.k_w.value}" if family.cutoff else "")
        self.state.metric, self.state.policy = str(parse_metric(text)), self.policy_w.value

    #: Read through to :attr:`state`: the session is the state's, the widget only shows it.
    _STATE_VIEWS = frozenset({
        "metric", "policy", "spec", "log", "column", "merges", "excluded", "initial_spec",
        "table", "baseline", "challenger", "reported_points"})

    def __getattr__(self, name: str) -> Any:
        """The state's ``metric``, ``policy``, ``spec``, ``log``, ``column``, ``merges``,
        ``excluded``, ``initial_spec``, ``table``, ``baseline``, ``challenger`` and
        ``reported_points`` (read-only views, never copies).
        """
        state = self.__dict__.get("state")
        if name in self._STATE_VIEWS and state is not None:
            return getattr(state, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def scores(self) -> Scores:
        """Per-query scores of the two runs for the current metric and policy (cached)."""
        return self.state.scores()

    def _note(self, text: str) -> None:
        self.state.note(text)

    def _labels(self) -> pd.Series:
        """Stratum of every query after merges, before exclusions."""
        return self.state.labels()

    # -------------------------------------------------------------- controls
    def checkbox(self, label: str):
        """The include/exclude checkbox of a stratum (tests set its ``value``)."""
        try:
            return self._checkboxes[str(label)]
        except KeyError:
            raise InputError(f"no stratum {label!r}; strata: {', '.join(self._checkboxes)}",
                             key=str(label)) from None

    def _rebuild_strata(self) -> None:
        import ipywidgets as w

        labels = self._labels()
        counts = labels.astype(str).value_counts(sort=False)
        if isinstance(labels.dtype, pd.CategoricalDtype):  # the column's own order
            order = [str(c) for c in labels.cat.categories if str(c) in counts.index]
        else:  # as the breakdown lists them: by size, unclassified last
            order = sorted(counts.index, key=lambda c: (c == UNCLASSIFIED, -counts[c], c))
        boxes = {}
        for label in order:
            n = counts[label]
            members = self.merges.get(label)
            text = f"{label} ({n})" + (f" = {' + '.join(members)}" if members else "")
            box = w.Checkbox(value=label not in self.excluded, description=text, indent=False,
                             layout=w.Layout(width="auto"))
            box.observe(lambda change, label=label: self._on_include(label, change["new"]),
                        names="value")
            boxes[label] = box
        self._checkboxes = boxes
        self.strata_box.children = tuple(boxes.values())
        self.merge_from_w.options = list(boxes)
        self.state.excluded &= set(boxes)

    def _on_include(self, label: str, included: bool) -> None:
        self.state.include(label, included)
        self.update()

    def _on_column(self, change) -> None:
        if self._quiet:
            return
        self.state.switch_column(change["old"], change["new"])
        self._rebuild_strata()
        self.update()

    def _on_metric(self, change) -> None:
        family = REGISTRY[self.metric_w.value]
        self.k_w.disabled = not family.cutoff
        self._sync_metric()
        self._note(f"{change['owner'].description} {change['old']!r} -> {change['new']!r}: "
                   f"now {self.metric}, {self.policy} policy")
        self.update()

    def merge(self, labels: Sequence[str], name: str) -> None:
        """Merge strata (current labels; merged ones are expanded) into ``name``."""
        labels = [str(x) for x in labels]
        name = name.strip()
        problem = self.state.merge_problem(labels, name, set(self._checkboxes))
        if problem:
            self.status_html.value = f'<p style="color:#b00020">{html.escape(problem)}</p>'
            self.error = problem
            return
        self.state.merge(labels, name)
        self._rebuild_strata()
        self.update()

    def _on_merge(self) -> None:
        self.merge(list(self.merge_from_w.value), self.merge_name_w.value)
        if self.error is None:
            self.merge_name_w.value = ""

    def reset(self) -> None:
        """Back to the starting spec (logged; the log itself is kept)."""
        self._quiet = True
        try:
            self.state.reset()
            self.column_w.value = self.column
        finally:
            self._quiet = False
        self._rebuild_strata()
        self.update()

    # ---------------------------------------------------------------- update
    def update(self) -> None:
        """Recompute the breakdown for the current state and redraw (timed)."""
        if self._quiet:
            return
        t0 = time.perf_counter()
        try:
            self.scores()
            t1 = time.perf_counter()
            bd = self.state.breakdown()
        except RagnbError as exc:
            self.error = str(exc)
            self.status_html.value = (f'<p style="color:#b00020"><b>Cannot compute:</b> '
                                      f"{html.escape(str(exc))}</p>")
            self._render_log()
            return
        t2 = time.perf_counter()
        self.error = None
        self.breakdown = bd
        pooled = bd.pooled
        table, notes = _long_cells_as_notes(bd.display_table())
        names = self.display_names
        self.table_html.value = (
            f'<div class="ragnb-whatif-table" style="{_BLOCK_STYLE}" '
            f'data-pooled-n="{int(pooled["n"])}" '
            f'data-pooled-delta="{pooled["delta"]:.10f}" data-metric="{html.escape(bd.metric)}">'
            + table_html(table, index=False,
                         caption=f"{metric_label(bd.metric)}, "
                                 f"{display_name(bd.challenger, names)} − "
                                 f"{display_name(bd.baseline, names)}, points")
            + "".join(f'<p style="font-size: 90%">[{n}] {html.escape(text)}</p>'
                      for n, text in enumerate(notes, start=1))
            + "</div>")
        t3 = time.perf_counter()
        if self.draw_chart:
            from ragnb.strata.charts import strata_chart, strata_spec

            if self.draw_chart == "svg":
                import vl_convert as vlc

                self.chart_html.value = vlc.vegalite_to_svg(strata_spec(bd))
            elif self.chart_w is None:
                import altair as alt

                # the browser code from vl-convert, not a CDN: Altair does this only when a
                # chart has gone through its offline renderer, and the widget may come first
                alt.JupyterChart.enable_offline()
                self.chart_w = alt.JupyterChart(strata_chart(bd))  # validated once
                self.chart_box.children = (self.chart_w,)
            else:  # the chart has no params or selections: swapping the spec is enough,
                # and the same spec built without Altair costs ~1 ms instead of 0.05-0.15 s
                self.chart_w.spec = strata_spec(bd)
        t4 = time.perf_counter()
        self.timings = {"scores": t1 - t0, "bootstrap": t2 - t1, "table": t3 - t2,
                        "chart": t4 - t3, "total": t4 - t0}
        lines = self.state.status_lines(bd)
        figure = (self.inflation(self.state.metric, self.state.policy)
                  if self.inflation is not None else None)
        if figure is not None:
            lines.append(f"Selection inflation on {figure.split} ({figure.selections} "
                         f"selections against it): {figure.label()}.")
        # the one result shape: the same headline as the report, with the same names
        found = finding(bd, chart=False, display_names=names)
        self.status_html.value = (f'<div style="{_BLOCK_STYLE}" data-update-s="{t4 - t0:.4f}">'
                                  + headline_html(found.headline) + checks_html(found.checks)
                                  + "".join(f"<p>{html.escape(x)}</p>" for x in lines) + "</div>")
        self.method_html.value = (f'<div class="ragnb-whatif-method" style="{_BLOCK_STYLE}; '
                                  f'font-size: 90%; color: #444"><p>Method: '
                                  f"{html.escape(bd.description)}. Updated in {t4 - t0:.2f} s."
                                  "</p></div>")
        self._render_log()

    def _render_log(self) -> None:
        entries = "".join(f"<li>{e.at:%H:%M:%S} {html.escape(e.text)}</li>" for e in self.log)
        weight = "bold" if self.log else "normal"
        self.log_html.value = (
            f'<div class="ragnb-whatif-log" style="{_BLOCK_STYLE}">'
            f'<p style="color:#b00020; font-weight:{weight}">⚠ {html.escape(WARNING)}</p>'
            f"<p>Starting stratification: {html.escape(self.initial_spec.describe())} "
            f"({html.escape(self.initial_spec.origin)}"
            + (f", {html.escape(self.initial_spec.source)}" if self.initial_spec.source else "")
            + f"). Changes since:</p><ol>{entries or '<li>none</li>'}</ol></div>")

    # ---------------------------------------------------------------- export
    def export_spec(self, path: str | PathLike[str], written_by: str) -> Path:
        """Write the current stratification and the log as a ``what-if`` spec file."""
        return self.state.export_spec(path, written_by)

    def report_command(self, spec_path: str | PathLike[str]) -> str:
        """The ``ragnb report`` command that rebuilds the current view from a spec file."""
        return self.state.report_command(spec_path)

    def _on_export(self) -> None:
        name = self.export_path_w.value.strip() or \
            f"strata-whatif-{datetime.now(UTC):%Y%m%d-%H%M%S}.toml"
        try:
            path = self.export_spec(name, self.written_by_w.value)
        except RagnbError as exc:
            self.export_html.value = f'<p style="color:#b00020">{html.escape(str(exc))}</p>'
            return
        self._note(f"exported the spec to {path}")
        self._render_log()
        self.export_html.value = (
            f"<p>Wrote <code>{html.escape(str(path))}</code>. Build the report with:</p>"
            f"<pre>{html.escape(self.report_command(path))}</pre>")
