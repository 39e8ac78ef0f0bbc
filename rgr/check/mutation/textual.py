"""Mutants of the changed lines of JavaScript/TypeScript, Go, Rust and Java files: a small
token-level mutator, standard library only.

Why not each ecosystem's tool (Stryker, go-mutesting, cargo-mutants): each would have
to be installed where the project's tests run (Stryker into the project's
``node_modules``, cargo-mutants built from source into a cargo home), and rgr never
changes the user's environment; each also brings its own runner, sandbox and copy of the
tree, where rgr must run every mutant in its own sealed checkout with the project's own
test command. rgr only needs the mutants of a few changed lines, so it scans the file
once (rgr.ecosystems.tokens: comments, strings, template literals (mutated inside their
``${}`` only), regular-expression
literals, Java's text blocks and char literals; Java annotations and Rust's
``#[cfg(test)]`` modules are skipped too) and offers, on the changed lines only:

* ``arithmetic``: binary ``+``↔``-``, ``*``↔``/``, ``%``→``*``; compound assignments
  ``+=``↔``-=``, ``*=``↔``/=``, ``%=``→``*=``, ``<<=``↔``>>=``, ``&=``↔``|=``; ``x++``↔``x--``
  (not in a ``for`` header); a sign ``-x`` → ``x``; bitwise ``<<``↔``>>``, ``^``→``&``
  and ``&``↔``|`` where the language has them only as operators (its ``bitwise``)
* ``comparison``: ``==``↔``!=`` (``===``↔``!==``), ``<``→``>=``/``<=``, ``>``→``<=``/``>=``,
  ``<=``→``>``, ``>=``→``<`` (only with a space on each side, so ``Vec<u8>`` is no
  comparison)
* ``boolean``: ``&&``↔``||``, ``!x`` → ``x``
* ``constant``: an integer or decimal n → n + 1 (``-2`` → ``-3`` alike), ``true``↔``false``,
  a non-empty string → an empty one (raw strings and plain templates too)
* ``return`` (JavaScript only): ``return x;`` → ``return undefined;``, and ``return x``
  without a semicolon where the next line does not continue it; the same as a one-line
  ``if``'s body (``if (c) return x``), where a bare ``if (c) return`` → ``if (c) {}``
* ``condition``: an ``if``/``while`` condition that is not a single comparison →
  its negation

Never mutated (rgr.check.mutation.arid.ARID): error messages, log and print calls, assert
messages, Java annotations and directives (``'use strict'``). A boundary comparison whose
twin cannot change what it returns (rgr.check.mutation.boundary.token_guard) is offered
marked ``equivalent``: the gate counts it and runs nothing.

A token-level mutant may not build (``-`` between two Go strings): the gate runs it and
counts it ``unviable`` when the tests no longer load, never ``killed``.

Which lines a test runs is not traced here: a survivor's line is *probed* instead (a
statement that ends the test process at once, inserted before the line's statement: a
run reaching it cannot pass, and no test can catch it as it would an exception). See
``probe_of``; Java also marks the lines a run reaches (``reach_of``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator

from rgr.base.config import MUTATION_OPERATORS
from rgr.check.mutation import blocks
from rgr.check.mutation.boundary import token_guard
from rgr.ecosystems import registry
from rgr.ecosystems.mutant import LOG_RECEIVER, TWINS, Mutant
from rgr.ecosystems.tokens import Token, matching, tokens_of

__all__ = ["LANGUAGES", "Token", "language_of", "mutants_of", "probe_of", "reach_of",
           "reached_lines", "tokens_of"]

#: File suffix -> language, as the ecosystems declare them.
LANGUAGES = {suffix: syntax.language for syntax in registry.mutation_syntax()
             for suffix in syntax.suffixes}

#: What ends the test process at once where it is inserted, per language, and the
#: declaration it needs on the package clause's line.
_PROBES = {syntax.language: (syntax.probe, syntax.probe_header)
           for syntax in registry.mutation_syntax()}
#: A statement recording that a test reached a line, where the language has one.
_MARKERS = {syntax.language: syntax.reach_marker for syntax in registry.mutation_syntax()}
#: What each language's code is like, beyond its tokens (rgr.ecosystems.base.MutationSyntax).
_SYNTAX = {syntax.language: syntax for syntax in registry.mutation_syntax()}
#: Each language's own declaration lines, where it has words of its own.
_DECLARES = {syntax.language: re.compile(syntax.declarations)
             for syntax in registry.mutation_syntax() if syntax.declarations}
_PACKAGE_CLAUSE = re.compile(r"^package\s+\w+[ \t]*(?=$|//)", re.MULTILINE)

_ARITHMETIC = {"+": ("-",), "-": ("+",), "*": ("/",), "/": ("*",), "%": ("*",)}
_COMPARISON = {"==": ("!=",), "!=": ("==",), "===": ("!==",), "!==": ("===",),
               "<": (">=", "<="), ">": ("<=", ">="), "<=": (">",), ">=": ("<",)}
_BOOLEAN = {"&&": ("||",), "||": ("&&",)}
#: Compound assignments (Stryker's AssignmentOperator, cargo-mutants' and PIT's MATH on
#: the operator they hold).
_ASSIGNMENT = {"+=": ("-=",), "-=": ("+=",), "*=": ("/=",), "/=": ("*=",), "%=": ("*=",),
               "<<=": (">>=",), ">>=": ("<<=",), "&=": ("|=",), "|=": ("&=",)}
#: Bitwise operators (PIT's MATH, cargo-mutants), each language's own set of them
#: (rgr.ecosystems.base.MutationSyntax.bitwise).
_BITWISE = {"&": ("|",), "|": ("&",), "^": ("&",), "<<": (">>",), ">>": ("<<",),
            ">>>": ("<<",)}
#: Lines that only declare where code comes from: nothing there to mutate.
_DECLARATION = re.compile(
    r"^\s*(import\b|export\s.*\bfrom\b|package\b|use\b|pub\s+use\b|mod\b|pub\s+mod\b|"
    r"extern\b|#!?\[|//|/\*|\*)")
#: A JavaScript directive: a statement that is only a string (``'use strict';``).
_DIRECTIVE = re.compile(r"""^\s*(['"])[^'"]*\1;?\s*$""")
_NUMBER = re.compile(r"(\d[\d_]*)(\.\d[\d_]*)?([a-zA-Z]\w*)?$")
_IF_JS = re.compile(r"^(\s*(?:\}\s*else\s+)?(?:if|while)\s*\()(.*)(\)\s*\{?\s*)$")
_IF_BRACE = re.compile(r"^(\s*(?:\}\s*else\s+)?(?:if|while|for)\s+)(.*?)(\s*\{\s*)$")
_CONTINUES_AFTER = {",", "(", "[", ".", "=", "+", "-", "*", "/", "%", "&&", "||", "??",
                    "?", ":", "=>", "|", "&", "<", ">", "==", "!=", "===", "!==", "<=",
                    ">=", "+=", "-=", ":=", "->"}
_CONTINUES_BEFORE = {".", ")", "]", "}", "&&", "||", "??", "?", ":", "+", "-", "*", "/",
                     ",", "=>", "?.", "else", "case", "default", "catch", "finally"}


def language_of(path: str) -> str | None:
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot >= 0 else None


def mutants_of(path: str, source: str, lines: Collection[int],
               operators: Collection[str] = MUTATION_OPERATORS,
               noise: bool = False) -> list[Mutant]:
    """Every mutant of the tokens on ``lines`` of ``source`` (a file in one of
    ``LANGUAGES``), outside comments, strings, declarations and Rust test modules.
    ``noise``: the noise (rgr.check.mutation.arid.ARID) mutated too, only to count what
    the gate leaves out."""
    language = language_of(path)
    if language is None:
        return []
    tokens = tokens_of(source, language)
    texts = source.splitlines()
    skipped = _skipped_lines(tokens, texts, language, noise)
    arid = {} if noise else _arid_tokens(tokens, language)
    # Java: a field's initializer runs when its class loads, never under a test.
    type_level = _SYNTAX[language].type_level
    class_level = type_level(tokens) if type_level is not None else set()
    words = [token.text for token in tokens]
    found: dict[tuple[int, int, str], Mutant] = {}

    def add(line: int, start: int, end: int, operator: str, replacement: str,
            equivalent: str = "") -> None:
        if operator not in operators or line not in lines or line in skipped:
            return
        col = start - _line_start(source, start) + 1
        statement = statement_line(texts, tokens, line)
        mutant = Mutant(path, line, col, operator, source[start:end], replacement, start, end,
                        statement, equivalent, module_level=start in class_level)
        found.setdefault((start, end, replacement), mutant)

    for_headers = _for_headers(tokens)
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else None
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.kind == "string" and index > 1 and before is not None \
                and before.text == "(" and tokens[index - 2].text == "!":
            continue  # a Rust macro's format string: its braces must match its arguments
        if arid.get(index) == "all" or (arid.get(index) == "strings"
                                        and token.kind == "string"):
            continue
        for operator, replacement in _token_mutants(token, before, after, language,
                                                    index in for_headers):
            twin = TWINS.get(token.text) == replacement
            equivalent = (token_guard(words, index) or "") if twin else ""
            add(token.line, token.start, token.end, operator, replacement, equivalent)
    for line in lines:
        if 0 < line <= len(texts) and line not in skipped:
            start = _offset_of_line(source, line)
            following = next((text for text in texts[line:] if text.strip()), "")
            for operator, begin, end, replacement in _line_mutants(
                    texts[line - 1], language, following):
                add(line, start + begin, start + end, operator, replacement)
    syntax = _SYNTAX[language]
    if syntax.early_returns:
        # the noise's own mutants (an error's message) are no mutant of the return
        quiet = {tokens[i].start for i, kind in _arid_tokens(tokens, language).items()
                 if kind == "all" or tokens[i].kind == "string"} if noise else set()
        for line, begin, end, replacement in blocks.early_returns(texts, lines):
            start = _offset_of_line(source, line)
            # only where no other operator offers a mutant of the return (``return
            # ""``, ``return lo``): one more run each, the others already test it
            if not any(start + begin <= m.start < start + end and m.start not in quiet
                       for m in found.values()):
                add(line, start + begin, start + end, "statement", replacement)
    if syntax.statement_mutants is not None:
        for operator, begin, end, replacement, (low, high) in syntax.statement_mutants(
                tokens, source, lines):
            # as an early return above: only where no other mutant stands in the value
            if not any(low <= m.start < high for m in found.values()):
                add(source.count("\n", 0, begin) + 1, begin, end, operator, replacement)
    for first, opening, close in blocks.missing_keys(tokens, lines,
                                                     syntax.missing_key_guard, source):
        line = tokens[first].line
        if line in skipped or statement_line(texts, tokens, line) != line \
                or not _statement_stands(language, source, texts, tokens, line):
            continue
        at = _offset_of_line(source, line)
        at += len(texts[line - 1]) - len(texts[line - 1].lstrip())
        guard = (syntax.missing_key_guard
                 .replace("{map}", source[tokens[first].start:tokens[opening - 1].end])
                 .replace("{key}", source[tokens[opening + 1].start:tokens[close - 1].end]))
        add(line, at, tokens[close].end, "constant", guard + source[at:tokens[close].end])
    return sorted(found.values(), key=lambda m: (m.line, m.col, m.operator, m.replacement))


def probe_of(path: str, source: str, line: int, offset: int | None = None
             ) -> Mutant | None:
    """A change of ``source`` that ends the test process when a test reaches ``line``'s
    statement: a statement inserted before it, at its indentation (with the import it
    needs, in Go). None where no statement can stand (a line that continues another, an
    ``else`` or a ``case``).

    With ``offset`` (where the survivor's token starts) inside the body of a one-line
    ``if`` (``if (v === 1337) return 0``, ``if v == 1337 { return 0 }``), the probe goes
    inside that body: every call evaluates the condition, only some run the body, and a
    probe before the line would say the body runs whenever the condition is evaluated.
    The probe's ``col`` tells the two places apart."""
    language = language_of(path)
    texts = source.splitlines()
    if language is None or not 0 < line <= len(texts):
        return None
    text = texts[line - 1]
    stripped = text.lstrip()
    tokens = tokens_of(source, language)
    if not _statement_stands(language, source, texts, tokens, line):
        return None
    start = _offset_of_line(source, line)
    statement, header = _PROBES[language]
    body = None if offset is None else _one_line_body(tokens, language, line, offset)
    guarded = _SYNTAX[language].guarded_statement
    where = None if offset is None or guarded is None else guarded(tokens, line, offset)
    if where is not None:  # Ruby's ``return 0 if x``: inside the statement, guarded too
        begin, end, condition = where
        ended = f"({statement}; {source[begin:end]})"
        # its col is the condition's: never the col a probe before the line has
        return Mutant(path, line, condition - start + 1, "probe", source[begin:end], ended,
                      begin, end, line)
    if body is None:
        indent = text[:len(text) - len(stripped)]
        edits, at = [(start, f"{indent}{statement}\n")], start
    else:
        at, close = body
        ended = statement if statement.endswith((";", "}")) else statement + ";"
        edits = [(at, f" {ended}")] if close is None \
            else [(at, "{" + ended + " "), (close, " }")]
    col = 1 if body is None else at - start + 1
    if header:
        clause = _PACKAGE_CLAUSE.search(source)
        if clause is None or clause.end() > start:
            return None
        edits.append((clause.end(), header))  # joins the package clause's line
    if len(edits) == 1:
        return Mutant(path, line, col, "probe", "", edits[0][1], at, at, line)
    # Several edits: the probe replaces the whole file (no line moves).
    whole = source
    for position, inserted in sorted(edits, reverse=True):
        whole = whole[:position] + inserted + whole[position:]
    return Mutant(path, line, col, "probe", source, whole, 0, len(source), line)


def reach_of(path: str, source: str, lines: Collection[int], marker: str
             ) -> tuple[str, set[int]] | None:
    """``source`` with a statement before each of ``lines``' statements that records,
    once per run, that a test reached it (the language's ``reach_marker``, its ``{file}``
    the string literal of the file ``marker``, its ``{line}`` the line), each on the
    line it records (no line moves), and the lines that got one; None when the language
    has no marker or no line can hold one. Where no statement can stand, the line gets
    none (rgr.check.mutation.gate then knows nothing of it)."""
    language = language_of(path)
    template = _MARKERS.get(language or "", "")
    if language is None or not template:
        return None
    texts = source.splitlines()
    tokens = tokens_of(source, language)
    file = json.dumps(marker)  # a Java string literal for any path rgr makes
    edits, marked = [], set()
    for line in sorted(set(lines)):
        if 0 < line <= len(texts) and _statement_stands(language, source, texts, tokens,
                                                        line):
            text = texts[line - 1]
            at = _offset_of_line(source, line) + len(text) - len(text.lstrip())
            edits.append((at, template.replace("{file}", file)
                          .replace("{line}", str(line)) + " "))
            marked.add(line)
    if not edits:
        return None
    whole = source
    for position, inserted in sorted(edits, reverse=True):
        whole = whole[:position] + inserted + whole[position:]
    return whole, marked


def reached_lines(text: str) -> set[int]:
    """The lines a marker file written by ``reach_of``'s statements names."""
    return {int(word) for word in text.split() if word.isdigit()}


def _statement_stands(language: str, source: str, texts: list[str], tokens: list[Token],
                      line: int) -> bool:
    """Whether a statement can be inserted right before ``line``'s text: the line
    starts a statement (not an ``else``, a ``case``, the continuation of an expression,
    the inside of a string, a Java class body's declaration)."""
    stripped = texts[line - 1].lstrip()
    first = stripped.split(" ", 1)[0]
    if not stripped or stripped[0] in ".)]},?:" or first in _CONTINUES_BEFORE \
            or statement_line(texts, tokens, line) != line \
            or _outside_code(language, tokens, line):
        return False
    start = _offset_of_line(source, line)
    # a line starting inside a string (a text block, a template literal)
    return not any(token.start < start < token.end for token in tokens)


def _outside_code(language: str, tokens: list[Token], line: int) -> bool:
    """Whether ``line`` stands where no statement can, in a language that says where
    its statements stand (Java: not right inside a type's body)."""
    code_lines = _SYNTAX[language].code_lines
    return code_lines is not None and line not in code_lines(tokens)


def _one_line_body(tokens: list[Token], language: str, line: int, offset: int
                   ) -> tuple[int, int | None] | None:
    """Where a probe goes to run only with the body of the ``if`` that starts ``line``
    when ``offset`` lies in that body, written on the same line, and where a closing
    brace must follow it (a JavaScript body without braces), or None."""
    on_line = [token for token in tokens if token.line == line]
    index = 0
    while index < len(on_line) and on_line[index].text in ("}", "else"):
        index += 1
    if index >= len(on_line) or on_line[index].text != "if":
        return None
    if _SYNTAX[language].parenthesised_conditions:  # if (condition) body
        closing = matching(on_line, index + 1) \
            if index + 1 < len(on_line) and on_line[index + 1].text == "(" else None
        body = None if closing is None else closing + 1
    else:  # Go, Rust: if condition { body }, the block's brace outside any bracket
        depth, body = 0, None
        for position in range(index + 1, len(on_line)):
            word = on_line[position].text
            if word == "{" and depth == 0:
                body = position
                break
            depth += word in ("(", "[")
            depth -= word in (")", "]")
    if body is None or body >= len(on_line):
        return None  # the body starts on a line of its own: probed there
    if on_line[body].text == "{":  # a block: the probe goes right after its brace
        closing = matching(on_line, body)
        if closing is None:
            return None  # the block goes on past the line: its lines are probed there
        inside = on_line[body].end <= offset < on_line[closing].start
        return (on_line[body].end, None) if inside else None
    # JavaScript without braces: the body runs to its ``;``, an ``else`` or the line's end
    last, depth = body, 0
    for position in range(body, len(on_line)):
        word = on_line[position].text
        if word == "else" and depth == 0:
            break
        depth += word in ("(", "[", "{")
        depth -= word in (")", "]", "}")
        last = position
        if word == ";" and depth == 0:
            break
    if on_line[last].text in _CONTINUES_AFTER or depth > 0:
        return None  # the body goes on past the line
    if not on_line[body].start <= offset < on_line[last].end:
        return None
    return on_line[body].start, on_line[last].end


def statement_line(texts: list[str], tokens: list[Token], line: int) -> int:
    """The first line of the statement ``line`` belongs to: climb while a line continues
    the one before it (it starts with ``.``/``)``/an operator, or the line before ends with
    one)."""
    last_op = _last_tokens(tokens)
    while line > 1:
        stripped = texts[line - 1].lstrip()
        first = stripped.split(" ", 1)[0] if stripped else ""
        previous = line - 1
        while previous > 0 and not texts[previous - 1].strip():
            previous -= 1
        if previous == 0:
            break
        ends_open = last_op.get(previous) in _CONTINUES_AFTER
        starts_closed = bool(stripped) and (stripped[0] in ".)]?:" or first in {
            "&&", "||", "??", "+", "-", "*", "/", "?."})
        if not (ends_open or starts_closed):
            break
        line = previous
    return line


# ------------------------------------------------------------------ mutants


def _for_headers(tokens: list[Token]) -> set[int]:
    """The indexes of the tokens inside a ``for (...)`` header's parentheses: an
    ``i++`` there turned ``i--`` makes a loop that ends only by the timeout, a costly
    kill that tells nothing its bound's mutants do not."""
    inside: set[int] = set()
    for index, token in enumerate(tokens[:-1]):
        if token.text == "for" and tokens[index + 1].text == "(":
            close = matching(tokens, index + 1)
            if close is not None:
                inside.update(range(index + 1, close))
        elif token.text == "for":  # Go: for i := 0; i < n; i++ {
            at = index + 1
            while at < len(tokens) and tokens[at].text != "{" \
                    and tokens[at].line == token.line:
                inside.add(at)
                at += 1
    return inside


def _token_mutants(token: Token, before: Token | None, after: Token | None,
                   language: str, in_for_header: bool = False
                   ) -> Iterator[tuple[str, str]]:
    if token.kind == "op":
        binary = _is_binary(token, before, after)
        if token.text in _ASSIGNMENT and token.space_before and token.space_after:
            for replacement in _ASSIGNMENT[token.text]:
                yield "arithmetic", replacement
        if token.text in ("++", "--") and not in_for_header and (
                (before is not None and before.kind == "word" and not token.space_before)
                or (after is not None and after.kind == "word" and not token.space_after)):
            yield "arithmetic", "--" if token.text == "++" else "++"
        if token.text in _BITWISE and binary and token.text in _SYNTAX[language].bitwise \
                and token.space_before and token.space_after:
            for replacement in _BITWISE[token.text]:
                yield "arithmetic", replacement
        if token.text == "-" and after is not None and not token.space_after \
                and after.kind in ("word", "number") and _is_unary(before):
            yield "arithmetic", ""  # -x -> x (PIT's INVERT_NEGS, cargo-mutants)
        if token.text in _ARITHMETIC and binary and not (
                token.text in "+-" and after is not None and after.text == token.text):
            for replacement in _ARITHMETIC[token.text]:
                yield "arithmetic", replacement
        if token.text in _COMPARISON and binary and (
                token.text not in ("<", ">") or (token.space_before and token.space_after)):
            for replacement in _COMPARISON[token.text]:
                yield "comparison", replacement
        if token.text in _BOOLEAN and binary:
            for replacement in _BOOLEAN[token.text]:
                yield "boolean", replacement
        if token.text == "!" and after is not None and not token.space_after \
                and (before is None or before.kind == "op" or before.text in "([{,;"
                     or before.text in ("return", "if", "while")):
            yield "boolean", ""
    elif token.kind == "number" and token.text[:2].lower() not in ("0x", "0o", "0b"):
        match = _NUMBER.match(token.text)
        # ``-2`` is mutated as ``2`` is (``Shift(-2)`` -> ``Shift(-3)``); not ``t.0``
        if match and not (before is not None and before.text == "."
                          and not before.space_after):
            whole, fraction, suffix = match.groups()
            value = int(whole.replace("_", "")) + 1
            yield "constant", f"{value}{fraction or ''}{suffix or ''}"
    elif token.kind == "word" and token.text in ("true", "false"):
        yield "constant", "false" if token.text == "true" else "true"
    elif token.kind == "string" and token.text[:1] in "\"'`" and len(token.text) > 2:
        yield "constant", token.text[0] * 2  # a template without ${} too: `a` -> ``
    elif token.kind == "string" and re.match(r'r#*"', token.text) \
            and len(token.text) > 3 + 2 * token.text.index('"') - 2:
        yield "constant", '""'  # a Rust raw string: r#"a"#


def _is_unary(before: Token | None) -> bool:
    """Whether an operator after ``before`` is a sign (it follows no value)."""
    if before is None:
        return True
    if before.kind == "word":
        return before.text in ("return", "case", "in", "of", "typeof", "yield", "await")
    if before.kind == "template":
        return not before.text.endswith("`")
    return before.kind == "op" or before.text in ("(", "[", "{", ",", ";", ":")


def _is_binary(token: Token, before: Token | None, after: Token | None) -> bool:
    """An operator between two values, spaced alike on both sides (``a + b``, ``a+b``):
    not a sign, a dereference, a pointer type or a generic's bracket."""
    if before is None or after is None or token.space_before != token.space_after:
        return False
    value_before = before.kind in ("word", "number", "string", "char") \
        or before.text in (")", "]") \
        or (before.kind == "template" and before.text.endswith("`"))
    if before.kind == "word" and before.text in ("return", "case", "in", "of", "typeof",
                                                 "let", "var", "const", "mut"):
        return False
    value_after = after.kind in ("word", "number", "string", "char") \
        or after.text in ("(", "[", "!", "-", "&", "*") \
        or (after.kind == "template" and after.text.startswith("`"))
    return value_before and value_after


def _line_mutants(text: str, language: str, following: str = ""
                  ) -> Iterator[tuple[str, int, int, str]]:
    """(operator, start, end, replacement) of the mutants that need a whole line: a
    JavaScript ``return x;`` (or ``return x`` without a semicolon, when ``following``,
    the next line with code, does not continue it) and an ``if``/``while`` condition."""
    code = text.split("//", 1)[0].rstrip()
    syntax = _SYNTAX[language]
    if syntax.parenthesised_conditions:
        match = re.match(r"^(\s*return\s+)(.+?);?\s*$", code)
        if syntax.undefined_returns and match and match.group(2) not in ("undefined", "") \
                and _balanced(match.group(2)) and (
                    code.endswith(";") or _statement_ends(code, following)):
            yield "return", match.start(2), match.end(2), "undefined"
        if syntax.undefined_returns:
            yield from _if_body_return(code, following)
        condition = _IF_JS.match(code)
    else:
        condition = _IF_BRACE.match(code)
        # ``if let``, an init statement (``if x := f(); x > 0``) and every ``for`` but
        # Go's plain ``for cond {`` are not one condition to negate.
        if condition and (condition.group(2).startswith(("let ", "range "))
                          or ";" in condition.group(2) or ":=" in condition.group(2)
                          or (code.lstrip().startswith("for") and (
                              not syntax.for_conditions or " range " in code))):
            condition = None
    if condition and _balanced(condition.group(2)) and not _single_comparison(
            condition.group(2)):
        test = condition.group(2)
        yield "condition", condition.start(2), condition.end(2), f"!({test})"


_IF_HEAD = re.compile(r"^\s*(?:\}\s*else\s+)?if\s*\(")
_BODY_RETURN = re.compile(r"^(\s*return\b)(\s+(.+?))?\s*;?\s*$")


def _if_body_return(code: str, following: str) -> Iterator[tuple[str, int, int, str]]:
    """The ``return`` mutant of a one-line ``if``'s body (``if (c) return x`` ->
    ``return undefined``; a bare ``if (c) return`` -> ``if (c) {}``), as of any other
    ``return``: the body is a statement of its own, which the probe looks inside."""
    head = _IF_HEAD.match(code)
    if head is None:
        return
    depth, close = 0, None
    for index in range(head.end() - 1, len(code)):
        depth += code[index] == "("
        depth -= code[index] == ")"
        if depth == 0:
            close = index
            break
    if close is None:
        return
    body = _BODY_RETURN.match(code[close + 1:])
    if body is None or not (code.endswith(";") or _statement_ends(code, following)):
        return
    start = close + 1
    value = body.group(3)
    if value is None:
        word = start + body.end(1) - len("return")
        yield "return", word, start + body.end(0), "{}"
    elif value != "undefined" and _balanced(value):
        yield "return", start + body.start(3), start + body.start(3) + len(value), \
            "undefined"


def _statement_ends(code: str, following: str) -> bool:
    """Whether a line without a semicolon ends its statement (the standard style):
    it does not end with an operator and the next line does not start with one."""
    last = re.search(r"(\S+)$", code)
    if last is None or any(last.group(1).endswith(op) for op in _CONTINUES_AFTER
                           if op not in (")", "]")):
        return False
    stripped = following.lstrip()
    return not stripped or stripped[0] not in ".)]?:+-*/%&|=<>,`[("


def _single_comparison(test: str) -> bool:
    if "&&" in test or "||" in test:
        return False
    spaced = re.findall(r"\s(===|!==|==|!=|<=|>=|<|>)\s", f" {test} ")
    return len(spaced) == 1


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if depth < 0:
            return False
    return depth == 0


# ------------------------------------------------------------------ lines


def _skipped_lines(tokens: list[Token], texts: list[str], language: str,
                   noise: bool = False) -> set[int]:
    """Lines with nothing to mutate: declarations (imports, ``use``, attributes), a Go
    ``import ( ... )`` block, and Rust's ``#[cfg(test)]`` modules (tests, not code); and
    JavaScript's directives, unless ``noise``."""
    own = _DECLARES.get(language)
    syntax = _SYNTAX[language]
    skipped = {number for number, text in enumerate(texts, 1) if _DECLARATION.match(text)
               or (own is not None and own.match(text))
               or (syntax.directives and not noise
                   and _DIRECTIVE.match(text))}  # ARID "directive"
    if syntax.import_blocks:
        inside = False
        for number, text in enumerate(texts, 1):
            if re.match(r"^\s*import\s*\($", text):
                inside = True
            if inside:
                skipped.add(number)
                if text.strip() == ")":
                    inside = False
    if syntax.test_lines is not None:
        skipped |= syntax.test_lines(tokens, texts)
    if syntax.directives:  # and require(...) calls: they only say where code comes from
        for index, token in enumerate(tokens[:-2]):
            if token.text == "require" and tokens[index + 1].text == "(":
                skipped.add(tokens[index + 2].line)
    return skipped


def _arid_tokens(tokens: list[Token], language: str) -> dict[int, str]:
    """The tokens inside calls rgr does not mutate (rgr.check.mutation.arid.ARID), index
    -> ``all`` (an error's message, a log or print call: ``error-message``,
    ``log-call``; after the first argument of Java's ``requireNonNull``/``check*``) or
    ``strings`` (only its strings: a Rust ``Err(...)`` or assert macro's,
    ``assert-message``)."""
    own_arid = _SYNTAX[language].arid
    arid: dict[int, str] = own_arid(tokens) if own_arid is not None else {}
    for index, token in enumerate(tokens):
        if token.text != "(" or index == 0:
            continue
        what = _call_kind(tokens, index, language)
        if what is None:
            continue
        depth, past_first = 0, what != "after-first"
        for inner in range(index, len(tokens)):
            depth += tokens[inner].text in "([{"
            depth -= tokens[inner].text in ")]}"
            past_first = past_first or (depth == 1 and tokens[inner].text == ",")
            if past_first:
                arid.setdefault(inner, "all" if what == "after-first" else what)
            if depth == 0:
                break
    return arid


def _call_kind(tokens: list[Token], paren: int, language: str) -> str | None:
    """What the call whose ``(`` is at ``paren`` is, for ``_arid_tokens``, or None: a
    log call in any language, else what the language says
    (rgr.ecosystems.base.MutationSyntax.call_kind)."""
    name = tokens[paren - 1].text
    receiver = tokens[paren - 3].text if paren >= 3 and tokens[paren - 2].text == "." \
        else ""
    if receiver and LOG_RECEIVER.match(receiver):
        return "all"
    own = _SYNTAX[language].call_kind
    return own(tokens, paren, name, receiver) if own is not None else None


def _last_tokens(tokens: list[Token]) -> dict[int, str]:
    """Each line's last token's text (the last one starting on it)."""
    last: dict[int, str] = {}
    for token in tokens:
        # a ``?``/``!`` glued to what it follows ends a value, no operator: Ruby's
        # ``name.nil?``, Rust's ``f()?``, TypeScript's ``x!``
        glued = token.text in ("?", "!") and not token.space_before
        last[token.line + token.text.count("\n")] = ")" if glued else token.text
    return last


def _line_start(source: str, offset: int) -> int:
    return source.rfind("\n", 0, offset) + 1


def _offset_of_line(source: str, line: int) -> int:
    offset = 0
    for _ in range(line - 1):
        offset = source.index("\n", offset) + 1
    return offset
