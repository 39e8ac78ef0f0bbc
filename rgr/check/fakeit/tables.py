"""Tables keyed by the tests' inputs, at the token level: the ``input-table`` special
case of rgr.check.fakeit.tokens.

A function answers from a table when it looks its inputs up in data whose every key is
a test's input. Seen in JavaScript/TypeScript, Go and Rust code:

* ``case`` labels and match arms (``case 2: return "two"``, ``2 => "two"``);
* an object or map literal in the function (``{Hello: "hello"}[text]``, quoted or bare
  keys; Go's ``map[int]string{2: "two"}[n]``);
* for several parameters, keys that join the arguments (``{"2,3": 5}[[a, b]]``, as
  JavaScript turns an array or a template into a key) or nest them (``{2: {3: 5}}[a][b]``);
* keys of the values alone where the test also passes a function (``totalSize(['a'],
  sizeOf)``: the code calls it back), and an array argument's parts joined the way the
  body joins a parameter (``names.join(',')``, or ``known[names]``: JavaScript's own key
  of an array is its parts joined by commas);
* a table outside the function that its body reads: a module-level ``const SUMS = {...}``,
  ``new Map([["2,3", 5]])``, ``Object.freeze({...})`` or Go's ``var known =
  map[string]int{...}``, or a map filled by ``NAME.put(key, value);`` statements (Java's
  ``static { KNOWN.put("2,3", "5"); }``). Data that far from the code is
  more often real, so it counts only when it also answers a test's expected value.

A table with any key no test uses is real data.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rgr.check.mutation.textual import Token
from rgr.ecosystems.fact import KEY_SEPARATORS, Fact, array_parts, is_callback, token_literal
from rgr.ecosystems.special_case import SpecialCase

__all__ = ["Table", "closing", "function_tables", "module_tables"]

_DECLARES = {"const", "let", "var", "static"}


@dataclass(frozen=True)
class Table:
    """Data keyed by literals: each key path (one key, or one per nesting level) and
    the literal it answers (None when it answers code)."""

    name: str
    open: int  # token index where the table starts
    close: int  # token index where it ends
    entries: tuple[tuple[tuple[str, ...], str | None], ...]


def closing(tokens: list[Token], index: int) -> int:
    """The index of the bracket closing the one at ``index`` (the last token if none)."""
    opening = tokens[index].text
    close = {"(": ")", "{": "}", "[": "]"}[opening]
    depth = 0
    for at in range(index, len(tokens)):
        if tokens[at].text == opening:
            depth += 1
        elif tokens[at].text == close:
            depth -= 1
            if depth == 0:
                return at
    return len(tokens) - 1


def function_tables(path: str, tokens: list[Token], name: str, body: tuple[int, int],
                    params: Sequence[str], facts: Sequence[Fact], outside: Sequence[Table]
                    ) -> list[tuple[SpecialCase, tuple[int, int]]]:
    """The tables a function (named ``name``, its body's token bounds ``body``, taking
    ``params``) answers ``facts`` from: its own ``case`` labels, match arms and object
    literals, and the ``outside`` tables its body names; each with its bounds."""
    start, end = body
    arity = len(params)
    mine = [f for f in facts if len(f.args) == arity]
    if not mine:
        return []
    joins = _joins(tokens, start, end, params)
    found = [(table, False) for table in _labelled(tokens, start, end)]
    at = start + 1
    while at < end:
        # any brace may open a literal: JavaScript's ``= {``, Go's ``map[int]string{``;
        # a block's first statement is no ``key: value`` and ends the attempt at once
        table = _object(tokens, at, arity) if tokens[at].text == "{" else None
        if table is not None:
            found.append((table, False))
            at = table.close  # its nested objects are part of it
        at += 1
    named = {tokens[at].text for at in range(max(start, 1), end + 1)
             if tokens[at].kind == "word" and tokens[at - 1].text not in (".", "?.")}
    found += [(table, True) for table in outside if table.name in named]
    cases = []
    for table, far in found:
        case = _special_case(path, tokens, name, table, mine, far, joins)
        if case is not None:
            cases.append((case, (table.open, table.close)))
    return cases


def module_tables(tokens: list[Token], arity: int) -> list[Table]:
    """The tables declared outside any block: ``const NAME = {...}``, ``= new Map([...])``,
    ``= Object.freeze({...})`` (a nesting as deep as ``arity``)."""
    found: list[Table] = []
    depth = 0
    for at, token in enumerate(tokens):
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth -= 1
        elif depth == 0 and token.text in _DECLARES and at + 3 < len(tokens) \
                and tokens[at + 1].kind == "word":
            equals = _past_type(tokens, at + 2)
            table = _table_at(tokens, equals + 1, arity) \
                if equals + 1 < len(tokens) and tokens[equals].text == "=" else None
            if table is not None:
                found.append(Table(tokens[at + 1].text, table.open, table.close,
                                   table.entries))
    return found + _put_tables(tokens)


def _put_tables(tokens: list[Token]) -> list[Table]:
    """Maps filled by statements ``NAME.put(key, value);`` (``Class.NAME.put`` too), one
    table per name when every key is a literal; its bounds from the first put to the
    last."""
    puts: dict[str, list[tuple[int, int, tuple[tuple[str, ...], str | None]]]] = {}
    unread: set[str] = set()
    for at in range(1, len(tokens) - 3):
        if tokens[at].text != "put" or tokens[at - 1].text != "." or at < 2 \
                or tokens[at - 2].kind != "word" or tokens[at + 1].text != "(":
            continue
        name, paren = tokens[at - 2].text, at + 1
        close = closing(tokens, paren)
        key = token_literal(tokens, paren + 1)
        if key is None or key[1] >= close or tokens[key[1]].text != ",":
            unread.add(name)
            continue
        answer, end = _value(tokens, key[1] + 1, close)
        if end != close:
            unread.add(name)
            continue
        puts.setdefault(name, []).append((at - 2, close, ((key[0],), answer)))
    return [Table(name, found[0][0], found[-1][1], tuple(e for _, _, e in found))
            for name, found in puts.items() if name not in unread]


def _past_type(tokens: list[Token], at: int) -> int:
    """The index of the token after a declared name's type (``: [(f64, &str); 2]``,
    TypeScript's ``: Record<string, number>``) starting at ``at``; ``at`` when none."""
    if tokens[at].text != ":":
        return at
    depth = 0
    for index in range(at + 1, len(tokens)):
        text = tokens[index].text
        if text in ("(", "[", "{", "<"):
            depth += 1
        elif text in (")", "]", "}", ">"):
            depth -= 1
        elif depth <= 0 and text in ("=", ";"):
            return index
    return at


