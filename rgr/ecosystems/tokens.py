"""The tokens of a source file in one of the brace languages rgr mutates at the token level
(JavaScript/TypeScript, Go, Rust, Java; Ruby for its cheat idioms): comments skipped,
each string, template, character or regular-expression literal one token. Read alike
by the mutation gate (rgr.check.mutation.textual), the cheat idioms, fake-it and the
examiner's interface, so that a word inside a string or a comment is never taken for
code by any of them.

``language`` is the mutator's name for the language (``MutationSyntax.language``); what
differs between them is only how literals are written (Rust's raw strings and
lifetimes, Java's text blocks and char literals, JavaScript's regular expressions, Go's
raw strings, Ruby's ``#`` comments).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Longest first, so ``===`` is one token and not ``==`` then ``=``.
_OPERATORS = sorted(
    [">>>=", ">>>", "===", "!==", "...", "..=", ">>=", "<<=", "**=", "&&=", "||=", "??=",
     "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "=>", "->", "::", "..", "<<", ">>",
     "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ":=", "<-", "**"],
    key=len, reverse=True)


@dataclass(frozen=True)
class Token:
    #: "word", "number", "string", "char", "op", "punct", or "template": a piece of a
    #: JavaScript template literal holding ``${}`` (```a${``, ``}b${``, ``}c```), the
    #: expressions between its pieces being tokens of their own.
    kind: str
    text: str
    start: int
    end: int
    line: int
    #: Whitespace right before and right after it.
    space_before: bool
    space_after: bool = False


def tokens_of(source: str, language: str) -> list[Token]:
    """The tokens of ``source`` in ``language`` (a ``MutationSyntax.language``): comments
    skipped, each string, template or regular-expression literal one token."""
    return list(_tokens(source, language))


def _tokens(source: str, language: str) -> Iterator[Token]:
    index, line, length = 0, 1, len(source)
    previous: Token | None = None
    #: The open template literals' ``${`` expressions, each its depth of braces.
    templates: list[int] = []
    while index < length:
        char = source[index]
        if char == "\n":
            line += 1
            index += 1
            continue
        if char in " \t\r":
            index += 1
            continue
        space = index > 0 and source[index - 1] in " \t\r\n"
        if language == "js" and (char == "`" or (char == "}" and templates
                                                 and templates[-1] == 0)):
            end, opens = _template_piece(source, index)
            if char == "}":
                templates.pop()
            if opens:
                templates.append(0)
            # a template without ``${}`` stays one string, as any other literal
            kind = "template" if opens or char == "}" else "string"
        else:
            end, kind = _scan(source, index, language, previous)
            if templates and kind == "punct" and char in "{}":
                templates[-1] += 1 if char == "{" else -1
        if kind == "skip":  # a comment
            line += source.count("\n", index, end)
            index = end
            continue
        token = Token(kind, source[index:end], index, end, line, space)
        line += source.count("\n", index, end)
        if previous is not None:
            yield _with_space_after(previous, space)
        previous = token
        index = end
    if previous is not None:
        yield _with_space_after(previous, True)


def _with_space_after(token: Token, space: bool) -> Token:
    return Token(token.kind, token.text, token.start, token.end, token.line,
                 token.space_before, space)


def _scan(source: str, index: int, language: str, previous: Token | None
          ) -> tuple[int, str]:
    """(end, kind) of the token at ``index``."""
    char, rest = source[index], source[index:index + 3]
    if char == "#" and language == "ruby":  # a comment, to the line's end
        end = source.find("\n", index)
        return (len(source) if end < 0 else end), "skip"
    if rest.startswith("//"):
        end = source.find("\n", index)
        return (len(source) if end < 0 else end), "skip"
    if rest.startswith("/*"):
        end = source.find("*/", index + 2)
        return (len(source) if end < 0 else end + 2), "skip"
    if language == "rust" and source.startswith(("b\"", "b'"), index):  # b"..", b'.'
        end, kind = _scan(source, index + 1, language, previous)
        return end, kind
    if language == "rust" and re.match(r'b?r#*"', source[index:index + 8]):
        match = re.match(r'b?r(#*)"', source[index:])
        assert match is not None
        close = source.find('"' + match.group(1), index + match.end())
        return (len(source) if close < 0 else close + 1 + len(match.group(1))), "string"
    if language == "java" and rest == '"""':  # a text block, to its closing """
        close = index + 3
        while True:
            close = source.find('"""', close)
            if close < 0 or source[close - 1] != "\\":
                break
            close += 1
        return (len(source) if close < 0 else close + 3), "string"
    if char == "'" and language == "java":  # a char literal ('a', '\n', '\u0041')
        char_literal = re.match(r"'(\\.[^']*|[^\\'])'", source[index:])
        return index + (char_literal.end() if char_literal else 1), "char"
    if char in "\"'`":
        if char == "'" and language == "rust":
            char_literal = re.match(r"'(\\.[^']*|[^\\'])'", source[index:])
            if char_literal is None:  # a lifetime: 'a
                return index + 1, "punct"
            return index + char_literal.end(), "char"
        return _string_end(source, index, char, language), "string"
    if char == "/" and language == "js" and _regex_may_start(previous):
        regex_end = _regex_end(source, index)
        if regex_end is not None:
            return regex_end, "string"
    if char.isdigit():
        match = re.match(r"0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?\w*",
                         source[index:])
        assert match is not None
        return index + match.end(), "number"
    if char.isalpha() or char in "_$":
        match = re.match(r"[\w$]+", source[index:])
        assert match is not None
        return index + match.end(), "word"
    for operator in _OPERATORS:
        if source.startswith(operator, index):
            return index + len(operator), "op"
    return index + 1, "op" if char in "+-*/%<>=!&|^~?:" else "punct"


