"""What a person watching ``rgr run``/``rgr resume`` sees.

Two views of the same events (rgr.observe.events) and progress messages:

- ``LiveView`` when stdout is a terminal: a rich Live panel at the bottom (phase,
  cycle, test, attempt, elapsed time of the phase and of the run, cost and tokens so
  far, the agent's turns and tool calls as they happen, the last test result), with
  finished phases and messages scrolling above it;
- ``PlainView`` otherwise (CI, a pipe, a file): plain timestamped lines, no spinner,
  no cursor movement, no colour.

Verbosity: ``QUIET`` shows phase results, rejections, limits and the end; ``NORMAL``
adds rgr's progress messages, every tool call and API retry; ``VERBOSE`` adds the
agent's text, tool errors and per-session token counts.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from types import TracebackType
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from rgr.base.backend_names import DEFAULT
from rgr.base.ui import make_console
from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    Event,
    GuardVerdict,
    LimitStopped,
    PhaseDone,
    PhaseStarted,
    Retry,
    TestRun,
    Where,
)
from rgr.observe.stream import (
    ApiRetry,
    SessionStarted,
    StreamLine,
    ToolResults,
    ToolUse,
    Turn,
    Unparsed,
    refused_edits,
)

QUIET, NORMAL, VERBOSE = 0, 1, 2
#: A line only -q shows (at higher levels a progress message already says it).
QUIET_ONLY = -1

#: The orchestrator's "noted" message, which the phase_done line repeats with figures.
NOTED_MESSAGE = re.compile(r"^cycle \d+ \w+: verified and noted on ")

#: Progress messages the live panel shows in place, instead of scrolling them.
PANEL_MESSAGES = re.compile(
    r"^(cycle \d+ \w+: (agent session \w+ running|\w+ starts|verified and noted .*)"
    r"|running tests: .*|tests: .*)$")

#: Tool calls kept in the live panel.
LIVE_TOOL_LINES = 8


def describe_tool(name: str, args: object) -> str:
    """One short line for a tool call: the file, command or pattern it works on."""
    if not isinstance(args, dict):
        return name
    for key in ("file_path", "command", "pattern", "path", "url"):
        value = args.get(key)
        if isinstance(value, str) and value:
            first = value.strip().splitlines()[0] if value.strip() else value
            return f"{name} {_clip(first, 90)}"
    if name == "StructuredOutput":
        return f"{name} {_clip(_compact(args), 90)}"
    return name


def _compact(data: object) -> str:
    import json

    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else \
        f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class _Tally:
    """Running totals shared by both views."""

    def __init__(self) -> None:
        self.cost = 0.0
        self.input_tokens = 0
        self.output_tokens = 0
        self.sessions = 0
        self.retries = 0
        self.rejections = 0
        self.refused_edits = 0
        self.phase_cost = 0.0
        self.phase_turns = 0
        self.uncosted = 0  # sessions whose backend reports no cost
        self.phase_uncosted = 0
        #: The backends (their registry names, as each session's event carries them)
        #: that reported tokens but no cost.
        self.uncosted_backends: list[str] = []

    def add(self, event: Event) -> None:
        match event:
            case PhaseStarted():
                self.phase_cost, self.phase_turns, self.phase_uncosted = 0.0, 0, 0
            case AgentCalled():
                self.sessions += 1
                if event.cost_usd is None:
                    self.uncosted += 1
                    self.phase_uncosted += 1
                    name = event.backend or "the backend"
                    if name not in self.uncosted_backends:
                        self.uncosted_backends.append(name)
                self.cost += event.cost_usd or 0.0
                self.phase_cost += event.cost_usd or 0.0
                self.phase_turns += event.num_turns
                self.input_tokens += event.input_tokens
                self.output_tokens += event.output_tokens
            case Retry():
                self.retries += 1
            case GuardVerdict(ok=False):
                self.rejections += 1
            case AgentStreamed(line=line):
                self.refused_edits += refused_edits(line)

    def line(self) -> str:
        names = self.uncosted_backends
        uncosted = (f" ({self.uncosted} without a cost: {', '.join(names)} "
                    f"report{'s' if len(names) == 1 else ''} tokens only)"
                    if self.uncosted else "")
        return (f"${self.cost:.4f}, {self.sessions} agent session(s){uncosted}, "
                f"{_tokens(self.input_tokens)} tokens in / {_tokens(self.output_tokens)} out, "
                f"{self.retries} retr{'y' if self.retries == 1 else 'ies'}, "
                f"{self.rejections} rejected attempt(s), "
                f"{self.refused_edits} edit(s) refused before the fact")


#: Tool-call lines, which the live panel shows itself (and logs only with -v).
TOOL_LINE = " ▸ "


def agent_lines(where: str, line: StreamLine, turn: int) -> list[tuple[int, str]]:
    """(minimum verbosity, text) lines for one line of the agent's stream."""
    out: list[tuple[int, str]] = []
    match line:
        case Turn(blocks=blocks):
            for block in blocks:
                if isinstance(block, ToolUse):
                    out.append((NORMAL, f"{where}:{TOOL_LINE}turn {turn} "
                                        f"{describe_tool(block.name, block.input)}"))
                elif block.text.strip():
                    text = " ".join(block.text.split())
                    out.append((VERBOSE, f"{where}: turn {turn} says: {_clip(text, 160)}"))
        case ToolResults(results=results):
            for result in results:
                if result.is_error:
                    content = result.content
                    text = content if isinstance(content, str) else _compact(content)
                    out.append((VERBOSE, f"{where}: tool error: "
                                         f"{_clip(' '.join(text.split()), 160)}"))
        case ApiRetry():
            delay = float(line.retry_delay_ms or 0) / 1000  # type: ignore[arg-type]
            status = line.error_status or line.error or "error"
            wait = f" in {delay:.1f}s" if line.retry_delay_ms is not None else ""
            out.append((NORMAL, f"{where}: API {status}, {line.backend or DEFAULT} retries "
                                f"({line.attempt}/{line.max_retries}){wait}"))
        case SessionStarted(model=model, backend=backend):
            said = f" (model {model})" if model else ""
            out.append((VERBOSE, f"{where}: {backend or DEFAULT} session started{said}"))
        case Unparsed(line=text):
            out.append((VERBOSE, f"{where}: {_clip(str(text), 160)}"))
    return out


