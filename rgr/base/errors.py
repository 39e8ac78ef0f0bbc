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
    #: An agent said its task cannot be done honestly: the run waits for a person.
    NEEDS_ATTENTION = 4
    INTERRUPTED = 130  # Ctrl-C


#: The ``kind`` of the ``{"error": {...}}`` object a command prints with ``--json``: the
#: one set of them, each documented here and in docs/reference/commands.md (a test holds the two
#: together). Every RgrError class names its kind in ``category``; a script tells
#: failures apart by it, and the message and hint say the rest.
ERROR_KINDS: dict[str, str] = {
    "usage": "a bad flag or argument (exit 2)",
    "config": "tdd.toml, .rgr/ or a TDD_* variable holds something rgr cannot use",
    "repository": "the repository is not in a state rgr can work on: not a repository, "
                  "no commit, a detached HEAD, uncommitted changes, an unknown revision "
                  "or branch, a red baseline",
    "not-a-terminal": "rgr would ask before going on, and stdin is not a terminal: pass --yes",
    "locked": "another rgr process holds this repository's lock",
    "notes": "the handoff notes cannot be read or written",
    "command": "a program rgr runs (git, the test runner) could not start or timed out",
    "backend": "the agent CLI is missing, not logged in, or failed",
    "sandbox": "the sandbox (bubblewrap) cannot be used",
    "phase": "an agent's work was refused until its attempts ran out; `rgr resume` goes on",
    "needs-attention": "an agent said its task cannot be done honestly (exit 4): the "
                       "message gives its reason; a person decides, then `rgr resume`",
    "limit": "a limit (--max-budget-usd, --max-cycles, --max-minutes) was reached",
    "queue": "the daemon's queue cannot change as asked",
    "remote": "the shared remote cannot be reached or refused an update",
    "integrate": "merging or opening the pull request failed",
    "demo": "rgr demo cannot start or its replay went off its script",
    "error": "any other expected failure: the message says what",
    "internal": "a bug in rgr (exit 3): the hint names the crash log",
}


class RgrError(Exception):
    """An expected failure. ``message`` says what went wrong, ``hint`` how to fix it."""

    exit_code: int = ExitCode.ERROR
    #: Its kind in ``--json`` errors: a key of ERROR_KINDS.
    category: str = "error"

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  fix: {self.hint}"


class BadUsage(RgrError):
    """A bad flag or argument, found by rgr rather than by click (an empty feature,
    --branch with --here). The entry layer shows it as click shows its own: the command's
    usage line, ``Error: <message>``, exit 2; below the entry nothing imports click."""

    category = "usage"
    exit_code = ExitCode.USAGE


class ConfigError(RgrError):
    """tdd.toml or the environment holds something rgr cannot use."""

    category = "config"


class RepositoryError(RgrError):
    """The repository is not in a state rgr can work on (not a repo, bare, dirty, ...)."""

    category = "repository"


class NotesError(RgrError):
    """The handoff notes ref cannot be read or written."""

    category = "notes"


class LockedError(RgrError):
    """Another rgr process holds the repository's run lock."""

    category = "locked"


class CommandError(RgrError):
    """A subprocess rgr depends on failed to start or timed out."""

    category = "command"


class BackendError(RgrError):
    """The agent backend failed. ``kind`` classifies it; ``retryable`` drives the retry policy."""

    category = "backend"  # ``kind`` is the backend's own finer classification

    def __init__(
        self, kind: str, message: str, hint: str | None = None, *, retryable: bool = False
    ) -> None:
        super().__init__(message, hint)
        self.kind = kind
        self.retryable = retryable


class PhaseFailed(RgrError):
    """A phase exhausted its retries; the state is recorded and ``rgr resume`` can go on."""

    category = "phase"


class NeedsAttention(RgrError):
    """An agent took the honest way out: its task cannot be done honestly, it says why.
    The run stops with no further attempt; the reason is on the last verified commit's
    note, and ``rgr resume`` tries the same phase again once a person has looked."""

    category = "needs-attention"
    exit_code = ExitCode.NEEDS_ATTENTION


class NeedsConfirmation(RgrError):
    """rgr would ask before going on, and there is nobody to ask (stdin is no terminal)."""

    category = "not-a-terminal"
