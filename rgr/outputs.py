"""The structured answers agents give (``claude --json-schema``), as pydantic models.

The same model produces the JSON schema passed to the agent and validates what comes
back, so the two can never drift apart.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Output(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class PlannedTest(_Output):
    description: str = Field(min_length=1, max_length=500)
    test_file: str = Field(min_length=1, max_length=300)
    impl_file: str = Field(min_length=1, max_length=300)


class PlanOutput(_Output):
    """The planner's answer: the next test case, or null when the feature is done."""

    current_test: PlannedTest | None


class EquivalenceClaim(_Output):
    """A surviving mutant the strengthening RED says changes no behaviour, and why
    (rgr.check.mutation.verdicts)."""

    mutant: str = Field(min_length=1, max_length=500)
    reason: str = Field(min_length=1, max_length=1000)


class PhaseOutput(_Output):
    """RED, GREEN and REFACTOR answer with a one-line account of what they did."""

    summary: str = Field(min_length=1, max_length=2000)
    #: Only read from a RED sent back by the mutation gate; empty otherwise.
    equivalent_mutants: list[EquivalenceClaim] = Field(default_factory=list, max_length=20)


OUTPUT_MODELS: dict[str, type[_Output]] = {"plan": PlanOutput, "phase": PhaseOutput}