def _where(where: Where) -> str:
    return f"cycle {where.cycle} {where.phase}"


def event_lines(event: Event, tally: _Tally) -> list[tuple[int, str]]:
    """Lines for rgr's own events (not the agent's stream)."""
    match event:
        case AgentCalled(where=where):
            who = " ".join(p for p in (event.backend, event.model) if p)
            outcome = "done" if event.ok else f"failed ({event.error_kind})"
            text = (f"{_where(where)}: {who + ' ' if who else ''}session "
                    f"{where.session_id[:8]} {outcome} in {event.duration_ms / 1000:.1f}s, "
                    f"{event.num_turns} turns, "
                    + ("cost not reported, " if event.cost_usd is None
                       else f"${event.cost_usd:.4f}, ")
                    + f"{_tokens(event.input_tokens)} in / {_tokens(event.output_tokens)} out")
            return [(VERBOSE, text)]
        case GuardVerdict(where=where, ok=False, violations=violations):
            rule, message = ((violations[0]["rule"], violations[0]["message"]) if violations
                             else (None, None))
            return [(QUIET_ONLY, f"{_where(where)}: rejected: {rule}: "
                                 f"{_clip(str(message), 200)}")]
        case PhaseDone():
            after = ("feature complete" if event.complete else f"next: {event.next_phase}")
            return [(QUIET, f"cycle {event.cycle} {event.phase}: ✓ verified "
                            f"{event.commit[:8]} in {event.duration_s:.1f}s, "
                            + (f"${tally.phase_cost:.4f}, " if not tally.phase_uncosted
                               else "cost not reported, ")
                            + f"{tally.phase_turns} turns"
                            + (f", {event.attempts} attempts" if event.attempts > 1 else "")
                            + f" ({after}); so far ${tally.cost:.4f}")]
        case LimitStopped(message=message):
            return [(QUIET, f"limit reached: {message}")]
    return []


class PlainView:
    """Timestamped lines, one per thing that happened; for logs and pipes."""

    def __init__(self, verbosity: int = NORMAL, console: Console | None = None) -> None:
        self.verbosity = verbosity
        self.console = console or make_console()
        self.tally = _Tally()
        self._turns: dict[str, int] = {}

    def __enter__(self) -> PlainView:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        pass

    def line(self, text: str) -> None:
        stamp = datetime.now().strftime("%H:%M:%S")
        self.console.print(f"{stamp} {text}", markup=False, highlight=False)

    def __call__(self, message: str) -> None:
        """rgr's progress messages (the orchestrator's ``report``). The note line is
        said again, with figures, by the ``phase_done`` event: shown only with -v."""
        if self.verbosity >= VERBOSE or (self.verbosity >= NORMAL
                                         and not NOTED_MESSAGE.match(message)):
            self.line(message)

    def always(self, message: str) -> None:
        self.line(message)

    def emit(self, event: Event) -> None:
        self.tally.add(event)
        for level, text in self._lines(event):
            if self.shows(level):
                self.line(text)

    def shows(self, level: int) -> bool:
        return self.verbosity == QUIET if level == QUIET_ONLY else self.verbosity >= level

    def _lines(self, event: Event) -> list[tuple[int, str]]:
        if isinstance(event, AgentStreamed):
            line, session = event.line, event.where.session_id
            if isinstance(line, Turn):
                self._turns[session] = self._turns.get(session, 0) + 1
            return agent_lines(_where(event.where), line, self._turns.get(session, 0))
        return event_lines(event, self.tally)


