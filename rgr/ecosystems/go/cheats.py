"""Go's words for the cheat idioms (rgr.check.cheats.tokens): a ``_test.go`` file is test
code; ``testing.Testing()`` and go test's flags tell code it is under test."""

from __future__ import annotations

from rgr.ecosystems.language import CheatIdioms
from rgr.ecosystems.tokens import TokenScan


def test_run(scan: TokenScan, index: int) -> str | None:
    if scan.follows(index, "testing", ".", "Testing", "("):
        return "testing.Testing() outside a _test.go file"
    if scan.follows(index, "flag", ".", "Lookup", "(") \
            and scan.at(index + 4).strip('"`').startswith("test."):
        return f"flag.Lookup({scan.at(index + 4)}) looks for go test's flags"
    return None


def test_file(path: str) -> bool:
    return path.endswith("_test.go")


IDIOMS = CheatIdioms(
    suffixes=(".go",), tokens="go", defines="func",
    equality_methods={"Equal": ("true", "false"), "Equals": ("true", "false")},
    exits=(("os", ".", "Exit", "("), ("syscall", ".", "Exit", "(")),
    test_run=test_run, test_file=test_file)
