"""The ``rgr`` mode of `rgr eval`: ``rgr run --here`` in the run's own clone, as a child
process of the same rgr (``python -m rgr``).

A child, not the run command called in this process: it is exactly what a user runs
(its run lock, signal handling, crash log and exit code are its own), a crash or a
refusal of rgr's is one measured outcome instead of the end of the eval, Ctrl-C stops it
with its process group, and nothing of one run's process state (the live view, the
scrubbed environment, failpoints) reaches the next. Its figures are read afterwards from
the clone's run folder (rgr.observe.artifacts), the same events `rgr report` reads.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rgr.base.proc import run
from rgr.observe.artifacts import decode_events, runs_dir
from rgr.observe.events import AgentCalled, GuardVerdict


@dataclass
class RgrRun:
    exit_code: int
    timed_out: bool
    #: Why it stopped, in its own words (its error line, else its last line).
    tail: str


@dataclass
class RunFigures:
    sessions: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    input_tokens: int = 0
    output_tokens: int = 0
    rejections: Counter[str] = field(default_factory=Counter)


def rgr_argv(feature: str, budget_usd: float | None, backend: str | None,
             model: str | None, no_sandbox: bool) -> list[str]:
    argv = [sys.executable, "-m", "rgr", "run", "--here", "--yes", "--skip-preflight"]
    if budget_usd is not None:
        argv += ["--max-budget-usd", f"{max(budget_usd, 0.0001):.4f}"]
    if backend:
        argv += ["--backend", backend]
    if model:
        argv += ["--model", model]
    if no_sandbox:
        argv.append("--no-sandbox")
    return [*argv, "--", feature]


def run_rgr(clone: Path, feature: str, env: Mapping[str, str], timeout_s: float,
            budget_usd: float | None, backend: str | None = None, model: str | None = None,
            no_sandbox: bool = False) -> RgrRun:
    done = run(rgr_argv(feature, budget_usd, backend, model, no_sandbox), cwd=clone,
               timeout=timeout_s, env=env)
    lines = [line.strip() for line in (done.stdout + "\n" + done.stderr).splitlines()
             if line.strip()]
    # Why it stopped: an RgrError prints its message, then "  fix: <hint>".
    fixes = [n for n, line in enumerate(lines) if line.startswith("fix:") and n > 0]
    said = lines[fixes[-1] - 1] if fixes else (lines[-1] if lines else "")
    return RgrRun(done.returncode, done.timed_out, said)


def figures(git_dir: Path) -> RunFigures:
    """Every session and every rejection of the runs in ``git_dir``'s run folder."""
    found = RunFigures()
    for path in sorted(runs_dir(git_dir).glob("*/events.jsonl")):
        for event in decode_events(path):
            match event:
                case AgentCalled(cost_usd=cost, input_tokens=tokens_in,
                                 output_tokens=tokens_out):
                    found.sessions += 1
                    found.input_tokens += tokens_in
                    found.output_tokens += tokens_out
                    if cost is None:
                        found.cost_known = False
                    else:
                        found.cost_usd += cost
                case GuardVerdict(ok=False, violations=violations):
                    for violation in violations:
                        found.rejections[str(violation.get("rule", "?"))] += 1
                case _:
                    pass
    return found