class LiveView(PlainView):
    """A rich Live panel under the scrolling log, for a terminal."""

    def __init__(self, verbosity: int = NORMAL, console: Console | None = None,
                 title: str = "rgr", limits: dict[str, Any] | None = None) -> None:
        super().__init__(verbosity, console)
        self.title = title
        self.limits = limits or {}
        self.started = time.monotonic()
        self.phase: PhaseStarted | None = None
        self.phase_started = 0.0
        self.attempt = 1
        self.tools: list[str] = []
        self.activity = "starting"
        self.last_tests = "-"
        self.done_phases = 0
        self._live: Live | None = None

    def __enter__(self) -> LiveView:
        self._live = Live(get_renderable=self._render, console=self.console,
                          refresh_per_second=8, transient=True, redirect_stdout=False,
                          redirect_stderr=False)
        self._live.start()
        return self

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def line(self, text: str) -> None:
        stamp = datetime.now().strftime("%H:%M:%S")
        self.console.print(Text.assemble((stamp, "dim"), " ", text))

    def emit(self, event: Event) -> None:
        match event:
            case PhaseStarted():
                self.phase = event
                self.phase_started = time.monotonic()
                self.attempt = 1
                self.tools = []
                self.activity = f"{event.agent} starting"
            case AttemptStarted(where=where):
                self.attempt = where.attempt
                self.tools = []
                self.activity = (f"{event.backend or 'agent'} session {where.session_id[:8]}"
                                 + (f" ({event.model})" if event.model else "")
                                 + " thinking")
            case AgentStreamed(where=where, line=line):
                self._watch_stream(where, line)
            case AgentCalled():
                self.activity = "checking the commit"
            case TestRun():
                self.last_tests = (f"{event.passed} passed, {event.failed} failed, "
                                   f"{event.errors} errors ({event.duration_s:.1f}s)")
            case PhaseDone():
                self.done_phases += 1
                self.activity = "verified"
            case Retry():  # rgr's own retry (the CLI's API retries are stream lines)
                self.activity = "retrying"
        # Lines for the scrolling log; tool calls only show in the panel unless -v.
        self.tally.add(event)
        for level, text in self._lines(event):
            if TOOL_LINE in text and self.verbosity < VERBOSE:
                continue
            if self.shows(level):
                self.line(text)

    def _watch_stream(self, where: Where, line: StreamLine) -> None:
        match line:
            case Turn():
                turn = self._turns.get(where.session_id, 0) + 1
                self.tools += [f"turn {turn}  " + describe_tool(call.name, call.input)
                               for call in line.tool_calls]
                self.activity = "running a tool"
            case ToolResults():
                self.activity = "thinking"
            case ApiRetry():
                self.activity = (f"API {line.error_status or line.error}: "
                                 f"{line.backend or DEFAULT} retries "
                                 f"({line.attempt}/{line.max_retries})")

    def __call__(self, message: str) -> None:
        # What the panel shows itself (the phase starting, the session, the test run)
        # scrolls only with -v.
        if self.verbosity >= VERBOSE or (self.verbosity >= NORMAL
                                         and not PANEL_MESSAGES.match(message)):
            self.line(message)

    def _render(self) -> RenderableType:
        now = time.monotonic()
        head = Table.grid(padding=(0, 2))
        head.add_column(style="bold")
        head.add_column()
        if self.phase is not None:
            test = self.phase.current_test
            head.add_row(
                f"cycle {self.phase.cycle} · {self.phase.phase}",
                f"{self.phase.agent}  attempt {self.attempt}  "
                f"phase {_clock(now - self.phase_started)}"
                + (f"  test: {test}" if test else ""))
        else:
            head.add_row("rgr", "preparing")
        budget = self.limits.get("maxBudgetUsd")
        cost = f"${self.tally.cost:.4f}" + (f" of ${budget:.2f}" if budget else "")
        head.add_row("run", f"{_clock(now - self.started)}  {self.done_phases} phase(s) done  "
                            f"cost {cost}  tokens {_tokens(self.tally.input_tokens)} in / "
                            f"{_tokens(self.tally.output_tokens)} out")
        head.add_row("tests", self.last_tests)
        tools = Table.grid(padding=(0, 1))
        tools.add_column()
        for entry in self.tools[-LIVE_TOOL_LINES:]:
            tools.add_row(Text(f"  {_clip(entry, 110)}", style="cyan"))
        spinner = Spinner("dots", text=Text(self.activity, style="yellow"))
        return Group(Text(_clip(self.title, 118), style="bold"), head, tools, spinner)


def make_view(verbosity: int, title: str = "rgr", limits: dict[str, Any] | None = None,
              console: Console | None = None) -> PlainView:
    """A LiveView on a terminal, a PlainView anywhere else."""
    console = console or make_console()
    if console.is_terminal and not console.is_dumb_terminal:
        return LiveView(verbosity, console, title=title, limits=limits)
    return PlainView(verbosity, console)
