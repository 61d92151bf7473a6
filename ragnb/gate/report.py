"""One gate run, rendered for every surface: terminal text, Markdown (a pull-request
comment), JSON. Answer first; metric values and differences in points on the text
and Markdown, 0-1 in the JSON.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field

from ragnb.gate.decide import POWER, GateDecision, rule_sentence
from ragnb.gate.record import SplitStanding

#: ``schema`` of the JSON document; bump when a field changes meaning.
SCHEMA = "ragnb.gate/1"
#: Exit codes: pass, fail (errors exit 2, as every command).
EXIT = {True: 0, False: 1}


@dataclass(frozen=True)
class GateReport:
    """A gate decision with where it was taken and what the ledger says."""

    decision: GateDecision
    split: str
    baseline: str
    challenger: str
    standing: SplitStanding | None = None
    recorded: str = ""
    key: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def verdict(self) -> str:
        return "PASS" if self.decision.passed else "FAIL"

    @property
    def exit_code(self) -> int:
        return EXIT[self.decision.passed]

    def headline(self) -> str:
        """The answer in one sentence, its interval in points."""
        d = self.decision
        first = d.rows.iloc[0]
        where = (f"{first['metric']} {first['delta'] * 100:+.1f} points "
                 f"[{first['low'] * 100:+.1f}, {first['high'] * 100:+.1f}]")
        more = f" (and {len(d.rows) - 1} more metric(s))" if len(d.rows) > 1 else ""
        if d.passed:
            return (f"PASS: {self.challenger} vs {self.baseline} on {self.split}, {where}{more}: "
                    f"{rule_sentence(d.kind, d.margin, d.alpha)}.")
        return (f"FAIL: {self.challenger} vs {self.baseline} on {self.split}, {where}{more}: "
                + "; ".join(d.reasons) + ".")

    # -- surfaces ---------------------------------------------------------------------------
    def to_dict(self) -> dict:
        d = self.decision
        return {
            "schema": SCHEMA,
            "verdict": self.verdict.lower(),
            "exit_code": self.exit_code,
            "headline": self.headline(),
            "split": self.split,
            "baseline": self.baseline,
            "challenger": self.challenger,
            "rule": {"kind": d.kind, "margin_points": d.margin, "alpha": d.alpha,
                     "stratum_drop_points": d.stratum_drop,
                     "text": rule_sentence(d.kind, d.margin, d.alpha)},
            "method": d.method,
            "metrics": _records(d.rows),
            "strata": _records(d.strata),
            "ledger": None if self.standing is None else {
                **self.standing.to_dict(), "recorded": self.recorded, "key": self.key},
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"

    def to_text(self) -> str:
        d = self.decision
        lines = [self.headline(), f"# rule: {rule_sentence(d.kind, d.margin, d.alpha)}",
                 f"# interval: {d.method}", "# metric values and differences in points "
                 "(metric x 100)"]
        lines += [f"  {r.metric}: n={r.n}, baseline {r.baseline_mean * 100:.1f}, "
                  f"challenger {r.challenger_mean * 100:.1f}, difference "
                  f"{r.delta * 100:+.1f} [{r.low * 100:+.1f}, {r.high * 100:+.1f}] "
                  f"-> {'pass' if r.passed else 'fail'}; {power_text(r)}"
                  for r in d.rows.itertuples()]
        if len(d.strata):
            lines.append(f"# strata: a drop beyond {d.stratum_drop:g} points fails "
                         "(Holm over metric x stratum)")
            lines += [f"  {r.metric} / {r.stratum}: n={r.n}, {r.delta * 100:+.1f} "
                      f"[{r.low * 100:+.1f}, {r.high * 100:+.1f}], Holm p {r.p_holm:.3g}"
                      + ("  DROP" if r.dropped else "") for r in d.strata.itertuples()]
        if self.standing is not None:
            s = self.standing
            lines += [f"# split {s.name}: role {s.role}, selected against "
                      f"{s.selections_against} times"
                      + (f" (budget {s.budget})" if s.budget else "")
                      + f"; {s.inflation_text}", f"# {s.refresh}", f"# ledger: {self.recorded}"]
        elif self.recorded:
            lines.append(f"# ledger: {self.recorded}")
        lines += [f"# note: {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        """A pull-request comment: verdict, interval, strata, the split's use; text escaped."""
        d = self.decision
        e = _md
        icon = "✅" if d.passed else "❌"
        out = [f"## {icon} ragnb gate: {self.verdict}", "", e(self.headline()), "",
               f"**Rule:** {e(rule_sentence(d.kind, d.margin, d.alpha))}  ",
               f"**Interval:** {e(d.method)}", "",
               "| metric | n | baseline | challenger | difference | interval | result |",
               "|---|---:|---:|---:|---:|---|---|"]
        out += [f"| {e(r.metric)} | {r.n} | {r.baseline_mean * 100:.1f} | "
                f"{r.challenger_mean * 100:.1f} | {r.delta * 100:+.1f} | "
                f"[{r.low * 100:+.1f}, {r.high * 100:+.1f}] | "
                f"{'pass' if r.passed else '**fail**'} |"
                for r in d.rows.itertuples()]
        out += ["", "_Metric values and differences in points (metric × 100)._", ""]
        out += [f"- {e(r.metric)}: {e(power_text(r)[len('power: '):])}."
                for r in d.rows.itertuples()]
        if len(d.strata):
            out += ["", f"### Per-stratum drops (fail beyond {d.stratum_drop:g} points, Holm)",
                    "", "| metric | stratum | n | difference | interval | Holm p | |",
                    "|---|---|---:|---:|---|---:|---|"]
            out += [f"| {e(r.metric)} | {e(r.stratum)} | {r.n} | {r.delta * 100:+.1f} | "
                    f"[{r.low * 100:+.1f}, {r.high * 100:+.1f}] | {r.p_holm:.3g} | "
                    f"{'**drop**' if r.dropped else ''} |" for r in d.strata.itertuples()]
        if self.standing is not None:
            s = self.standing
            out += ["", "### The split", "",
                    f"- **{e(s.name)}** ({e(s.role)}) has been selected against "
                    f"**{s.selections_against}** times"
                    + (f" of a budget of {s.budget}" if s.budget else "") + ".",
                    f"- Selection inflation: **{s.inflation_points:.2f} points**. "
                    f"{e(s.inflation_text)}",
                    f"- {e(s.refresh[0].upper() + s.refresh[1:])}.",
                    f"- Ledger: {e(self.recorded)}."]
        elif self.recorded:
            out += ["", f"- Ledger: {e(self.recorded)}."]
        if self.notes:
            out += ["", *[f"- Note: {e(n)}" for n in self.notes]]
        return "\n".join(out) + "\n"