def _table_at(tokens: list[Token], at: int, arity: int) -> Table | None:
    texts = [t.text for t in tokens[at:at + 4]]
    if texts[:1] == ["{"]:
        return _object(tokens, at, arity)
    if texts[:1] == ["["]:
        return _rows(tokens, at, arity)
    if texts[:4] == ["Object", ".", "freeze", "("] and at + 4 < len(tokens):
        return _object(tokens, at + 4, arity)
    if texts[:3] == ["new", "Map", "("]:
        return _map(tokens, at + 2)
    if texts[:2] == ["map", "["]:  # Go: map[string]int{"90s": 90}
        brace = closing(tokens, at + 1) + 1
        while brace < len(tokens) and tokens[brace].text not in ("{", ";", "="):
            brace = closing(tokens, brace) + 1 if tokens[brace].text == "[" else brace + 1
        if brace < len(tokens) and tokens[brace].text == "{":
            return _object(tokens, brace, arity)
    return None


def _key(tokens: list[Token], at: int) -> tuple[str, int] | None:
    """(canonical key, index after it) of an object key: a literal, a bare name
    (``Hello`` is the string ``"Hello"``) or a computed ``[literal]``."""
    literal = token_literal(tokens, at)
    if literal is not None:
        return literal
    if tokens[at].kind == "word":
        return '"' + tokens[at].text + '"', at + 1
    if tokens[at].text == "[" and at + 1 < len(tokens):
        inner = token_literal(tokens, at + 1)
        if inner is not None and inner[1] < len(tokens) and tokens[inner[1]].text == "]":
            return inner[0], inner[1] + 1
    return None


