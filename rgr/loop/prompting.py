"""The user prompt of one phase, built from the handoff state (``prompts/phase.md``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from string import Template

from rgr.check.testlist import FILENAME as TEST_LIST
from rgr.store.agents import prompt_path
from rgr.store.handoff import AcceptanceTestNote, HandoffState, Phase

#: A test list longer than this is cut in the prompt (the agent can read the file).
TEST_LIST_LIMIT = 6000
#: Open fake-it debt listed in the planner's prompt (the rest: a count), each value cut
#: at this length: the first request of a phase stays under 16 KB (bench/request_size.py;
#: one listed debt adds about 200 bytes, each more about 70).
DEBT_LISTED = 2
DEBT_VALUE_LIMIT = 40


def _cut(text: str) -> str:
    return text if len(text) <= DEBT_VALUE_LIMIT else text[:DEBT_VALUE_LIMIT - 1] + "…"


def where_it_stopped(test: AcceptanceTestNote) -> str:
    """A failing acceptance test's pointer into the production code: the lines its code
    returned or raised from last (rgr.tdd.examine), never the test's code or values."""
    if not test.ran_last:
        return ""
    return f" (the code it ran last: {', '.join(test.ran_last[:3])})"


def quoted(text: str) -> str:
    """``text`` as a fenced block that it cannot close: what the user, a planner or an
    earlier agent wrote reaches the next agent as data, never as the prompt's own
    structure (a fence longer than any run of backticks in it)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def build_prompt(
    root: Path,
    *,
    phase: Phase,
    state: HandoffState,
    cycle: int,
    branch: str,
    head: str,
    test_argv: tuple[str, ...],
    test_list: str | None,
    failure_brief: str | None,
    impact: str = "",
) -> str:
    template = Template(prompt_path(root, "phase.md").read_text())
    test = state.current_test if phase != Phase.PLAN else None
    if phase == Phase.PLAN:
        finished = state.current_test.description if state.current_test else None
        current = (f"The previous cycle finished this item; tick its box:\n{quoted(finished)}"
                   if finished and state.phase == Phase.REFACTOR else "Choose the next one.")
    elif test is None:
        current = "(none recorded)"
    else:
        current = quoted(f"description: {test.description}\ntest file: {test.test_file}\n"
                         f"implementation file: {test.impl_file}")
    if phase == Phase.PLAN and state.open_debt:
        debt = state.open_debt
        listed = [f"{d.path}:{d.line} {d.function}: {d.kind} {_cut(d.value)} for inputs "
                  f"{_cut(d.inputs)}" for d in debt[:DEBT_LISTED]]
        if len(debt) > DEBT_LISTED:
            listed.append(f"(and {len(debt) - DEBT_LISTED} more: `rgr show`)")
        current += ("\n\nOpen fake-it debt: plan tests with other inputs that pay it.\n"
                    + quoted("\n".join(listed)))
    examined = state.acceptance
    if phase == Phase.PLAN and examined is not None and examined.verdict == "fail":
        # In words only: the tests' code and values stay where no implementing agent is.
        current += ("\n\nAcceptance tests you cannot see found these behaviours missing; "
                    "plan items for them:\n"
                    + quoted("\n".join(f"- {t.behaviour}{where_it_stopped(t)}"
                                       for t in examined.missing)))
    listing = (test_list or f"({TEST_LIST} does not exist yet)").strip()
    if len(listing) > TEST_LIST_LIMIT:
        listing = listing[:TEST_LIST_LIMIT] + f"\n[... cut; read {TEST_LIST} for the rest]"
    previous = quoted(f"{state.phase}: {state.summary}" if state.summary
                      else f"{state.phase} phase")
    text = template.safe_substitute(
        phase=phase.value,
        cycle=cycle,
        feature=quoted(state.feature or "(not recorded)"),
        branch=branch,
        head=head[:12],
        test_command=shlex.join(test_argv),
        current_test=current,
        test_list=quoted(listing),
        previous=previous,
        failure_brief=failure_brief or "",
        impact=impact,
    )
    # The version tag is for the file's readers, not the model.
    return "\n".join(line for line in text.splitlines() if not line.startswith("<!--")).strip()
