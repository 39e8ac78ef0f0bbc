"""``rgr eval TASKS``: the same tasks with and without rgr, judged by hidden tests.

The tasks are validated and copied into the eval's vault (rgr.evaluate.vault) first;
the plan and its estimated cost are said before anything runs; the runs
(rgr.evaluate.runner) write one result each under ``--out``, so the same command again
resumes; the report (Markdown, JSON, PNG) is written from every result there."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.base import failpoints
from rgr.base.errors import BadUsage, NeedsConfirmation
from rgr.base.outcome import Heading, Outcome, Table
from rgr.evaluate import plot, report, results, vault
from rgr.evaluate.results import MODES
from rgr.evaluate.runner import EvalOptions, Evaluation, describe_plan, pending
from rgr.evaluate.tasks import load_tasks

if TYPE_CHECKING:
    from rgr.base.outcome import Say


def parse_modes(text: str) -> tuple[str, ...]:
    modes = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise BadUsage(f"--modes: {', '.join(unknown) or '(none)'} is no mode; the modes "
                       f"are {', '.join(MODES)}")
    return modes


def default_out(tasks_file: Path) -> Path:
    return Path.cwd() / "rgr-eval" / tasks_file.stem


def evaluate(tasks_file: Path, options: EvalOptions, assume_yes: bool,
             say: Say) -> Outcome[dict[str, object]]:
    """The plan said (``say``) before the question, the runs' progress as they go; the
    Outcome is the report (its table, or its JSON)."""
    env = failpoints.scrub(os.environ)
    tasks = load_tasks(tasks_file)
    stored = vault.store(env, tasks_file, tasks)
    tasks = vault.load(stored)
    options.out.mkdir(parents=True, exist_ok=True)
    keys, done = pending(tasks, options)
    measured = results.load_all(options.out)
    banner: list[str | Heading] = [
        Heading("rgr eval", f": {len(tasks)} task(s) x {', '.join(options.modes)} x "
                f"{options.repeat}"),
        f"  tasks         {tasks_file} (hidden tests kept in {stored.parent})",
        f"  results       {options.out}",
        f"  runs          {len(keys)} to run, {done} already measured",
        *describe_plan(keys, options, measured)]
    for item in banner:
        say(item)
    if keys and not assume_yes:
        if not sys.stdin.isatty():
            raise NeedsConfirmation("not a terminal: rgr eval will not start paid agent "
                                    "sessions without confirmation", "pass --yes to go ahead")
        from rgr.commands.common import ask_yes_no

        if not ask_yes_no("Start?"):
            return Outcome(["not started: nothing was run"], exit_code=1)
    progress = Evaluation(tasks, options, env, say).run()
    order = {t.id: n for n, t in enumerate(tasks)}
    runs = sorted((m for m in results.load_all(options.out)
                   if m.task in order and m.mode in options.modes
                   and m.repeat <= options.repeat),
                  key=lambda m: (order[m.task], options.modes.index(m.mode), m.repeat))
    md, js = report.write(options.out, runs)
    modes = report.aggregate(runs)
    png = plot.write(options.out / "report.png", modes) if modes else None
    lines: list[str | Table] = [
        Table("rgr eval (95 % intervals)", report.COLUMNS, report.table_rows(modes)),
        f"report: {md}, {js}" + (f", {png}" if png else "")]
    if progress.budget_stop:
        lines.append(f"stopped: {progress.budget_stop}; {len(progress.not_started)} run(s) "
                     "not started (raise --budget-usd and run the same command to resume)")
    data = {**report.as_json(runs), "notStarted": [k.label() for k in progress.not_started],
            "budgetStop": progress.budget_stop or None}
    return Outcome(lines, data)