def _array_key(tokens: list[Token], at: int) -> tuple[tuple[str, ...], int] | None:
    """(one literal a part, index after it) of a key written as an array of literals
    (Ruby's ``[0.5, 0, false] => "50%"``, a tuple's values), nested arrays read flat
    (``["a", [1, 3]]``: a name and the values passed before); None for any other key."""
    if tokens[at].text != "[":
        return None
    end = closing(tokens, at)
    parts: list[str] = []
    index = at + 1
    while index < end:
        if tokens[index].text in ("[", "]", ","):
            index += 1
            continue
        literal = token_literal(tokens, index)
        if literal is None or literal[1] > end:
            return None
        parts.append(literal[0])
        index = literal[1]
    return (tuple(parts), end + 1) if len(parts) > 1 else None


def _value(tokens: list[Token], at: int, stop: int) -> tuple[str | None, int]:
    """(the literal that is the whole value, if it is one; the index of the ``,`` or
    closing bracket ending it) for a value starting at ``at``."""
    end = at
    while end < stop and tokens[end].text != ",":
        end = closing(tokens, end) + 1 if tokens[end].text in ("(", "[", "{") else end + 1
    literal = token_literal(tokens, at) if at < end else None
    return (literal[0] if literal is not None and literal[1] == end else None), end


def _object(tokens: list[Token], open_at: int, depth: int) -> Table | None:
    """The object literal at ``open_at`` as a table, nested up to ``depth`` levels; None
    when it holds anything but ``key: value`` entries."""
    close = closing(tokens, open_at)
    entries: list[tuple[tuple[str, ...], str | None]] = []
    at = open_at + 1
    while at < close:
        array = _array_key(tokens, at)
        if array is not None and array[1] < close and tokens[array[1]].text == ":":
            answer, at = _value(tokens, array[1] + 1, close)
            entries.append((array[0], answer))
            if at < close and tokens[at].text == ",":
                at += 1
            continue
        key = _key(tokens, at)
        if key is None or key[1] >= close or tokens[key[1]].text != ":":
            return None
        value_at = key[1] + 1
        inner = _object(tokens, value_at, depth - 1) \
            if depth > 1 and tokens[value_at].text == "{" else None
        if inner is not None:
            entries += [((key[0], *path), answer) for path, answer in inner.entries]
            at = inner.close + 1
        else:
            answer, at = _value(tokens, value_at, close)
            entries.append(((key[0],), answer))
        if at < close and tokens[at].text == ",":
            at += 1
    return Table("", open_at, close, tuple(entries)) if entries else None


def _rows(tokens: list[Token], open_at: int, arity: int) -> Table | None:
    """An array of rows, each a tuple or an array of ``arity`` literal keys then the
    literal it answers (Rust's ``[(0.5, 0, "50%"), ...]``, JavaScript's ``[[0.5, 0,
    "50%"], ...]``), as a table; None when any row is anything else."""
    close = closing(tokens, open_at)
    entries: list[tuple[tuple[str, ...], str | None]] = []
    at = open_at + 1
    while at < close:
        row = _pattern(tokens, at)
        if row is None or len(row[0]) != arity + 1:
            return None
        entries.append((row[0][:arity], row[0][arity]))
        at = row[1]
        if at < close and tokens[at].text == ",":
            at += 1
    return Table("", open_at, close, tuple(entries)) if entries else None


