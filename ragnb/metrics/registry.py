"""The metric registry: names, parameters, parsing and help all come from here.

A metric name is ``name[@k][(param=value, ...)]``: ``ndcg@10``, ``rr@10``,
``recall@100``, ``rbp(p=0.9)``, ``p@10(rel=2)``. The parser and its error
message use the registry, so the list of valid names cannot drift from the code.

trec_eval's measure names are accepted too, with trec_eval's semantics (see
:data:`TREC_EVAL_NAMES`): ``map``, ``map_cut_10``, ``P_10``, ``recall_100``,
``ndcg_cut_10`` (linear gain), ``recip_rank`` (whole ranking), ``Rprec``,
``bpref``, ``infAP``, ``success_10``. They parse to the canonical ragnb name
(``P_10`` -> ``p@10``), which is what score tables show. One exception:
trec_eval's plain ``ndcg`` (linear gain) is ragnb's ``ndcg_linear``; ragnb's
``ndcg`` takes the workspace's gain map (exponential 2^g - 1 unless the manifest
says otherwise; ``ragnb init`` on TREC qrels writes ``linear``, and a command
or :func:`ragnb.compare` given a TREC qrels file uses ``linear`` too: see
:func:`ragnb.io.source.implied_gain`). A name never changes meaning with its
letter case: ``NDCG@10``, ``nDCG@10`` (ranx, ir_measures) and ``ndcg@10`` are
one metric, so on TREC qrels all three are what trec_eval, ranx and ir_measures
report. An alias whose capitals carry meaning (ir_measures' ``R@k`` for recall)
is matched as written.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ragnb.errors import InputError, listed
from ragnb.vocab import MAX_CUTOFF


@dataclass(frozen=True)
class Param:
    """A declared metric parameter."""

    name: str
    type: type
    default: object
    help: str


@dataclass(frozen=True)
class MetricSpec:
    """A registered metric family.

    Attributes
    ----------
    name : str
        Canonical name (``ndcg``).
    func : callable
        ``func(view, **params) -> ndarray`` of per-query values.
    summary : str
        One line for ``--help``.
    formula : str
        The definition, as printed in the docs.
    params : tuple of Param
        Parameters besides the cut-off ``k``.
    cutoff : bool
        Whether the metric takes ``@k`` (``None`` means the whole ranking).
    uses_policy : bool
        False for metrics that describe the labels themselves (``judged@k``,
        the RBP residual): they read the ranking as retrieved, whatever the policy.
    aliases : tuple of str
    check : callable, optional
        ``check(params, text)`` raising InputError for out-of-range values.
    policies : tuple of str
        The label policies under which the metric is defined; scoring under
        another is an error naming the metric (bpref and infAP define their own
        treatment of unjudged passages).
    gain : callable, optional
        For DCG families: ``gain(params) -> GainMap``, the family's grade -> gain
        map (:mod:`ragnb.metrics.gains`); None for other metrics.
    bounds : str, optional
        The label-bias bound family that holds for the metric (``"ndcg"``: DCG over
        the ideal DCG, :mod:`ragnb.labelbias.bounds`); declared, never inferred from
        ``gain``, so a new DCG variant gets no other metric's bounds. None: the
        family's name, when bounds are registered for it.
    """

    name: str
    func: Callable
    summary: str
    formula: str
    params: tuple[Param, ...] = ()
    cutoff: bool = True
    uses_policy: bool = True
    aliases: tuple[str, ...] = ()
    check: Callable | None = None
    policies: tuple[str, ...] = ("lower", "condensed", "upper")
    gain: Callable | None = None
    bounds: str | None = None


REGISTRY: dict[str, MetricSpec] = {}
_ALIASES: dict[str, str] = {}


def register(name: str, *, summary: str, formula: str, params: tuple[Param, ...] = (),
             cutoff: bool = True, uses_policy: bool = True, aliases: tuple[str, ...] = (),
             check: Callable | None = None,
             policies: tuple[str, ...] = ("lower", "condensed", "upper"),
             gain: Callable | None = None, bounds: str | None = None):
    """Decorator adding a metric kernel to :data:`REGISTRY`."""

    def wrap(func: Callable) -> Callable:
        spec = MetricSpec(name, func, summary, formula, params, cutoff, uses_policy, aliases,
                          check, policies, gain, bounds)
        for n in (name, *aliases):
            if n in REGISTRY or n in _ALIASES:
                raise ValueError(f"metric name {n!r} registered twice")
        REGISTRY[name] = spec
        for a in aliases:
            _ALIASES[a] = name  # an alias with capitals matches only as written (nDCG)
        return func

    return wrap


@dataclass(frozen=True)
class Metric:
    """A parsed metric: a registered family with its cut-off and parameters."""

    spec: MetricSpec
    k: int | None
    params: dict = field(default_factory=dict, hash=False, compare=False)
    text: str = ""

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other) -> bool:
        return isinstance(other, Metric) and other.text == self.text

    def __str__(self) -> str:
        return self.text

    @property
    def name(self) -> str:
        return self.text

    def gain_map(self):
        """The grade -> gain map of a DCG metric (``ndcg@10(gain=linear)``: linear), None for
        a metric with no gain.
        """
        return None if self.spec.gain is None else self.spec.gain(self.params)


#: trec_eval measure -> ragnb name, for the help text and the agreement tests.
TREC_EVAL_NAMES = {
    "map": "ap", "map_cut_K": "ap@K", "P_K": "p@K", "recall_K": "recall@K",
    "ndcg_cut_K": "ndcg_linear@K", "recip_rank": "rr", "Rprec": "rprec", "bpref": "bpref",
    "infAP": "infap", "success_K": "success@K",
}
#: trec_eval's cut-off families, written ``name_K`` (``P_10``).
_TREC_CUTOFF = re.compile(r"^(?P<family>p|recall|ndcg_cut|map_cut|success)_(?P<k>\d+)$")
#: Largest cut-off @k accepted (rankings this deep are evaluated whole anyway).

#: Names other tools use for a metric written differently here.
_SAID_ELSEWHERE = {
    "ndcg_burges": "ranx's ndcg_burges@k (gain 2^g - 1) is written ndcg@k(gain=exp) here",
    "hits": "ranx's hits@k (the count of relevant passages in the top k) is p@k times k",
}

_SYNTAX = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_-]*)\s*(?:@\s*(?P<k>[^(\s]+))?\s*(?:\((?P<params>[^)]*)\))?\s*$"
)


def available() -> str:
    """Valid metric names, for error messages and ``--help``."""
    names = []
    for spec in REGISTRY.values():
        names.append(spec.name + ("@k" if spec.cutoff else ""))
    return ", ".join(names)


def _convert(spec: MetricSpec, param: Param, value: str, text: str):
    try:
        if param.type is bool:
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return value.lower() in ("true", "1")
        return param.type(value)
    except ValueError:
        raise InputError(f"parameter {param.name!r} of {spec.name} must be "
                         f"{param.type.__name__}, got {value!r}", key=text) from None


def parse_metric(text: str | Metric) -> Metric:
    """Parse ``"ndcg@10"``, ``"rbp(p=0.9)"`` … into a :class:`Metric`.

    Raises
    ------
    InputError
        For an unknown name (listing the valid ones), a bad cut-off or an
        unknown or mistyped parameter.
    """
    if isinstance(text, Metric):
        return text
    m = _SYNTAX.match(str(text))
    if not m:
        dotted = re.fullmatch(r"\s*([A-Za-z_]+)\.(\d+)\s*", str(text))
        hint = (f" (trec_eval's -m {dotted.group(1)}.{dotted.group(2)} is written "
                f"{dotted.group(1)}_{dotted.group(2)} here)" if dotted else "")
        raise InputError(f"cannot parse metric {text!r}{hint}; expected name@k or "
                         f"name(param=value); available: {available()}", key=str(text))
    written = m.group("name")
    # an alias whose capitals carry meaning (ir_measures' R@k) is matched as written; any
    # other name in any case is the lower-case one (NDCG, nDCG and ndcg are one metric)
    raw_name = written if written in _ALIASES else written.lower()
    raw_k = m.group("k")
    trec = _TREC_CUTOFF.match(raw_name)
    if trec and raw_name not in REGISTRY and raw_name not in _ALIASES:
        if raw_k is not None:
            raise InputError(f"{m.group('name')} already has its cut-off; write "
                             f"{m.group('name')} or {trec.group('family')}@{raw_k}",
                             key=str(text))
        raw_name, raw_k = trec.group("family"), trec.group("k")
    name = _ALIASES.get(raw_name, raw_name)
    spec = REGISTRY.get(name)
    if spec is None:
        said = _SAID_ELSEWHERE.get(raw_name)
        hint = f"{said}; " if said else ""
        raise InputError(f"unknown metric {m.group('name')!r}; {hint}available: {available()} "
                         "(and trec_eval's names such as map, P_10, ndcg_cut_10)",
                         key=str(text))
    k = None
    if raw_k is not None:
        if not spec.cutoff:
            raise InputError(f"{spec.name} takes no cut-off @k", key=str(text))
        if not re.fullmatch(r"[0-9]{1,18}", raw_k):
            raise InputError(f"cut-off {raw_k!r} is not an integer", key=str(text))
        k = int(raw_k)
        if k < 1:
            raise InputError(f"cut-off must be at least 1, got {k}", key=str(text))
        if k > MAX_CUTOFF:
            raise InputError(f"cut-off {k:,} is above the largest supported, {MAX_CUTOFF:,}",
                             key=str(text))
    declared = {p.name: p for p in spec.params}
    params = {p.name: p.default for p in spec.params}
    if m.group("params"):
        for item in m.group("params").split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise InputError(f"parameter {item.strip()!r} needs name=value", key=str(text))
            key, value = (s.strip() for s in item.split("=", 1))
            if key not in declared:
                raise InputError(f"{spec.name} has no parameter {key!r}; it takes "
                                 f"{listed(sorted(declared), most=12) or 'none'}", key=str(text))
            params[key] = _convert(spec, declared[key], value, str(text))
    if spec.check is not None:
        spec.check(params, str(text))
    canonical = spec.name + (f"@{k}" if k is not None else "")
    extra = [f"{p.name}={params[p.name]}" for p in spec.params
             if params[p.name] != p.default]
    if extra:
        canonical += "(" + ",".join(extra) + ")"
    return Metric(spec=spec, k=k, params=params, text=canonical)


def with_gain(text: str, gain: str) -> str:
    """``text`` with the gain map ``gain`` when the metric takes a ``gain`` and names none.

    ``with_gain("ndcg@10", "linear") == "ndcg@10(gain=linear)"``; a metric that
    names its map (``ndcg@10(gain=exp)``), one without a ``gain`` parameter
    (``rr@10``, trec_eval's ``ndcg_cut_10``) and the default ``exp`` are returned
    unchanged. This is how a workspace's gain map reaches every nDCG it scores.
    """
    if gain == "exp":
        return text
    return _with_param(text, "gain", gain)


def find_metric(name: str, available: Sequence[str]) -> str | None:
    """The metric of ``available`` (a score table's names) that ``name`` means, or None.

    Spellings of one metric match (``ndcg_cut_10``, ``ndcg_linear@10`` and
    ``ndcg@10(gain=linear)``; ``P_10`` and ``p@10``); an nDCG that names no gain matches
    the one nDCG at its cut-off in the table, whose gain the scored files implied.

    >>> find_metric("ndcg_cut_10", ["ndcg@10(gain=linear)", "rr@10"])
    'ndcg@10(gain=linear)'
    >>> find_metric("NDCG@10", ["ndcg@10(gain=linear)"]), find_metric("P_10", ["ndcg@10"])
    ('ndcg@10(gain=linear)', None)
    """
    def key(metric: Metric) -> tuple:
        # nDCG and its fixed-gain variants (ndcg_linear) are one family, as their declared
        # bounds say; a gain map alone does not make a metric nDCG (issue 34 #2)
        gain = metric.gain_map()
        rest = tuple(sorted((k, str(v)) for k, v in metric.params.items() if k != "gain"))
        family = metric.spec.bounds if metric.spec.bounds == "ndcg" else metric.spec.name
        return family, metric.k, rest, None if gain is None else gain.name

    wanted = parse_metric(name)
    parsed = {a: parse_metric(a) for a in available}
    same = [a for a, m in parsed.items() if key(m) == key(wanted)]
    if len(same) == 1:
        return same[0]
    if wanted.spec.name == "ndcg" and "gain" not in str(name):   # gain from the files
        family = [a for a, m in parsed.items() if key(m)[:3] == key(wanted)[:3]]
        if len(family) == 1:
            return family[0]
    return None


def with_relevance_level(text: str, level: int) -> str:
    """``text`` with ``rel=level`` when the metric takes a relevance level and names none:
    trec_eval's ``-l``, one level for every binary measure at once.

    ``with_relevance_level("P_10", 2) == "P_10(rel=2)"``; a metric that names its own
    (``p@10(rel=1)``), one without ``rel`` (nDCG: graded) and the default level 1 are
    returned unchanged.
    """
    if level == 1:
        return text
    return _with_param(text, "rel", level)


def _with_param(text: str, name: str, value) -> str:
    parsed = parse_metric(text)
    given = str(text).replace(" ", "")
    if name not in parsed.params or f"{name}=" in given:
        return text
    inner = str(text).rstrip()
    if inner.endswith(")"):
        return f"{inner[:-1]},{name}={value})"
    return f"{inner}({name}={value})"


#: How a header names each built-in gain map.
GAIN_WORDS = {"exp": "exp gain 2^g-1", "linear": "linear gain g"}


def metric_label(text: str) -> str:
    """How tables and charts name a metric: a DCG metric with its gain map spelled out.

    A metric's canonical name leaves the default out (``ndcg@10`` is exp gain), so a
    header that shows it says which gain it is; other metrics, and text that is not a
    metric name, come back unchanged.

    >>> metric_label("ndcg@10"), metric_label("ndcg@10(gain=linear)")
    ('ndcg@10 (exp gain 2^g-1)', 'ndcg@10 (linear gain g)')
    >>> metric_label("ndcg_cut_10"), metric_label("rr@10")
    ('ndcg_linear@10 (linear gain g)', 'rr@10')
    """
    base, gain = _base_and_gain(text)
    return base if gain is None else f"{base} ({GAIN_WORDS.get(gain, f'gain map {gain}')})"


def metric_short(text: str) -> str:
    """The metric as a headline says it: :func:`metric_label` without the gain map (a Why
    bullet names that).

    >>> metric_short("ndcg@10(gain=linear)"), metric_short("rr@10")
    ('ndcg@10', 'rr@10')
    """
    return _base_and_gain(text)[0]


def _base_and_gain(text: str) -> tuple[str, str | None]:
    try:
        metric = parse_metric(text)
    except InputError:
        return str(text), None
    gain = metric.gain_map() if metric.spec.gain is not None else None
    if gain is None:
        return str(text), None
    base = metric.spec.name + (f"@{metric.k}" if metric.k is not None else "")
    rest = [f"{p.name}={metric.params[p.name]}" for p in metric.spec.params
            if p.name != "gain" and metric.params[p.name] != p.default]
    if rest:
        base += "(" + ",".join(rest) + ")"
    return base, gain.name


def metric_help() -> str:
    """One paragraph per metric: name, summary and formula (used by ``--help``)."""
    lines = []
    for spec in REGISTRY.values():
        head = spec.name + ("@k" if spec.cutoff else "")
        if spec.aliases:
            head += f" (alias {', '.join(spec.aliases)})"
        lines.append(f"  {head}: {spec.summary}")
        lines.append(f"      {spec.formula}")
        for p in spec.params:
            lines.append(f"      ({p.name}={p.default}: {p.help})")
        if spec.policies != ("lower", "condensed", "upper"):
            lines.append(f"      (label policies: {', '.join(spec.policies)} only)")
    lines.append("  trec_eval names: " + ", ".join(
        f"{t} = {r}" for t, r in TREC_EVAL_NAMES.items()))
    lines.append("      (trec_eval's plain ndcg, linear gain, is ndcg_linear here: ragnb's "
                 "ndcg keeps the exponential gain 2^g - 1)")
    return "\n".join(lines)
