"""What running an agent CLI is the same for every backend: the process itself (its
stream read line by line, or waited on), an executable that cannot be started named with
the folders searched, a session past its timeout, a throwaway home per call, and the
oldest version rgr accepts.

Each backend keeps what is its own (its argv, its settings, its stream's events); these
pieces were written once per backend before, and a fix to one copy missed the others.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.backends import locate
from rgr.backends.base import AgentRunError
from rgr.base.errors import BackendError, CommandError
from rgr.base.proc import Completed, run, run_lines

if TYPE_CHECKING:
    from rgr.backends.base import AgentRequest
    from rgr.base.proc import Launcher

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def run_cli(cli: str, binary: str, argv: list[str], *, cwd: Path, timeout: float,
            env: Mapping[str, str], install_hint: str, stdin_data: str | None = None,
            on_line: Callable[[str], None] | None = None,
            on_start: Callable[[], None] | None = None,
            launcher: Launcher | None = None) -> Completed:
    """Runs one call of the CLI named ``cli``. A session's stream goes to ``on_line`` as
    it arrives; version and login checks just wait. An executable that cannot be started
    is ``missing_binary``, naming where it was looked for."""
    try:
        if on_line is None:
            return run(argv, cwd=cwd, timeout=timeout, env=env, stdin_data=stdin_data,
                       on_start=on_start, launcher=launcher)
        return run_lines(argv, cwd=cwd, timeout=timeout, env=env, stdin_data=stdin_data,
                         on_line=on_line, on_start=on_start, launcher=launcher)
    except CommandError as exc:
        where = exc.message if "/" in binary else locate.searched(binary, env)
        raise BackendError("missing_binary", f"cannot run {cli} ({binary!r}): {where}",
                           install_hint) from exc


def session_timed_out(cli: str, request: AgentRequest,
                      hint: str = "raise the phase timeout in tdd.toml if the agent "
                                  "needs longer") -> BackendError:
    """The error for a session killed at its timeout: retryable, since nothing it did
    in the time it had is trusted or kept."""
    return BackendError(
        "timeout", f"{cli} session {request.session_id} did not finish within "
        f"{request.timeout_s:g}s; it and its tool processes were killed", hint,
        retryable=True)


def require_version(text: str, *, cli: str, package: str,
                    minimum: tuple[int, int, int], update: str) -> str:
    """``text`` (the CLI's ``--version``) when it names ``minimum`` or newer; otherwise
    ``unsupported_version`` with the command that updates it."""
    found = _VERSION.search(text)
    if found is None or tuple(int(g) for g in found.groups()) < minimum:
        raise BackendError("unsupported_version",
                           f"{cli} reports {text!r}; rgr needs {package} >= "
                           f"{'.'.join(map(str, minimum))}", f"update it: `{update}`")
    return text


def probe_login(run_session: Callable[[AgentRequest], object],
                request: AgentRequest) -> None:
    """Runs one trivial session to prove the key and the API work: any answer at all
    does; no key, an API error or no answer in time is said as what it is."""
    try:
        run_session(request)
    except AgentRunError as exc:
        if exc.kind in ("not_logged_in", "api_error", "timeout"):
            raise BackendError(exc.kind, exc.message, exc.hint,
                               retryable=exc.retryable) from None


class ThrowawayHome:
    """A folder of the CLI's own for one call (its config, sessions and caches), made in
    ``parent`` (the run's TMPDIR) and removed after: nothing of the user's is read,
    nothing is left behind. ``fixed``: a folder the caller keeps, used as it is."""

    def __init__(self, prefix: str, parent: str | None, fixed: Path | None = None) -> None:
        self.prefix = prefix
        self.parent = parent
        self.fixed = fixed
        self.path: Path | None = None

    def __enter__(self) -> Path:
        if self.fixed is not None:
            self.fixed.mkdir(parents=True, exist_ok=True)
            return self.fixed
        self.path = Path(tempfile.mkdtemp(prefix=self.prefix, dir=self.parent))
        return self.path

    def __exit__(self, *exc: object) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
