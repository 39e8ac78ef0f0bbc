"""Each end-to-end test file's time budget, and the run's account against it.

The default run (the README's test command, what CI runs) must stay within 15 minutes on
two cores, and the slow part is tests/e2e: each file there has a budget in seconds in
``tests/e2e/budgets.toml`` (the time of its tests added up: setup, call and teardown, as
``--durations`` counts them). At the end of every run that ran e2e tests, pytest's summary
shows each file's time against its budget, and names the files over it loudly. It never
fails the run: a time depends on the machine and its load, and a timed test is a flaky
test. A file over its budget is sampled (``harness.sweep``) or split, never left silently
slower; a new e2e file needs a budget (tests/test_tiers.py checks that each has one).
"""

from __future__ import annotations

import time
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

BUDGETS_FILE = Path(__file__).resolve().parent / "e2e" / "budgets.toml"

#: A file within this share over its budget is noise of a loaded machine, not news.
SLACK = 0.25


def auto_workers(cores: int) -> int:
    """The xdist workers ``-n auto`` starts on ``cores`` cores: one and a half per core,
    at least one. The default run's tests spend part of their time waiting on other
    processes: one worker per core left two cores 17 % idle and took 905-975 s; three
    workers kept them 96-97 % busy (823-986 s, every test passing, against 905-975 s:
    this machine's speed varies); four were no faster (docs/performance.md, "Workers per
    core")."""
    return max(1, cores + cores // 2)


def budgets(path: Path = BUDGETS_FILE) -> dict[str, float]:
    """File name -> budget in seconds, from ``[budgets]`` of budgets.toml."""
    table = tomllib.loads(path.read_text())["budgets"]
    return {str(name): float(seconds) for name, seconds in table.items()}


class BudgetAccount:
    """A pytest plugin: the seconds each e2e file took in this run, written against its
    budget at the end. ``full_sweep``: the run does more than the budgets are for, so the
    times are listed, not judged. ``workers_per_core``: a budget is a file's time with
    one worker per core; with more, the workers share the cores and every test takes
    longer by about as much, so the budgets stretch by that share."""

    def __init__(self, full_sweep: bool = False, workers_per_core: float = 1.0) -> None:
        self.full_sweep = full_sweep
        self.stretch = max(1.0, workers_per_core)
        self.seconds: dict[str, float] = defaultdict(float)
        self.tests: dict[str, int] = defaultdict(int)
        #: Every test's seconds (not only e2e's), by the xdist worker that ran it ("" run
        #: without xdist): how evenly the workers were kept busy.
        self.busy: dict[str, float] = defaultdict(float)
        self.started = time.monotonic()

    def pytest_sessionstart(self) -> None:
        self.started = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        node = getattr(report, "node", None)
        worker = str(getattr(getattr(node, "gateway", None), "id", ""))
        self.busy[worker] += report.duration
        path = report.nodeid.split("::", 1)[0]
        if not path.startswith("tests/e2e/"):
            return
        name = path.rsplit("/", 1)[-1]
        self.seconds[name] += report.duration
        if report.when == "call":
            self.tests[name] += 1

    def lines(self, limits: dict[str, float], judged: bool = True) -> list[tuple[str, bool]]:
        """(line, over budget) for each file run, slowest first; ``judged`` false (a full
        sweep, which runs more than the budgets are for) only lists the times."""
        rows = []
        for name, spent in sorted(self.seconds.items(), key=lambda kv: -kv[1]):
            limit = limits.get(name)
            if limit is None:
                rows.append((f"{spent:7.1f} s  (no budget)  {name}: add one to "
                             f"{BUDGETS_FILE.name}", True))
                continue
            limit *= self.stretch
            over = judged and spent > limit * (1 + SLACK)
            flag = "  OVER BUDGET: sample or split it" if over else ""
            rows.append((f"{spent:7.1f} s of {limit:5.0f} s  {name} "
                         f"({self.tests[name]} tests){flag}", over))
        return rows

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.seconds:
            return
        terminal = terminalreporter
        stretched = f", stretched x{self.stretch:.2g}" if self.stretch > 1 else ""
        terminal.section(f"time per end-to-end file against its budget "
                         f"(tests/e2e/budgets.toml{stretched})")
        for line, over in self.lines(budgets(), judged=not self.full_sweep):
            terminal.write_line(line, red=over, bold=over)
        terminal.write_line(f"total {sum(self.seconds.values()):.0f} s of test time "
                            f"(on N workers the wall time is about 1/N of it)")
        terminal.write_line(self.balance(time.monotonic() - self.started))

    def balance(self, wall: float) -> str:
        """Every test's time, each worker's share of it and what the session's wall time
        left idle: the measure of how well the tests are spread over the workers
        (``SlowFirst`` orders them for it)."""
        total = sum(self.busy.values())
        workers = max(len(self.busy), 1)
        shares = ", ".join(f"{name or 'main'} {seconds:.0f} s"
                           for name, seconds in sorted(self.busy.items()))
        idle = max(wall * workers - total, 0.0)
        return (f"all tests: {total:.0f} s of test time ({shares}); {wall:.0f} s of wall "
                f"time on {workers} worker(s): {idle:.0f} s idle "
                f"({idle / max(wall * workers, 1e-9):.0%}: collection, start-up, an "
                f"uneven end)")


#: The order the tiers are handed out in: slowest first.
TIER_ORDER = ("e2e", "containers", "integration", "unit")


class SlowFirst:
    """A pytest plugin: the slow tiers first. xdist's ``loadgroup`` scheduler hands out
    the groups first (largest first), then each other test in the collection's order,
    which pytest-randomly shuffled: an end-to-end test of 20 s drawn last kept one worker
    busy while the other had nothing left. Handing out the end-to-end tests, then the
    process suites, then the unit tests ends the run on tests of a second or less, so
    both workers finish together. The order within a tier stays pytest-randomly's (its
    seed is printed and replays it), so order-dependent tests are still found."""

    @pytest.hookimpl(trylast=True)  # after pytest-randomly's shuffle and the tier markers
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=tier_rank)


def tier_rank(item: pytest.Item) -> int:
    """Where ``item``'s tier (its marker, given by tests/conftest.py) comes in TIER_ORDER;
    an item with none is a unit test."""
    for rank, tier in enumerate(TIER_ORDER):
        if item.get_closest_marker(tier) is not None:
            return rank
    return len(TIER_ORDER) - 1
