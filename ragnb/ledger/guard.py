"""What a demoted split is still good for: an alarm, not a judge.

A split that has been selected against ``N`` times gives scores that are
optimistic by about the expected maximum of ``N`` noisy comparisons, a few
standard errors of a paired difference: on seed 000's golden set (300 queries,
SE_d = 0.0069, forty rounds) a point or two of nDCG@10. That bias is the same
for every change run against the split, so:

* as a **regression alarm** the split is as good as ever. An alert fires on
  drops of the order of 15 points, an order of magnitude above the bias,
  which therefore cannot flip the alert (:func:`alert`);
* as a **judge between close candidates** it is useless. When two
  candidates are a few points apart, the bias is the size of the signal, and
  the ranking may be the fit of one lineage to these queries rather than a
  better configuration. :func:`check_ranking` refuses to rank unless the
  winner leads by more than the implied inflation plus ``z`` standard errors.

Scores are on the metric's own scale (nDCG in ``[0, 1]``); "points" in
messages are hundredths of it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ragnb.errors import InputError, PolicyError

#: Drop (in score units) that sets off a regression alarm: 15 points of nDCG.
DEFAULT_ALERT_THRESHOLD = 0.15


@dataclass(frozen=True)
class GuardAlert:
    """Result of :func:`alert`.

    Attributes
    ----------
    fired : bool
        True when the new score is lower than the baseline by at least ``threshold``.
    drop : float
        ``baseline_score - new_score`` (negative for an improvement).
    threshold : float
        The threshold used.
    message : str
        One sentence for a report.
    """

    fired: bool
    drop: float
    threshold: float
    message: str


def _finite(x: object, name: str) -> float:
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x):
        raise InputError(f"must be a finite number, got {x!r}", source=name)
    return float(x)


def alert(baseline_score: float, new_score: float,
          threshold: float = DEFAULT_ALERT_THRESHOLD) -> GuardAlert:
    """Regression alarm on a guard split: fires when the score drops by ``threshold`` or more.

    Parameters
    ----------
    baseline_score, new_score : float
        Mean score of the current and of the changed pipeline on the guard split.
    threshold : float
        Drop that counts as a regression, in score units (default 0.15).

    Returns
    -------
    GuardAlert

    Examples
    --------
    >>> alert(0.60, 0.43).fired
    True
    >>> alert(0.60, 0.58).fired
    False
    """
    b = _finite(baseline_score, "baseline_score")
    n = _finite(new_score, "new_score")
    t = _finite(threshold, "threshold")
    if t <= 0:
        raise InputError(f"must be positive, got {threshold!r}", source="threshold")
    drop = b - n
    # Round away float noise (0.60 - 0.45 is 0.1499999...) before comparing.
    fired = round(drop, 12) >= t
    verdict = "ALERT: regression" if fired else "no alert"
    return GuardAlert(fired, drop, t, f"{verdict}: score moved {-drop * 100:+.1f} points "
                      f"(alert on a drop of {t * 100:.1f} or more)")


def ranking_margin(n_selections: int, se: float, z: float = 1.96,
                   inflation=None) -> tuple[float, float]:
    """Smallest lead a guard split may rank on, and the inflation inside it.

    ``margin = inflation + z * se``: a lead the selection bias alone could
    explain (the split's one figure, :func:`ragnb.stats.split_inflation`; without
    it the worst case ``E[max of N normals] x se / sqrt(2)``), plus the noise of
    a paired difference at the two-sided level ``z``.

    Parameters
    ----------
    n_selections : int
        ``selections_against`` of the split.
    se : float
        Standard error of a paired difference between two configurations on
        the split (SE_d), in score units.
    z : float
        Normal quantile for the noise allowance (1.96: 95 % two-sided).
    inflation : SelectionInflation, optional
        The split's selection inflation (else the worst case from ``se``).

    Returns
    -------
    (margin, inflation) : tuple of float
    """
    se = _finite(se, "se")
    if se <= 0:
        raise InputError(f"must be positive, got {se!r}", source="se")
    figure = _figure(n_selections, se, inflation)
    return figure.inflation + z * se, figure.inflation


def _figure(n_selections: int, se: float, inflation=None):
    """The split's figure, or the worst case from ``se`` (labelled so)."""
    from ragnb.stats.inflation import split_inflation

    if inflation is not None:
        return inflation
    return split_inflation("", n_selections, se=se, se_source="SE of the pair ranked")


def check_ranking(split: str, scores: Mapping[str, float], winner: str, n_selections: int,
                  se: float, z: float = 1.96, inflation=None, *, guard: bool = True) -> float:
    """Refuse a ranking on a regression guard unless the winner leads clearly.

    Parameters
    ----------
    split : str
        Split name, for the message.
    scores : mapping
        Candidate -> mean score on the split.
    winner : str
        The candidate being chosen.
    n_selections : int
        ``selections_against`` of the split.
    se : float
        SE of a paired difference on the split (score units).
    z : float
        See :func:`ranking_margin`.
    inflation : SelectionInflation, optional
        The split's selection inflation (:func:`ranking_margin`).
    guard : bool
        The split is a regression guard (the ledger's policy refuses the ranking). False:
        a working split, which may still rank; the error then only says that this lead
        is not told apart from the bias and noise (what ``ragnb report 05-ledger`` shows
        for a split that is not demoted yet).

    Returns
    -------
    float
        The margin that was applied.

    Raises
    ------
    PolicyError
        When the winner's lead over the best other candidate is below the
        margin; the message gives the bias, the lead and why it matters.
    """
    figure = _figure(n_selections, se, inflation)
    margin, bias = ranking_margin(n_selections, se, z, figure)
    others = {c: s for c, s in scores.items() if c != winner}
    runner_up = max(others, key=lambda c: others[c])
    lead = scores[winner] - others[runner_up]
    if lead < margin:
        how = ("the worst case, all candidates equal: expected maximum of "
               f"{n_selections} standard normals = {figure.expected_max:.2f} x SE_d / √2"
               if figure.worst_case else figure.method
               + (f" over {figure.candidates} candidates" if figure.candidates else ""))
        why = (f"after {n_selections} selections its scores carry a selection bias of about "
               f"{bias * 100:.2f} points ({how}; SE_d of the pair = {se * 100:.2f} points). "
               f"A lead under {margin * 100:.2f} points (bias + {z:g} "
               "SE_d) may be that bias rather than a better configuration: the bias is the "
               "size of the signal" if n_selections else
               f"no selection was made on it, but a lead under {margin * 100:.2f} points "
               f"({z:g} SE_d, SE_d = {se * 100:.2f} points) is not told apart from noise")
        if not guard:
            raise PolicyError(
                f"{split} does not tell {winner!r} from {runner_up!r}: the lead is "
                f"{lead * 100:+.2f} points, and {why}. {split} is still a working split and "
                "may rank candidates that lead by more; confirm this pair on a sealed split "
                "or on more queries")
        raise PolicyError(
            f"{split} is a regression guard and will not rank {winner!r} over {runner_up!r}: "
            f"the lead is {lead * 100:+.2f} points, and {why}. "
            "Choose on a working split or confirm on a sealed one; the guard still runs on "
            "every change and alerts on large drops, which the bias is far too small to flip")
    return margin