def _map(tokens: list[Token], paren: int) -> Table | None:
    """``new Map([[key, value], ...])`` from its ``(``, as a table."""
    close = closing(tokens, paren)
    if paren + 1 >= close or tokens[paren + 1].text != "[":
        return None
    entries: list[tuple[tuple[str, ...], str | None]] = []
    at = paren + 2
    outer = closing(tokens, paren + 1)
    while at < outer:
        if tokens[at].text != "[":
            return None
        pair = closing(tokens, at)
        key = token_literal(tokens, at + 1)
        if key is None or key[1] >= pair or tokens[key[1]].text != ",":
            return None
        answer, _ = _value(tokens, key[1] + 1, pair)
        entries.append(((key[0],), answer))
        at = pair + 1
        if at < outer and tokens[at].text == ",":
            at += 1
    return Table("", paren, close, tuple(entries)) if entries else None


def _labelled(tokens: list[Token], start: int, end: int) -> list[Table]:
    """``case`` labels and match arms, grouped by the block they stand in. An arm whose
    pattern is a tuple or a slice of literals (``("a", [1, 3]) =>``) is keyed by them all,
    in order: a key path, as a nested table's."""
    keys: dict[int, list[tuple[tuple[str, ...], str | None]]] = {}
    computing: set[int] = set()  # blocks with an arm that binds a name: they compute
    for at in range(start, end):
        before = tokens[at - 1].text if at else ""
        pattern = _pattern(tokens, at) if before in ("{", ",", "|", "}") else None
        if pattern is not None:
            path, after = pattern
            if after < len(tokens) and tokens[after].text == "=>":
                keys.setdefault(_enclosing(tokens, at, start), []).append((path, None))
            continue
        if tokens[at].text == "=>" and _binds(tokens, at):
            computing.add(_enclosing(tokens, at, start))
        literal = token_literal(tokens, at)
        if literal is None:
            continue
        after = literal[1]
        if after < len(tokens) and (
                (tokens[after].text == ":" and before == "case")
                or (tokens[after].text == "=>" and before in ("{", ",", "|", "}"))):
            keys.setdefault(_enclosing(tokens, at, start), []).append(((literal[0],), None))
    return [Table("", table, closing(tokens, table), tuple(entries))
            for table, entries in keys.items() if table not in computing]


#: Words in a match arm's pattern that bind nothing.
_NOT_BINDING = {"_", "mut", "ref", "true", "false", "None", "nil", "null"}


def _binds(tokens: list[Token], arrow: int) -> bool:
    """Whether the match arm ending at the ``=>`` at ``arrow`` binds a name (``n =>``,
    ``(x, 0) =>``, ``Some(n) =>``) or has a guard (``0 if flag =>``): its answer is
    computed from the input, so the arms beside it are base cases, no table."""
    depth = 0
    at = arrow - 1
    while at >= 0:
        text = tokens[at].text
        if text in (",", "=>", "}") and depth == 0:
            return False  # the arm before it, or its block's end
        if text in (")", "]", "}"):
            depth += 1
        elif text in ("(", "[", "{"):
            if depth == 0:
                return False
            depth -= 1
        token = tokens[at]
        following = tokens[at + 1].text
        if token.kind == "word" and (token.text == "if" or (
                token.text not in _NOT_BINDING and token.text[:1].islower()
                and following not in ("(", "::", "{") and tokens[at - 1].text != "::")):
            return True
        at -= 1
    return False


def _pattern(tokens: list[Token], at: int) -> tuple[tuple[str, ...], int] | None:
    """(its literals in order, the index after it) of the tuple or slice at ``at`` when
    it holds literals only (nested ones too: ``("a", [1, 3])``), at least one; None
    when anything else stands in it (a name, ``_``, ``..``)."""
    if tokens[at].text not in ("(", "["):
        return None
    close = closing(tokens, at)
    found: list[str] = []
    index = at + 1
    while index < close:
        text = tokens[index].text
        if text in (",", "(", ")", "[", "]"):
            index += 1
            continue
        literal = token_literal(tokens, index)
        if literal is None:
            return None
        found.append(literal[0])
        index = literal[1]
    return (tuple(found), close + 1) if found else None


def _enclosing(tokens: list[Token], at: int, start: int) -> int:
    """The index of the ``{`` that opens the block around ``at``."""
    depth = 0
    for index in range(at - 1, start - 1, -1):
        text = tokens[index].text
        if text == "}":
            depth += 1
        elif text == "{":
            if depth == 0:
                return index
            depth -= 1
    return start


