"""The RgrError hierarchy: every expected failure, with the fix, and its exit code.

Anything raised that is not an RgrError is a bug: the top-level handler in
``rgr.cli`` turns it into exit code 3 and a crash log.
"""

from __future__ import annotations


class ExitCode:
    OK = 0
    ERROR = 1  # an expected failure: bad input, a refused precondition, a failed phase
    USAGE = 2  # click's own code for a bad flag or argument
    CRASH = 3  # a bug in rgr: a crash log was written
    INTERRUPTED = 130  # Ctrl-C


class RgrError(Exception):
    """An expected failure. ``message`` says what went wrong, ``hint`` how to fix it."""

    exit_code: int = ExitCode.ERROR

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  fix: {self.hint}"


class ConfigError(RgrError):
    """tdd.toml or the environment holds something rgr cannot use."""


class RepositoryError(RgrError):
    """The repository is not in a state rgr can work on (not a repo, bare, dirty, ...)."""


class NotesError(RgrError):
    """The handoff notes ref cannot be read or written."""


class LockedError(RgrError):
    """Another rgr process holds the repository's run lock."""


class CommandError(RgrError):
    """A subprocess rgr depends on failed to start or timed out."""


class BackendError(RgrError):
    """The agent backend failed. ``kind`` classifies it; ``retryable`` drives the retry policy."""

    def __init__(
        self, kind: str, message: str, hint: str | None = None, *, retryable: bool = False
    ) -> None:
        super().__init__(message, hint)
        self.kind = kind
        self.retryable = retryable


class PhaseFailed(RgrError):
    """A phase exhausted its retries; the state is recorded and ``rgr resume`` can go on."""
