"""The one retry policy of a phase (tenacity), written once.

A rejected attempt is retried up to ``max_retries`` times, each in a fresh session
whose prompt carries the failure brief. Failures on the backend's side (rate limits,
overload, timeouts) wait 1 s, 2 s, 4 s ... first; a rejected piece of work is retried
at once. Anything that is not an AttemptRejected (a missing binary, a lost login, a
bug) stops the loop immediately.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from rgr.base import failpoints
from rgr.base.errors import BackendError
from rgr.check.violation import Violation

#: Backend failures no retry can fix: stop at once (resumably) and say what to do.
#: (A session stopped by its budget is an ordinary rejection: the run's budget limit,
#: checked before the next attempt, is what stops the run, with that reason.)
FATAL_BACKEND_KINDS = frozenset({"missing_binary", "not_logged_in"})


def is_fatal(error: BackendError) -> bool:
    """Stop the run rather than retry: the same request would fail the same way (a
    rejected key, a missing binary, a request the API refuses as malformed)."""
    return error.kind in FATAL_BACKEND_KINDS or (error.kind == "api_error"
                                                 and not error.retryable)


class AttemptRejected(Exception):
    """One attempt at a phase failed its checks; the branch is back at the base."""

    def __init__(self, violations: list[Violation], brief: str, backend_side: bool) -> None:
        super().__init__("; ".join(str(v) for v in violations))
        self.violations = violations
        self.brief = brief
        self.backend_side = backend_side


def backoff_seconds(base_s: float, attempt_number: int) -> float:
    """The wait after the ``attempt_number``-th attempt failed on the backend's side."""
    return float(base_s * 2 ** (attempt_number - 1))


def backoff_wait(base_s: float) -> Callable[[RetryCallState], float]:
    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, AttemptRejected) and error.backend_side:
            return backoff_seconds(base_s, state.attempt_number)
        return 0.0

    return wait


def _sleep(seconds: float) -> None:
    if seconds > 0:
        failpoints.hit("retry:backoff")
    time.sleep(seconds)


def phase_retrying(max_retries: int, backoff_base_s: float = 1.0) -> Retrying:
    return Retrying(
        retry=retry_if_exception_type(AttemptRejected),
        stop=stop_after_attempt(max_retries + 1),
        wait=backoff_wait(backoff_base_s),
        sleep=_sleep,
        reraise=True,
    )
