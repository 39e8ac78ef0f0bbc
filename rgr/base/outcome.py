"""What a command or a service did, as data: a command returns an ``Outcome[T]`` (``T``
the shape of its ``--json`` data) and the entry layer renders it once, as text for a
person or as JSON for a script (rgr.cli.main through rgr.base.render); `rgr serve` shows
the same text on its page. A service returns one instead of printing, so the CLI and the
web say the same thing and neither captures the other's console. What a command says
while it works (a banner before it asks, an integration's steps) goes through the
:data:`Say` it is handed, never to a terminal it opens itself.

Plain classes, not dataclasses: `rgr status` and `rgr show` build one on their fast read
path, which imports neither dataclasses nor typing: ``Outcome`` is generic for the type
checker only (at run time ``Outcome[T]`` is never subscripted: annotations are strings).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without typing's import (see rgr.base.proc)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Generic as _Generic
    from typing import TypeAlias, TypeVar

    T = TypeVar("T", covariant=True)
else:
    class _Generic:
        """``Generic`` for the type checker; at run time a plain base (no typing import)."""

        __slots__ = ()

        def __class_getitem__(cls, _item: object) -> type:
            return cls

    T = None


class Fields:
    """``key  value`` lines, keys aligned (and bold on a terminal): a view's fields. The
    values are shown as they are (they carry feature text and branch names)."""

    __slots__ = ("rows",)

    def __init__(self, rows: Iterable[tuple[str, str]]) -> None:
        self.rows = tuple(rows)

    def lines(self) -> list[str]:
        width = max((len(key) for key, _ in self.rows), default=0)
        return [f"{key:<{width}}  {value}" for key, value in self.rows]

    def __repr__(self) -> str:
        return f"Fields({self.rows!r})"


class Verbatim:
    """Lines written as they are, without rich: the fast read views (status, show) that
    never import it (rich costs ~50 ms of their start-up)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Verbatim({self.text!r})"


class Heading:
    """A line whose first part is bold on a terminal (``rgr doctor: <repository>``)."""

    __slots__ = ("bold", "rest")

    def __init__(self, bold: str, rest: str) -> None:
        self.bold = bold
        self.rest = rest

    def __repr__(self) -> str:
        return f"Heading({self.bold!r}, {self.rest!r})"




class Table:
    """A table with a title and named columns (``rgr refactor --plan-only``'s batches);
    every cell plain text."""

    __slots__ = ("columns", "rows", "title")

    def __init__(self, title: str, columns: Iterable[str],
                 rows: Iterable[Iterable[str]]) -> None:
        self.title = title
        self.columns = tuple(columns)
        self.rows = tuple(tuple(row) for row in rows)

    def __repr__(self) -> str:
        return f"Table({self.title!r}, {self.columns!r}, {self.rows!r})"


if TYPE_CHECKING:
    #: One item of a text a person reads.
    TextItem: TypeAlias = "str | Fields | Verbatim | Heading | Table"
    #: Where a command says something while it works (before it asks, as it integrates):
    #: the entry layer's choice of stream (stdout's console; stderr's under --json).
    Say: TypeAlias = "Callable[[TextItem], None]"


class Outcome(_Generic[T]):
    """``text``: what a person reads, as items (plain lines, never markup: they carry
    feature text and branch names; :class:`Fields`, :class:`Verbatim`, :class:`Heading`,
    :class:`Table`);
    ``data``: what ``--json`` prints (None: the outcome has no JSON form);
    ``rows``: ``data`` is a long list, printed one compact row a line;
    ``encoded``: ``data`` is given already encoded, as chunks of JSON bytes written one
    after the other as they come (``rgr history --json``: a million rows never held);
    ``exit_code``: the command's.

    ``text`` may be given as a function that makes it, called only when the text is
    read: a command whose text and JSON read the repository differently (``rgr history``:
    its table reads the newest rows, its JSON streams every one) pays only for the one
    rendered."""

    __slots__ = ("_make_text", "_text", "data", "encoded", "exit_code", "rows")

    def __init__(self, text: Iterable[TextItem] | Callable[[], Iterable[TextItem]] = (),
                 data: T | None = None, *, rows: bool = False,
                 encoded: Iterable[bytes] | None = None, exit_code: int = 0) -> None:
        self._text: tuple[TextItem, ...] | None = None
        self._make_text: Callable[[], Iterable[TextItem]] | None = None
        if callable(text):
            self._make_text = text
        else:
            self._text = tuple(text)
        self.data = data
        self.rows = rows
        self.encoded = encoded
        self.exit_code = exit_code

    @property
    def text(self) -> tuple[TextItem, ...]:
        if self._text is None:
            assert self._make_text is not None
            self._text = tuple(self._make_text())
        return self._text

    def plain_lines(self) -> list[str]:
        """The text as plain lines (the web's page shows them)."""
        out: list[str] = []
        for item in self.text:
            if isinstance(item, Fields):
                out += item.lines()
            elif isinstance(item, Verbatim):
                out += item.text.split("\n")
            elif isinstance(item, Heading):
                out.append(item.bold + item.rest)
            elif isinstance(item, Table):
                out += [item.title, "  ".join(item.columns),
                        *("  ".join(row) for row in item.rows)]
            else:
                out.append(item)
        return out

    def __repr__(self) -> str:
        return (f"Outcome(text={self.text!r}, data={self.data!r}, rows={self.rows!r}, "
                f"exit_code={self.exit_code!r})")
