r"""Thresholdout: a reusable holdout for a confirmation split.

Counting selections tells a team how spent a split is; Thresholdout lets a
sealed confirmation split be consulted many times while spending it only when
a consultation would actually tell the analyst something the working set does
not. For each query (one configuration's mean score on the working split and
on the confirmation split), following Dwork et al. (Science 2015, Fig. 1):

1. draw a threshold offset :math:`\gamma \sim \mathrm{Lap}(2\sigma)`, kept
   until the budget is next spent (:math:`\hat T = T + \gamma`);
2. draw :math:`\eta \sim \mathrm{Lap}(4\sigma)`;
3. if :math:`|\bar h - \bar w| > \hat T + \eta` the working score is off:
   answer :math:`\bar h + \xi` with :math:`\xi \sim \mathrm{Lap}(\sigma)`,
   spend one unit of the budget :math:`B` and redraw :math:`\gamma`;
4. otherwise answer the working score :math:`\bar w` itself, spending nothing;
5. once :math:`B` is spent, refuse to answer.

Defaults ``T = 0.04``, ``sigma = 0.01`` are those of the public
implementations; the CACM 2017 version (Theorem 9) sets :math:`T = 3\tau/4`,
:math:`\sigma = \tau / (96 \ln(4m/\beta))` for accuracy :math:`\tau` over
:math:`m` queries with probability :math:`1-\beta`, which is far more
conservative. At the defaults a query spends budget with probability 0.22
when the two means are equal, 0.50 at a gap of ``T``, 0.91 at ``3T`` and 0.99
at ``5T`` (``P(gamma + eta < |gap| - T)``, integrated numerically): large gaps
are what spend it, but a noisy threshold also spends some on no gap at all,
the price of not revealing the holdout through the pattern of answers. A
smaller ``sigma`` spends less on small gaps and protects less.

The noise scales assume per-query values in ``[0, 1]`` (nDCG, recall, MRR),
so those are the only values accepted.

Two caveats that belong next to any answer. The guarantee assumes the working
and the confirmation queries come from the same distribution; when they do
not (a hand-written golden set against sampled production traffic), nearly
every query lands above the threshold and the budget goes fast, which is the
honest outcome. And the randomness is seeded (answer ``k`` uses
``default_rng([seed, 1, k])``, the threshold after ``s`` spends uses
``default_rng([seed, 0, s])``) so a ledger replays to the same answers; anyone
who reads the seed can predict the noise, so the protection is against an
honest analyst's adaptivity, not against someone trying to break it.

References
----------
Dwork, Feldman, Hardt, Pitassi, Reingold & Roth, "The reusable holdout:
Preserving validity in adaptive data analysis", Science 349(6248):636-638,
2015; "Guilt-free data reuse", CACM 60(4):86-93, 2017.
"""
from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, replace

import numpy as np

from ragnb.errors import InputError, PolicyError
from ragnb.ledger import _validate as v

FIELDS = ("budget", "threshold", "sigma", "seed")


@dataclass(frozen=True)
class ThresholdoutParams:
    """Parameters of the reusable-holdout mode of a confirmation split.

    Parameters
    ----------
    budget : int
        How many answers may come from the confirmation split (``B``).
    threshold : float
        ``T``, on the scale of the scores (0.04 = four points of nDCG).
    sigma : float
        Laplace noise scale ``sigma``.
    seed : int or None
        Seed of the answers' noise; ``None`` is replaced by fresh entropy
        (:meth:`with_seed`) when the mode is recorded in a ledger.
    """

    budget: int
    threshold: float = 0.04
    sigma: float = 0.01
    seed: int | None = None

    def __post_init__(self) -> None:
        self.from_dict(asdict(self), source="ThresholdoutParams", path="", seed_optional=True)

    @classmethod
    def from_dict(cls, d: object, *, source: str, path: str = "reusable_holdout",
                  seed_optional: bool = False) -> ThresholdoutParams:
        """Validate a JSON object; errors name ``source`` and the key path."""
        d = v.obj(d, FIELDS, FIELDS if not seed_optional else FIELDS[:3], source, path)
        p = f"{path}." if path else ""
        out = object.__new__(cls)
        for name, value in (
            ("budget", v.integer(d.get("budget"), source, p + "budget", minimum=1)),
            ("threshold", v.number(d.get("threshold"), source, p + "threshold")),
            ("sigma", v.number(d.get("sigma"), source, p + "sigma")),
            ("seed", v.integer(d.get("seed"), source, p + "seed", minimum=0,
                               optional=seed_optional)),
        ):
            object.__setattr__(out, name, value)
        return out

    def with_seed(self) -> ThresholdoutParams:
        """These parameters with ``seed`` filled from fresh OS entropy if it was ``None``."""
        if self.seed is not None:
            return self
        return replace(self, seed=secrets.randbits(63))


