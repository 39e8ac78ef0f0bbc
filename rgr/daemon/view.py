"""What ``rgr daemon`` shows: on a terminal, one live row per worker (job, phase,
cycle, cost, last event) under the scrolling log; off a terminal, plain timestamped
lines, one per event."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table

from rgr.base.ui import esc, make_console


def stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


@dataclass
class Row:
    job: int | None = None
    feature: str = ""
    phase: str | None = None
    cycle: int | None = None
    cost: float = 0.0
    last: str = "starting"


class DaemonView:
    def __init__(self, workers: int, console: Console | None = None,
                 live: bool | None = None) -> None:
        self.console = console or make_console()
        self.rows = {n: Row() for n in range(1, workers + 1)}
        self.lock = threading.Lock()
        self.live_mode = self.console.is_terminal if live is None else live
        self._live: Live | None = None

    def __enter__(self) -> DaemonView:
        if self.live_mode:
            self._live = Live(get_renderable=self._render, console=self.console,
                              refresh_per_second=4, transient=False, redirect_stdout=False,
                              redirect_stderr=False)
            self._live.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def say(self, message: str) -> None:
        """A daemon-level line (not tied to a worker)."""
        self.console.print(f"{stamp()} {esc(message)}")
        self.console.file.flush()  # a pipe or a log file sees each line when it happens

    def report(self, worker: int, message: str, live_only: bool = False,
               outcome: bool = False, **fields: Any) -> None:
        """A worker's event; ``live_only`` ones (each tool call) update the live row
        and are not printed as plain lines. An ``outcome`` (a job complete, failed or in
        need of attention, with why) is printed above the live rows too: the row's next
        event would overwrite it, and it is what a person at the terminal must see."""
        with self.lock:
            row = self.rows.setdefault(worker, Row())
            if "job" in fields:
                if fields["job"] != row.job:
                    row.phase, row.cycle, row.cost = None, None, 0.0
                row.job = fields["job"]
                if row.job is None:
                    row.feature = ""
            row.feature = str(fields.get("feature", row.feature))
            row.phase = fields.get("phase", row.phase)
            row.cycle = fields.get("cycle", row.cycle)
            row.cost = float(fields.get("cost", row.cost) or 0.0)
            row.last = message
        if (self._live is None and not live_only) or outcome:
            self.console.print(f"{stamp()} worker {worker}: {esc(message)}")
            self.console.file.flush()

    def _render(self) -> Table:
        table = Table(title="rgr daemon", expand=False)
        for column in ("worker", "job", "feature", "phase", "cycle", "cost",
                       "last tool call / event"):
            table.add_column(column)
        with self.lock:
            for n, row in sorted(self.rows.items()):
                table.add_row(str(n), str(row.job or "-"), esc(row.feature[:40]),
                              row.phase or "-", str(row.cycle or "-"),
                              f"${row.cost:.4f}", esc(row.last[:60]))
        return table
