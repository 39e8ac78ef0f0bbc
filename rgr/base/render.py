"""How an :class:`~rgr.base.outcome.Outcome` reaches the terminal: its text for a person,
or its data as JSON for a script, and the JSON answer of a failure. Called by the entry
layer only (rgr.cli.main, the one dispatcher): a command returns its Outcome and never
prints (tests/test_architecture.py holds the commands to it).

The JSON contract (``JSON_VERSION``, docs/reference/commands.md): on success stdout holds
the command's data as it always has (an object or a list, documented per command); on a
failure, ``{"error": {"kind", "message", "hint", "exitCode"}}``, ``kind`` a key of
rgr.base.errors.ERROR_KINDS. A change to either that breaks a reader raises the version.

Imported by `rgr status` and `rgr show` on their fast read path: rich is imported only
for the items that need it (headings, tables, plain lines), never for fields and
verbatim lines.
"""

from __future__ import annotations

import sys

from rgr.base.outcome import Fields, Heading, Outcome, Table, Verbatim
from rgr.base.ui import esc, make_console, print_fields, print_json, print_json_rows

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from collections.abc import Iterable

    from rich.console import Console

    from rgr.base.outcome import Say, TextItem

#: The version of what ``--json`` prints (see the module's docstring).
JSON_VERSION = 1


def render(outcome: Outcome[object], as_json: bool = False,
           out: Console | None = None) -> int:
    """Print ``outcome`` once: its data as JSON on stdout (``--json``), or its text on
    ``out`` (stdout's console by default); its exit code is the command's."""
    if as_json:
        if outcome.encoded is not None:
            _write_encoded(outcome.encoded)
        elif outcome.rows:
            print_json_rows(outcome.data if isinstance(outcome.data, list) else [])
        else:
            print_json(outcome.data)
        return outcome.exit_code
    if outcome.text:
        render_text(outcome.text, out)
    return outcome.exit_code


def render_text(items: Iterable[TextItem], out: Console | None = None) -> None:
    """Plain lines and headings through rich (escaped: they carry branch names and
    agents' words); fields and verbatim lines straight to the stream, so the views that
    have only those (status, show) never import rich."""
    console = out
    stream = out.file if out is not None else sys.stdout
    for item in items:
        if isinstance(item, Fields):
            print_fields(item.rows, stream)
        elif isinstance(item, Verbatim):
            stream.write(item.text + "\n")
        else:
            console = console or make_console()
            console.print(_rich(item))


def speaker(as_json: bool = False) -> Say:
    """Where a command's words go while it works: stdout's console, or stderr's under
    ``--json`` (stdout is the JSON's alone). The console is made on the first word."""
    console: list[Console] = []

    def say(item: TextItem) -> None:
        if not console:
            console.append(make_console(stderr=as_json))
        render_text([item], console[0])
        console[0].file.flush()  # said now: a server's address, before it serves

    return say


def json_error(kind: str, message: str, hint: str | None, code: int) -> None:
    """A failure under ``--json``, as JSON on stdout, so a script that parses stdout
    gets an answer it can read instead of nothing (the text still goes to stderr)."""
    print_json({"error": {"kind": kind, "message": message, "hint": hint,
                          "exitCode": code}})


def _rich(item: str | Heading | Table) -> object:
    """What rich prints for ``item``: markup built here, around escaped text."""
    if isinstance(item, Heading):
        return f"[bold]{esc(item.bold)}[/bold]{esc(item.rest)}"
    if isinstance(item, Table):
        from rich.table import Table as RichTable

        table = RichTable(title=esc(item.title))
        for column in item.columns:
            table.add_column(esc(column))
        for row in item.rows:
            table.add_row(*map(esc, row))
        return table
    return esc(item)


def _write_encoded(chunks: Iterable[bytes]) -> None:
    """JSON already encoded, chunk by chunk as it is made, as bytes on stdout."""
    sys.stdout.flush()
    binary = sys.stdout.buffer
    for chunk in chunks:
        binary.write(chunk)
    binary.flush()
