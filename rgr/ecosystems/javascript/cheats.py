"""JavaScript's and TypeScript's words for the cheat idioms (rgr.check.cheats.tokens):
the test runners' variables and globals, the framework's objects that code must not
replace, the methods that must read their operand, the calls that end the process."""

from __future__ import annotations

from rgr.ecosystems.javascript.interface import INTERFACE
from rgr.ecosystems.language import CheatIdioms, Spotted
from rgr.ecosystems.tokens import TokenScan

#: Variables by which a JavaScript test runner announces itself.
TEST_VARIABLES = frozenset({"VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID", "VITEST_MODE",
                            "JEST_WORKER_ID", "NODE_TEST_CONTEXT", "__vitest_worker__",
                            "__vitest_environment__", "__VITEST__"})
#: Globals only a test runner defines (``typeof jest !== "undefined"``).
TEST_GLOBALS = frozenset({"jest", "vi", "vitest", "describe", "it", "expect", "mocha",
                          "beforeEach", "afterEach", "beforeAll", "afterAll"})
#: The test framework's objects, which code must not reassign or redefine.
FRAMEWORK = frozenset({"assert", "expect", "chai", "jest", "vi"})
GLOBAL_OBJECTS = frozenset({"global", "globalThis", "window", "self"})
REDEFINERS = frozenset({"defineProperty", "defineProperties", "assign", "setPrototypeOf",
                        "spyOn", "replaceProperty"})


def test_run(scan: TokenScan, index: int) -> str | None:
    token = scan.tokens[index]
    text = token.text
    if token.kind == "word" and (text in TEST_VARIABLES or text.startswith("MOCHA_")) \
            and scan.at(index - 1) not in ("const", "let", "var", "function"):
        return f"reads {text}, a test runner's variable"
    if token.kind == "string" and text[1:-1] in TEST_VARIABLES \
            and (scan.at(index - 1) == "[" or scan.at(index + 1) == "in"):
        return f"reads {text}, a test runner's variable"
    if text == "typeof" and scan.at(index + 1) in TEST_GLOBALS \
            and scan.at(index + 2) != ".":
        return f"typeof {scan.at(index + 1)} asks whether a test runner is there"
    if scan.follows(index, "import", ".", "meta", ".", "vitest"):
        return "import.meta.vitest is set only under Vitest"
    return None


def patches(scan: TokenScan) -> list[Spotted]:
    """Where code replaces or redefines part of the test framework."""
    found: list[Spotted] = []
    for index, token in enumerate(scan.tokens):
        if token.text in REDEFINERS and scan.at(index + 1) == "(" \
                and scan.at(index + 2) in FRAMEWORK:
            found.append((index, index + 2, f"{token.text}({scan.at(index + 2)}, ...) "
                                            "redefines the test framework"))
            continue
        if token.kind != "word" or scan.at(index - 1) in (
                ".", "?.", "const", "let", "var", "function", "class", "as"):
            continue  # a property read, or a declaration of one's own name
        start = index
        if token.text in GLOBAL_OBJECTS and scan.at(index + 1) == "." \
                and scan.at(index + 2) in FRAMEWORK | {"it", "test", "describe"}:
            start = index + 2
        elif token.text not in FRAMEWORK:
            continue
        end = _chain_end(scan, start)
        if scan.at(end + 1) == "=":
            found.append((index, end + 1, f"{scan.said(index, end)} = ... replaces part of "
                                          "the test framework"))
    return found


def _chain_end(scan: TokenScan, start: int) -> int:
    """The last token of ``a.b["c"].d`` starting at ``start``."""
    position = start
    while True:
        if scan.at(position + 1) == "." and position + 2 < len(scan.tokens) \
                and scan.tokens[position + 2].kind == "word":
            position += 2
        elif scan.at(position + 1) == "[" and position + 1 in scan.pairs:
            position = scan.pairs[position + 1]
        else:
            return position


IDIOMS = CheatIdioms(
    suffixes=INTERFACE.suffixes, tokens="js", defines="member",
    # asymmetricMatch: Jest's and Vitest's toEqual ask it of either side, so a returned
    # object whose asymmetricMatch holds equals anything the test expects
    equality_methods={"equals": ("true", "false"), "isEqual": ("true", "false"),
                      "compareTo": ("0",), "asymmetricMatch": ("true", "false")},
    exits=(("process", ".", "exit", "("), ("process", ".", "reallyExit", "("),
           ("Deno", ".", "exit", "(")),
    test_run=test_run, patches=patches)