def _template_piece(source: str, index: int) -> tuple[int, bool]:
    """(end, whether it opens a ``${`` expression) of the piece of a template literal
    starting at ``index`` (its opening backquote, or the ``}`` closing an expression)."""
    position = index + 1
    while position < len(source):
        char = source[position]
        if char == "\\":
            position += 2
            continue
        if char == "`":
            return position + 1, False
        if source.startswith("${", position):
            return position + 2, True
        position += 1
    return len(source), False


def _string_end(source: str, index: int, quote: str, language: str) -> int:
    """The end of the string literal opening at ``index`` (escapes honoured; a template
    literal or a Go raw string may span lines, other strings end at the line's end)."""
    spans_lines = quote == "`" or language == "rust"
    position = index + 1
    while position < len(source):
        char = source[position]
        if char == "\\" and not (quote == "`" and language == "go"):
            position += 2
            continue
        if char == quote:
            return position + 1
        if char == "\n" and not spans_lines:
            return position
        position += 1
    return len(source)


def _regex_may_start(previous: Token | None) -> bool:
    """A ``/`` starts a regular expression unless it follows a value."""
    if previous is None:
        return True
    if previous.kind in ("number", "string", "char"):
        return False
    if previous.kind == "template":  # a value after its closing piece only
        return not previous.text.endswith("`")
    if previous.kind == "word":
        return previous.text in {"return", "typeof", "case", "in", "of", "new", "delete",
                                 "void", "throw", "yield", "await"}
    return previous.text not in {")", "]", "}"}


def _regex_end(source: str, index: int) -> int | None:
    position, in_class = index + 1, False
    while position < len(source):
        char = source[position]
        if char == "\n":
            return None
        if char == "\\":
            position += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            flags = re.match(r"[a-z]*", source[position + 1:])
            return position + 1 + (flags.end() if flags else 0)
        position += 1
    return None


class TokenScan:
    """A file's tokens with the questions every token-level reader asks: the text at an
    index, whether a run of texts follows, the brackets' pairs, what a bracket holds."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.texts = [t.text for t in tokens]
        self.pairs = bracket_pairs(self.texts)

    def at(self, index: int) -> str:
        return self.texts[index] if 0 <= index < len(self.texts) else ""

    def follows(self, index: int, *texts: str) -> bool:
        """Whether the tokens from ``index`` on are ``texts``."""
        return all(self.at(index + n) == text for n, text in enumerate(texts))

    def inside(self, opening: int) -> list[str]:
        """The texts between the bracket at ``opening`` and its closing one."""
        close = self.pairs.get(opening)
        return self.texts[opening + 1:close] if close is not None else []

    def said(self, start: int, end: int) -> str:
        """The tokens from ``start`` to ``end`` as code (a space only between words)."""
        words = ("word", "number")
        return "".join(
            (" " if n > start and self.tokens[n].kind in words
             and self.tokens[n - 1].kind in words else "") + self.texts[n]
            for n in range(start, end + 1))[:80]


def bracket_pairs(texts: list[str]) -> dict[int, int]:
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


def matching(tokens: list[Token], index: int) -> int | None:
    """The index of the bracket closing the one at ``index``, or None."""
    depth = 0
    for position in range(index, len(tokens)):
        word = tokens[position].text
        depth += word in ("(", "[", "{")
        depth -= word in (")", "]", "}")
        if depth == 0:
            return position
    return None
