"""Ruby's functions as fake-it reads them (rgr.check.fakeit.tokens,
``MutationSyntax.fakeit_tokens``): the tokens rewritten as a brace language writes
the same code, every token keeping its line, so that one reader of functions serves
every language.

* ``def name(params)``, ``def self.name params``, ``def name`` become ``fn name(params) {``
  and their ``end`` a ``}`` (an endless ``def name(x) = expr`` a body of one
  expression); a ``class``/``module`` and its ``end`` are dropped (its methods and
  constants read as a file's own: ``KNOWN = {...}`` as ``const KNOWN = {...}``, a hash's
  ``key => value`` as ``key: value``);
* a block's ``if``/``unless``/``while``/``until``/``case``/``begin``/``do`` opens braces
  its ``end`` closes (``elsif`` and ``else`` as ``} else if {``/``} else {``, ``unless c``
  as ``if !(c)``, ``case`` as ``match``, ``and``/``or``/``not`` as ``&&``/``||``/``!``);
* a statement with a trailing modifier (``return "x" if text == "y"``) becomes the
  block it means (``if text == "y" { return "x" }``);
* statements are separated by ``;`` and a method's last expression is left as its tail
  (Ruby returns it, as a Rust body's tail expression).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from rgr.ecosystems.tokens import Token

#: Words opening a block that ``end`` closes when they start a statement.
_OPENERS = frozenset({"if", "unless", "while", "until", "case", "begin", "for"})
_MODIFIERS = frozenset({"if", "unless", "while", "until"})
_WORDS = {"and": "&&", "or": "||", "not": "!"}
#: What a line ending in one of these goes on with on the next line.
_CONTINUES = frozenset({",", "(", "[", "{", ".", "&&", "||", "and", "or", "not", "+", "-",
                        "*", "/", "=", "==", "!=", "<", ">", "<=", ">=", "\\", "=>"})


def _made(like: Token, kind: str, text: str) -> Token:
    """A token of rgr's own, placed where ``like`` stands (its line, its offsets)."""
    return replace(like, kind=kind, text=text)


def _statements(tokens: list[Token]) -> list[list[Token]]:
    """The tokens in statements: a line, unless brackets stay open or it ends on an
    operator or comma (the next line goes on with it); ``;`` ends one too."""
    found: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    for index, token in enumerate(tokens):
        if token.text == ";" and depth == 0:
            if current:
                found.append(current)
            current = []
            continue
        current.append(token)
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}"):
            depth = max(depth - 1, 0)
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if following is None or (following.line > token.line and depth == 0
                                 and token.text not in _CONTINUES
                                 and following.text != "."):
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def _condition(tokens: list[Token]) -> list[Token]:
    """A condition's tokens with ``then``/``do`` dropped and the word operators as
    symbols."""
    out = [t for t in tokens if t.text not in ("then", "do")]
    return [_made(t, "op", _WORDS[t.text]) if t.kind == "word" and t.text in _WORDS else t
            for t in out]


class _Writer:
    def __init__(self) -> None:
        self.out: list[Token] = []
        #: Each open block: whether its ``end`` closes a brace of ours.
        self.open: list[bool] = []

    def separate(self, like: Token) -> None:
        if self.out and self.out[-1].text not in ("{", "}", ";"):
            self.out.append(_made(like, "punct", ";"))

    def opens(self, like: Token, head: list[Token]) -> None:
        self.separate(like)
        self.out.extend(head)
        self.out.append(_made(head[-1] if head else like, "punct", "{"))
        self.open.append(True)

    def closes(self, like: Token) -> None:
        if not self.open or self.open.pop():
            self.out.append(_made(like, "punct", "}"))

    def statement(self, tokens: list[Token]) -> None:
        self.separate(tokens[0])
        if tokens[0].kind == "word" and tokens[0].text[:1].isupper() \
                and tokens[1:2] and tokens[1].text == "=":
            self.out.append(_made(tokens[0], "word", "const"))  # KNOWN = {...}
        self.out.extend(_hashes(_condition(tokens) if any(t.text in _WORDS for t in tokens)
                                else tokens))


