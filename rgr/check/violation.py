"""What every rule of rgr's referee returns when work breaks it: a ``Violation`` (which
rule, what, which file and line), and the failure brief a retry's prompt carries. The
shared verdict type of the guards, the gate, the mutation gate, the modes' own checks and
the kernel, in a module of its own so that none of them imports another's rules to name it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rgr.check.verify import TestReport


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str
    path: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f" [{self.path}{f':{self.line}' if self.line else ''}]"
        return f"{self.rule}: {self.message}{where}"


def failure_brief(violations: list[Violation], after: TestReport | None) -> str:
    """The text a retry's prompt carries: every violation, then the runner's output tail."""
    lines = ["Your previous attempt at this phase was rejected by rgr and rolled back:"]
    lines += [f"- {v}" for v in violations]
    if after is not None and after.output_excerpt.strip():
        lines += ["", "Test runner output (excerpt):", "```", after.output_excerpt[-3000:], "```"]
    return "\n".join(lines)
