"""``ragnb tasks``: code retrieval tasks mined from merged commits, and a run scored on them."""
from __future__ import annotations

import argparse

from ragnb.cli._options import OUTPUT, RESAMPLING, action, actions, add

NAME = "tasks"
HELP = "mine code tasks from a git repository's merged changes; score a retriever's run on them"
DESCRIPTION = """\
Two actions:

  mine   one task per merged change on the first-parent history of --branch (merge
         commits and squash-merged pull requests titled '... (#N)', diffed against their
         first parent; --every-commit: every commit; a folder inside the repository
         stands for the whole repository; a shallow clone or nothing to mine warns).
         Edit set = changed files that exist in the parent, minus vendored roots
         (nested packages with their own version or licence, folders updated wholesale),
         lock and generated files, and bookkeeping files (changelogs, AUTHORS), each
         counted; task text = the description (a title-only merge adds its commits'
         messages) with file paths and code-like changed symbol names stripped; read set
         (names the change imports, identifiers in the description's code, stack-trace
         files) and callers of changed signatures resolved from the parent tree's syntax,
         each saying how (files that do not parse are listed per task). Filters: bot
         authors (--bot), reverts, releases, changelog-, docs- and config-only changes,
         1..15 edit-set files, a description. Prints the filter table (mined, kept,
         dropped by which filter) and the set sizes; --out writes every mined change
         (kept or not) as JSONL. Runs git locally; nothing is fetched; a progress bar
         goes to standard error when it is a terminal.
  score  per-file, all-files, read-set and caller recall at --k of a run (task_id ->
         ranked chunk ids `path#chunk` or file paths; TREC, JSONL or CSV) on the kept
         tasks, with bootstrap intervals over tasks, the all-files figure independent
         misses would give, and the --keep condition read against the intervals
         (keep / fix / inconclusive; a clause on fewer than 10 tasks is inconclusive).
         Prints the finding of page 07-code-tasks (`ragnb run 07-code-tasks` on a
         workspace): the headline (the keep verdict; without --keep, the recall) first,
         then its tables in points, a dash where a value is not defined (the reason
         under the table); --format csv/json (or an --out suffix): the recall summary,
         values 0-1, its header lines on standard error.

examples:
  ragnb tasks mine --repo ~/src/shop --branch main --out tasks.jsonl
  ragnb tasks score --tasks tasks.jsonl --run run.jsonl --k 10 \\
      --keep "all_files>=0.80,caller>=0.90"
"""


#: Columns of recall values: points in the text table, 0-1 in CSV/JSON.
RECALL_POINTS = ("mean", "ci_low", "ci_high")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = actions(p)

    a = action(sub, "mine", "mine one task per merged change of a local repository")
    a.add_argument("--repo", metavar="DIR", help="the local git repository")
    a.add_argument("--branch", default="main", help="the mainline branch (default main)")
    a.add_argument("--every-commit", action="store_true",
                   help="every mainline commit is a change, not only merges and squash merges")
    a.add_argument("--no-vendored-detection", action="store_true",
                   help="do not detect vendored roots (nested packages with their own version or "
                        "licence, folders updated wholesale)")
    a.add_argument("--no-squash", action="store_true",
                   help="leave out squash-merged pull requests (commits titled '... (#N)')")
    a.add_argument("--exclude", action="append", default=None, metavar="PATTERN",
                   help="a vendored/lock/generated pattern, added to the defaults (repeatable; "
                        "fnmatch on path and name; 'dir/' = a folder anywhere)")
    a.add_argument("--no-default-excludes", action="store_true",
                   help="use only the --exclude patterns")
    a.add_argument("--bot", action="append", default=None, metavar="PATTERN",
                   help="a bot author pattern, added to the defaults (repeatable; * and ? "
                        "wildcards, any case; matched on author name, e-mail and the merged "
                        "branch)")
    a.add_argument("--no-default-bots", action="store_true", help="use only the --bot patterns")
    a.add_argument("--min-files", type=int, default=1, help="fewest edit-set files (1)")
    a.add_argument("--max-files", type=int, default=15, help="most edit-set files (15)")
    a.add_argument("--min-words", type=int, default=3,
                   help="fewest words of stripped task text (3)")
    add(a, *OUTPUT, out={"help": "write every mined change (kept or not) here as JSONL"})

    a = action(sub, "score", "recall of a retriever's run on the kept tasks")
    add(a, "tasks")
    a.add_argument("--run", metavar="FILE", help="the retriever's run")
    add(a, "k", "order", "missing", "extra", *RESAMPLING, *OUTPUT,
        missing={"help": "kept tasks the run has no ranking for: error (default), empty "
                         "(retrieving nothing) or drop (left out, counted); in a workspace: "
                         "[codetasks] missing"},
        extra={"help": "run queries that are no mined task: error (default) or drop (left "
                       "out, counted); in a workspace: [codetasks] extra"})
    a.add_argument("--keep", default=None, metavar="CONDITION",
                   help="the keep condition stated before the run, e.g. "
                        "'all_files>=0.80,caller>=0.90'")


