"""Demo data for the code-task story (seed 002): labels from merged commits, callers missed.

What is generated under ``codetasks/`` (a pure function of the seed; regeneration
is byte-identical):

``repo.bundle``
    A small Python repository (``shop/``: 29 modules in 8 packages, 10 test
    modules, 40 locale tables, ``poetry.lock``, a vendored ``vendor/``) as a
    ``git bundle`` of ``main``; clone it with ``git clone repo.bundle DIR``
    (:func:`clone_repo`). Its history: an initial import, then 90 branches merged
    with ``--no-ff`` in a shuffled order — 52 ordinary changes touching 1 to 6
    modules (some also bump the lockfile or touch ``vendor/``; 6 of them merged
    without a description), 28 signature changes (a function gains a parameter,
    with or without a default, and all or some of its callers in other modules
    follow), 4 reverts (each of the ordinary change merged just before it), 5
    lockfile-only bumps and one rename of the 40 locale tables. Titles name paths and
    functions now and then, and some bodies quote the change in a code block, so the
    stripping has work.
    Commits carry fixed names, e-mails and dates (``GIT_*`` variables and ``-c
    user.name``), so the shas — and the bundle — are the same on every run.
``tasks.jsonl``
    The tasks mined from it (``ragnb tasks mine --repo DIR --out tasks.jsonl``).
``run.jsonl``
    A synthetic retriever's run over the parent commit of each kept task:
    ``{task_id: [chunk ids]}``, 20 chunk ids ``path#N`` (the N-th 20-line chunk
    of the file at the parent). Each file of a task gets one chunk scored
    ``MU[role] + noise`` and :data:`DISTRACTORS` chunks of other files score
    ``noise`` (standard normal noise); the run is the top 20 by score. The
    roles (:data:`MU`): an edit-set file that calls a changed function scores
    like any caller, low (the reverse edge the retriever lacks); other edit-set
    files score high; read-set files in between.

The git bundle's bytes are deterministic for one git version (checked by
regenerating); :func:`generate` rewrites ``repo.bundle`` only when the branch
head it holds differs, so a different git version writing a different pack for
the same history leaves the stored file alone.

Figures (``ragnb tasks score --tasks tasks.jsonl --run run.jsonl --k 10``) are
stated in ``data/README.md`` and checked by ``tests/demo/test_codetasks_demo.py``.
"""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ragnb._atomic import write_atomic
from ragnb.codetasks.git import Repo, git_available, neutral_env
from ragnb.codetasks.mine import mine_tasks
from ragnb.codetasks.taskfile import write_tasks
from ragnb.errors import RagnbError

SEED = 20260702
#: Mean retrieval score of a task's file by role (distractor chunks: 0), unit-variance noise.
MU = {"edit": 2.6, "caller": 0.9, "read": 1.3}
DEPTH, DISTRACTORS, CHUNK_LINES = 20, 40, 20

PACKAGES = {
    "billing": {"proration": ["proration", "cycle", "credit"],
                "invoices": ["invoice", "line_item", "due_date"],
                "taxes": ["tax_rate", "vat", "exemption"],
                "discounts": ["coupon", "discount", "promo"],
                "currency": ["amount", "exchange_rate", "rounding"]},
    "orders": {"cart": ["cart", "basket_item", "quantity"],
               "checkout": ["checkout", "payment_intent", "receipt"],
               "refunds": ["refund", "chargeback", "reversal"],
               "shipping": ["shipment", "parcel", "carrier"]},
    "accounts": {"users": ["user", "profile", "email_address"],
                 "sessions": ["session", "token", "login"],
                 "permissions": ["role", "grant", "policy"]},
    "catalog": {"products": ["product", "variant", "sku"],
                "pricing": ["price", "price_tier", "markup"],
                "search": ["query", "facet", "ranking"]},
    "notify": {"email": ["mail", "template", "bounce"],
               "sms": ["sms", "phone_number", "opt_out"],
               "webhooks": ["webhook", "signature", "delivery"]},
    "api": {"handlers": ["request", "response", "error"],
            "serializers": ["payload", "field", "schema"],
            "routes": ["route", "endpoint", "version"]},
    "core": {"config": ["setting", "env_var", "flag"],
             "db": ["connection", "row", "migration"],
             "cache": ["cache_key", "ttl", "entry"],
             "clock": ["timestamp", "timezone", "deadline"]},
    "inventory": {"stock": ["stock_level", "reservation", "warehouse"],
                  "suppliers": ["supplier", "purchase_order", "lead_time"]},
}
VERBS = ["get", "compute", "validate", "build", "apply", "load", "save", "parse", "format",
         "resolve", "refresh", "check", "normalize", "merge", "estimate", "expire"]
