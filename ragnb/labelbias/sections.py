"""What the label-bias page (``04-label-bias``) and ``ragnb bounds`` / ``ragnb pool`` show.

One set of functions builds each part as :class:`~ragnb.result.Section` objects,
so the page, its report, ``ragnb run 04-label-bias`` and the commands print the
same tables (data 0-1 kept in each CSV, shown in points by the section's units)
and the same sentences:

=============================  =========================================================
:func:`bounds_sections`        the pooling assumption, the bounds in points, every column
                               (appendix) and which columns are policies or bounds
:func:`rule_section`           the three-way verdict's rule
:func:`judge_next_sections`    how many passages to judge, the pool per config and the
                               judge-next list (cut at ``max_rows``)
:func:`shard_sections`         a labelled shard's lesson, its effect on each config's mean
                               and difference to the baseline, every column (appendix)
:func:`pool_finding`           ``ragnb pool list``'s Finding (the judge-next sections)
:func:`shard_finding`          ``ragnb pool shard``'s Finding (the shard sections)
=============================  =========================================================
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from ragnb.labelbias.bounds import COLUMN_KINDS, Bounds, bounds_table
from ragnb.labelbias.finding import shard_lesson
from ragnb.labelbias.labelling import ORDER_EXPLANATION, pool_summary
from ragnb.labelbias.pool import Pool
from ragnb.labelbias.verdict import RULE
from ragnb.result import (
    POINTS,
    Finding,
    Headline,
    Section,
    display_name,
    markdown_section,
    markdown_text,
    notes_sections,
    table_section,
)

#: Columns of the bounds' body table (the appendix has every column of :func:`bounds_table`).
BOUNDS_BODY = ["config", "unjudged_share", "lower", "condensed", "upper", "bound_min",
               "bound_max"]
#: Display units of the bounds' body table: a share of passages in percent, metric values in
#: points with two decimals.
BOUNDS_UNITS = {"unjudged_share": "percent", **dict.fromkeys(BOUNDS_BODY[2:], "points")}
#: Columns of the judge-next list shown (the CSV and ``judge_next`` have every column).
JUDGE_NEXT_COLUMNS = ["order", "query_id", "query", "passage_id", "retrieved_by", "challenger",
                      "direction", "swing"]
#: What a shard's row moves: the config's own mean, or its difference to the baseline.
EFFECT_ON = "effect on"
#: Columns of the shard projection's body table (the judgments the shard added are the same on
#: every row: the lesson states them, the appendix keeps every column).
SHARD_BODY = ["config", EFFECT_ON, "n_shard", "effect_full", "projected", "ci_low", "ci_high"]
#: Display units of the shard projection (changes of a mean, signed points).
SHARD_UNITS = dict.fromkeys(("effect_full", "projected", "ci_low", "ci_high"), "signed points")
#: What a dash in the bounds table means.
BOUNDS_DASH = ("A dash: not defined (a config with no passage in its top k for these queries "
               "has no unjudged share).")


def named(table: pd.DataFrame, display_names: Mapping[str, str] | None,
          columns: Iterable[str] = ("config", "challenger", "baseline")) -> pd.DataFrame:
    """``table`` with the config cells of ``columns`` shown as ``name (config)``."""
    if not display_names:
        return table
    return table.assign(**{c: [display_name(v, display_names) if isinstance(v, str) else v
                               for v in table[c]] for c in columns if c in table})


def bounds_sections(bounds: Bounds, *, first: Iterable[str] = (),
                    display_names: Mapping[str, str] | None = None,
                    strata: pd.Series | None = None, chart: Any = None,
                    caption: str = "") -> list[Section]:
    """The assumption, the bounds in points (``first`` configs first), every column in the
    appendix, which columns are policies and which are bounds, then ``chart`` if given.

    ``caption``: a heading over the part (the page's question of the bounds).
    """
    table = bounds_table(bounds, strata, first=first)
    body = (BOUNDS_BODY if strata is None
            else [BOUNDS_BODY[0], "stratum", "n", *BOUNDS_BODY[1:]])
    dash = BOUNDS_DASH if table[body].isna().any(axis=None) else ""
    meanings = "\n\n".join(markdown_text("**{column}**: {kind}", column=c, kind=k)
                           for c, k in COLUMN_KINDS.items())
    sections = [
        markdown_section(markdown_text("**Assumption.** {a}", a=bounds.assumption()), caption),
        table_section(named(table[body], display_names),
                      f"{bounds.metric} in {POINTS}: unjudged share of the top k, the three "
                      "policies and the exact bounds", units=BOUNDS_UNITS, note=dash),
        table_section(table, f"{bounds.metric}, every column, metric units (0-1)",
                      appendix=True, note=dash, max_rows=len(table)),   # every row
        markdown_section("**Which columns are policies and which are bounds.**\n\n"
                         + meanings),
    ]
    if chart is not None:
        sections.append(Section(f"{bounds.metric} in points: the three policies and the exact "
                                "bounds of each config", "chart", chart))
    return sections


def rule_section() -> Section:
    """The three-way verdict's rule, one line."""
    return markdown_section(markdown_text("**Rule.** {rule}", rule=RULE))


def judge_next_sections(pool: Pool, next_up: pd.DataFrame | None, *, first: Iterable[str] = (),
                        display_names: Mapping[str, str] | None = None,
                        max_rows: int | None = None, caption: str = "") -> list[Section]:
    """How many passages to judge, the pool per config, then the judge-next list.

    ``next_up`` is :func:`ragnb.labelbias.judge_next`'s table (None: the pool is listed
    without an order, :func:`ragnb.labelbias.labelling_list`'s table is not shown);
    ``max_rows`` cuts the list shown (its CSV keeps every row).
    """
    count = len(pool.item_q) if next_up is None else len(next_up)
    text = markdown_text("{n} passages to judge in all. {how}", n=count,
                         how=ORDER_EXPLANATION if next_up is not None else "")
    sections = [
        markdown_section(text.rstrip(), caption),
        table_section(named(pool_summary(pool, first=first), display_names),
                      "Unjudged passages in each config's top k and in the pooled union (what "
                      "labellers get)"),
    ]
    if next_up is not None:
        shown = next_up[[c for c in JUDGE_NEXT_COLUMNS if c in next_up]]
        sections.append(table_section(
            named(shown, display_names), "Judge next: ordered by how far one label could move "
            "a challenger-minus-baseline difference (swing in points)",
            units={"swing": "points"}, max_rows=max_rows))
    return sections


def shard_table(projection: pd.DataFrame, baseline: str | None, *,
                display_names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The projection's body: each config's rows together, ``effect on`` saying what moves
    (the config's mean, or its difference to the baseline: the rows the raw ``target``
    column tells apart).
    """
    base = display_name(baseline, display_names) if baseline else ""
    order = {c: i for i, c in enumerate(pd.unique(projection["config"]))}
    t = projection.assign(
        **{EFFECT_ON: ["its mean" if target == config else f"its difference to {base}"
                       for config, target in zip(projection["config"], projection["target"])],
           "_c": projection["config"].map(order),
           "_d": projection["target"] != projection["config"]})
    t = t.sort_values(["_c", "_d"], kind="stable").reset_index(drop=True)
    return named(t[[c for c in SHARD_BODY if c in t]], display_names)


def shard_sections(projection: pd.DataFrame, metric: str, shard: str,
                   baseline: str | None, *, display_names: Mapping[str, str] | None = None,
                   chart: Any = None, caption: str = "") -> list[Section]:
    """The shard's lesson, its effect on each config's mean and difference to ``baseline``
    projected to the whole set (points), every column (appendix), then ``chart`` if given.
    """
    lesson = shard_lesson(projection, metric, display_names=display_names)
    against = f" and on its difference to {baseline}" if baseline else ""
    sections = [
        markdown_section(markdown_text("**Lesson.** {lesson}", lesson=lesson), caption),
        table_section(shard_table(projection, baseline, display_names=display_names),
                      f"Effect of labelling {shard} alone on each config's mean{against}, "
                      f"projected to the whole set, in {POINTS}", units=SHARD_UNITS),
        table_section(projection, f"Projection from {shard}, every column, metric units (0-1)",
                      appendix=True, max_rows=len(projection)),   # every row
    ]
    if chart is not None:
        sections.append(Section(f"Labelling {shard}: the effect on each config's full-set mean "
                                "(bar) and its projection with an interval", "chart", chart))
    return sections


#: Columns of the unordered labelling list shown (``rank_<config>`` stay in its exports).
LISTING_COLUMNS = ["query_id", "query", "passage_id", "n_configs", "best_rank", "retrieved_by"]


def pool_finding(pool: Pool, next_up: pd.DataFrame | None, *, first: Iterable[str] = (),
                 listing: pd.DataFrame | None = None, max_rows: int | None = None,
                 metric: str = "", display_names: Mapping[str, str] | None = None,
                 notes: Iterable[str] = (), context: Iterable[str] = ()) -> Finding:
    """``ragnb pool list``: what to label, as a Finding with the page's judge-next sections.

    ``next_up``: :func:`ragnb.labelbias.judge_next`'s table (None: ``listing``,
    :func:`ragnb.labelbias.labelling_list`'s, is shown instead, in the pool's order);
    ``max_rows`` cuts the list shown; ``context`` lines (the test set, the split
    ledger, files written) and ``notes`` are read under the tables.
    """
    n = len(pool.item_q) if next_up is None else len(next_up)
    with_any = int((pool.items_per_query() > 0).sum())
    answer = (f"{n} pooled unjudged passages in {with_any} of {pool.n_queries} queries (the "
              f"union of the top {pool.k} of {len(pool.configs)} configs, minus what is "
              "judged).")
    if next_up is not None and len(next_up):
        top = next_up.iloc[0]
        answer += (f" Judging the first alone could move "
                   f"{display_name(str(top['challenger']), display_names)}'s difference to "
                   f"the baseline on {metric} by {top['swing'] * 100:.2f} points.")
        next_step = ("Judge them in the judge-next order below, then merge the labels with "
                     "`ragnb pool merge`.")
    elif n:
        next_step = ("Judge them, then merge the labels with `ragnb pool merge`; --baseline "
                     "and --metric order them by how far one label could move a difference.")
    else:
        next_step = "Nothing to judge: every passage in the configs' top k is judged."
    sections = judge_next_sections(pool, next_up, first=first, display_names=display_names,
                                   max_rows=max_rows)
    if next_up is None and listing is not None:
        sections.append(table_section(listing[[c for c in LISTING_COLUMNS if c in listing]],
                                      "The pooled labelling list, by query and best rank",
                                      max_rows=max_rows))
    sections += context_sections(context, notes)
    return Finding(Headline("What should be labelled next?", answer, next_step,
                            f"{n} passages to judge"),
                   sections[1].content, sections=tuple(sections),
                   objects={"pool": pool, "judge_next": next_up, "listing": listing})


def shard_finding(projection: pd.DataFrame, metric: str, shard: str, baseline: str | None, *,
                  display_names: Mapping[str, str] | None = None,
                  notes: Iterable[str] = (), context: Iterable[str] = ()) -> Finding:
    """``ragnb pool shard``: what one labelled shard predicted, as a Finding with the page's
    shard sections (the answer is the shard's lesson); ``context`` lines and ``notes`` are
    read under the tables.
    """
    # the lesson is the answer: the sections start at the table
    sections = shard_sections(projection, metric, shard, baseline,
                              display_names=display_names)[1:]
    lesson = shard_lesson(projection, metric, display_names=display_names)
    first = projection.iloc[0] if len(projection) else None
    method = "" if first is None else (
        f"effect_full: the change of the mean over all {int(first['n_total'])} queries; "
        "projected: the shard's mean change (= effect_full x N/n) with a "
        f"{int(first['resamples']):,}-resample percentile bootstrap interval over the shard's "
        f"queries, finite-population corrected; seed {int(first['seed'])}")
    sections += context_sections(context, notes)
    moved = ("Label the rest of the pool before deciding on a difference these labels moved: "
             "the projection holds only if the shard's queries are like the others.")
    return Finding(Headline(f"What did labelling {shard} predict?",
                            lesson[0].upper() + lesson[1:] if lesson else "No config row.",
                            moved, f"shard {shard}"),
                   sections[0].content, description=method, sections=tuple(sections),
                   objects={"projection": projection})


def context_sections(context: Iterable[str], notes: Iterable[str]) -> list[Section]:
    """The lines a command reads under its tables: the test set and split ledger
    (``context``), then its notes; none when there are none.
    """
    context, notes = list(context), list(notes)
    out = []
    if context:
        out.append(markdown_section("\n\n".join(markdown_text("{line}", line=line)
                                                 for line in context),
                                    "Test set and split ledger"))
    out += notes_sections(notes, appendix=False)
    return out
