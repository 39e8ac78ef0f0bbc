"""What a command or a service did, as data: rendered once, by the entry layer, as text
for a person or as JSON for a script (rgr.commands.common.emit); `rgr serve` shows the
same text on its page. A service returns one instead of printing, so the CLI and the web
say the same thing and neither captures the other's console.

A plain class, not a dataclass: `rgr status` and `rgr show` build one on their fast read
path, which imports neither dataclasses nor typing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from collections.abc import Iterable


class Outcome:
    """``text``: plain lines for a person (never markup: they carry feature text and
    branch names); ``data``: what ``--json`` prints (None: the outcome has no JSON form);
    ``rows``: ``data`` is a long list, printed one compact row a line;
    ``exit_code``: the command's."""

    __slots__ = ("data", "exit_code", "rows", "text")

    def __init__(self, text: Iterable[str] = (), data: object = None, *, rows: bool = False,
                 exit_code: int = 0) -> None:
        self.text = tuple(text)
        self.data = data
        self.rows = rows
        self.exit_code = exit_code

    def __repr__(self) -> str:
        return (f"Outcome(text={self.text!r}, data={self.data!r}, rows={self.rows!r}, "
                f"exit_code={self.exit_code!r})")