PARAMS = ["amount", "user", "order", "items", "when", "options", "key", "value", "limit",
          "region", "currency", "account"]
NEW_PARAMS = ["cycle_days", "region", "strict", "now", "locale", "retries", "tenant",
              "precision", "dry_run", "batch_size", "timeout", "source"]
LOCALES = [
    "en_US", "en_GB", "en_AU", "de_DE", "de_AT", "fr_FR", "fr_CA", "es_ES", "es_MX", "it_IT",
    "it_CH", "nl_NL", "pt_PT", "pt_BR", "sv_SE", "da_DK", "fi_FI", "no_NO", "pl_PL", "cs_CZ",
    "sk_SK", "hu_HU", "ro_RO", "bg_BG", "el_GR", "tr_TR", "ru_RU", "uk_UA", "ja_JP", "ko_KR",
    "zh_CN", "zh_TW", "he_IL", "ar_SA", "hi_IN", "th_TH", "vi_VN", "id_ID", "ms_MY", "fil_PH"
]
SYMPTOMS = [
    "Customers on partner plans were charged for the full period.",
    "Support saw this in three tickets last week.",
    "The nightly reconciliation job reported a mismatch.",
    "Found while looking at the refunds dashboard.",
    "This broke after the March release.",
    "Finance asked for this before the quarter closes.",
    "Only happens when the account has no region set.",
    "A retry loop made it worse under load.",
]
TRACE = ("```\nTraceback (most recent call last):\n  File \"worker.py\", line 88, in run\n"
         "ValueError: unexpected {noun}\n```")


@dataclass
class Call:
    """``result = callee(args)`` in a function body."""

    callee: str
    args: list[str]


@dataclass
class Function:
    """A function: its parameters (``defaults`` maps some to their default) and body steps."""

    name: str
    module: str
    params: list[str]
    body: list[object] = field(default_factory=list)  # str (an expression step) or Call
    defaults: dict[str, str] = field(default_factory=dict)
    #: parameters added without a default after one with a default: keyword-only,
    #: so the signature stays valid Python (``def f(a, tenant=None, *, strict)``)
    kwonly: list[str] = field(default_factory=list)

    def signature(self) -> str:
        params = [f"{p}={self.defaults[p]}" if p in self.defaults else p
                  for p in self.params if p not in self.kwonly]
        if self.kwonly:
            params += ["*", *self.kwonly]
        return ", ".join(params)


