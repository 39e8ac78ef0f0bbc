"""Where Java's code stands, read on its tokens (rgr.ecosystems.tokens): a type's body
(declarations, whose initializers run when the class loads) apart from a method's
(statements); and the tokens the mutator leaves alone (annotations, an assert's
message, print calls, an exception's message: rgr.check.mutation.arid.ARID)."""

from __future__ import annotations

from rgr.ecosystems.tokens import Token, matching

#: Java's print calls, as ``receiver.name`` (``System.out.println``: ``out.println``).
PRINT_CALLS = frozenset(f"{stream}.{name}" for stream in ("out", "err")
                        for name in ("print", "println", "printf", "format"))
#: Calls whose strings are only a failure's message (their conditions and values are
#: behaviour): ``Objects.requireNonNull(x, "x")``, Guava's ``Preconditions``.
MESSAGE_CHECKS = frozenset({"requireNonNull", "checkArgument", "checkState",
                            "checkNotNull", "checkElementIndex", "checkPositionIndex"})


def call_kind(tokens: list[Token], paren: int, name: str, receiver: str) -> str | None:
    """A new exception's or error's arguments and a print call: ``all``; after the
    first argument of a message check: ``after-first``."""
    before = tokens[paren - 2].text if paren >= 2 else ""
    dotted = f"{receiver}.{name}" if receiver else name
    if (before == "new" and name.endswith(("Error", "Exception"))) or dotted in PRINT_CALLS:
        return "all"
    # requireNonNull(x, "x " + y): the value checked is behaviour, the rest message
    return "after-first" if name in MESSAGE_CHECKS else None


def arid(tokens: list[Token]) -> dict[int, str]:
    """Java's annotations (``@Deprecated``, ``@SuppressWarnings("x")``: read by the
    compiler and tools, ``annotation``) and an ``assert``'s message (after its ``:``,
    ``assert-message``), for the mutator's noise (rgr.check.mutation.textual)."""
    arid: dict[int, str] = {}
    for index, token in enumerate(tokens):
        if token.text == "@" and index + 1 < len(tokens) and tokens[index + 1].kind == "word":
            end = index + 1
            while end + 2 < len(tokens) and tokens[end + 1].text == "." \
                    and tokens[end + 2].kind == "word":
                end += 2
            if end + 1 < len(tokens) and tokens[end + 1].text == "(":
                closing = matching(tokens, end + 1)
                end = len(tokens) - 1 if closing is None else closing
            for inner in range(index, end + 1):
                arid[inner] = "all"
        elif token.text == "assert":
            depth, message = 0, False
            for inner in range(index + 1, len(tokens)):
                word = tokens[inner].text
                if word == ";" and depth == 0:
                    break
                depth += word in ("(", "[", "{")
                depth -= word in (")", "]", "}")
                message = message or (word == ":" and depth == 0)
                if message:  # the whole message: "three " + 3 is text too
                    arid.setdefault(inner, "all")
    return arid


def class_level_lines(tokens: list[Token]) -> set[int]:
    """The lines of Java source whose first token stands right inside a type's body (a
    class, interface, enum or record, or an anonymous class): declarations, where no
    statement can stand (no probe)."""
    at_type_level = type_level(tokens)
    first_on_line: dict[int, Token] = {}
    for token in tokens:
        first_on_line.setdefault(token.line, token)
    return {line for line, token in first_on_line.items() if token.start in at_type_level}


def type_level(tokens: list[Token]) -> set[int]:
    """Where (start offsets) the tokens right inside a type's body stand: field
    declarations and enum constants, whose initializers run when the class loads, never
    under a test; a survivor there is code no test asks for."""
    return {start for start, kind in _places(tokens).items() if kind == "type"}


def code_lines(tokens: list[Token]) -> set[int]:
    """The lines of Java source whose first token stands inside a method's (or an
    initializer's, a lambda's) body: where a statement can."""
    places = _places(tokens)
    first_on_line: dict[int, Token] = {}
    for token in tokens:
        first_on_line.setdefault(token.line, token)
    return {line for line, token in first_on_line.items() if places[token.start] == "code"}


def _places(tokens: list[Token]) -> dict[int, str]:
    """Each token's place (by start offset): ``type`` right inside a type's body,
    ``code`` inside a block of statements, ``top`` outside every brace, ``close`` a
    closing brace."""
    kinds: list[str] = []  # the open braces: "type" or "code"
    declares = False  # a type's declaration since the last ``;``, ``{`` or ``}``
    found: dict[int, str] = {}
    for index, token in enumerate(tokens):
        found[token.start] = "close" if token.text == "}" else kinds[-1] if kinds else "top"
        if token.text == "{":
            typed = declares or _opens_anonymous_class(tokens, index)
            kinds.append("type" if typed else "code")
            declares = False
        elif token.text == "}":
            if kinds:
                kinds.pop()
            declares = False
        elif token.text == ";":
            declares = False
        elif token.text in ("class", "interface", "enum", "record") \
                and (index == 0 or tokens[index - 1].text != ".") \
                and index + 1 < len(tokens) and tokens[index + 1].kind == "word":
            declares = True  # not ``Foo.class``, nor a variable named ``record``
    return found


def _opens_anonymous_class(tokens: list[Token], brace: int) -> bool:
    """Whether the ``{`` at ``brace`` opens an anonymous class's body: ``new
    Name<...>(...) {``."""
    if brace == 0 or tokens[brace - 1].text != ")":
        return False
    depth, position = 0, brace - 1
    while position >= 0:  # back to the matching ``(``
        depth += tokens[position].text == ")"
        depth -= tokens[position].text == "("
        if depth == 0:
            break
        position -= 1
    position -= 1
    while position >= 0 and ((tokens[position].kind == "word" and tokens[position].text != "new")
                             or tokens[position].text in (".", "<", ">", ",", "?")):
        position -= 1
    return position >= 0 and tokens[position].text == "new"
