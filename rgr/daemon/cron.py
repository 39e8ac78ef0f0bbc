"""Five-field cron expressions (minute hour day-of-month month day-of-week) for
``rgr queue add --every``: ``*``, lists, ranges and steps, as crontab(5) reads them,
in local time. Day-of-month and day-of-week, when both are restricted, match either
(crontab's own rule)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from rgr.daemon.queue import QueueError

_FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31),
           ("month", 1, 12), ("day of week", 0, 7))


@dataclass(frozen=True)
class Cron:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday (7 is read as 0)
    any_day: bool
    any_weekday: bool

    def matches_day(self, when: datetime) -> bool:
        dom = when.day in self.days
        dow = (when.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return dom and dow
        return dom or dow

    def next_after(self, after: datetime) -> datetime:
        """The first firing strictly after ``after``."""
        start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for _ in range(366 * 5):
            if day.month in self.months and self.matches_day(day):
                for hour in sorted(self.hours):
                    for minute in sorted(self.minutes):
                        when = day.replace(hour=hour, minute=minute)
                        if when >= start:
                            return when
            day += timedelta(days=1)
        raise QueueError("the --every schedule never fires (a date that does not exist?)")


def _field(text: str, name: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        body, _, step_text = part.partition("/")
        step = _number(step_text, name) if step_text else 1
        if step < 1:
            raise QueueError(f"--every: the step in the {name} field must be at least 1")
        if body == "*":
            first, last = low, high
        elif "-" in body:
            a, _, b = body.partition("-")
            first, last = _number(a, name), _number(b, name)
        else:
            first = _number(body, name)
            last = high if step_text else first
        if not (low <= first <= high and low <= last <= high and first <= last):
            raise QueueError(f"--every: {part!r} is out of range for the {name} field "
                             f"({low}-{high})")
        values.update(range(first, last + 1, step))
    return frozenset(values)


def _number(text: str, name: str) -> int:
    if not text.isdigit():
        raise QueueError(f"--every: {text!r} is not a number in the {name} field",
                         'write five fields, e.g. "0 2 * * *" for 02:00 every day')
    return int(text)


def parse(expression: str) -> Cron:
    parts = expression.split()
    if len(parts) != 5:
        raise QueueError(f"--every {expression!r}: a cron expression has 5 fields "
                         "(minute hour day-of-month month day-of-week)",
                         'e.g. "0 2 * * *" for 02:00 every day')
    fields = [_field(p, name, low, high)
              for p, (name, low, high) in zip(parts, _FIELDS, strict=True)]
    weekdays = frozenset(d % 7 for d in fields[4])
    return Cron(fields[0], fields[1], fields[2], fields[3], weekdays,
                any_day=parts[2] == "*", any_weekday=parts[4] == "*")