def _hashes(tokens: list[Token]) -> list[Token]:
    """A hash literal's ``key => value`` written ``key: value``, as an object literal."""
    out: list[Token] = []
    brackets: list[str] = []
    for token in tokens:
        if token.text in ("(", "[", "{"):
            brackets.append(token.text)
        elif token.text in (")", "]", "}") and brackets:
            brackets.pop()
        out.append(_made(token, "op", ":") if token.text == "=>" and brackets[-1:] == ["{"]
                   else token)
    return out


def _guard(word: Token, condition: list[Token]) -> list[Token]:
    """``if c`` or ``unless c`` as a brace language's head: ``if c`` / ``if !(c)``."""
    if word.text in ("if", "elsif"):
        return [_made(word, "word", "if"), *_condition(condition)]
    if word.text == "while":
        return [word, *_condition(condition)]
    return [_made(word, "word", "if" if word.text == "unless" else "while"),
            _made(word, "op", "!"), _made(word, "punct", "("), *_condition(condition),
            _made(word, "punct", ")")]


def _def(writer: _Writer, tokens: list[Token]) -> None:
    """``def [self.]name[(params) | params] [= expr]``."""
    at = 1
    if [t.text for t in tokens[1:3]] == ["self", "."]:
        at = 3
    if at >= len(tokens):
        writer.statement(tokens)
        return
    name = tokens[at]
    at += 1
    while at < len(tokens) and tokens[at].text in ("?", "!") and not tokens[at].space_before:
        at += 1  # empty?, save!
    if at < len(tokens) and tokens[at].text == "(":
        depth, close = 0, len(tokens) - 1
        for index in range(at, len(tokens)):
            depth += tokens[index].text == "("
            depth -= tokens[index].text == ")"
            if depth == 0:
                close = index
                break
        params, rest = tokens[at + 1:close], tokens[close + 1:]
    else:
        params, rest = tokens[at:], []
    head = [_made(tokens[0], "word", "fn"), name, _made(name, "punct", "("), *params,
            _made(name, "punct", ")")]
    writer.opens(tokens[0], head)
    if rest and rest[0].text == "=":  # def name(x) = expr
        if rest[1:]:
            writer.statement(rest[1:])
        writer.closes(rest[-1])


def _modifier(tokens: list[Token]) -> int | None:
    """Where a trailing ``if``/``unless``/``while``/``until`` stands outside brackets
    (``return 1 if x == 2``), or None."""
    depth = 0
    for index, token in enumerate(tokens):
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and index > 0 and token.kind == "word" and token.text in _MODIFIERS \
                and tokens[index - 1].text not in ("=", "(", ",", "return", "||", "&&"):
            return index
    return None


def braced(tokens: list[Token]) -> list[Token]:
    """Ruby's ``tokens`` written as a brace language's (see the module's words)."""
    writer = _Writer()
    for statement in _statements(tokens):
        first = statement[0]
        word = first.text if first.kind == "word" else ""
        if word == "def":
            _def(writer, statement)
        elif word in ("class", "module"):
            writer.open.append(False)  # its methods and constants read as top-level ones
        elif word == "end":
            writer.closes(first)
            if len(statement) > 1:  # end.join, end if x: what follows is no statement
                writer.statement(statement[1:])
        elif word in ("elsif", "else", "when", "rescue", "ensure", "in"):
            writer.closes(first)
            writer.out.append(_made(first, "word", "else"))
            head = _guard(first, statement[1:]) if word == "elsif" else []
            writer.out.extend(head)
            writer.out.append(_made(first, "punct", "{"))
            writer.open.append(True)
        elif word in _OPENERS:
            if word == "case":
                head = [_made(first, "word", "match"), *statement[1:]]
            elif word in ("begin", "for"):
                head = [first, *statement[1:]] if word == "for" else []
            else:
                head = _guard(first, statement[1:])
            writer.opens(first, head)
        elif statement[-1].text == "do" or (
                any(t.text == "do" for t in statement)
                and statement[-1].text == "|"):
            do = max(i for i, t in enumerate(statement) if t.text == "do")
            writer.opens(first, statement[:do])
        elif (modifier := _modifier(statement)) is not None:
            guard = statement[modifier]
            writer.opens(guard, _guard(guard, statement[modifier + 1:]))
            writer.statement(statement[:modifier])
            writer.closes(statement[-1])
        elif any(a.text == "=" and b.text in _OPENERS
                 for a, b in pairwise(statement)):
            writer.opens(first, statement)  # x = if c ... end
        else:
            writer.statement(statement)
    return writer.out
