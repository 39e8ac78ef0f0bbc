"""Ruby's words for the cheat idioms (rgr.check.cheats.tokens): code that reopens,
evaluates into or redefines RSpec's or Minitest's classes (``RSpec::Matchers::BuiltIn::
Eq.class_eval { def matches?(_actual) = true }``), a built-in matcher defined again,
code asking whether a test framework is loaded, and code under test that exits with
success. (An equality that ignores its operand is not read in Ruby yet.)"""

from __future__ import annotations

from rgr.ecosystems.language import CheatIdioms, Spotted
from rgr.ecosystems.tokens import TokenScan

#: The test frameworks' top-level constants.
FRAMEWORKS = frozenset({"RSpec", "Minitest", "MiniTest", "Test"})
#: What changes a class or module from outside it.
CHANGERS = frozenset({"class_eval", "class_exec", "module_eval", "module_exec",
                      "instance_eval", "instance_exec", "define_method", "alias_method",
                      "remove_method", "undef_method", "prepend", "include", "extend",
                      "send", "__send__", "const_set"})
#: RSpec's own matchers: defining one again (``RSpec::Matchers.define :eq``) changes
#: what every test's ``expect(x).to eq(y)`` means.
BUILT_IN_MATCHERS = frozenset({"eq", "eql", "equal", "be", "be_truthy", "be_falsey",
                               "be_nil", "include", "match", "raise_error", "contain_exactly",
                               "match_array", "be_within", "satisfy", "change"})


def patches(scan: TokenScan) -> list[Spotted]:
    found: list[Spotted] = []
    for index, token in enumerate(scan.tokens):
        if token.kind != "word" or token.text not in FRAMEWORKS \
                or scan.at(index - 1) in ("::", "."):
            continue
        if scan.at(index - 1) in ("class", "module"):
            end = _chain_end(scan, index)
            found.append((index - 1, end, f"{scan.at(index - 1)} {scan.said(index, end)} "
                                          "reopens the test framework"))
            continue
        end = _chain_end(scan, index)
        if scan.at(end + 1) == "." and scan.at(end + 2) in CHANGERS:
            found.append((index, end + 2, f"{scan.said(index, end)}.{scan.at(end + 2)} "
                                          "changes the test framework"))
        elif scan.at(end + 1) == "." and scan.at(end + 2) == "define" \
                and scan.at(end + 3) in (":", "(") \
                and _first_symbol(scan, end + 3) in BUILT_IN_MATCHERS:
            found.append((index, end + 2, f"{scan.said(index, end)}.define "
                                          f":{_first_symbol(scan, end + 3)} redefines a "
                                          "built-in matcher"))
    return found


def _chain_end(scan: TokenScan, start: int) -> int:
    """The last token of ``RSpec::Matchers::BuiltIn::Eq`` starting at ``start``."""
    position = start
    while scan.at(position + 1) == "::" and position + 2 < len(scan.tokens) \
            and scan.tokens[position + 2].kind == "word":
        position += 2
    return position


def _first_symbol(scan: TokenScan, at: int) -> str:
    """The symbol's name at ``at`` (``:eq``) or in the parenthesis opening there."""
    position = at + 1 if scan.at(at) == "(" else at
    return scan.at(position + 1) if scan.at(position) == ":" else ""


def test_run(scan: TokenScan, index: int) -> str | None:
    if scan.follows(index, "defined", "?", "(") and scan.at(index + 3) in FRAMEWORKS:
        return f"defined?({scan.at(index + 3)}) asks whether a test framework is loaded"
    if scan.follows(index, "const_defined", "?", "(", ":") \
            and scan.at(index + 4) in FRAMEWORKS:
        return f"const_defined?(:{scan.at(index + 4)}) asks whether a test framework is loaded"
    return None


IDIOMS = CheatIdioms(
    suffixes=(".rb",), tokens="ruby", defines="fn", equality_methods={},
    exits=(("exit", "("), ("exit", "!", "("), ("Kernel", ".", "exit", "("),
           ("Process", ".", "exit", "(")),
    test_run=test_run, patches=patches)
