"""The structured answers agents give (``claude --json-schema``), as pydantic models.

The same model produces the JSON schema passed to the agent and validates what comes
back, so the two can never drift apart.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Output(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class _Answer(_Output):
    # The honest way out: the reason the task cannot be done honestly, or null. Agents
    # given an explicit way to flag an impossible task cheat far less often than agents
    # whose only way to finish is to pass (ImpossibleBench). One plain string: the
    # schema goes with every request of every session (the prompts say when to use it).
    cannot_be_done_honestly: str | None = Field(default=None, min_length=1,
                                                max_length=2000)


class PlannedTest(_Output):
    description: str = Field(min_length=1, max_length=500)
    test_file: str = Field(min_length=1, max_length=300)
    impl_file: str = Field(min_length=1, max_length=300)


class PlanOutput(_Answer):
    """The planner's answer: the next test case, or null when the feature is done."""

    current_test: PlannedTest | None


# A surviving mutant the strengthening RED says changes no behaviour, and why
# (rgr.check.mutation.verdicts). A comment, not a docstring: a docstring would be the
# schema's description, sent with every RED, GREEN and REFACTOR request (16 KB budget).
class EquivalenceClaim(_Output):
    mutant: str = Field(min_length=1, max_length=500)
    reason: str = Field(min_length=1, max_length=1000)


class PhaseOutput(_Answer):
    """RED, GREEN and REFACTOR answer with a one-line account of what they did."""

    summary: str = Field(min_length=1, max_length=2000)
    #: Only read from a RED sent back by the mutation gate; empty otherwise.
    equivalent_mutants: list[EquivalenceClaim] = Field(default_factory=list, max_length=20)


# One acceptance test the examiner wrote: its function's name, and the behaviour it
# checks in one sentence (what PLAN is told when it fails; never the test's values).
class AcceptanceTest(_Output):
    name: str = Field(min_length=1, max_length=200)
    behaviour: str = Field(min_length=1, max_length=500)


class AcceptanceOutput(_Answer):
    """The examiner's answer: the tests its file holds (rgr.tdd.examine)."""

    tests: list[AcceptanceTest] = Field(default_factory=list, max_length=20)


OUTPUT_MODELS: dict[str, type[_Output]] = {"plan": PlanOutput, "phase": PhaseOutput,
                                           "acceptance": AcceptanceOutput}


def way_out_of(output: BaseModel | None) -> str | None:
    """The reason an agent's answer gives for taking the honest way out, if it took it."""
    found = getattr(output, "cannot_be_done_honestly", None)
    return found if isinstance(found, str) and found.strip() else None
