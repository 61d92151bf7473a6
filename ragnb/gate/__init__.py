"""A gate for every change: a rule from ``[gate]``, a calibrated decision, the ledger told.

=========================  ==================================================
:func:`decide`             per-query scores -> :class:`GateDecision` (betting interval)
:func:`admit`, :func:`record`  the ledger's policy before, the decision recorded after
:func:`standing`           selections against the split, inflation, refresh advice
:class:`GateReport`        text, Markdown (pull-request comment) and JSON of one run
=========================  ==================================================

``ragnb gate`` (:mod:`ragnb.cli.gate`) is the command; ``docs/ci-gate.yml``
an example workflow.
"""
from ragnb.gate.decide import GateDecision, decide, rule_sentence
from ragnb.gate.record import SplitStanding, admit, decision_key, gate_key, record, standing
from ragnb.gate.report import SCHEMA, GateReport

__all__ = ["SCHEMA", "GateDecision", "GateReport", "SplitStanding", "admit", "decide",
           "decision_key", "gate_key", "record", "rule_sentence", "standing"]
