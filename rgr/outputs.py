"""The structured answers agents give (``claude --json-schema``), as pydantic models.

The same model produces the JSON schema passed to the agent and validates what comes
back, so the two can never drift apart.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

#: Why a task cannot be done honestly, as an agent may say it (prompts/ explain each).
WayOutKind = Literal["test-contradicts-feature", "impossible-test-item",
                     "ambiguous-feature", "other"]


class _Output(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


# The way out: agents given an explicit way to flag an impossible task cheat far less
# often than agents whose only way to finish is to pass (ImpossibleBench). The
# docstring is the schema's description, which the agent reads: it speaks to the agent.
class WayOut(_Output):
    """Only when the task cannot be done honestly: rgr stops the run for a person. Never
    a way to skip work."""

    kind: WayOutKind
    reason: str = Field(min_length=1, max_length=2000)


class _Answer(_Output):
    #: Left null (or out) by an agent that did its task; set, it stops the run.
    cannot_be_done_honestly: WayOut | None = None


class PlannedTest(_Output):
    description: str = Field(min_length=1, max_length=500)
    test_file: str = Field(min_length=1, max_length=300)
    impl_file: str = Field(min_length=1, max_length=300)


class PlanOutput(_Answer):
    """The planner's answer: the next test case, or null when the feature is done."""

    current_test: PlannedTest | None


class PhaseOutput(_Answer):
    """RED, GREEN and REFACTOR answer with a one-line account of what they did."""

    summary: str = Field(min_length=1, max_length=2000)


OUTPUT_MODELS: dict[str, type[_Output]] = {"plan": PlanOutput, "phase": PhaseOutput}


def way_out_of(output: BaseModel | None) -> WayOut | None:
    """The way out an agent's answer took, if it took one."""
    found = getattr(output, "cannot_be_done_honestly", None)
    return found if isinstance(found, WayOut) else None
