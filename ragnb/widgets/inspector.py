"""The query inspector: sort queries by delta, filter by stratum, look at one query.

:class:`QueryInspector` shows the per-query deltas of two configs (sorted,
optionally one stratum), and for the selected query its text, the per-query
scores of every metric in the score table, and the two configs' top k side by
side with grades and unjudged passages marked. It reads plain data objects
(test set, runs, score table, strata Series), so any loader can feed it.

State lives in attributes, so plain Python (tests) can drive it: set
``sort_w.value``, ``stratum_w.value``, ``query_w.value`` or ``k_w.value`` and
read :attr:`deltas`, :attr:`selected`, :attr:`top` and :attr:`scores_shown`;
the HTML widgets' ``value`` is what a browser shows.
"""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import pandas as pd

from ragnb.errors import InputError, RagnbError
from ragnb.io.run import Run
from ragnb.io.testset import TestSet
from ragnb.metrics import parse_metric
from ragnb.metrics.score import Scores
from ragnb.perquery.deltas import SORTS, UNJUDGED, query_deltas, query_scores, side_by_side
from ragnb.report.display import table_html
from ragnb.result import POINTS, points

ALL = "all strata"
CUTOFFS = (5, 10, 20, 50)
_BLOCK_STYLE = "line-height: 1.4; white-space: normal"
#: The per-query score table's metric columns, shown in points (the data stays 0-1).
SCORE_UNITS = {"baseline": "points", "challenger": "points", "delta": "signed points"}