def _md(text: object) -> str:
    """Text from data made inert in Markdown: HTML escaped, Markdown punctuation
    backslash-escaped (no link, emphasis, code or table cell can be forged), one line.
    """
    text = html.escape(str(text).replace("\n", " ").replace("\r", " "), quote=False)
    return re.sub(r"([\\`*_\[\]|~!])", r"\\\1", text)


def _records(df) -> list[dict]:
    """Rows as JSON values: numpy scalars as Python ones, NaN and infinity as null."""
    out = []
    for rec in df.to_dict(orient="records"):
        vals = {k: (v.item() if hasattr(v, "item") else v) for k, v in rec.items()}
        out.append({k: None if isinstance(v, float) and not math.isfinite(v) else v
                    for k, v in vals.items()})
    return out


def power_text(r) -> str:
    """The gate's MDE and queries needed for one metric row, in points, or why not."""
    if not math.isfinite(r.mde):
        return "power: no closed form for the betting interval (Cochran's rule fails here)"
    drop = r.mde < r.threshold          # no_regression: the power to fail a drop
    said = (f"fails a true drop to {r.mde * 100:+.1f} points or below" if drop else
            f"passes a true difference of {r.mde * 100:+.1f} points or more")
    verb = "fail on" if drop else "pass"
    need = (f"{int(r.queries_needed):,} queries would {verb} the observed difference as often"
            if math.isfinite(r.queries_needed) else
            "the observed difference is on the other side of the threshold")
    return f"power: at this n the gate {said} {POWER:.0%} of the time; {need}"
