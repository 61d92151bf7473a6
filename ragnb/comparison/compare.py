"""``ragnb.compare``: score runs on a test set and compare them with a baseline, in one call."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragnb.comparison.finding import comparison_finding
from ragnb.metrics import parse_metric
from ragnb.metrics.score import file_metrics, score
from ragnb.result import Finding, notes_sections
from ragnb.stats.family import compare_metrics


def compare(test_set: Any, runs: Sequence[Any], metrics: str | Sequence[str], *,
            baseline: str | None = None, policy: str = "lower",
            display_names: Mapping[str, str] | None = None, judge: Any = None,
            **options: Any) -> Finding:
    """Compare every run with the baseline: the Finding ``ragnb compare`` prints.

    Parameters
    ----------
    test_set : TestSet or path
        :func:`ragnb.read_test_set`'s result, or a file it reads; an nDCG naming no gain
        then takes the one the file's format implies (linear for TREC qrels, as
        ``ragnb compare --judgments`` and ``ragnb init``).
    runs : sequence of Run, paths or what :func:`ragnb.score` reads
        One per config, in order (:func:`ragnb.read_run`'s results, paths, DataFrames).
    metrics : str or sequence of str
        ``"ndcg@10"``, ``["ndcg@10", "rr@10"]`` (one Holm family: metrics x challengers).
    baseline : str, optional
        The reference config (default: the first run's).
    policy : {"lower", "condensed", "upper"}
        Unjudged passages.
    display_names : mapping, optional
        Config -> name shown.
    judge : path, DataFrame, qrels dict, TestSet or True, optional
        A model judge's labels of the test set's queries (True: those already beside it,
        :attr:`~ragnb.io.testset.TestSet.judge`): the comparison is then read three ways,
        people only, judge only (biased) and PPI++ (:func:`ragnb.judge.finding.judge_finding`:
        the Finding of page ``08-judge``); ``judge_name``, ``challenger``, ``resamples``,
        ``seed``, ``missing`` and ``extra`` are its options.
    **options
        Of :func:`ragnb.score` (``upper_grade``, ``no_relevant``, ``missing``, ``extra``)
        and of :func:`ragnb.stats.compare` (``resamples``, ``seed``, ``ci``, ``method``).

    Returns
    -------
    Finding
        Headline (in points), the table, checks and method; ``finding.source`` is the
        comparison table (values 0-1) and ``finding.objects["scores"]`` the per-query scores.

    Examples
    --------
    >>> import ragnb  # doctest: +SKIP
    >>> f = ragnb.compare(test_set, runs, "ndcg@10", baseline="bm25")  # doctest: +SKIP
    >>> print(f.to_text())  # doctest: +SKIP
    """
    names = [str(parse_metric(m)) for m in file_metrics(
        test_set, [metrics] if isinstance(metrics, str) else metrics)]
    if judge is not None:
        return _judged(test_set, runs, names[0], baseline, display_names, judge, options)
    # the reader's options go to score, as `ragnb compare` passes them (issue 36 #2)
    reading = {k: options.pop(k) for k in READING if k in options}
    from ragnb.io import as_test_set

    test_set = as_test_set(test_set)
    scores = score(test_set, runs, names, policy=policy, **reading)  # type: ignore[arg-type]
    configs = scores.configs   # in the runs' order, whatever each run was given as
    base = baseline or configs[0]
    # what reading dropped or noticed is shown with the finding, counted, as the CLI shows it
    return compare_scores(scores, baseline=base, metrics=names,
                          challengers=[c for c in configs if c != base],
                          display_names=display_names,
                          notes=(*test_set.notes, *scores.notes), **options)


#: Options of :func:`ragnb.score` that :func:`compare` passes on.
READING = ("upper_grade", "no_relevant", "missing", "extra")


def _judged(test_set: Any, runs: Sequence[Any], metric: str, baseline: str | None,
            display_names: Mapping[str, str] | None, judge: Any, options: dict) -> Finding:
    """:func:`compare` with a model judge's labels: the judge page's Finding."""
    from ragnb.errors import InputError, listed
    from ragnb.io import as_run, as_test_set
    from ragnb.io.judges import attach_judge
    from ragnb.judge.finding import judge_finding

    allowed = {"judge_name", "challenger", "resamples", "seed", "missing", "extra", "k"}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InputError(f"with judge=, compare takes {listed(sorted(allowed), most=20)}; not "
                         f"{listed(unknown)}",
                         key=unknown[0])
    ts = as_test_set(test_set)
    if judge is not True:
        ts = attach_judge(ts, judge, name=options.pop("judge_name", "judge"))
    options.pop("judge_name", None)
    read = [as_run(r) for r in runs]
    base = baseline or read[0].name
    challenger = options.pop("challenger", "") or next(
        (r.name for r in read if r.name != base), "")
    return judge_finding(ts, read, metric=metric, baseline=base, challenger=challenger,
                         display_names=display_names, **options)


def compare_scores(scores: Any, *, baseline: str, metrics: Sequence[str],
                   challengers: Sequence[str] | None = None, strata: Any = None,
                   display_names: Mapping[str, str] | None = None, notes: Sequence[Any] = (),
                   **options: Any) -> Finding:
    """The comparison's Finding from scores already made (:func:`ragnb.score`'s ``Scores``):
    what :func:`compare` and ``ragnb compare`` both return. ``strata`` (query -> stratum)
    adds a row per stratum beside the pooled one; ``options`` go to
    :func:`ragnb.stats.family.compare_metrics` (``tests``, ``resamples``, ``seed``, ``ci``,
    ``method``); ``notes`` (what reading dropped or noticed) are its last section.
    ``finding.source`` is the table (0-1), ``objects``: ``table``, ``scores``.
    """
    table = compare_metrics(scores, baseline=baseline, metrics=list(dict.fromkeys(metrics)),
                            challengers=challengers, strata=strata, **options)
    found = comparison_finding(table, display_names=display_names)
    configs = {baseline, *(challengers or table["challenger"])}
    headline = rank_as_score_headline(found.headline, getattr(scores, "notes", ()), configs,
                                      display_names or {}) or found.headline
    return Finding(headline, found.display_table, found.chart, found.checks,
                   found.description, found.caption, found.source,
                   (*found.sections, *notes_sections(notes, appendix=False)),
                   {"table": table, "scores": scores})


#: Share of a run's queries whose rank column disagrees with its scores above which no
#: verdict is given: the run's order is then a choice the user has not made.
RANK_SCORE_SHARE = 0.9


def rank_as_score_headline(headline: Any, notes: Sequence[Any], configs: set[str],
                           display_names: Mapping[str, str]) -> Any:
    """A refusal in place of ``headline`` when a compared run's ranks and scores disagree
    on at least :data:`RANK_SCORE_SHARE` of its queries (a score column holding the rank,
    a reversed run) and its order was the default, not chosen; else None. The figure as
    read stays, labelled, as a Why bullet.
    """
    bad = [n for n in notes if getattr(n, "kind", "") == "rank_disagrees"
           and getattr(n, "subject", "") in configs and n.total
           and n.count >= RANK_SCORE_SHARE * n.total and "as chosen" not in n.detail]
    if not bad:
        return None
    from dataclasses import replace as _replace

    from ragnb.result import display_name

    n = bad[0]
    order = "rank" if "ranked by rank" in n.detail else "score"
    other = "score" if order == "rank" else "rank"
    run = display_name(n.subject, display_names)
    answer = (f"No verdict: {run}'s rank column disagrees with its scores on {n.count} of "
              f"{n.total} queries, so which column ranks it decides the result.")
    why = (f"Ranked by {order} (as read), the comparison would say: {headline.answer}",
           *(f"{display_name(m.subject, display_names)} also disagrees on {m.count} of "
             f"{m.total} queries." for m in bad[1:]),
           *headline.why)
    return _replace(headline, answer=answer, verdict="refused: ranks and scores disagree",
                    next_step=(f"Say which column ranks the run (--order {other} or --order "
                               f"{order}; Python: order=\"{other}\"), then compare again."),
                    why=why)
