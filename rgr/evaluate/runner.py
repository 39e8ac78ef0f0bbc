"""`rgr eval`'s runs: every task, mode and repeat in a fresh clone of its own, under a
hard budget, resumable.

Order: repeat by repeat, task by task, mode by mode, so a budget that runs out leaves
every mode measured on the same tasks. Before a run starts, what it would cost (the mean
of the runs of its mode measured so far, else a prior: ``session_usd`` per session, one
session for the single-session modes and ``rgr_sessions`` for rgr) is added to what was
spent; over the budget, no further run starts. Each session gets what is left of the
budget as its own cap (claude's --max-budget-usd; rgr's --max-budget-usd).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.check.verify import TestReport
from rgr.ecosystems.registry import guess_runner, resolve_test_command
from rgr.evaluate import results
from rgr.evaluate.clone import fresh_clone
from rgr.evaluate.measure import measure
from rgr.evaluate.results import Measures
from rgr.evaluate.rgr_mode import figures, run_rgr
from rgr.evaluate.solo import solo_session
from rgr.evaluate.tasks import Task
from rgr.loop.starting import make_backend
from rgr.sandbox.sealer import open_sealer
from rgr.store import git
from rgr.store.workspace import Workspace, open_workspace

Say = Callable[[str], None]


@dataclass(frozen=True)
class EvalOptions:
    modes: tuple[str, ...]
    repeat: int
    out: Path
    budget_usd: float | None = None
    backend: str | None = None
    model: str | None = None
    no_sandbox: bool = False
    #: How long one rgr run may take (its whole loop), in seconds.
    run_timeout_s: float = 3600.0
    #: The prior estimate of one agent session's cost, before any run of a mode is measured.
    session_usd: float = 0.50
    #: The prior estimate of how many sessions one rgr run makes.
    rgr_sessions: int = 12


@dataclass(frozen=True)
class RunKey:
    task: Task
    mode: str
    repeat: int

    def label(self) -> str:
        return f"{self.task.id} / {self.mode} / #{self.repeat}"


@dataclass
class Progress:
    done: list[Measures] = field(default_factory=list)
    skipped_done: int = 0
    not_started: list[RunKey] = field(default_factory=list)
    budget_stop: str = ""


def planned(tasks: Sequence[Task], options: EvalOptions) -> list[RunKey]:
    return [RunKey(task, mode, n) for n in range(1, options.repeat + 1) for task in tasks
            for mode in options.modes]


def pending(tasks: Sequence[Task], options: EvalOptions) -> tuple[list[RunKey], int]:
    """The runs without a result yet, and how many have one."""
    keys = planned(tasks, options)
    left = [k for k in keys if results.load(results.run_file(
        options.out, k.task.id, k.mode, k.repeat)) is None]
    return left, len(keys) - len(left)


def estimate(mode: str, options: EvalOptions, measured: Sequence[Measures]) -> float:
    costs = [m.cost_usd for m in measured if m.mode == mode and m.cost_known]
    if costs:
        return sum(costs) / len(costs)
    sessions = options.rgr_sessions if mode == "rgr" else 1
    return sessions * options.session_usd


def estimated_total(keys: Sequence[RunKey], options: EvalOptions,
                    measured: Sequence[Measures]) -> float:
    return sum(estimate(k.mode, options, measured) for k in keys)


def spent(measured: Sequence[Measures]) -> float:
    return sum(m.cost_usd for m in measured)


class Evaluation:
    def __init__(self, tasks: Sequence[Task], options: EvalOptions,
                 env: Mapping[str, str], say: Say) -> None:
        self.tasks = list(tasks)
        self.options = options
        self.env = dict(env)
        self.say = say
        #: The regression suite's report at each task's base (one run per task).
        self._before: dict[str, TestReport] = {}

    def run(self) -> Progress:
        keys, done_before = pending(self.tasks, self.options)
        progress = Progress(skipped_done=done_before)
        measured = results.load_all(self.options.out)
        for index, key in enumerate(keys):
            cost = spent(measured)
            guess = estimate(key.mode, self.options, measured)
            budget = self.options.budget_usd
            if budget is not None and cost + guess > budget:
                progress.budget_stop = (
                    f"budget: ${cost:.2f} spent + ${guess:.2f} estimated for {key.label()} "
                    f"would exceed ${budget:.2f}")
                progress.not_started = keys[index:]
                self.say(progress.budget_stop + "; no further run starts")
                break
            self.say(f"[{index + 1}/{len(keys)}] {key.label()}")
            found = self.one(key, None if budget is None else budget - cost)
            results.save(self.options.out, found)
            measured.append(found)
            progress.done.append(found)
            self.say(f"  hidden {found.hidden_passed}/{found.hidden_total}, "
                     f"regressions {len(found.regressions)}, tests edited "
                     f"{len(found.tests_edited) + len(found.tests_removed)}, written "
                     f"{found.tests_written}, ${found.cost_usd:.4f}, {found.wall_s:.1f}s"
                     + (f" ({found.detail})" if found.detail else ""))
        return progress

    def clone_dir(self, key: RunKey) -> Path:
        return self.options.out / "work" / key.task.id / key.mode / str(key.repeat)

    def workspace(self, clone: Path) -> Workspace:
        flags = {"model": self.options.model, "backend": self.options.backend}
        return open_workspace(clone, env=self.env, flags=flags,
                              no_sandbox=self.options.no_sandbox).pinned()

    def regression(self, ws: Workspace, task: Task) -> TestCommand | None:
        if task.regression is None:
            return None
        if task.regression.command is None:
            return resolve_test_command(ws.config, ws.root)
        argv = tuple(task.regression.command)
        return TestCommand(argv=argv, runner=guess_runner(argv), junit_globs=(),
                           shell=False, source=f"task {task.id}'s regression suite")

    def one(self, key: RunKey, budget_usd: float | None) -> Measures:
        task = key.task
        clone = self.clone_dir(key)
        fresh_clone(task.repo, task.commit, clone / "repo", self.env)
        ws = self.workspace(clone / "repo")
        base = git.head_commit(ws.repo)
        test_command = resolve_test_command(ws.config, ws.root)
        backend = make_backend(ws)
        sealer = open_sealer(ws, backend, test_command, lambda line: None)
        regression = self.regression(ws, task)
        before = None
        if regression is not None:
            before = self._before.get(task.id) or sealer.try_command(regression, base)
            self._before[task.id] = before
        started = time.monotonic()
        fields: dict[str, object] = {}
        if key.mode == "rgr":
            done = run_rgr(ws.root, task.feature, self.env, self.options.run_timeout_s,
                           budget_usd, self.options.backend, self.options.model,
                           self.options.no_sandbox)
            seen = figures(ws.git_dir)
            fields = {"sessions": seen.sessions, "cost_usd": round(seen.cost_usd, 6),
                      "cost_known": seen.cost_known, "input_tokens": seen.input_tokens,
                      "output_tokens": seen.output_tokens,
                      "rejections": dict(seen.rejections),
                      "rgr_exit": None if done.timed_out else done.exit_code}
            if done.exit_code != 0 or done.timed_out:
                fields["detail"] = (("timed out; " if done.timed_out else "")
                                    + f"rgr exited {done.exit_code}: {done.tail[:300]}")
            ws = self.workspace(ws.root)  # the branch moved under a child process
            sealer = open_sealer(ws, backend, test_command, lambda line: None)
        else:
            solo = solo_session(sealer, backend, test_command, task.feature, key.mode,
                                budget_usd)
            used = solo.figures
            fields = {"sessions": 1 if used is not None or not solo.error else 0,
                      "detail": solo.error}
            if used is not None:
                fields.update(cost_usd=round(used.cost_usd or 0.0, 6),
                              cost_known=used.cost_usd is not None,
                              input_tokens=used.input_tokens, output_tokens=used.output_tokens)
            if solo.error and solo.tip.id == base.id:
                fields["status"] = "agent-failed"
        wall = time.monotonic() - started
        tip = git.head_commit(ws.repo)
        run = Measures.model_validate({"task": task.id, "mode": key.mode,
                                       "repeat": key.repeat, "wall_s": round(wall, 2),
                                       **fields})
        return measure(sealer, task, base, tip, regression, before, run)


def describe_plan(keys: Sequence[RunKey], options: EvalOptions,
                  measured: Sequence[Measures]) -> list[str]:
    """What is about to run and what it is estimated to cost, said before anything runs."""
    by_mode: dict[str, int] = {}
    for key in keys:
        by_mode[key.mode] = by_mode.get(key.mode, 0) + 1
    lines = [f"  {mode:<11} {count} run(s) x ~${estimate(mode, options, measured):.2f}"
             f" = ~${count * estimate(mode, options, measured):.2f}"
             for mode, count in by_mode.items()]
    total = estimated_total(keys, options, measured)
    cap = (f"; budget ${options.budget_usd:.2f}, ${spent(measured):.2f} already spent"
           if options.budget_usd is not None else "; no budget cap (--budget-usd)")
    return [*lines, f"  estimated   ~${total:.2f}{cap}"]
