"""Rust's words for the cheat idioms (rgr.check.cheats.tokens): a ``#[cfg(test)] mod`` is
test code; ``cfg!(test)`` or a ``#[cfg(test)]`` on other code tells it is under test."""

from __future__ import annotations

from rgr.ecosystems.language import CheatIdioms
from rgr.ecosystems.rust.test_modules import test_lines
from rgr.ecosystems.tokens import Token, TokenScan


def test_run(scan: TokenScan, index: int) -> str | None:
    if scan.follows(index, "cfg", "!", "(") and "test" in scan.inside(index + 2):
        return "cfg!(...test...) outside a #[cfg(test)] module"
    if scan.follows(index, "#", "[", "cfg", "(") and "test" in scan.inside(index + 3):
        inside = scan.inside(index + 3)
        close = scan.pairs.get(index + 3, index)
        item = [t for t in scan.texts[close + 2:close + 7]
                if t not in ("pub", "(", "crate", "super", ")")]
        if "not" in inside or not item or item[0] not in ("mod", "use"):
            return "#[cfg(...test...)] on code other than a test module"
    return None


def test_modules(tokens: list[Token], texts: list[str]) -> set[int]:
    return test_lines(tokens, texts, modules_only=True)


IDIOMS = CheatIdioms(
    suffixes=(".rs",), tokens="rust", defines="fn",
    equality_methods={"eq": ("true", "false"), "ne": ("true", "false")},
    exits=(("process", "::", "exit", "("),),
    test_run=test_run, test_lines=test_modules)
