"""Java's words for the cheat idioms (rgr.check.cheats.tokens), read with JavaScript's
tokenizer (Java has no regular-expression or template literal to tell apart)."""

from __future__ import annotations

from rgr.ecosystems.language import CheatIdioms

IDIOMS = CheatIdioms(
    suffixes=(".java",), tokens="js", defines="member",
    equality_methods={"equals": ("true", "false"), "compareTo": ("0",)},
    exits=(("System", ".", "exit", "("), ("Runtime", ".", "halt", "(")))