def _joins(tokens: list[Token], start: int, end: int, params: Sequence[str]) -> set[str]:
    """The separators the body joins a parameter's parts with: ``names.join(',')``, and
    ``,`` for ``known[names]`` (an array as a key is its parts joined by commas)."""
    found: set[str] = set()
    for at in range(start + 1, end - 1):
        if tokens[at].text not in params or tokens[at].kind != "word":
            continue
        texts = [t.text for t in tokens[at - 1:at + 6]]
        if texts[2:5] == [".", "join", "("]:
            separator = token_literal(tokens, at + 4)
            if separator is not None and texts[6:7] == [")"] and separator[1] == at + 5:
                found.add(_bare(separator[0]))
        elif texts[0] == "[" and texts[2:3] == ["]"] and (
                tokens[at - 2].kind == "word" or tokens[at - 2].text in (")", "]", "}")):
            found.add(",")
    return found


def _answered(path: tuple[str, ...], answer: str | None, facts: Sequence[Fact],
              joins: Collection[str] = ()) -> Fact | None:
    """The test whose inputs the key ``path`` stands for: its arguments one a level,
    or (several arguments) joined into one string key; or, for a call on an object the
    test called before (``Fact.before``), its arguments then values of those calls'
    arguments (``{"a,1,3": 4}`` for ``count("a")`` after ``add("a")`` and ``add("a",
    3)``: answers keyed by the calls made so far), answering that test's value."""
    for fact in facts:
        if path == fact.args:
            return fact
        if len(path) == 1 and len(fact.args) > 1 and path[0] in _joined(fact.args):
            return fact
        values = tuple(a for a in fact.args if not is_callback(a))
        if values != fact.args and (path == values or (
                len(path) == 1 and len(values) > 1 and path[0] in _joined(values))):
            return fact
        parts = array_parts(values[0]) if len(values) == 1 else None
        if len(path) == 1 and parts and path[0] in _joined(parts, joins):
            return fact
    for fact in facts:
        if fact.before and answer in (None, fact.expected) and _from_state(path, fact):
            return fact
    return None


def _from_state(path: tuple[str, ...], fact: Fact) -> bool:
    """Whether ``path`` is ``fact``'s arguments followed by one or more values of the
    arguments of the calls before it (each used at most as often as passed)."""
    args = [_bare(a) for a in fact.args]
    splits = [list(path)] if len(path) > 1 else [
        _bare(path[0]).split(separator) for separator in KEY_SEPARATORS]
    for parts in splits:
        parts = [_bare(p) for p in parts]
        rest = parts[len(args):]
        if parts[:len(args)] != args or not rest:
            continue
        left = [_bare(a) for _, called in fact.before for a in called]
        for part in rest:
            if part not in left:
                break
            left.remove(part)
        else:
            return True
    return False


def _bare(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _joined(args: tuple[str, ...], separators: Collection[str] = KEY_SEPARATORS) -> set[str]:
    bare = [a[1:-1] if len(a) >= 2 and a[0] == a[-1] == '"' else a for a in args]
    return {'"' + separator.join(bare) + '"' for separator in separators}


def _special_case(path: str, tokens: list[Token], name: str, table: Table,
                  facts: Sequence[Fact], far: bool, joins: Collection[str]
                  ) -> SpecialCase | None:
    answers = [_answered(keys, answer, facts, joins) for keys, answer in table.entries]
    if not answers or any(fact is None for fact in answers):
        return None
    if far and not any(fact is not None and answer == fact.expected
                       for fact, (_, answer) in zip(answers, table.entries, strict=True)):
        return None
    shown = ", ".join(keys[0] if len(keys) == 1 else f"({', '.join(keys)})"
                      for keys, _ in table.entries)
    first = answers[0]
    assert first is not None
    return SpecialCase(path, name, tokens[table.open].line, "input-table",
                       "{" + shown + "}", first)