@dataclass(frozen=True)
class HoldoutAnswer:
    """One Thresholdout answer.

    Attributes
    ----------
    value : float
        The reported score: the working mean, or the confirmation mean plus
        ``Lap(sigma)`` noise.
    from_holdout : bool
        Whether the answer came from the confirmation split (and spent budget).
    index : int
        0-based number of this answer on the split.
    budget_left : int
        Budget remaining after this answer.
    """

    value: float
    from_holdout: bool
    index: int
    budget_left: int


def mean_score(scores: object, name: str) -> float:
    """Mean of a 1-D array of per-query scores in ``[0, 1]``; :class:`InputError` otherwise."""
    a = np.asarray(scores, dtype=float)
    if a.ndim != 1 or a.size == 0:
        raise InputError(f"must be a non-empty 1-D array of per-query scores, got shape {a.shape}",
                         source=name)
    if not np.all(np.isfinite(a)) or a.min() < 0 or a.max() > 1:
        raise InputError("per-query scores must be finite and in [0, 1] (the noise scales "
                         "assume bounded scores)", source=name)
    return float(a.mean())


def thresholdout_answer(working_mean: float, holdout_mean: float, params: ThresholdoutParams,
                        *, spent: int, index: int) -> HoldoutAnswer:
    """Answer one query; deterministic given ``params.seed``, ``spent`` and ``index``.

    Parameters
    ----------
    working_mean, holdout_mean : float
        The configuration's mean score on the working and the confirmation split.
    params : ThresholdoutParams
        With an integer ``seed``.
    spent : int
        Budget units spent before this query (selects the threshold draw).
    index : int
        Number of answers given before this one (selects the query's draws).

    Raises
    ------
    PolicyError
        When the budget is spent.
    """
    if params.seed is None:
        raise InputError("params.seed must be set (use ThresholdoutParams.with_seed())",
                         source="params", key="seed")
    if spent >= params.budget:
        raise PolicyError(
            f"the reusable holdout's budget of {params.budget} answers from the confirmation "
            "split is spent; it cannot answer again without losing its guarantee. Demote it "
            "and seal a fresh slice")
    s = params.sigma
    gamma = np.random.default_rng([params.seed, 0, spent]).laplace(0.0, 2 * s)
    rng = np.random.default_rng([params.seed, 1, index])
    eta = rng.laplace(0.0, 4 * s)
    if abs(holdout_mean - working_mean) > params.threshold + gamma + eta:
        xi = rng.laplace(0.0, s)
        return HoldoutAnswer(float(holdout_mean + xi), True, index, params.budget - spent - 1)
    return HoldoutAnswer(float(working_mean), False, index, params.budget - spent)


class Thresholdout:
    """Stateful Thresholdout for a notebook, outside any ledger.

    Gives the same answers as a ledger split sealed with the same ``params``
    and asked the same queries in the same order.

    Examples
    --------
    >>> t = Thresholdout(ThresholdoutParams(budget=5, seed=1))
    >>> t.query([0.5, 0.7], [0.5, 0.7]).value  # no gap: the working mean comes back
    0.6
    """

    def __init__(self, params: ThresholdoutParams) -> None:
        self.params = params.with_seed()
        self.spent = 0
        self.answers: list[HoldoutAnswer] = []

    def query(self, working_scores: object, holdout_scores: object) -> HoldoutAnswer:
        """Answer with per-query scores of one configuration on both splits."""
        ans = thresholdout_answer(
            mean_score(working_scores, "working_scores"),
            mean_score(holdout_scores, "holdout_scores"),
            self.params, spent=self.spent, index=len(self.answers))
        self.spent += ans.from_holdout
        self.answers.append(ans)
        return ans