class Model:
    """The repository's Python code as data, rendered to files."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.functions: dict[str, Function] = {}
        self.modules: dict[str, list[str]] = {}   # module path -> function names
        self.tests: dict[str, list[Call]] = {}    # test file -> calls
        self.nouns: dict[str, list[str]] = {}
        for package, modules in PACKAGES.items():
            for module, nouns in modules.items():
                path = f"shop/{package}/{module}.py"
                self.nouns[path] = nouns
                names = []
                combos = [(v, n) for n in nouns for v in VERBS]
                for i in rng.choice(len(combos), size=4, replace=False):
                    verb, noun = combos[i]
                    params = list(rng.choice(PARAMS, size=int(rng.integers(1, 4)), replace=False))
                    name = f"{verb}_{noun}"
                    self.functions[name] = Function(name, path, params)
                    names.append(name)
                self.modules[path] = sorted(names)
        for f in self.functions.values():
            f.body = [self._step(f) for _ in range(int(self.rng.integers(1, 3)))]
            others = [g for g in self.functions.values() if g.module != f.module]
            for j in self.rng.choice(len(others), size=int(self.rng.integers(0, 4)), replace=False):
                f.body.insert(int(self.rng.integers(0, len(f.body) + 1)), self._call(f, others[j]))
        for path in list(self.modules)[::3]:
            test = "tests/test_" + path.rsplit("/", 1)[1]
            self.tests[test] = [self._call(None, self.functions[n]) for n in self.modules[path][:2]]

    def _step(self, f: Function) -> str:
        op = ["result * {n}", "result + {n}", "max(result, {n})", "min(result, {n})",
              "round(result, {d})"][int(self.rng.integers(0, 5))]
        return op.format(n=int(self.rng.integers(2, 97)), d=int(self.rng.integers(0, 4)))

    def _call(self, f: Function | None, g: Function) -> Call:
        pool = (f.params + ["result"]) if f else ["1", "2", "None", "'x'"]
        return Call(g.name, [str(self.rng.choice(pool)) for p in g.params if p not in g.defaults])

    # --- rendering -------------------------------------------------------------------
    def render(self, path: str) -> str:
        if path in self.tests:
            return self._render_test(path)
        package, module = path[len("shop/"):-3].split("/")
        calls = sorted({s.callee for n in self.modules[path]
                        for s in self.functions[n].body if isinstance(s, Call)})
        lines = [f'"""{module.replace("_", " ").capitalize()} for the shop\'s {package}."""',
                 "from __future__ import annotations", ""]
        lines += self._imports(calls, path)
        for name in self.modules[path]:
            f = self.functions[name]
            lines += ["", "", f"def {f.name}({f.signature()}):",
                      f'    """{f.name.replace("_", " ").capitalize()}."""',
                      f"    result = {f.params[0]}"]
            for step in f.body:
                if isinstance(step, Call):
                    lines.append(f"    result = {step.callee}({', '.join(step.args)})")
                else:
                    lines.append(f"    result = {step}")
            lines.append("    return result")
        return "\n".join(lines) + "\n"

    def _imports(self, names, here: str) -> list[str]:
        by_module: dict[str, list[str]] = {}
        for n in names:
            m = self.functions[n].module
            if m != here:
                by_module.setdefault(m, []).append(n)
        return [f"from {m[:-3].replace('/', '.')} import {', '.join(sorted(ns))}"
                for m, ns in sorted(by_module.items())]

    def _render_test(self, path: str) -> str:
        calls = self.tests[path]
        lines = ['"""Tests."""', ""] + self._imports(sorted({c.callee for c in calls}), path)
        for i, c in enumerate(calls):
            lines += ["", "", f"def test_{c.callee}_{i}():",
                      f"    assert {c.callee}({', '.join(c.args)}) is not None"]
        return "\n".join(lines) + "\n"

    def files(self) -> dict[str, str]:
        return {p: self.render(p) for p in [*self.modules, *self.tests]}

    def callers_of(self, name: str) -> list[str]:
        """Files (modules and tests) with a call to ``name``, other than its own module."""
        own = self.functions[name].module
        found = {f.module for f in self.functions.values()
                 for s in f.body if isinstance(s, Call) and s.callee == name}
        found |= {t for t, calls in self.tests.items() if any(c.callee == name for c in calls)}
        return sorted(found - {own})


