"""The cheat idioms in JavaScript/TypeScript, Java, Go and Rust, judged on the tokens of
the mutation gate's tokenizer (rgr.check.mutation.textual): comments and strings are one
token each or nothing, so the words they contain are never taken for code.
"""

from __future__ import annotations

from collections.abc import Callable

from rgr.check.cheats.rules import Finding
from rgr.check.mutation.textual import LANGUAGES, Token, rust_test_lines, tokens_of

#: Java has no regular-expression or template literal: JavaScript's scanner reads it.
DIALECTS = {**{suffix: language for suffix, language in LANGUAGES.items()}, ".java": "java"}

#: Methods (per dialect) whose answer must depend on the other operand, and the
#: constants that show it does not.
EQUALITY_METHODS: dict[str, dict[str, tuple[str, ...]]] = {
    # asymmetricMatch: Jest's and Vitest's toEqual ask it of either side, so a returned
    # object whose asymmetricMatch holds equals anything the test expects
    "js": {"equals": ("true", "false"), "isEqual": ("true", "false"), "compareTo": ("0",),
           "asymmetricMatch": ("true", "false")},
    "java": {"equals": ("true", "false"), "compareTo": ("0",)},
    "go": {"Equal": ("true", "false"), "Equals": ("true", "false")},
    "rust": {"eq": ("true", "false"), "ne": ("true", "false")},
}

#: Tokens a signature may have between its parameters and its body (a return type,
#: ``throws``, Rust's ``->``).
SIGNATURE_TAIL = {":", "<", ">", "[", "]", "|", ".", ",", "?", "*", "&", "->", "::"}

#: Variables by which a JavaScript test runner announces itself.
JS_TEST_VARIABLES = frozenset({"VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID", "VITEST_MODE",
                               "JEST_WORKER_ID", "NODE_TEST_CONTEXT", "__vitest_worker__",
                               "__vitest_environment__", "__VITEST__"})
#: Globals only a test runner defines (``typeof jest !== "undefined"``).
JS_TEST_GLOBALS = frozenset({"jest", "vi", "vitest", "describe", "it", "expect", "mocha",
                             "beforeEach", "afterEach", "beforeAll", "afterAll"})
#: The test framework's objects, which code must not reassign or redefine.
JS_FRAMEWORK = frozenset({"assert", "expect", "chai", "jest", "vi"})
JS_GLOBAL_OBJECTS = frozenset({"global", "globalThis", "window", "self"})
JS_REDEFINERS = frozenset({"defineProperty", "defineProperties", "assign", "setPrototypeOf",
                           "spyOn", "replaceProperty"})


def dialect_of(path: str) -> str | None:
    dot = path.rfind(".")
    return DIALECTS.get(path[dot:].lower()) if dot >= 0 else None


def findings(path: str, source: str, is_test: bool) -> list[Finding]:
    """Every cheat idiom in ``source``; in a test file only the framework patches count
    (a Go ``_test.go`` file and a Rust ``#[cfg(test)] mod`` are test code)."""
    dialect = dialect_of(path)
    if dialect is None:
        return []
    tokens = tokens_of(source, "js" if dialect == "java" else dialect)
    production = not is_test and not (dialect == "go" and path.endswith("_test.go"))
    test_lines = rust_test_lines(tokens, source.splitlines(), modules_only=True) \
        if dialect == "rust" else set()
    scan = _Scan(path, dialect, tokens)
    found = scan.patches() if dialect == "js" else []
    if production:
        found += [f for f in [*scan.always_equal(), *scan.detects_test_run(),
                              *scan.exits_with_success()] if f.line not in test_lines]
    return found


