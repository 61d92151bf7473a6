"""Page ``03-strata``: where does the gain come from? The stratified breakdown on a workspace.

``resolve`` reads the manifest's names (``[report.strata]`` / ``[report]``:
``test_set``, ``baseline``, ``challenger``, ``metric``, ``policy``,
``stratum``, ``spec``, ``reported``; the test set's strata file); ``run``
scores the pair, breaks the gain down by stratum (:func:`ragnb.strata.breakdown`)
and returns its Finding with the stratification, the reading and the
query-by-query sections.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ragnb.metrics.judged import Policy
from ragnb.metrics.score import score
from ragnb.pages.registry import Inputs, MissingInput, no_run, policy_of, register, workspace_of
from ragnb.perquery import query_delta_chart, query_deltas, side_by_side
from ragnb.result import (
    POINTS,
    Finding,
    Section,
    markdown_section,
    markdown_text,
    notes_sections,
    points,
    table_section,
)
from ragnb.strata import StrataSpec, breakdown, read_spec, spec_timing
from ragnb.vocab import DEFAULT_RESAMPLES, DEFAULT_SEED

#: What the stratification timing says, by its verdict.
TIMING = {"before": "Pre-registered.", "after": "Not pre-registered.", "no spec": "No spec."}
#: What a dash in the full breakdown table means.
DASHES = ("A dash: not defined for the row (a stratum that cannot move has no test, Holm "
          "adjusts the strata only, the equal-weight row has no test).")
#: Queries shown among the largest losses and wins.
EXTREMES = 5


@dataclass(frozen=True)
class StrataInputs(Inputs):
    """What the strata page reads: the workspace and the names resolved from its manifest.

    ``strata_spec`` is a spec file ("" none: the plain column ``stratum``);
    ``reported`` a pooled figure in points as printed elsewhere ("" none).
    """

    PAGE: ClassVar[str] = "03-strata"
    split: str
    baseline: str
    challenger: str
    metric: str
    policy: Policy
    stratum: str
    strata_spec: str
    reported: str


def resolve(workspace: Any, *, split: str = "", baseline: str = "", challenger: str = "",
            metric: str = "", policy: str = "", stratum: str = "", strata_spec: str = "",
            reported: str = "", resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> StrataInputs:
    """The strata page's inputs: given values win over ``[report.strata]``, then ``[report]``.

    Raises
    ------
    MissingInput
        No strata file (nor a stratum column given), no baseline or challenger, or no
        run of one of them on the test set.
    """
    ws = workspace_of(workspace)
    split = ws.test_set_for("strata", split)
    entry = ws.strata_entry(split)
    if entry is None and not ws.setting("strata", "stratum", stratum):
        raise MissingInput(f"test set {split!r} has no strata file "
                           f"([test_sets.{split}.strata] path)")
    baseline = ws.setting("strata", "baseline", baseline)
    challenger = ws.setting("strata", "challenger", challenger)
    if not baseline or not challenger:
        raise MissingInput("no baseline and challenger configs ([report] baseline, challenger)")
    lacking = [c for c in (baseline, challenger) if c not in ws.configs(split)]
    if lacking:
        raise no_run(ws, split, lacking)
    spec = ws.spec_path(split, "strata", strata_spec)
    column = ws.setting("strata", "stratum", stratum) or (entry.by if entry else "")
    if not spec and not column:
        raise MissingInput(f"no stratum column ([test_sets.{split}.strata] by)")
    reported = ws.setting("strata", "reported", reported)
    return StrataInputs(ws, split, baseline, challenger,
                        ws.setting("strata", "metric", metric, "ndcg@10"),
                        policy_of(ws.setting("strata", "policy", policy, "lower")), column, spec,
                        "" if reported == "none" else str(reported),
                        resamples=resamples, seed=seed)


def _stratification(inputs: StrataInputs, spec: StrataSpec, timing: Any) -> str:
    text = markdown_text("{describe}. **{verdict}** {line}",
                         describe=spec.describe(), verdict=TIMING[timing.verdict],
                         line=timing.line)
    if inputs.strata_spec and inputs.stratum and spec.column != inputs.stratum:
        text = markdown_text("The spec's column **{column}** is used (the `stratum` "
                             "parameter, {given}, is not).\n\n", column=spec.column,
                             given=inputs.stratum) + text
    return text


def _reading(bd: Any) -> str:
    """The pooled and equal-weight figures, zero-width strata, the reconciliation line."""
    macro = bd.table.set_index("kind").loc["macro"] if "macro" in set(bd.table["kind"]) else None
    parts = [markdown_text("**Pooled:** {pooled} points (size-weighted). **Equal-weight:** "
                           "{macro} points.", pooled=points(bd.pooled["delta"], signed=True),
                           macro="—" if macro is None else points(macro["delta"], signed=True)),
             markdown_text("{completeness}", completeness=bd.completeness)]
    zero = bd.strata[bd.strata["note"].str.contains("zero-width")]
    parts += [markdown_text("**{name}**: {note}.", name=name, note=note)
              for name, note in zip(zero["stratum"], zero["note"])]
    if bd.reconciliation_line:
        parts.append(markdown_text("**{line}**", line=bd.reconciliation_line))
    return "\n\n".join(parts)


def _by_query(inputs: StrataInputs, comparison: Any, column: str, names: dict[str, str]
              ) -> tuple[list[Section], dict[str, Any]]:
    """The query-by-query chart, the largest losses and wins, the worst query side by side."""
    i, ws = inputs, inputs.workspace
    per_query = score(comparison.test_set, comparison.runs, [i.metric, "judged@10"],
                      policy=i.policy, **ws.score_options)
    query_strata = comparison.table.set_index("query_id")[column].astype(str)
    deltas = query_deltas(per_query, baseline=i.baseline, challenger=i.challenger,
                          metric=i.metric, strata=query_strata)
    what = f"{i.metric} in points: {i.challenger} − {i.baseline}, stratum {column}"
    # data stays 0-1 (the CSV); the page shows points
    units = {"baseline": "points", "challenger": "points", "delta": "signed points"}
    sections = [Section(f"Every query's difference ({what}), sorted", "chart",
                        query_delta_chart(deltas, display_names=names)),
                table_section(deltas.head(EXTREMES), f"Largest losses ({what})", units=units),
                table_section(deltas.sort_values("delta", ascending=False).head(EXTREMES),
                              f"Largest wins ({what})", units=units)]
    if len(deltas):
        worst = deltas["query_id"].iloc[0]
        queries = comparison.test_set.queries.set_index("query_id")
        text = queries["query"].get(worst, "") if "query" in queries.columns else ""
        sections.append(table_section(
            side_by_side(comparison.test_set, comparison.runs, worst, baseline=i.baseline,
                         challenger=i.challenger, k=10),
            f"Query {worst} ({text}): top 10 side by side (grade, or unjudged)"))
    return sections, {"per_query": per_query, "deltas": deltas, "query_strata": query_strata}


def run(inputs: StrataInputs) -> Finding:
    """The breakdown's Finding: headline, chart, body table, stratification, reading, queries.

    ``objects``: ``comparison`` (test set, runs, strata table), ``scores``, ``spec``,
    ``timing`` (when the spec was written, :func:`ragnb.strata.spec_timing`),
    ``per_query`` (the metric and judged@10 per query), ``deltas`` (per query, sorted),
    ``query_strata``.
    """
    i, ws = inputs, inputs.workspace
    names = ws.display_names
    comparison = ws.comparison(i.split, [i.baseline, i.challenger])
    scores = score(comparison.test_set, comparison.runs, i.metric, policy=i.policy,
                   **ws.score_options)
    notes = (*scores.notes, *comparison.table.attrs.get("notes", ()))
    spec = read_spec(i.strata_spec) if i.strata_spec else StrataSpec.plain(i.stratum)
    timing = spec_timing(spec, comparison.score_inputs)
    bd = breakdown(scores, comparison.table, spec, baseline=i.baseline,
                   challenger=i.challenger, metric=i.metric, reported_points=i.reported or None,
                   resamples=i.resamples, seed=i.seed)
    own = bd.finding(display_names=names)
    steps = "\n\n".join(markdown_text("spec: {step}", step=s) for s in bd.applied.steps)
    by_query, per_query = _by_query(i, comparison, spec.column, names)
    sections: list[Section] = [
        *own.sections,  # the chart right under the headline, then the body table
        markdown_section(_stratification(i, spec, timing), "Stratification"),
        markdown_section(_reading(bd) + (f"\n\n{steps}" if steps else ""), "Reading"),
        table_section(bd.display_table(), f"{bd.metric}, {i.challenger} − {i.baseline}, in "
                      f"{POINTS}, every column: p-values, MDE and queries needed per stratum",
                      appendix=True, note=DASHES),
        *by_query,
    ]
    sections += notes_sections(notes)
    return Finding(own.headline, own.display_table, own.chart, own.checks, own.description,
                   own.caption, bd, tuple(sections),
                   {"comparison": comparison, "scores": scores, "spec": spec,
                    "timing": timing, **per_query})


register(StrataInputs.PAGE, resolve, run)
