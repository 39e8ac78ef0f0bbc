"""The cheat idioms rgr names, and what one sighting of them is."""

from __future__ import annotations

from dataclasses import dataclass

#: Rule id -> why the idiom is a cheat, as the failure brief says it.
RULES: dict[str, str] = {
    "always-equal": "an equality or ordering method that ignores its operand and returns "
                    "a constant: every comparison is decided in advance, so any assertion "
                    "of equality passes; compare the fields that make two values equal",
    "detects-test-run": "code under test that tells whether it runs under a test (a test "
                        "runner's variable, the test framework's modules, the call stack): "
                        "it can behave one way for the tests and another for users; "
                        "implement the behaviour for every caller",
    "exits-with-success": "code under test that ends the process with success: the test "
                          "run stops before its failures are counted; raise an error or "
                          "return instead (a program's main entry may exit)",
    "patches-test-framework": "code that changes the test framework itself (its assertions, "
                              "its hooks, its outcomes): the runner's verdict would no "
                              "longer be the tests' own",
}


@dataclass(frozen=True)
class Finding:
    """One sighting of rule ``rule`` in ``path``, on lines ``line``..``end_line``."""

    rule: str
    path: str
    line: int
    end_line: int
    detail: str

    def touches(self, lines: frozenset[int] | set[int]) -> bool:
        """Whether any of its lines is one of ``lines`` (the lines a diff added)."""
        return any(n in lines for n in range(self.line, self.end_line + 1))

    @property
    def message(self) -> str:
        return f"{self.detail}: {RULES[self.rule]}"