class _Scan:
    def __init__(self, path: str, dialect: str, tokens: list[Token]) -> None:
        self.path, self.dialect, self.tokens = path, dialect, tokens
        self.texts = [t.text for t in tokens]
        self.pairs = _pairs(self.texts)
        self._blocks: list[int] | None = None

    def at(self, index: int) -> str:
        return self.texts[index] if 0 <= index < len(self.texts) else ""

    def follows(self, index: int, *texts: str) -> bool:
        """Whether the tokens from ``index`` on are ``texts``."""
        return all(self.at(index + n) == text for n, text in enumerate(texts))

    def finding(self, rule: str, start: int, end: int, detail: str) -> Finding:
        return Finding(rule, self.path, self.tokens[start].line, self.tokens[end].line, detail)

    def said(self, start: int, end: int) -> str:
        """The tokens from ``start`` to ``end`` as code (a space only between words)."""
        words = ("word", "number")
        return "".join(
            (" " if n > start and self.tokens[n].kind in words
             and self.tokens[n - 1].kind in words else "") + self.texts[n]
            for n in range(start, end + 1))[:80]

    # -- always-equal ------------------------------------------------------------------

    def always_equal(self) -> list[Finding]:
        found = []
        methods = EQUALITY_METHODS[self.dialect]
        for index, text in enumerate(self.texts):
            if text in methods and self._declares(index):
                body = self._body_after(index)
                if body is not None and self._constant_answer(*body, methods[text]):
                    found.append(self.finding("always-equal", index, body[1],
                                              f"{text} returns a constant and never reads "
                                              "its operand"))
        return found

    def _declares(self, index: int) -> bool:
        """Whether the name at ``index`` is being defined, not called: Rust's ``fn``, Go's
        ``func`` (with or without a receiver), and in JavaScript or Java no ``.`` before."""
        before = self.at(index - 1)
        if self.dialect in ("js", "java") and self.at(index + 1) in ("=", ":"):
            return True  # Point.prototype.equals = ..., { equals: ... }
        if self.dialect == "rust":
            return before == "fn"
        if self.dialect == "go":
            return before == "func" or (before == ")" and self.at(
                self.pairs.get(index - 1, 0) - 1) == "func")
        return before not in (".", "?.", "new", "return", "(", ",", "!", "=", "&&", "||")

    def _body_after(self, index: int) -> tuple[int, int] | None:
        """(first, last) token of the body of the function named at ``index``: a braced
        block or an arrow's expression."""
        position = index + 1
        if self.at(position) in ("=", ":"):
            position += 1  # a property or an assignment: equals = function (...) / (...) =>
            if self.at(position) in ("async", "function"):
                position += 1
        if self.at(position) != "(" or position not in self.pairs:
            return None
        position = self.pairs[position] + 1
        for _ in range(12):  # a return type, throws ...; never a statement
            text = self.at(position)
            if text in ("{", "=>"):
                break
            kind = self.tokens[position].kind if position < len(self.tokens) else ""
            if kind != "word" and text not in SIGNATURE_TAIL:
                return None
            position += 1
        if self.at(position) == "{" and position in self.pairs:
            return position, self.pairs[position]
        if self.at(position) == "=>":
            if self.at(position + 1) == "{" and position + 1 in self.pairs:
                return position + 1, self.pairs[position + 1]
            return position, position + 1
        return None

    def _constant_answer(self, start: int, end: int, constants: tuple[str, ...]) -> bool:
        inside = self.texts[start + 1:end] if self.at(start) == "{" else \
            self.texts[start + 1:end + 1]
        if self.at(start) == "=>" and self.at(end + 1) not in ("", ";", ",", "}", ")") \
                and self.tokens[end + 1].line == self.tokens[end].line:
            return False  # ``=> true && other.ok``: the expression goes on
        if inside and inside[-1] == ";":
            inside = inside[:-1]
        if inside and inside[0] == "return":
            inside = inside[1:]
        return len(inside) == 1 and inside[0] in constants

    # -- detects-test-run --------------------------------------------------------------

    def detects_test_run(self) -> list[Finding]:
        checks: dict[str, Callable[[int], str | None]] = {
            "js": self._js_test_run, "java": lambda _: None, "go": self._go_test_run,
            "rust": self._rust_test_run}
        found = []
        for index in range(len(self.tokens)):
            end_and_detail = checks[self.dialect](index)
            if end_and_detail is not None:
                found.append(self.finding("detects-test-run", index, index, end_and_detail))
        return found

    def _js_test_run(self, index: int) -> str | None:
        token = self.tokens[index]
        text = token.text
        if token.kind == "word" and (text in JS_TEST_VARIABLES or text.startswith("MOCHA_")) \
                and self.at(index - 1) not in ("const", "let", "var", "function"):
            return f"reads {text}, a test runner's variable"
        if token.kind == "string" and text[1:-1] in JS_TEST_VARIABLES \
                and (self.at(index - 1) == "[" or self.at(index + 1) == "in"):
            return f"reads {text}, a test runner's variable"
        if text == "typeof" and self.at(index + 1) in JS_TEST_GLOBALS \
                and self.at(index + 2) != ".":
            return f"typeof {self.at(index + 1)} asks whether a test runner is there"
        if self.follows(index, "import", ".", "meta", ".", "vitest"):
            return "import.meta.vitest is set only under Vitest"
        return None

    def _go_test_run(self, index: int) -> str | None:
        if self.follows(index, "testing", ".", "Testing", "("):
            return "testing.Testing() outside a _test.go file"
        if self.follows(index, "flag", ".", "Lookup", "(") \
                and self.at(index + 4).strip('"`').startswith("test."):
            return f"flag.Lookup({self.at(index + 4)}) looks for go test's flags"
        return None

    def _rust_test_run(self, index: int) -> str | None:
        if self.follows(index, "cfg", "!", "(") and "test" in self._inside(index + 2):
            return "cfg!(...test...) outside a #[cfg(test)] module"
        if self.follows(index, "#", "[", "cfg", "(") and "test" in self._inside(index + 3):
            inside = self._inside(index + 3)
            close = self.pairs.get(index + 3, index)
            item = [t for t in self.texts[close + 2:close + 7]
                    if t not in ("pub", "(", "crate", "super", ")")]
            if "not" in inside or not item or item[0] not in ("mod", "use"):
                return "#[cfg(...test...)] on code other than a test module"
        return None

    def _inside(self, opening: int) -> list[str]:
        close = self.pairs.get(opening)
        return self.texts[opening + 1:close] if close is not None else []

    # -- exits-with-success ------------------------------------------------------------

    def exits_with_success(self) -> list[Finding]:
        patterns = {"js": [("process", ".", "exit", "("), ("process", ".", "reallyExit", "("),
                           ("Deno", ".", "exit", "(")],
                    "java": [("System", ".", "exit", "("), ("Runtime", ".", "halt", "(")],
                    "go": [("os", ".", "Exit", "("), ("syscall", ".", "Exit", "(")],
                    "rust": [("process", "::", "exit", "(")]}[self.dialect]
        found = []
        for index in range(len(self.tokens)):
            for pattern in patterns:
                if not self.follows(index, *pattern):
                    continue
                opening = index + len(pattern) - 1
                code = self._inside(opening)
                if code in ([], ["0"]) and not self._in_main_entry(index):
                    end = self.pairs.get(opening, opening)
                    found.append(self.finding("exits-with-success", index, end,
                                              f"{self.said(index, end)} ends the process "
                                              "with success"))
        return found

    def _in_main_entry(self, index: int) -> bool:
        """Whether a block around ``index`` is a program's entry: Go's ``func main()``,
        Rust's ``fn main``, Java's ``static void main``, or Node's ``if (require.main
        === module)``."""
        for opening in self._enclosing(index):
            header = self._header(opening)
            if _named(header, "func") == "main" or _named(header, "fn") == "main" \
                    or ("static" in header and "void" in header and "main" in header) \
                    or ("require" in header and "main" in header and "module" in header):
                return True
        return False

    def _enclosing(self, index: int) -> list[int]:
        """The ``{`` of every block around ``index``, innermost first."""
        if self._blocks is None:
            # innermost[n]: the brace block token n is in (-1: none), one pass
            self._blocks = []
            open_braces: list[int] = []
            for text in self.texts:
                self._blocks.append(open_braces[-1] if open_braces else -1)
                if text == "{":
                    open_braces.append(len(self._blocks) - 1)
                elif text == "}" and open_braces:
                    open_braces.pop()
        found, block = [], self._blocks[index]
        while block >= 0:
            found.append(block)
            block = self._blocks[block]
        return found

    def _header(self, opening: int) -> list[str]:
        """The tokens before the brace at ``opening``, back to the statement's start."""
        start = opening
        while start > 0 and self.texts[start - 1] not in (";", "{", "}"):
            start -= 1
        return [t for t in self.texts[start:opening] if t not in ("pub", "public", "async")]

    # -- patches-test-framework --------------------------------------------------------

    def patches(self) -> list[Finding]:
        found = []
        for index, token in enumerate(self.tokens):
            if token.text in JS_REDEFINERS and self.at(index + 1) == "(" \
                    and self.at(index + 2) in JS_FRAMEWORK:
                found.append(self.finding("patches-test-framework", index, index + 2,
                                          f"{token.text}({self.at(index + 2)}, ...) "
                                          "redefines the test framework"))
                continue
            if token.kind != "word" or self.at(index - 1) in (
                    ".", "?.", "const", "let", "var", "function", "class", "as"):
                continue  # a property read, or a declaration of one's own name
            start = index
            if token.text in JS_GLOBAL_OBJECTS and self.at(index + 1) == "." \
                    and self.at(index + 2) in JS_FRAMEWORK | {"it", "test", "describe"}:
                start = index + 2
            elif token.text not in JS_FRAMEWORK:
                continue
            end = self._chain_end(start)
            if self.at(end + 1) == "=":
                found.append(self.finding("patches-test-framework", index, end + 1,
                                          f"{self.said(index, end)} = ... replaces part of the "
                                          "test framework"))
        return found

    def _chain_end(self, start: int) -> int:
        """The last token of ``a.b["c"].d`` starting at ``start``."""
        position = start
        while True:
            if self.at(position + 1) == "." and position + 2 < len(self.tokens) \
                    and self.tokens[position + 2].kind == "word":
                position += 2
            elif self.at(position + 1) == "[" and position + 1 in self.pairs:
                position = self.pairs[position + 1]
            else:
                return position


def _named(header: list[str], keyword: str) -> str | None:
    """The name after the last ``keyword`` (``func``, ``fn``) of ``header``."""
    if keyword not in header:
        return None
    position = len(header) - 1 - header[::-1].index(keyword)
    return header[position + 1] if position + 1 < len(header) else None


def _pairs(texts: list[str]) -> dict[int, int]:
    """Opening bracket index -> its closing one (and closing -> opening), for (), [], {}."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    closing = {")": "(", "]": "[", "}": "{"}
    for index, text in enumerate(texts):
        if text in ("(", "[", "{"):
            stack.append(index)
        elif text in closing:
            while stack and texts[stack[-1]] != closing[text]:
                stack.pop()  # an unmatched bracket (a generic's < is no bracket here)
            if stack:
                opening = stack.pop()
                pairs[opening] = index
                pairs[index] = opening
    return pairs