class QueryInspector:
    """Per-query deltas and the rankings behind one query; display :attr:`widget`.

    Parameters
    ----------
    test_set : TestSet
        For the query text (column ``query`` when present) and the grades.
    runs : sequence or mapping of Run
        Must include ``baseline`` and ``challenger``.
    scores : Scores or DataFrame
        Score table of both configs; ``metric`` orders the queries, every
        metric in it is shown for the selected query.
    baseline, challenger : str
    metric : str
    strata : Series, optional
        ``query_id -> stratum`` for the filter.
    k : int
        How many passages of each ranking to show.
    """

    def __init__(self, test_set: TestSet, runs: Sequence[Run] | Mapping[str, Run],
                 scores: Scores | pd.DataFrame, *, baseline: str, challenger: str,
                 metric: str, strata: pd.Series | None = None, k: int = 10,
                 sort: str = "losses first") -> None:
        import ipywidgets as w

        self.test_set, self.scores = test_set, scores
        self.runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
        self.baseline, self.challenger = baseline, challenger
        self.metric = str(parse_metric(metric))
        self.strata = strata
        q = test_set.queries
        self._text = (dict(zip(q["query_id"].astype(str), q["query"].astype(str)))
                      if "query" in q.columns else {})
        self._all = query_deltas(scores, baseline=baseline, challenger=challenger,
                                 metric=self.metric, strata=strata)
        self.deltas: pd.DataFrame = self._all
        self.selected: str | None = None
        self.top: pd.DataFrame | None = None
        self.scores_shown: pd.DataFrame | None = None
        self.error: str | None = None

        style = {"description_width": "initial"}
        levels = sorted(set(self._all["stratum"]))
        self.sort_w = w.Dropdown(options=list(SORTS), value=sort, description="sort",
                                 style=style)
        self.stratum_w = w.Dropdown(options=[ALL, *levels], value=ALL, description="stratum",
                                    style=style, disabled=strata is None)
        self.k_w = w.Dropdown(options=sorted(set(CUTOFFS) | {k}), value=k, description="top k",
                              style=style, layout=w.Layout(width="140px"))
        self.query_w = w.Select(options=[], rows=12, description="query", style=style,
                                layout=w.Layout(width="420px"))
        self.summary_html = w.HTML()
        self.query_html = w.HTML()
        self.scores_html = w.HTML()
        self.top_html = w.HTML()
        self.sort_w.observe(lambda _: self._refilter(), names="value")
        self.stratum_w.observe(lambda _: self._refilter(), names="value")
        self.query_w.observe(lambda _: self._show(), names="value")
        self.k_w.observe(lambda _: self._show(), names="value")
        detail = w.VBox([self.query_html, self.scores_html, self.top_html],
                        layout=w.Layout(flex="1 1 auto"))
        self.widget = w.VBox([
            w.HBox([self.sort_w, self.stratum_w, self.k_w]), self.summary_html,
            w.HBox([self.query_w, detail]),
        ])
        self.widget.add_class("ragnb-inspector")
        self._refilter()

    @classmethod
    def from_comparison(cls, comparison, scores, *, stratum: str | None = None,
                        **options) -> QueryInspector:
        """Build from a :class:`ragnb.strata.Comparison` (``Workspace.comparison``);
        ``stratum`` names a column of its strata table.
        """
        strata = None
        if stratum is not None:
            t = comparison.table
            if stratum not in t.columns:
                raise InputError(f"no stratum column {stratum!r} (columns: "
                                 f"{', '.join(c for c in t.columns if c != 'query_id')})",
                                 key=stratum)
            strata = pd.Series(t[stratum].to_numpy(), index=t["query_id"].astype(str))
        return cls(comparison.test_set, comparison.runs, scores, strata=strata, **options)

    def _label(self, row) -> str:
        return f"{points(row.delta, signed=True, digits=2)}  {row.query_id}"

    def _refilter(self) -> None:
        stratum = None if self.stratum_w.value == ALL else self.stratum_w.value
        self.deltas = query_deltas(self.scores, baseline=self.baseline,
                                   challenger=self.challenger, metric=self.metric,
                                   strata=self.strata, sort=self.sort_w.value, stratum=stratum)
        d = self.deltas["delta"]
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        self.summary_html.value = (
            f'<div style="{_BLOCK_STYLE}" class="ragnb-inspector-summary" '
            f'data-n="{len(d)}">{len(d)} queries'
            f"{'' if stratum is None else ' in stratum <b>' + html.escape(stratum) + '</b>'}, "
            f"Δ {html.escape(self.metric)} = {html.escape(self.challenger)} − "
            f"{html.escape(self.baseline)}: challenger better on {wins}, tie on "
            f"{len(d) - wins - losses}, baseline better on {losses}; mean Δ "
            f"{points(d.mean(), signed=True, digits=2)} points"
            "</div>")
        options = [(self._label(r), r.query_id) for r in self.deltas.itertuples()]
        keep = self.selected if self.selected in set(self.deltas["query_id"]) else None
        self.query_w.options = options
        self.query_w.value = keep if keep is not None else (options[0][1] if options else None)
        self._show()

    def select(self, query_id: str) -> None:
        """Show one query (it must be in the current filter)."""
        if query_id not in set(self.deltas["query_id"]):
            raise InputError(f"query {query_id!r} is not in the list shown "
                             f"({len(self.deltas)} queries)", key=str(query_id))
        self.query_w.value = query_id

    def _show(self) -> None:
        qid = self.query_w.value
        self.selected = qid
        if qid is None:
            self.query_html.value = "<i>no query in this filter</i>"
            self.scores_html.value = self.top_html.value = ""
            self.top = self.scores_shown = None
            return
        try:
            self.scores_shown = query_scores(self.scores, qid, baseline=self.baseline,
                                             challenger=self.challenger)
            self.top = side_by_side(self.test_set, self.runs, qid, baseline=self.baseline,
                                    challenger=self.challenger, k=self.k_w.value)
            self.error = None
        except RagnbError as exc:
            self.error = str(exc)
            self.query_html.value = f'<div class="ragnb-error">{html.escape(str(exc))}</div>'
            return
        row = self.deltas.set_index("query_id").loc[qid]
        text = self._text.get(qid)
        unjudged = {c: int((self.top[f"{c} grade"] == UNJUDGED).sum())
                    for c in (self.baseline, self.challenger)}
        # the query line last: a page that sees the new query id sees its tables too
        self.scores_html.value = table_html(
            self.scores_shown, index=False, units=SCORE_UNITS,
            caption=f"Per-query scores ({self.challenger} − {self.baseline}), in {POINTS}")
        self.top_html.value = (
            f'<div class="ragnb-inspector-top" style="{_BLOCK_STYLE}" '
            f'data-query-id="{html.escape(qid)}">'
            + table_html(self.top, index=False, caption=(
                f"Top {self.k_w.value} side by side; unjudged: {self.baseline} "
                f"{unjudged[self.baseline]}, {self.challenger} {unjudged[self.challenger]}"))
            + "</div>")
        self.query_html.value = (
            f'<div style="{_BLOCK_STYLE}" class="ragnb-inspector-query" '
            f'data-query-id="{html.escape(qid)}"><b>{html.escape(qid)}</b>'
            f" (stratum {html.escape(str(row['stratum']))})<br>"
            f"{html.escape(text) if text else '<i>no query text in the test set</i>'}</div>")
