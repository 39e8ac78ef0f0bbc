"""What the mutation gate never mutates, and why: the one list both mutators
(rgr.ecosystems.python.mutants for Python, rgr.check.mutation.textual for JavaScript/
TypeScript, Go, Rust and Java) follow, and docs/referee.md repeats. What they share to
find a log call (rgr.ecosystems.mutant.LOG_RECEIVER) is below both; each language's
own calls are its own (Python's print: rgr.ecosystems.python.mutants.PRINT_CALLS).

Measured on honest, tested changes to real projects, most survivors were noise: an
error message emptied, a log line's text changed, a ``'use strict'`` directive. No test
should pin such text (a test that asserts a log line's wording pins nothing the user
asked for), so a survivor there only sends an honest GREEN back. Like Google's diff
mutation testing, which skips "arid" lines (logging among them), and PIT, whose default
mutators leave logging calls alone, rgr does not mutate them at all: they are neither
tried, killed nor survivors.

What still is mutated: the condition that guards a ``raise``/``throw``/``panic``, an
error's non-message arguments (a Rust ``Err(kind)``, a Python exception's keyword
arguments), which are behaviour a caller can see, and in Python the ``raise`` itself
(``raise`` → ``pass``). The token mutator (the other languages) has no statement
mutant: there a ``throw``/``panic`` line is judged through the condition that guards it.
"""

from __future__ import annotations

__all__ = ["ARID"]

#: What rgr skips, and why (kind -> why). Each mutator names the kind it skips.
ARID: dict[str, str] = {
    "docstring": "a docstring documents; no behaviour depends on it (Python)",
    "annotation": "a type annotation is read by type checkers, not at run time (Python); "
                  "a Java annotation (`@Override`, `@SuppressWarnings(\"x\")`) and its "
                  "arguments are read by the compiler and tools",
    "directive": "a directive such as 'use strict' only tells the engine how to run the "
                 "file; emptying it changes nothing a test can see (JavaScript)",
    "error-message": "the text of an error: the message of `raise X(\"...\")`, `throw new "
                     "Error('...')`, Go's errors.New/fmt.Errorf/panic, Rust's panic!/"
                     "unreachable!/todo!/expect(\"...\") and the strings of Err(...), "
                     "Java's `new XException(...)`/`new XError(...)` and the strings of "
                     "Objects.requireNonNull and Guava's check*; the raise, and the "
                     "condition that leads to it, are still mutated",
    "log-call": "a log or print call, all of it (its arguments and, in Python, the call's "
                "statement): logging.*, logger.*/log.*, print, console.*, Go's log.*/"
                "slog.*/fmt.Print*, Rust's println!/eprintln!/print!/eprint! and the log "
                "crate's macros, Java's System.out/System.err print calls and any "
                "LOG./logger. call (Google's \"arid lines\")",
    "assert-message": "the message of an assert (Python's `assert x, \"...\"`, Rust's "
                      "assert!/assert_eq!/debug_assert!, Java's `assert x : \"...\"`): "
                      "text shown when it fails; the "
                      "asserted condition is still mutated",
}
