"""The cheat idioms in the languages rgr reads on their tokens (rgr.ecosystems.tokens:
comments and strings are one token each or nothing, so the words they contain are never
taken for code). The rules are here; each language's words for them (its equality
methods, exits, test-run tells, framework patches) are its own
(rgr.ecosystems.language.CheatIdioms, asked of rgr.ecosystems.registry).
"""

from __future__ import annotations

from rgr.check.cheats.rules import Finding
from rgr.ecosystems import registry
from rgr.ecosystems.language import CheatIdioms
from rgr.ecosystems.tokens import Token, TokenScan, tokens_of

#: Tokens a signature may have between its parameters and its body (a return type,
#: ``throws``, Rust's ``->``).
SIGNATURE_TAIL = {":", "<", ">", "[", "]", "|", ".", ",", "?", "*", "&", "->", "::"}


def reads(path: str) -> bool:
    """Whether ``path`` is written in a language whose idioms are read on its tokens."""
    return registry.cheat_idioms(path) is not None


def findings(path: str, source: str, is_test: bool) -> list[Finding]:
    """Every cheat idiom in ``source``; in a test file only the framework patches count
    (a file the language names test code, a Rust ``#[cfg(test)] mod``, is test code)."""
    idioms = registry.cheat_idioms(path)
    if idioms is None:
        return []
    tokens = tokens_of(source, idioms.tokens)
    production = not is_test and not (idioms.test_file is not None
                                       and idioms.test_file(path))
    test_lines = idioms.test_lines(tokens, source.splitlines()) \
        if idioms.test_lines is not None else set()
    scan = _Scan(path, idioms, tokens)
    found = [scan.finding("patches-test-framework", start, end, detail)
             for start, end, detail in idioms.patches(scan)] \
        if idioms.patches is not None else []
    if production:
        found += [f for f in [*scan.always_equal(), *scan.detects_test_run(),
                              *scan.exits_with_success()] if f.line not in test_lines]
    return found


class _Scan(TokenScan):
    def __init__(self, path: str, idioms: CheatIdioms, tokens: list[Token]) -> None:
        super().__init__(tokens)
        self.path, self.idioms = path, idioms
        self._blocks: list[int] | None = None

    def finding(self, rule: str, start: int, end: int, detail: str) -> Finding:
        return Finding(rule, self.path, self.tokens[start].line, self.tokens[end].line, detail)

    # -- always-equal ------------------------------------------------------------------

    def always_equal(self) -> list[Finding]:
        found = []
        methods = self.idioms.equality_methods
        for index, text in enumerate(self.texts):
            if text in methods and self._declares(index):
                body = self._body_after(index)
                if body is not None and self._constant_answer(*body, methods[text]):
                    found.append(self.finding("always-equal", index, body[1],
                                              f"{text} returns a constant and never reads "
                                              "its operand"))
        return found

    def _declares(self, index: int) -> bool:
        """Whether the name at ``index`` is being defined, not called: after ``fn``,
        after ``func`` (with or without a receiver), or a member with no ``.`` before."""
        before = self.at(index - 1)
        defines = self.idioms.defines
        if defines == "member" and self.at(index + 1) in ("=", ":"):
            return True  # Point.prototype.equals = ..., { equals: ... }
        if defines == "fn":
            return before == "fn"
        if defines == "func":
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
        check = self.idioms.test_run
        found: list[Finding] = []
        if check is None:
            return found
        for index in range(len(self.tokens)):
            end_and_detail = check(self, index)
            if end_and_detail is not None:
                found.append(self.finding("detects-test-run", index, index, end_and_detail))
        return found

    # -- exits-with-success ------------------------------------------------------------

    def exits_with_success(self) -> list[Finding]:
        found = []
        for index in range(len(self.tokens)):
            for pattern in self.idioms.exits:
                if not self.follows(index, *pattern):
                    continue
                opening = index + len(pattern) - 1
                code = self.inside(opening)
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


def _named(header: list[str], keyword: str) -> str | None:
    """The name after the last ``keyword`` (``func``, ``fn``) of ``header``."""
    if keyword not in header:
        return None
    position = len(header) - 1 - header[::-1].index(keyword)
    return header[position + 1] if position + 1 < len(header) else None
