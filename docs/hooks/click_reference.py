"""MkDocs hook: the command reference, written from rgr's click commands at build time.

docs/reference/commands.md holds the marker below; each build replaces it with every
visible command's help exactly as `rgr <command> --help` prints it (usage, options and
help), walking the click group. The page cannot drift from the code: a flag added,
renamed or reworded in rgr/cli.py shows up at the next build.
"""

from __future__ import annotations

from typing import Any

import click

#: Where in the page the generated reference goes.
MARKER = "<!-- rgr:commands -->"
#: The page that holds the marker (its path under docs/).
PAGE = "reference/commands.md"
#: click wraps help at this width; wide enough for the option tables, narrow enough to
#: read without scrolling on a laptop.
WIDTH = 88


def _context(command: click.Command, name: str,
             parent: click.Context | None) -> click.Context:
    """The context click would build for ``command`` (its own settings, such as -h as
    well as --help), at a fixed width so the page does not depend on the terminal."""
    settings: dict[str, Any] = {"terminal_width": WIDTH, "max_content_width": WIDTH,
                                **command.context_settings}
    return click.Context(command, info_name=name, parent=parent, **settings)


def _commands(group: click.Group, parent: click.Context) -> list[click.Context]:
    """Every visible command under ``group``, depth first, in name order."""
    found = []
    for name in sorted(group.list_commands(parent)):
        command = group.get_command(parent, name)
        if command is None or command.hidden:
            continue
        context = _context(command, name, parent)
        found.append(context)
        if isinstance(command, click.Group):
            found.extend(_commands(command, context))
    return found


def command_reference() -> str:
    """The markdown for every visible command: a heading and its `--help`."""
    # Imported here, not at the top: MkDocs loads hooks before it has read the pages,
    # and a failure to import rgr should name this hook, not stop the config's parsing.
    from rgr.cli import cli

    top = _context(cli, "rgr", None)
    sections = [f"## `rgr`\n\n```text\n{cli.get_help(top)}\n```\n"]
    for context in _commands(cli, top):
        sections.append(f"## `{context.command_path}`\n\n"
                        f"```text\n{context.command.get_help(context)}\n```\n")
    return "\n".join(sections)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} lost its marker {MARKER!r}: the command reference "
                         "has nowhere to go")
    return markdown.replace(MARKER, command_reference())