class Writer:
    """Commits with fixed identities and a clock that moves an hour a commit."""

    def __init__(self, path: Path) -> None:
        self.path, self.tick = path, 0
        path.mkdir(parents=True, exist_ok=True)
        self("init", "-q", "-b", "main")

    def __call__(self, *args: str) -> str:
        self.tick += 1
        day, hour = divmod(self.tick, 10)
        date = f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T{8 + hour:02d}:00:00+00:00"
        env = neutral_env({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
        proc = subprocess.run(["git", "-c", "user.name=Shop Developer",
                               "-c", "user.email=dev@shop.example", "-c", "commit.gpgsign=false",
                               "-c", "pack.threads=1", "-C", str(self.path), *args],
                              capture_output=True, text=True, env=env, check=False)
        if proc.returncode:
            raise RuntimeError(f"git {' '.join(args)}: {proc.stderr}")
        return proc.stdout.strip()

    def write(self, files: Mapping[str, str | None]) -> None:
        for name, text in files.items():
            p = self.path / name
            if text is None:
                p.unlink()
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text, encoding="utf-8")
        self("add", "-A")

    def merge(self, branch: str, files: Mapping[str, str | None], message: str) -> str:
        self("checkout", "-q", "-b", branch)
        self.write(files)
        self("commit", "-q", "-m", branch.replace("-", " ").capitalize())
        self("checkout", "-q", "main")
        self("merge", "-q", "--no-ff", "-m", message, branch)
        return self("rev-parse", "HEAD")


def _lockfile(versions: dict[str, int]) -> str:
    return "".join(f'[[package]]\nname = "{n}"\nversion = "1.{v}.0"\n\n'
                   for n, v in sorted(versions.items()))


def build_repo(path: str | Path, seed: int = SEED) -> Path:
    """Build the demo repository at ``path`` (a new folder); returns it."""
    rng = np.random.default_rng(seed)
    model = Model(rng)
    w = Writer(Path(path))
    versions = dict.fromkeys(("requests", "pydantic", "sqlalchemy", "redis", "stripe"), 0)
    locales = {f"shop/locales/{code}.py": f'"""Locale {code}."""\nNAME = "{code}"\n'
                                          f"DECIMAL = {'.' if i % 2 else ','!r}\n"
               for i, code in enumerate(LOCALES)}
    w.write({**model.files(), **locales, "poetry.lock": _lockfile(versions),
             "vendor/shimlib/__init__.py": '"""Vendored."""\nVERSION = 1\n',
             "README.md": "# shop\n\nA demo shop backend.\n"})
    w("commit", "-q", "-m", "Initial import")

    plan = (["ordinary"] * 46 + ["silent"] * 6 + ["signature"] * 28 + ["lockfile"] * 5
            + ["rename"])
    plan = [plan[i] for i in rng.permutation(len(plan))]
    revert_after = set(rng.choice([i for i, kind in enumerate(plan) if kind == "ordinary"],
                                  size=4, replace=False).tolist())
    number, vendor_version = 0, 1
    for i, kind in enumerate(plan):
        number += 1
        branch = f"change-{number:03d}"
        before = model.files()
        snapshot = (copy.deepcopy((model.functions, model.modules, model.tests)),
                    dict(versions), vendor_version)
        if kind == "lockfile":
            name = sorted(versions)[int(rng.integers(0, len(versions)))]
            versions[name] += 1
            w.merge(branch, {"poetry.lock": _lockfile(versions)},
                    f"Merge pull request #{number} from dev/{branch}\n\n"
                    f"Bump {name} to 1.{versions[name]}.0")
            continue
        if kind == "rename":
            moved: dict[str, str | None] = dict.fromkeys(locales)
            moved.update({p.replace("/locales/", "/i18n/"): t for p, t in locales.items()})
            w.merge(branch, moved, f"Merge pull request #{number} from dev/{branch}\n\n"
                                   "Move the locale tables into the i18n package\n\n"
                                   "Nothing changes in them; the old name was confusing.")
            continue
        title, body = (_signature_change(model, rng) if kind == "signature"
                       else _ordinary_change(model, rng))
        after = model.files()
        files = {p: t for p, t in after.items() if before.get(p) != t}
        if kind != "signature" and rng.random() < 0.15:
            name = sorted(versions)[int(rng.integers(0, len(versions)))]
            versions[name] += 1
            files["poetry.lock"] = _lockfile(versions)
        if kind != "signature" and rng.random() < 0.06:
            vendor_version += 1
            files["vendor/shimlib/__init__.py"] = f'"""Vendored."""\nVERSION = {vendor_version}\n'
        if kind == "silent":
            message = f"Merge branch '{branch}'"
        else:
            message = f"Merge pull request #{number} from dev/{branch}\n\n{title}"
            message += f"\n\n{body}" if body else ""
        sha = w.merge(branch, files, message)
        if i in revert_after:
            number += 1
            branch = f"change-{number:03d}"
            w("checkout", "-q", "-b", branch)
            w("revert", "--no-edit", "-m", "1", sha)
            w("checkout", "-q", "main")
            w("merge", "-q", "--no-ff", "-m", f"Merge pull request #{number} from dev/{branch}"
                                              f'\n\nRevert "{title}"', branch)
            (model.functions, model.modules, model.tests), versions, vendor_version = snapshot
            if model.files() != before:
                raise RuntimeError("the model does not match the reverted repository")
    return w.path



TITLES = [
    "Fix {noun} rounding for partner accounts",
    "Handle a missing {noun} when building the {noun2}",
    "Stop recomputing the {noun} on every request",
    "Use the cached {noun2} when loading the {noun}",
    "Correct the {noun} limit for customers abroad",
    "Clamp negative {noun} values before saving",
    "Log and skip an invalid {noun}",
    "Apply the {noun2} before the {noun} is checked",
]
SIGNATURE_TITLES = [
    "Take an explicit {new} when computing the {noun}",
    "Pass the {new} through to {name}",
    "Make {noun} lookups aware of the {new}",
    "Let callers choose the {new} for the {noun}",
]


def _words(name: str) -> str:
    return name.replace("_", " ")


def _body(rng: np.random.Generator, changed_line: str, noun: str) -> str:
    """A body: a symptom, sometimes quoting the change (dropped) or a stack trace (kept)."""
    parts = []
    if rng.random() < 0.55:
        parts.append(SYMPTOMS[int(rng.integers(0, len(SYMPTOMS)))])
    r = rng.random()
    if r < 0.15:
        parts.append(f"The fix:\n\n```python\n{changed_line.strip()}\n```")
    elif r < 0.27:
        parts.append(TRACE.format(noun=_words(noun)))
    return "\n\n".join(parts)


def _mutate(model: Model, rng: np.random.Generator, path: str,
            readable: bool) -> tuple[str, str]:
    """Change one function of ``path``; returns a line of the change and the function."""
    before = model.render(path)
    while True:
        f = model.functions[model.modules[path][int(rng.integers(0, len(model.modules[path])))]]
        r = rng.random()
        if r < 0.4 and readable:
            others = [g for g in model.functions.values() if g.module != path]
            call = model._call(f, others[int(rng.integers(0, len(others)))])
            f.body.insert(int(rng.integers(0, len(f.body) + 1)), call)
            line = f"    result = {call.callee}({', '.join(call.args)})"
        elif r < 0.7:
            line = f"    result = {model._step(f)}"
            f.body.insert(int(rng.integers(0, len(f.body) + 1)), line.split("= ", 1)[1])
        else:
            steps = [i for i, s in enumerate(f.body) if isinstance(s, str)]
            if not steps:
                continue
            i = steps[int(rng.integers(0, len(steps)))]
            f.body[i] = model._step(f)
            line = f"    result = {f.body[i]}"
        if model.render(path) != before:
            return line, f.name


def _ordinary_change(model: Model, rng: np.random.Generator) -> tuple[str, str]:
    modules = list(model.modules)
    primary = modules[int(rng.integers(0, len(modules)))]
    size = int(rng.choice([1, 2, 3, 4, 5, 6], p=[0.15, 0.22, 0.22, 0.16, 0.13, 0.12]))
    related = sorted({c for n in model.modules[primary] for c in model.callers_of(n)
                      if c in model.modules}
                     | {model.functions[s.callee].module for n in model.modules[primary]
                        for s in model.functions[n].body if isinstance(s, Call)})
    related = [related[i] for i in rng.permutation(len(related))]
    rest = [m for m in modules if m != primary and m not in related]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    chosen = [primary, *related, *rest][:size]
    lines, names = zip(*[_mutate(model, rng, path, readable=True) for path in chosen])
    nouns = model.nouns[primary]
    noun, noun2 = _words(nouns[int(rng.integers(0, 3))]), _words(nouns[int(rng.integers(0, 3))])
    title = TITLES[int(rng.integers(0, len(TITLES)))].format(noun=noun, noun2=noun2)
    if rng.random() < 0.25:
        title += f" in {primary}"
    if rng.random() < 0.2:
        title = f"{names[0]}: {title[0].lower()}{title[1:]}"
    return title, _body(rng, lines[0], nouns[0])


def _signature_change(model: Model, rng: np.random.Generator) -> tuple[str, str]:
    counts = {n: len(model.callers_of(n)) for n in sorted(model.functions)}
    names = [n for n, c in counts.items() if c >= 2 and len(model.functions[n].params) < 5]
    weights = np.array([counts[n] for n in names], dtype=float)
    f = model.functions[names[int(rng.choice(len(names), p=weights / weights.sum()))]]
    new = str(rng.choice([p for p in NEW_PARAMS if p not in f.params]))
    with_default = rng.random() < 0.4
    f.params.append(new)
    # pass it by keyword once any argument is: a positional one may not follow
    keyword = bool(f.kwonly) or (not with_default and bool(f.defaults))
    if with_default:
        f.defaults[new] = "None"
    elif keyword:
        f.kwonly.append(new)
    f.body.append(f"result if {new} is None else result")
    callers = model.callers_of(f.name)
    if with_default:
        update = set(rng.choice(callers, size=int(rng.integers(1, len(callers))),
                                replace=False).tolist())
    else:
        update = set(callers)
    for g in model.functions.values():
        if g.module in update:
            for s in g.body:
                if isinstance(s, Call) and s.callee == f.name:
                    value = str(rng.choice(g.params))
                    s.args.append(f"{new}={value}" if keyword else value)
    for test, calls in model.tests.items():
        if test in update:
            for c in calls:
                if c.callee == f.name:
                    c.args.append(f"{new}=None" if keyword else "None")
    noun = _words(model.nouns[f.module][int(rng.integers(0, 3))])
    title = SIGNATURE_TITLES[int(rng.integers(0, len(SIGNATURE_TITLES)))].format(
        new=_words(new), noun=noun, name=f.name)
    return title, _body(rng, f"def {f.name}({f.signature()}):", new)


def _chunks(text: str | None) -> int:
    return max(1, -(-len((text or "").splitlines()) // CHUNK_LINES))


def synthetic_run(repo: Repo, tasks, seed: int = SEED) -> dict[str, list[str]]:
    """Task id -> :data:`DEPTH` chunk ids of the parent commit (see the module docstring)."""
    rng = np.random.default_rng([seed, 2])
    out: dict[str, list[str]] = {}
    for task in tasks.itertuples(index=False):
        parent = task.parent
        tree = [p for p in repo.files(parent) if p.endswith((".py", ".md"))]
        callers = set(task.callers)
        roles = {f: ("caller" if f in callers else "edit") for f in task.edit_set}
        roles.update({f: "caller" for f in task.callers if f not in roles})
        roles.update({f: "read" for f in task.read_set if f not in roles})
        others = [f for f in tree if f not in roles]
        scored = []
        for f, role in roles.items():
            chunk = f"{f}#{int(rng.integers(0, _chunks(repo.show(parent, f))))}"
            scored.append((MU[role] + rng.standard_normal(), chunk))
        for i in rng.choice(len(others), size=DISTRACTORS, replace=False):
            f = others[int(i)]
            chunk = f"{f}#{int(rng.integers(0, _chunks(repo.show(parent, f))))}"
            scored.append((rng.standard_normal(), chunk))
        scored.sort(key=lambda x: -x[0])
        out[task.task_id] = [chunk for _, chunk in scored[:DEPTH]]
    return out


def clone_repo(bundle: str | Path, dest: str | Path) -> Path:
    """Clone the demo bundle into ``dest`` (a new folder) and check out ``main``."""
    dest = Path(dest)
    proc = subprocess.run(["git", "clone", "-q", "-b", "main", str(bundle), str(dest)],
                          capture_output=True, text=True, env=neutral_env(), check=False)
    if proc.returncode:
        raise RuntimeError(f"git clone {bundle}: {proc.stderr}")
    return dest


def _bundle_head(bundle: Path) -> str | None:
    if not bundle.is_file():
        return None
    proc = subprocess.run(["git", "bundle", "list-heads", str(bundle)], capture_output=True,
                          text=True, env=neutral_env(), check=False)
    return proc.stdout.strip() if proc.returncode == 0 else None


def generate(out_dir: str | Path, seed: int = SEED) -> list[Path]:
    """Write ``repo.bundle``, ``tasks.jsonl`` and ``run.jsonl`` under ``out_dir``."""
    if not git_available():
        raise RagnbError("git is not installed: the code-task demo repository is built with git")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ragnb-codetasks-") as tmp:
        path = build_repo(Path(tmp) / "shop", seed)
        bundle = out_dir / "repo.bundle"
        fresh = Path(tmp) / "repo.bundle"
        subprocess.run(["git", "-c", "pack.threads=1", "-C", str(path), "bundle", "create", "-q",
                        str(fresh), "main"], capture_output=True, env=neutral_env(), check=True)
        if _bundle_head(fresh) != _bundle_head(bundle):
            shutil.copyfile(fresh, bundle)
        repo = Repo(path)
        mined = mine_tasks(repo, "main")
        tasks_path = write_tasks(mined, out_dir / "tasks.jsonl")
        run = synthetic_run(repo, mined.kept, seed)
    run_path = write_atomic(out_dir / "run.jsonl", "".join(
        json.dumps({tid: ranking}) + "\n" for tid, ranking in run.items()))
    return [bundle, tasks_path, run_path]
