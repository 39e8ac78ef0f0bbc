"""What a JavaScript/TypeScript, Go, Rust or Java test compares with the result of calling
the code, read by data flow over its tokens (rgr.ecosystems.tokens), whatever the form of
the comparison:

* a call with the result and a literal, whatever its name (``assert.strictEqual(f(2), 4,
  'msg')``, ``assertEquals(4, calc.f(2))``, ``assert_eq!(f(2), 4)``, the project's own
  ``check(f(2), 4)``): the literal next to the result is the expectation (a message is
  the first or the last argument);
* a chain from a call of the result to a call of a literal (``expect(f(2)).toBe(4)``,
  ``assertThat(f(2)).isEqualTo(4)``, ``expect(f(2)).to.equal(4)``);
* an equality (``f(2) === 4`` in an assert, ``if got != want`` in Go's ``if``);

each side a literal, a call with literal arguments, or a name bound to one in the scope
(``got := F(2)``, ``const want = 4``), and table-driven tests: a loop over a table of cases
(``for _, tc := range tests``, ``for (const [a, want] of cases)``, ``for (a, want) in
[(2, 4)]``) whose variable's fields or parts are the call's arguments and expectation, one
fact per row. A comparison whose words say otherwise (``not``, ``toBeGreaterThan``,
``assertNotEquals``, ``toHaveLength``) states nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rgr.ecosystems.fact import FUNCTION, Fact, token_literal
from rgr.ecosystems.tokens import Token, bracket_pairs

__all__ = ["flow_facts"]

#: Words in a comparison's name that say it is no equality with the literal.
_OTHER = frozenset({
    "not", "ne", "neq", "refute", "raises", "raise", "throw", "throws", "greater", "less",
    "lt", "gt",
    "le", "ge", "than", "above", "below", "least", "most", "instance", "regex", "match",
    "matches", "contain", "contains", "include", "includes", "have", "has", "length",
    "size", "count", "in", "called", "property", "type", "defined", "undefined", "null",
    "nil", "truthy", "falsy", "error", "panics", "reject", "rejects", "some", "none",
    "ok", "err", "within", "different", "errorf", "fatal", "fatalf",
    "log", "logf", "print", "printf", "println", "puts", "sprintf", "format", "panic", "skip",
    "skipf", "run", "describe", "it", "test", "each"})
#: Methods of a result that give the result itself (Rust's ``f(2).unwrap()``).
_UNWRAP = {"unwrap", "expect"}
#: Words starting a line that declares a type or a function: its ``{`` opens a block.
_DECLARING = {"impl", "class", "interface", "enum", "trait", "struct", "pub", "public",
              "private", "protected", "abstract", "final", "static", "mod", "fn", "func",
              "type", "record"}
#: What a ``{`` opening a literal (not a block) follows.
_LITERAL_AFTER = {"=", ":=", "(", ",", "[", ":", "return", "struct", "}", "?", "!"}
#: Words a statement may start with before the call it makes or the name it binds.
_LEAD = {"await", "return", "let", "const", "var", "val", "final", "mut", "auto", "new"}
_EQ = {"==", "==="}
_NE = {"!=", "!=="}
#: How deep calls may nest in one operand (``f(g(h(2)))``) before the reader gives up.
_DEEPEST = 16
#: The most tokens a statement of a test may hold to be read (a table of cases is long;
#: a longer one is no test's statement, and is left unread rather than slow).
_LONGEST = 20_000
_BOUNDARY = {"(", ",", "&&", "||", "!", "{", ";", "if", "assert", "return", "=", ":="}


@dataclass(frozen=True)
class _Call:
    callee: str
    args: tuple[object, ...]
    #: The name it is called on (``tally`` of ``tally.count("a")``), if any.
    receiver: str | None = None


@dataclass(frozen=True)
class _Path:
    name: str  # "got", "tc.want", "case.0"


@dataclass(frozen=True)
class _Lit:
    value: str


@dataclass(frozen=True)
class _Obj:
    """An object literal as a call's last argument (JavaScript's options object:
    ``percent(0.125, { digits: 1 })``): its fields by name."""

    fields: tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class _Fn:
    """A function written in place as a call's argument (``(name) => sizes[name]``,
    ``function (x) { .. }``): what the code calls back, never a value it is keyed by."""


_Expr = _Call | _Path | _Lit | _Obj | _Fn | None


@dataclass
class _Scope:
    close: int  # the token index ending it
    names: dict[str, _Expr] = field(default_factory=dict)
    #: A loop's variable -> the table's rows, each the values of its parts by name.
    rows: list[dict[str, _Expr]] | None = None
    #: A name bound here -> the calls made on it so far (``tally.add("a")``).
    calls: dict[str, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)


def flow_facts(path: str, tokens: list[Token]) -> list[Fact]:
    return _Reader(path, tokens).read()


def _words(name: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", name)}


class _Reader:
    def __init__(self, path: str, tokens: list[Token]) -> None:
        self.path, self.tokens = path, tokens
        self.texts = [t.text for t in tokens]
        self.pairs = bracket_pairs(self.texts)
        self.operands: dict[tuple[int, int], tuple[_Expr, int]] = {}
        self.scopes = [_Scope(len(tokens))]
        self.found: dict[tuple[object, ...], Fact] = {}
        self._tables: dict[str, list[dict[str, _Expr]]] = {}
        self.line = 0
        self.in_if = False
        self.functions = self._declared_functions()
        first_of_line: dict[int, str] = {}
        for token in tokens:
            first_of_line.setdefault(token.line, token.text)
        self.blocks = {i for i, t in enumerate(tokens) if t.text == "{"
                       and self._opens_block(i, first_of_line)}
        self.blocks |= {close for i in list(self.blocks)
                        if (close := self._closing(i)) is not None}

    def _declared_functions(self) -> set[str]:
        """The names of the functions the test file declares (``async function sizeOf
        (name) {``, ``const sizeOf = async (name) =>``, ``= function``): passed to the
        code, each is one function, fixed in the file, like a literal."""
        texts, found = self.texts, set()
        for at, text in enumerate(texts[:-1]):
            declared = text == "function" or (
                text in ("const", "let", "var") and texts[at + 2:at + 3] == ["="]
                and self._function_at(at + 3, len(texts)) is not None)
            if declared and self.tokens[at + 1].kind == "word":
                found.add(texts[at + 1])
        return found

    def _function_at(self, at: int, end: int) -> int | None:
        """Where the function written at ``at`` ends (an arrow's expression body runs to
        ``end``), or None when none starts there: ``async (x) => ..``, ``x => ..``,
        ``function (x) { .. }``."""
        texts = self.texts
        if at < end and texts[at] == "async":
            at += 1
        if at >= end:
            return None
        if texts[at] == "function":
            opening = next((i for i in range(at, end) if texts[i] == "("), None)
            close = self._closing(opening)
            body = self._closing(close + 1) if close is not None and close + 1 < end \
                and texts[close + 1] == "{" else None
            return body + 1 if body is not None and body < end else None
        if texts[at] == "(":
            close = self._closing(at)
            arrow = close + 1 if close is not None else None
        else:
            arrow = at + 1 if self.tokens[at].kind == "word" else None
        if arrow is None or arrow + 1 >= end or texts[arrow] != "=>":
            return None
        body = self._closing(arrow + 1) if texts[arrow + 1] == "{" else None
        return body + 1 if body is not None and body < end else end

    def _closing(self, opening: int | None) -> int | None:
        """The index of the bracket closing the one at ``opening``, or None."""
        if opening is None:
            return None
        close = self.pairs.get(opening)
        return close if close is not None and close > opening else None

    def _opens_block(self, index: int, first_of_line: dict[int, str]) -> bool:
        """Whether the ``{`` at ``index`` opens a block (a body), not a literal."""
        if index == 0:
            return True
        before = self.tokens[index - 1]
        if before.text == "}" and self._composite(index - 1):
            return True  # Go: for _, tc := range []struct{...}{...} {: the loop's body
        if before.text in _LITERAL_AFTER:
            return False
        texts = self.texts
        if before.kind == "word" and (texts[index - 2:index - 1] == ["]"] or (
                texts[index - 4:index - 2] == ["]", "."])):
            return False  # Go: []int{1, 2}, map[string]int{..}, []calc.Case{..}
        if before.kind == "word" and before.text[:1].isupper() \
                and self.texts[index - 2:index - 1] != ["->"]:
            return first_of_line.get(self.tokens[index].line) in _DECLARING
        return True

    def _composite(self, close: int) -> bool:
        """Whether the ``}`` at ``close`` ends a Go composite literal written in place
        (``[]struct{ in string }{...}``, ``map[string]int{...}``), which no literal
        follows: a ``{`` after it opens a block."""
        opening = self.pairs.get(close)
        if opening is None or opening >= close or opening < 2:
            return False
        texts = self.texts
        if texts[opening - 1] == "}":
            struct = self.pairs.get(opening - 1)
            return struct is not None and struct > 0 and texts[struct - 1] == "struct"
        return self.tokens[opening - 1].kind == "word" and texts[opening - 2] == "]" \
            and texts[opening - 1] not in ("struct", "interface")  # a type, not a value

    # ----------------------------------------------------------------- the walk

    def read(self) -> list[Fact]:
        at = 0
        while at < len(self.tokens):
            while len(self.scopes) > 1 and at > self.scopes[-1].close:
                self.scopes.pop()
            end = self._clause_end(at)
            self._clause(at, end)
            at = max(end, at + 1)
        return list(self.found.values())

    def _clause_end(self, at: int) -> int:
        """The end (exclusive) of the clause starting at ``at``: a block's ``{``
        (included) or ``}``, a ``;`` outside brackets, or a line's end outside brackets
        that the next line does not continue (``.``)."""
        depth = 0
        for index in range(at, len(self.tokens)):
            text = self.texts[index]
            if index in self.blocks:
                if text == "{":
                    return index + 1
                return index if index > at else index + 1
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}"):
                depth -= 1
                if depth < 0:
                    return index if index > at else index + 1
            elif depth == 0 and text == ";":
                return index + 1
            following = index + 1
            if depth == 0 and following < len(self.tokens) \
                    and self.tokens[following].line > self.tokens[index].line \
                    and self.texts[following] not in (".", "?.") \
                    and text not in (".", ",", "(", "=", ":=", "&&", "||", "==", "===",
                                     "!=", "!=="):
                return following
        return len(self.tokens)

    def _clause(self, start: int, end: int) -> None:
        texts = self.texts
        if start >= end:
            return
        self.line = self.tokens[start].line
        opens = end - 1 in self.blocks and texts[end - 1] == "{"
        block_end = end - 1 if opens or texts[end - 1] == ";" else end
        # Go's ``if got := F(2); got != 4 {``: the clause after the ``;`` is the condition
        within_if = texts[start] == "if" or self.in_if
        self.in_if = within_if and texts[end - 1] == ";"
        if texts[start] == "for":
            self._loop(start, block_end)
            return  # the loop's own scope is open
        # a test of its own (a Ruby method, an RSpec ``it "x" do`` block): no call made
        # before it is its state
        if texts[start] == "def" or texts[end - 1] == "do":
            for scope in self.scopes:
                scope.calls.clear()
        first = start + 1 if texts[start] == "if" else start
        if start < block_end and texts[start] not in ("{", "}", ";", ")", "else") \
                and block_end - start <= _LONGEST:
            if not self._bind(first, block_end):
                self._compare_call(first, block_end)
                self._made_call(first, block_end)
            self._compare_equality(first, block_end, within_if)
            if self._for_each(start, block_end):
                return
        if opens:  # names bound in the block are its own
            close = self._closing(end - 1)
            self.scopes.append(_Scope(close if close is not None else len(texts)))

    # ------------------------------------------------------------- binding

    def _bind(self, start: int, end: int) -> bool:
        """``got := F(2)``, ``const want = 4``, ``let got: i32 = f(2);``, ``int got =
        calc.f(2);``: the name's value in the current scope."""
        texts = self.texts
        equals = next((i for i in range(start, end) if texts[i] in ("=", ":=")), None)
        if equals is None or equals == start:
            return False
        left = [i for i in range(start, equals) if self.tokens[i].kind == "word"
                and texts[i] not in _LEAD]
        if not left or any(texts[i] in ("(", "[", ".") for i in range(start, equals)):
            return False
        colon = next((i for i in range(start, equals) if texts[i] == ":"), None)
        comma = next((i for i in range(start, equals) if texts[i] == ","), None)
        if colon is not None:  # let got: i32 = ...
            names = [i for i in left if i < colon][-1:]
        elif comma is not None:  # got, err := F(2)
            names = left[:1]
        else:
            names = left[-1:]
        if not names:
            return False
        value, after = self._operand(equals + 1, end)
        table = self._table(equals + 1, end)
        scope = self.scopes[-1]
        name = texts[names[0]]
        scope.names[name] = value if after == end else None
        if table is not None:
            scope.names[name] = None
            self._tables[name] = table
        return True

    def _made_call(self, start: int, end: int) -> None:
        """A statement that is one call on a bound name with literal arguments
        (``tally.add("a", 3)``): the object's state, kept for the calls after it."""
        at = start + 1 if start < end and self.texts[start] == "await" else start
        call, after = self._operand(at, end)
        if isinstance(call, _Path) and "." in call.name and after < end \
                and self.tokens[after].space_before:
            # Ruby's call without parentheses: ``@tally.add "a", 3``
            receiver, _, method = call.name.rpartition(".")
            args = tuple(self._argument(a, b) for a, b in self._split(after, end))
            call, after = _Call(method, args, receiver), end
        if not isinstance(call, _Call) or call.receiver is None or after != end \
                or not all(isinstance(arg, _Lit) for arg in call.args):
            return
        made = (call.callee, tuple(arg.value for arg in call.args if isinstance(arg, _Lit)))
        for scope in reversed(self.scopes):
            if call.receiver in scope.names:
                scope.calls.setdefault(call.receiver, []).append(made)
                return
        # bound where this reader does not look (RSpec's ``let(:tally)``, a field set
        # in a setup): its calls are the current block's
        self.scopes[-1].calls.setdefault(call.receiver, []).append(made)

    def _calls_on(self, receiver: str | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
        for scope in reversed(self.scopes):
            if receiver is not None and (receiver in scope.names or receiver in scope.calls):
                return tuple(scope.calls.get(receiver, ()))
        return ()

    # ------------------------------------------------------------ operands

    def _operand(self, at: int, end: int, depth: int = 0) -> tuple[_Expr, int]:
        """The expression at ``at`` (a literal, a name or path, a call) and where it
        ends; (None, at) when there is none to read (or it nests deeper than a test's
        call would: what an agent writes never exhausts the stack)."""
        if depth > _DEEPEST:
            return None, at
        key = (at, end)
        if key not in self.operands:  # each span read once, whoever asks
            self.operands[key] = self._read_operand(at, end, depth)
        return self.operands[key]

    def _read_operand(self, at: int, end: int, depth: int) -> tuple[_Expr, int]:
        tokens, texts = self.tokens, self.texts
        while at < end and texts[at] in ("new", "&", "*", "await", "try", "@"):  # Ruby's @x
            at += 1
        if at >= end:
            return None, at
        literal = token_literal(tokens, at)
        if literal is not None:
            return _Lit(literal[0]), literal[1]
        if texts[at] == "{" and depth > 0:
            return self._object(at, end, depth)
        if texts[at] == "[":
            return self._array(at, end, depth)
        function = self._function_at(at, end) if depth > 0 else None
        if function is not None:
            return _Fn(), function
        if tokens[at].kind != "word":
            return None, at
        parts = [texts[at]]
        at += 1
        expr: _Expr = None
        while at < end:
            if expr is not None and texts[at] == "." and texts[at + 1:at + 2] \
                    and texts[at + 1] in _UNWRAP and texts[at + 2:at + 3] == ["("]:
                close = self._closing(at + 2)  # f(2).unwrap(): the result itself
                if close is None or close >= end:
                    return None, at
                at = close + 1
            elif texts[at] in (".", "::", "?.") and at + 1 < end \
                    and tokens[at + 1].kind in ("word", "number"):
                parts.append(texts[at + 1])
                at += 2
            elif texts[at] == "!" and at + 1 < end and texts[at + 1] == "(":
                at += 1  # a macro: vec![..] is no call of the code, nor a comparison
                parts[-1] += "!"
            elif texts[at] == "(":
                close = self._closing(at)
                if close is None or close >= end:
                    return None, at
                args = tuple(self._argument(a, b, depth + 1)
                             for a, b in self._split(at + 1, close))
                expr = _Call(parts[-1], args, ".".join(parts[:-1]) or None)
                parts = [f"{parts[-1]}()"]
                at = close + 1
            elif texts[at] == "[" and expr is None:
                close = self._closing(at)
                if close is None or close >= end:
                    return None, at
                index = token_literal(tokens, at + 1)
                if index is None or index[1] != close:
                    return None, at
                parts.append(index[0])
                at = close + 1
            else:
                break
        if expr is not None and parts[-1].endswith("()"):
            return expr, at
        if expr is not None:
            return None, at  # a field of a call's result: not the call's result
        return _Path(".".join(parts)), at

    def _object(self, at: int, end: int, depth: int) -> tuple[_Expr, int]:
        """``{ digits: 1, sign: true }``: each field a word or string key and a value."""
        close = self._closing(at)
        if close is None or close >= end:
            return None, at
        fields: list[tuple[str, object]] = []
        for first, last in self._split(at + 1, close):
            if last - first < 3 or self.texts[first + 1] != ":" \
                    or self.tokens[first].kind not in ("word", "string"):
                return None, at
            fields.append((self.texts[first].strip("'\""),
                           self._argument(first + 2, last, depth + 1)))
        return _Obj(tuple(fields)), close + 1

    def _array(self, at: int, end: int, depth: int) -> tuple[_Expr, int]:
        """``['a', 'bb']``, ``[1, [2, 3]]``: an array of literals is one value (its parts'
        texts between brackets); None for an array of anything else."""
        close = self._closing(at)
        if close is None or close >= end or depth > _DEEPEST:
            return None, at
        parts = []
        for first, last in self._split(at + 1, close):
            if self.texts[first] == "[":
                value, after = self._array(first, last, depth + 1)
            else:
                literal = token_literal(self.tokens, first)
                value, after = (_Lit(literal[0]), literal[1]) if literal else (None, first)
            if not isinstance(value, _Lit) or after != last:
                return None, at
            parts.append(value.value)
        return _Lit("[" + ", ".join(parts) + "]"), close + 1

    def _argument(self, start: int, end: int, depth: int = 0) -> _Expr:
        value, after = self._operand(start, end, depth)
        return value if after == end else None

    def _split(self, start: int, end: int) -> list[tuple[int, int]]:
        """The top-level, comma-separated parts of ``tokens[start:end]`` (a bracketed
        group stepped over at once, by its pair)."""
        parts, first, at = [], start, start
        while at < end:
            text = self.texts[at]
            if text in ("(", "[", "{"):
                close = self._closing(at)
                at = close + 1 if close is not None and close < end else at + 1
                continue
            if text == ",":
                parts.append((first, at))
                first = at + 1
            at += 1
        if first < end:
            parts.append((first, end))
        return parts

    # --------------------------------------------------------- comparisons

    def _compare_call(self, start: int, end: int) -> None:
        """A statement that calls something with the result and a literal, or a chain
        from a call of the result to a call of a literal."""
        texts = self.texts
        at = start
        while at < end and texts[at] in _LEAD:
            at += 1
        if self._bare_call(at, end):
            return
        names: list[str] = []
        calls: list[tuple[int, int]] = []  # (open, close) of each call in the chain
        while at < end:
            if self.tokens[at].kind == "word":
                names.append(texts[at])
                at += 1
            elif texts[at] in (".", "::", "?.") or (texts[at] == "!" and texts[at + 1:at + 2]
                                                    == ["("]):
                at += 1
            elif texts[at] == "(":
                close = self._closing(at)
                if close is None or close >= end:
                    return
                calls.append((at, close))
                at = close + 1
            else:
                return  # not a statement of calls only
        if not calls or any(_words(name) & _OTHER for name in names):
            return
        if len(calls) == 1:
            args = [self._argument(a, b) for a, b in self._split(calls[0][0] + 1, calls[0][1])]
            self._pair(args)
            return
        first = [self._argument(a, b) for a, b in self._split(calls[0][0] + 1, calls[0][1])]
        last = [self._argument(a, b) for a, b in self._split(calls[-1][0] + 1, calls[-1][1])]
        if len(first) in (1, 2) and len(last) == 1:  # expect(f(2), 'msg').toBe(4)
            self._fact(first[0], last[0])

    def _bare_call(self, at: int, end: int) -> bool:
        """A call without parentheses (Ruby's minitest: ``assert_equal 5, add(2, 3)``):
        a name, then two or more arguments separated by commas to the statement's end.
        The other languages' statements never take this shape (``return 5, f(2)`` and
        ``let a = 1, b = 2`` start with a word rgr skips or go on with ``=``)."""
        texts = self.texts
        if at + 1 >= end or self.tokens[at].kind != "word" or _words(texts[at]) & _OTHER \
                or texts[at + 1] in ("(", ".", "::", "=", "?.", ",") \
                or (self.tokens[at + 1].kind == "op" and texts[at + 1] != "-"):
            return False
        parts = self._split(at + 1, end)
        if len(parts) < 2:
            return False
        self._pair([self._argument(a, b) for a, b in parts])
        return True

    def _pair(self, args: list[_Expr]) -> None:
        """The result among ``args`` and the literal next to it (a message stands first
        or last: ``assertEquals("m", 4, f(2))``, ``assert.equal(f(2), 4, "m")``)."""
        results = [i for i, arg in enumerate(args) if self._results(arg)]
        if len(results) != 1 or len(args) < 2:
            return
        at = results[0]
        if at == 0:
            other = 1
        elif at == len(args) - 1:
            other = at - 1
        else:  # (expected, actual, message): JUnit 5, assert_eq! with a format
            other = at - 1
        self._fact(args[at], args[other])

    def _compare_equality(self, start: int, end: int, within_if: bool) -> None:
        """``a == b`` (``!=`` in an ``if``: the branch that fails the test)."""
        texts = self.texts
        stating = _NE if within_if else _EQ
        for index in range(start, end):
            if index > start and texts[index - 1] not in _BOUNDARY:
                continue
            left, after = self._operand(index, end)
            if left is None or after >= end or texts[after] not in stating:
                continue
            right, _ = self._operand(after + 1, end)
            self._fact(left, right)
            self._fact(right, left)

    # ------------------------------------------------------------- tables

    def _table(self, start: int, end: int) -> list[dict[str, _Expr]] | None:
        """The rows of a table of cases written at ``start``: ``[]struct{ in, want int
        }{{2, 4}, {in: 3, want: 9}}``, ``[[2, 4], {in: 3, want: 9}]``, ``[(2, 4)]``,
        ``vec![..]``, ``&[..]``; each row's parts by name (and by position: ``0``,
        ``1``)."""
        texts = self.texts
        at, fields = start, []
        while at < end and texts[at] in ("&", "vec", "!", "Arrays", ".", "asList", "List",
                                          "of"):
            at += 1
        if at < end and texts[at] == "[" and texts[at + 1:at + 2] == ["]"]:  # Go
            at += 2
            if texts[at:at + 2] == ["struct", "{"]:
                close = self._closing(at + 1)
                if close is None:
                    return None
                fields = self._struct_fields(at + 2, close)
                at = close + 1
            else:
                while at < end and texts[at] != "{":
                    at += 1
        if at >= end or texts[at] not in ("[", "{", "("):
            return None
        close = self._closing(at)
        if close is None:
            return None
        rows = []
        for first, last in self._split(at + 1, close):
            while first < last and self.tokens[first].kind == "word":
                first += 1  # a Rust struct's name: Case { input: 2, want: 4 }
            if first >= last or texts[first] not in ("[", "{", "(") \
                    or self._closing(first) != last - 1:
                return None
            row: dict[str, _Expr] = {}
            for position, (a, b) in enumerate(self._split(first + 1, last - 1)):
                if b - a >= 3 and texts[a + 1] == ":" and self.tokens[a].kind == "word":
                    row[texts[a]] = self._argument(a + 2, b)
                else:
                    value = self._argument(a, b)
                    row[str(position)] = value
                    if position < len(fields):
                        row[fields[position]] = value
            rows.append(row)
        return rows or None

    def _struct_fields(self, start: int, end: int) -> list[str]:
        """The field names of ``struct{ in, want int }`` or one field a line."""
        names: list[str] = []
        expecting = True
        line = self.tokens[start].line if start < end else 0
        for index in range(start, end):
            token = self.tokens[index]
            if token.line != line or token.text == ";":
                expecting, line = True, token.line
            if token.text in (";",):
                continue
            if expecting and token.kind == "word":
                names.append(token.text)
                expecting = False
            elif token.text == ",":
                expecting = True
        return names

    def _loop(self, start: int, end: int) -> None:
        """``for _, tc := range tests {``, ``for (const [a, want] of cases) {``, ``for
        (a, want) in [(2, 4)] {``, ``for (var tc : cases) {``: the loop's block gets its
        variable's rows."""
        texts = self.texts
        keyword = next((i for i in range(start, end) if texts[i] in ("range", "of", "in", ":")),
                       None)
        if keyword is None:
            return
        rows = self._tables.get(texts[keyword + 1]) if keyword + 1 < end else None
        if rows is None:
            rows = self._table(keyword + 1, end)
            # a table written in the header (``range []struct{...}{...} {``): the body
            # is the block after it, not the first row's brace
            end = next((i for i in range(keyword + 1, len(texts)) if texts[i] == "{"
                        and texts[i - 1] == "}" and self._composite(i - 1)), end)
        pattern = [i for i in range(start + 1, keyword) if texts[i] not in (
            "(", "const", "let", "var", "final", "_", "&", "mut")]
        if texts[keyword] == ":":  # Java: for (Case tc : cases)
            pattern = pattern[-1:]
        self._with_rows(pattern, rows, end)

    def _for_each(self, start: int, end: int) -> bool:
        """``cases.forEach(({ a, want }) => {`` and ``cases.forEach(([a, want]) =>``:
        whether it opened the loop's scope."""
        texts = self.texts
        for index in range(start, end - 2):
            if texts[index] == "forEach" and texts[index + 1] == "(" and index > start + 1:
                rows = self._tables.get(texts[start]) if index == start + 2 \
                    else self._table(start, index - 1)
                arrow = next((i for i in range(index, len(texts)) if texts[i] == "=>"), None)
                if arrow is not None and rows:
                    self._with_rows(list(range(index + 2, arrow)), rows, arrow + 1)
                    return True
        return False

    def _with_rows(self, pattern: list[int], rows: list[dict[str, _Expr]] | None,
                   end: int) -> None:
        """The loop's block (the ``{`` ending its header) sees, for each row, the
        pattern's names bound to the row's parts."""
        if not rows:
            return
        texts = self.texts
        names = [texts[i] for i in pattern if self.tokens[i].kind == "word"
                 and texts[i] not in ("const", "let", "var", "final", "mut")]
        destructured = any(texts[i] in ("[", "(", "{") for i in pattern) or len(names) > 1
        if not names:
            return
        bound: list[dict[str, _Expr]] = []
        for row in rows:
            if destructured and any(texts[i] == "{" for i in pattern):
                bound.append({name: row.get(name) for name in names})
            elif destructured:
                bound.append({name: row.get(str(n)) for n, name in enumerate(names)})
            else:
                bound.append({f"{names[-1]}.{key}": value for key, value in row.items()})
        brace = end if texts[end:end + 1] == ["{"] else None
        close = self._closing(brace) if brace is not None else None
        if close is not None:
            self.scopes.append(_Scope(close, rows=bound))

    # --------------------------------------------------------------- facts

    def _resolved(self, expr: _Expr, row: dict[str, _Expr]) -> _Expr:
        for _ in range(4):  # a name bound to a name, at most a few deep
            if not isinstance(expr, _Path):
                return expr
            name = expr.name
            if name in row:
                expr = row[name]
                continue
            for scope in reversed(self.scopes):
                if name in scope.names:
                    expr = scope.names[name]
                    break
            else:
                return None
        return expr if not isinstance(expr, _Path) else None

    def _passed(self, arg: object, row: dict[str, _Expr]) -> object:
        """An argument's value: a name's, a function the file declares by its name, one
        written in place as FUNCTION (the code calls it back; it is no key of a table)."""
        if isinstance(arg, _Fn):
            return _Lit(FUNCTION)
        if not isinstance(arg, _Path):
            return arg
        value = self._resolved(arg, row)
        if value is None and arg.name in self.functions:
            return _Lit(arg.name)
        return value

    def _rows(self) -> list[dict[str, _Expr]]:
        for scope in reversed(self.scopes):
            if scope.rows is not None:
                return scope.rows
        return [{}]

    def _results(self, expr: _Expr) -> bool:
        return any(isinstance(self._resolved(expr, row), _Call) for row in self._rows())

    def _fact(self, result: _Expr, expected: _Expr) -> None:
        for row in self._rows():
            call = self._resolved(result, row)
            value = self._resolved(expected, row)
            # a call with no argument states something only where the calls made before
            # it on the same object are its inputs (``tally.total()``)
            if not isinstance(call, _Call) or not isinstance(value, _Lit) or not (
                    call.args or self._calls_on(call.receiver)):
                continue
            args = [self._passed(arg, row) for arg in call.args]
            # an options object last: its fields are the call's keywords, each a literal
            options = args[-1] if args and isinstance(args[-1], _Obj) else None
            args = args[:-1] if options is not None else args
            keywords = tuple((name, self._resolved(field, row) if isinstance(field, _Path)
                              else field) for name, field in options.fields) \
                if options is not None else ()
            if not all(isinstance(arg, _Lit) for arg in args) \
                    or not all(isinstance(field, _Lit) for _, field in keywords) \
                    or call.callee.endswith("!") or _words(call.callee) & {"expect", "assert"}:
                continue
            texts = tuple(arg.value for arg in args if isinstance(arg, _Lit))
            named = tuple((name, field.value) for name, field in keywords
                          if isinstance(field, _Lit))
            key = (call.callee, texts + tuple(f"{n}={v}" for n, v in named), value.value)
            before = self._calls_on(call.receiver)
            self.found.setdefault((*key, before), Fact(
                call.callee, texts, value.value, f"{self.path}:{self.line}", named, before))
