"""The single-session modes of `rgr eval`: ``bare`` (implement the feature with tests)
and ``tdd-prompt`` (the same, told to work test-first). One agent session, sealed exactly
as rgr's phases are (rgr.sandbox.sealer.Sealer: a scratch copy of the commit, a throwaway
HOME, the bubblewrap jail, the model API only), with the same backend, model, timeout
and budget; its commits come back as objects and the clone's branch moves to them. No
guard, no retry, no referee: what the session commits is the result.
"""

from __future__ import annotations

import shlex
import uuid
from dataclasses import dataclass
from string import Template

from rgr.backends.base import AgentRequest, Backend, SessionFigures, session_figures
from rgr.base.config import TestCommand
from rgr.base.errors import BackendError
from rgr.loop.outputs import PhaseOutput
from rgr.sandbox.sealer import Sealer
from rgr.store import git
from rgr.store.agents import load_agent, prompt_path
from rgr.store.objects import Commit
from rgr.store.scratch import ImportRefused

AGENT = "solo"
TEMPLATE = "solo-task.md"

METHOD = {
    "bare": "Implement the feature and write tests for it.",
    "tdd-prompt": (
        "Work test-first (TDD): for each behaviour, first write one failing test and run "
        "it to see it fail, then write the least code that makes it pass, then tidy up "
        "with every test green. Repeat until the feature is complete."),
}


@dataclass
class SoloResult:
    tip: Commit
    #: What the session used (None: it never ran, or its backend could not say).
    figures: SessionFigures | None
    error: str = ""


def prompt(sealer: Sealer, feature: str, test_command: TestCommand, mode: str) -> str:
    template = Template(prompt_path(sealer.ws.config_root, TEMPLATE).read_text())
    text = template.safe_substitute(feature=feature, method=METHOD[mode],
                                    test_command=shlex.join(test_command.argv))
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("<!--")).strip()


def solo_session(sealer: Sealer, backend: Backend, test_command: TestCommand, feature: str,
                 mode: str, budget_usd: float | None) -> SoloResult:
    """One sealed session from the clone's HEAD; the branch moved to what it committed."""
    ws = sealer.ws
    spec = load_agent(ws.config_root, AGENT)
    base = git.head_commit(ws.repo)
    figures: SessionFigures | None = None
    error = ""
    with sealer.seat(base, f"eval-{mode}") as seat:
        request = AgentRequest(
            prompt=prompt(sealer, feature, test_command, mode),
            system_prompt_file=prompt_path(ws.config_root, spec.prompt),
            output_model=PhaseOutput, tools=tuple(spec.tools),
            allowed_tools=spec.permission_rules(test_command.argv),
            disallowed_tools=tuple(spec.disallowed_tools),
            max_turns=spec.max_turns, model=spec.model or ws.config.model, cwd=seat.cwd,
            timeout_s=ws.config.agent_timeout, session_id=str(uuid.uuid4()), env=seat.env,
            max_budget_usd=budget_usd, launcher=seat.launcher,
            backend=spec.backend or ws.config.backend)
        try:
            figures = session_figures(backend.run(request))
        except BackendError as exc:
            # A session that ran and failed still committed what it committed: measured.
            error = f"{exc.kind}: {exc.message[:300]}"
            figures = session_figures(exc)
        try:
            tip = sealer.bring_in(seat, base)
        except ImportRefused as refused:
            return SoloResult(base, figures, error or f"commits not imported: {refused.message}")
    if tip.id != base.id:
        sealer.accept(base, tip, f"rgr eval: {mode} session")
    return SoloResult(tip, figures, error)