def _need(args, *names: str) -> None:
    from ragnb.errors import InputError

    for n in names:
        if getattr(args, n.lstrip("-").replace("-", "_")) is None:
            raise InputError(f"tasks {args.action} needs {n}", key=n)


def run(args: argparse.Namespace) -> int:
    return _mine(args) if args.action == "mine" else _score(args)


def _mine(args) -> int:
    from ragnb.cli._common import emit
    from ragnb.codetasks import filter_table, mine_tasks, set_sizes, write_tasks
    from ragnb.codetasks.editset import DEFAULT_EXCLUDE
    from ragnb.codetasks.kinds import DEFAULT_BOTS
    from ragnb.codetasks.mine import bookkeeping_table, caller_resolution, exclusion_table

    _need(args, "--repo")
    exclude = (() if args.no_default_excludes else DEFAULT_EXCLUDE) + tuple(args.exclude or ())
    bots = (() if args.no_default_bots else DEFAULT_BOTS) + tuple(args.bot or ())
    mined = mine_tasks(args.repo, args.branch, every_commit=args.every_commit,
                       squash=not args.no_squash, vendored=not args.no_vendored_detection,
                       exclude=exclude,
                       bots=bots,
                       min_files=args.min_files, max_files=args.max_files,
                       min_words=args.min_words)
    if args.out:
        write_tasks(mined, args.out)
    table = filter_table(mined.tasks, mined.options)
    kept = mined.kept
    header = [f"{len(mined.tasks)} changes mined from {args.branch} "
              f"({mined.options.head[:12]}), {len(kept)} kept"
              + (f"; written to {args.out}" if args.out else ""),
              *(f"warning: {w}" for w in mined.warnings)]
    emit(table, args.format, None, header)
    if args.format == "table" and len(kept):
        emit(set_sizes(kept), "table", None, ["", "Set sizes over the kept tasks"])
        emit(caller_resolution(kept), "table", None,
             ["", ("Caller sites of changed signatures over the kept tasks, by how they were "
                   "resolved (unresolved sites are not in the caller set)")])
        emit(exclusion_table(mined.tasks, mined.options, mined.vendored), "table", None,
             ["", "Files left out of the edit sets (every mined change)"])
        books = bookkeeping_table(mined.tasks)
        if len(books):
            emit(books, "table", None, ["", "Bookkeeping files kept out of the edit sets "
                                            "(every mined change; not scored)"])
    return 0


def _score(args) -> int:
    import sys

    from ragnb.cli._common import emit, out_format, terminal_safe
    from ragnb.codetasks import parse_keep
    from ragnb.pages.code_tasks import score

    _need(args, "--tasks", "--run")
    if args.keep is not None:  # stated before the run: a typo stops before anything is read
        parse_keep(args.keep, source="--keep")
    # the page's pipeline (07-code-tasks): the same Finding as its notebook and report
    finding = score(args.tasks, args.run, k=args.k, keep=args.keep or "", missing=args.missing,
                    extra=args.extra, order=args.order, resamples=args.resamples,
                    seed=args.seed)
    fmt = out_format(args.format, args.out)
    if fmt == "table":  # headline first, then the page's tables in points
        text = terminal_safe(finding.to_text())
        if args.out:
            _write(args.out, text)
        else:
            sys.stdout.write(text)
        return 0
    o = finding.objects
    summary, recall, verdict = o["summary"], o["recall"], o["verdict"]
    header = [f"{len(o['tasks'])} tasks scored at k={args.k} ({recall.run}); "
              f"{summary['method'].iloc[0]}", *(f"note: {n}" for n in recall.notes)]
    if verdict is not None:
        header.append(f"keep condition ({verdict.condition}): {verdict.verdict}")
    emit(summary.drop(columns=["method"]), fmt, args.out, header, points=RECALL_POINTS)
    return 0


def _write(out: str, text: str) -> None:
    from ragnb._atomic import write_atomic_bytes
    from ragnb.errors import InputError

    try:
        write_atomic_bytes(out, text.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot write the output ({exc.strerror})", source=out) from None
